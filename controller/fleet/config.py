"""The `[fleet]` section of the table file, and the café service's own file.

Imports nothing but the standard library and `controller.settings`: the table
file's loader reads `[fleet]` through this module, and `import controller`
must not load paho-mqtt or psycopg.

Table side (every key but `broker` and `table` optional)::

    [fleet]
    broker = "mqtts://cafe-server.local:8883"   # mqtt://host[:1883] or mqtts://host[:8883]
    table = "corner"              # this table's id: a-z, 0-9 and '-', up to 32
    username = "corner"           # default: the table id (the broker's ACL keys on it)
    password_file = "fleet.password"  # relative to this file; one line, the password
    ca_file = "cafe-ca.pem"       # mqtts: the CA that signed the broker's certificate
    cert_file = ""                # mqtts with client certificates (optional)
    key_file = ""
    window = 500                  # records published and not yet confirmed by the café
    resend_after_s = 30           # no confirmation for this long: publish again from the last

Café side (`knapp fleet serve --config CAFE.toml`)::

    [cafe]
    name = "Café Knapp"
    database = "host=/run/postgresql dbname=knapp"   # libpq connection string or URL
    host = "127.0.0.1"            # the staff pages
    port = 8080
    tables = ["corner", "window"] # listed on the staff page even before they are seen
    clock_tolerance_s = 60        # a table's clock further off than this is flagged
    staff_password = "scrypt$..." # the staff login, hashed (`knapp fleet password`)
    allowed_hosts = ["cafe-server.local"]  # names the staff pages answer to, besides IPs
    trust = "first-contact"       # or "configured": only tables listed under [keys]

    [keys]                        # optional: the table keys' fingerprints (`knapp verify`)
    corner = "SHA256:..."

    [broker]
    url = "mqtts://localhost:8883"
    username = "cafe"
    password_file = "cafe.password"
    ca_file = "ca.pem"
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from controller.errors import ConfigError
from controller.settings import Section

TABLE_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
FINGERPRINT_RE = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
TRUST_MODES = ("first-contact", "configured")
# scrypt with n=2^15, r=8, p=1 (32 MiB, tens of ms): a stolen café file's hash is slow to guess.
_SCRYPT = {"n": 2**15, "r": 8, "p": 1}
MIN_PASSWORD = 8


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    """The staff password as the café file keeps it: ``scrypt$N$r$p$salt$hash``."""
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"a staff password needs at least {MIN_PASSWORD} characters")
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, maxmem=64 * 2**20, dklen=32, **_SCRYPT)
    b64 = base64.b64encode
    return (f"scrypt${_SCRYPT['n']}${_SCRYPT['r']}${_SCRYPT['p']}${b64(salt).decode()}"
            f"${b64(digest).decode()}")


def check_password(stored: str, candidate: str) -> bool:
    """True when `candidate` is the password `stored` (a `hash_password` line) was made from."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        got = hashlib.scrypt(candidate.encode("utf-8", "replace"),
                             salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                             maxmem=64 * 2**20, dklen=32)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, base64.b64decode(digest))


def _check_hash(stored: str) -> str | None:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt" or not all(x.isdigit() for x in parts[1:4]):
        return ("expected the line `knapp fleet password` prints (scrypt$...), never the "
                "password itself")
    return None
CAFE_USER = "cafe"  # the café service's broker account; no table may take the name
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


def check_table_id(table_id: str) -> str | None:
    """Why `table_id` cannot name a table (None when it can).

    It is part of every topic and the table's broker user name, so MQTT's
    wildcards and separators (`+ # /`) can never appear in it.
    """
    if not TABLE_ID_RE.fullmatch(table_id):
        return ("a table id is 1 to 32 characters of a-z, 0-9 and '-', starting with a "
                f"letter or digit; got {table_id!r}")
    if table_id == CAFE_USER:
        return f"{CAFE_USER!r} is the café service's own name"
    return None


@dataclass(frozen=True)
class BrokerConfig:
    """How to reach the broker.

    Args:
        host, port: where it listens.
        tls: mqtts (TLS) rather than plain mqtt.
        username: the account (a table's is its id).
        password_file: a file holding the password on its first line (None: no password).
        ca_file: the CA certificate to trust (None: the system's).
        cert_file, key_file: a client certificate, when the broker asks for one.
    """

    host: str
    port: int
    tls: bool = False
    username: str = ""
    password_file: Path | None = None
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None

    @property
    def url(self) -> str:
        """The broker as a URL (for messages; never holds the password)."""
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"

    def password(self) -> str | None:
        """The password, read from its file now (so a changed file needs no restart).

        Raises:
            ConfigError: the file cannot be read or is empty.
        """
        if self.password_file is None:
            return None
        try:
            text = self.password_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(str(self.password_file), "",
                              f"cannot read the broker password: {exc.strerror or exc}") from exc
        line = text.splitlines()[0].strip() if text.strip() else ""
        if not line:
            raise ConfigError(str(self.password_file), "", "the broker password file is empty")
        return line


