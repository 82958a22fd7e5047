"""The table's signing key: an exported match proves which table wrote it, and that it is whole.

A hash chain shows that no record inside a log was changed, but a log cut
short after any record is still a valid chain. So each table has its own
Ed25519 key (through `cryptography`, rather than our own crypto), made at
first start in its data folder (`table-key.pem`, mode 0600), and an export
carries the table's signature over the match id, the record count and the
head hash. `knapp verify` checks the signature and prints the key's
fingerprint, which the review page shows too, so whoever checks a bundle
compares it with the table's.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from controller.errors import KnappError
from controller.store import canonical_json

KEY_FILE = "table-key.pem"
STATEMENT_FORMAT = "knapp-signed-head/1"


class SigningError(KnappError, ValueError):
    """A table key is missing or unreadable, or a signature does not hold."""


def fingerprint(public_raw: bytes) -> str:
    """A key's fingerprint as OpenSSH prints one: SHA256 and unpadded base64."""
    digest = base64.b64encode(hashlib.sha256(public_raw).digest()).decode().rstrip("=")
    return f"SHA256:{digest}"


def statement(match_id: str, records: int, head: str) -> dict[str, Any]:
    """What a table signs for an exported match."""
    return {"format": STATEMENT_FORMAT, "match_id": match_id, "records": records, "head": head}


class TableKey:
    """One table's Ed25519 key.

    Args:
        key: the private key.
    """

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.public_raw = key.public_key().public_bytes(serialization.Encoding.Raw,
                                                        serialization.PublicFormat.Raw)

    @property
    def fingerprint(self) -> str:
        """The public key's fingerprint (`SHA256:...`)."""
        return fingerprint(self.public_raw)

    @classmethod
    def load(cls, data_dir: Path) -> TableKey:
        """The table's key from its data folder.

        Raises:
            SigningError: there is none, or it cannot be read.
        """
        path = data_dir / KEY_FILE
        try:
            key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except FileNotFoundError:
            raise SigningError(f"{path}: no table key (the table service makes it at its "
                               "first start)") from None
        except OSError as exc:
            raise SigningError(f"{path}: cannot read the table key "
                               f"({exc.strerror or exc})") from exc
        except ValueError as exc:
            raise SigningError(f"{path}: not a table key ({exc})") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise SigningError(f"{path}: not an Ed25519 key")
        return cls(key)

    @classmethod
    def load_or_create(cls, data_dir: Path) -> TableKey:
        """The table's key, made (readable by its owner only) when there is none yet."""
        path = data_dir / KEY_FILE
        if not path.exists():
            key = Ed25519PrivateKey.generate()
            pem = key.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
            try:
                data_dir.mkdir(parents=True, exist_ok=True)
                # O_EXCL: two first starts at once must not write two keys.
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                return cls.load(data_dir)
            except OSError as exc:
                raise SigningError(f"{path}: cannot make the table key "
                                   f"({exc.strerror or exc})") from exc
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
                f.flush()
                os.fsync(f.fileno())
            return cls(key)
        return cls.load(data_dir)

    def sign_bytes(self, data: bytes) -> bytes:
        """A raw Ed25519 signature over `data` (the fleet signs each published record)."""
        return self._key.sign(data)

    def sign(self, match_id: str, records: int, head: str) -> dict[str, Any]:
        """The signed statement for an export: the statement, signature and public key."""
        body = statement(match_id, records, head)
        signature = self._key.sign(canonical_json(body).encode())
        return {"statement": body, "signature": base64.b64encode(signature).decode(),
                "public_key": base64.b64encode(self.public_raw).decode(),
                "fingerprint": self.fingerprint}


def check_signed(signed: Any, match_id: str, records: int, head: str) -> str:
    """Check an export's signature against the records it came with; return the fingerprint.

    Raises:
        SigningError: naming what does not hold (a cut log says how many records are gone).
    """
    if not isinstance(signed, dict):
        raise SigningError("the export is not signed by a table (no table signature)")
    try:
        body = signed["statement"]
        raw = base64.b64decode(signed["public_key"], validate=True)
        signature = base64.b64decode(signed["signature"], validate=True)
        public = Ed25519PublicKey.from_public_bytes(raw)
    except (KeyError, TypeError, ValueError) as exc:
        raise SigningError(f"the table signature is malformed ({exc})") from exc
    try:
        public.verify(signature, canonical_json(body).encode())
    except InvalidSignature:
        raise SigningError("the table signature does not match what it signs "
                           "(statement or key replaced)") from None
    if body != statement(match_id, records, head):
        signed_n = body.get("records") if isinstance(body, dict) else None
        if isinstance(signed_n, int) and signed_n != records:
            raise SigningError(f"the table signed {signed_n} records but the log holds "
                               f"{records}: records were cut from it or added")
        raise SigningError("the table signed another match or another head hash")
    return fingerprint(raw)