@dataclass(frozen=True)
class FleetConfig:
    """The table's link to the café (`enabled` only when `[fleet]` names a broker).

    Args:
        table_id: this table's id in the café.
        broker: how to reach the broker.
        window: records published and not yet confirmed by the café, at most.
        resend_after_s: with no confirmation for this long, publish again from the last one.
    """

    table_id: str = ""
    broker: BrokerConfig | None = None
    window: int = 500
    resend_after_s: float = 30.0

    @property
    def enabled(self) -> bool:
        """True when this table publishes to a café."""
        return self.broker is not None


def _path(section: Section, key: str, base_dir: Path | None) -> Path | None:
    text = section.take(key, str, "").strip()
    if not text:
        return None
    p = Path(text).expanduser()
    return p if p.is_absolute() or base_dir is None else base_dir / p


def parse_broker(section: Section, url_key: str, *, base_dir: Path | None,
                 default_user: str = "") -> BrokerConfig:
    """Read a broker URL and its credentials from `section` (the keys of the module doc)."""
    raw = section.take(url_key, str, "").strip()
    parts = urlsplit(raw)
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        raise section.error(url_key, f"expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT], "
                                     f"got {raw!r}")
    if parts.username or parts.password:
        raise section.error(url_key, "put the user name in 'username' and the password in "
                                     "'password_file', not in the URL")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise section.error(url_key, f"a broker URL has no path or query, got {raw!r}")
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError:
        raise section.error(url_key, f"bad port in {raw!r}") from None
    username = section.take("username", str, default_user).strip()
    broker = BrokerConfig(
        host=parts.hostname, port=port, tls=parts.scheme == "mqtts", username=username,
        password_file=_path(section, "password_file", base_dir),
        ca_file=_path(section, "ca_file", base_dir),
        cert_file=_path(section, "cert_file", base_dir),
        key_file=_path(section, "key_file", base_dir))
    if (broker.cert_file is None) != (broker.key_file is None):
        raise section.error("cert_file", "a client certificate needs both cert_file and key_file")
    if not broker.tls and (broker.ca_file or broker.cert_file):
        raise section.error("ca_file", "certificates are for mqtts:// (TLS); the broker URL "
                                       "is plain mqtt://")
    if broker.password_file is None and broker.cert_file is None:
        # The café's broker lets nobody in without credentials: say so now, not at connect.
        raise section.error("password_file", "needs the file with this account's broker "
                                             "password (or a client certificate)")
    return broker


def parse_fleet(section: Section, *, base_dir: Path | None = None) -> FleetConfig:
    """Parse `[fleet]` (called with an empty section when the file has none)."""
    section.known("broker", "table", "username", "password_file", "ca_file", "cert_file",
                  "key_file", "window", "resend_after_s")
    d = FleetConfig()
    if not section.has("broker"):
        if section.has("table"):
            raise section.error("broker", "a [fleet] table needs the café's broker URL")
        return d
    table_id = section.take("table", str, "").strip()
    if not table_id:
        raise section.error("table", "needs this table's id in the café (e.g. \"corner\")")
    why = check_table_id(table_id)
    if why is not None:
        raise section.error("table", why)
    broker = parse_broker(section, "broker", base_dir=base_dir, default_user=table_id)
    window = section.integer("window", d.window, minimum=1, maximum=100_000)
    resend = section.number("resend_after_s", d.resend_after_s, minimum=1, maximum=3600)
    return FleetConfig(table_id=table_id, broker=broker, window=window, resend_after_s=resend)


@dataclass(frozen=True)
class CafeConfig:
    """The café service's configuration.

    Args:
        name: the café's name on the staff pages.
        database: libpq connection string (or postgresql:// URL) of the café's PostgreSQL.
        broker: how the service reaches the broker (as the café account).
        host, port: where the staff pages listen.
        tables: table ids always listed, even before they are first seen.
        clock_tolerance_s: a table whose clock differs from the café's by more is flagged.
        staff_password: the staff login's hash (`hash_password`); "" means no login possible.
        allowed_hosts: host names the staff pages answer to, besides IP addresses and
            this machine's own names.
        trust: ``first-contact`` (a table's key is pinned when it is first heard) or
            ``configured`` (only the tables in `keys`).
        keys: per table id, the fingerprint of its signing key.
        source: the file it came from.
    """

    name: str
    database: str
    broker: BrokerConfig
    host: str = "127.0.0.1"
    port: int = 8080
    tables: tuple[str, ...] = ()
    clock_tolerance_s: float = 60.0
    staff_password: str = ""
    allowed_hosts: tuple[str, ...] = ()
    trust: str = "first-contact"
    keys: tuple[tuple[str, str], ...] = ()
    source: str = "<string>"


def parse_cafe(data: dict[str, Any], source: str = "<string>") -> CafeConfig:
    """Validate a parsed café file.

    Raises:
        ConfigError: naming the file, the key and the reason.
    """
    base_dir = None if source.startswith("<") else Path(source).parent
    root = Section(source, "", data).known("cafe", "broker", "keys")
    cafe = root.sub("cafe").known("name", "database", "host", "port", "tables",
                                  "clock_tolerance_s", "staff_password", "allowed_hosts",
                                  "trust")
    name = cafe.take("name", str, "Café").strip() or "Café"
    database = cafe.take("database", str, "").strip()
    if not database:
        raise cafe.error("database", "needs the PostgreSQL connection string, e.g. "
                                     "\"host=/run/postgresql dbname=knapp\"")
    host = cafe.take("host", str, "127.0.0.1").strip()
    port = cafe.integer("port", 8080, minimum=1, maximum=65535)
    raw_tables = cafe.take("tables", list, [])
    tables: list[str] = []
    for i, t in enumerate(raw_tables):
        why = check_table_id(t) if isinstance(t, str) else f"expected a table id, got {t!r}"
        if why is not None:
            raise cafe.error(f"tables[{i}]", why)
        if t in tables:
            raise cafe.error(f"tables[{i}]", f"{t!r} is listed twice")
        tables.append(t)
    tolerance = cafe.number("clock_tolerance_s", 60.0, minimum=1, maximum=86_400)
    staff = cafe.take("staff_password", str, "").strip()
    if staff and (why := _check_hash(staff)) is not None:
        raise cafe.error("staff_password", why)
    hosts = cafe.take("allowed_hosts", list, [])
    for i, h in enumerate(hosts):
        if not isinstance(h, str) or not h.strip() or "/" in h or " " in h.strip():
            raise cafe.error(f"allowed_hosts[{i}]", f"expected a host name, got {h!r}")
    trust = cafe.take("trust", str, "first-contact").strip()
    if trust not in TRUST_MODES:
        raise cafe.error("trust", f"expected one of {', '.join(TRUST_MODES)}, got {trust!r}")
    cafe.finish()
    keys_section = root.sub("keys")
    keys: list[tuple[str, str]] = []
    raw_keys = data.get("keys", {})
    for table_id in sorted(raw_keys if isinstance(raw_keys, dict) else {}):
        why = check_table_id(table_id)
        if why is not None:
            raise keys_section.error(table_id, why)
        fp = keys_section.take(table_id, str, "").strip()
        if not FINGERPRINT_RE.fullmatch(fp):
            raise keys_section.error(table_id, "expected the table key's fingerprint as "
                                               f"`knapp verify` prints it (SHA256:...), got {fp!r}")
        keys.append((table_id, fp))
    keys_section.finish()
    if trust == "configured" and not keys:
        raise cafe.error("trust", "'configured' trusts only the tables under [keys], and "
                                  "there are none")
    broker_section = root.sub("broker").known("url", "username", "password_file", "ca_file",
                                              "cert_file", "key_file")
    broker = parse_broker(broker_section, "url", base_dir=base_dir, default_user=CAFE_USER)
    broker_section.finish()
    root.finish()
    return CafeConfig(name=name, database=database, broker=broker, host=host, port=port,
                      tables=tuple(tables), clock_tolerance_s=tolerance, staff_password=staff,
                      allowed_hosts=tuple(h.strip().lower() for h in hosts), trust=trust,
                      keys=tuple(keys), source=source)


def load_cafe_config(path: str | Path) -> CafeConfig:
    """Read and validate a café file.

    Raises:
        ConfigError: the file is missing, not TOML, or holds a bad key or value.
    """
    p = Path(path)
    try:
        data = tomllib.loads(p.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise ConfigError(str(p), "", f"cannot read the file: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(str(p), "", f"not a valid TOML file: {exc}") from exc
    return parse_cafe(data, str(p))
