"""The broker's configuration for a café: Mosquitto's listener, accounts and ACL.

`knapp fleet broker-config` writes these files for a café's broker
(hardware/fleet/README.md), and the tests start their throwaway broker from
the very same text, so the ACL the tests check is the one a café runs.

The ACL: each table's account (its user name is its table id) may publish
only under ``knapp/tables/<its id>/`` and read only its own confirmations
and the café's status; the café account reads every table and publishes
under ``knapp/cafe/``. Nobody else may do anything (no anonymous access).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from controller.fleet.config import CAFE_USER

ACL = f"""# Mosquitto ACL for a Knapp café (written by `knapp fleet broker-config`).
# The café service reads every table and publishes its confirmations and status.
user {CAFE_USER}
topic read knapp/tables/#
topic readwrite knapp/cafe/#

# Every other account is a table: its user name is its table id (%u), and it may
# publish only under its own id, and read only its own confirmations.
pattern write knapp/tables/%u/#
pattern read knapp/cafe/acks/%u
pattern read knapp/cafe/status
"""


@dataclass(frozen=True)
class Tls:
    """The broker's certificate for an mqtts listener."""

    ca_file: Path
    cert_file: Path
    key_file: Path


def mosquitto_conf(port: int, *, password_file: Path, acl_file: Path,
                   data_dir: Path | None = None, bind: str = "", tls: Tls | None = None,
                   user: str | None = None) -> str:
    """A Mosquitto configuration for the café's broker.

    Args:
        port: the listener's port (8883 for mqtts, 1883 for plain mqtt on a test bench).
        password_file: the accounts (made with `mosquitto_passwd`).
        acl_file: the ACL (`ACL`).
        data_dir: a whole configuration of its own, keeping its queues here and logging
            to stderr (the throwaway brokers); None writes a part for Debian's
            /etc/mosquitto/conf.d/, whose main file already sets persistence and the log.
        bind: the address to listen on ('' for every address).
        tls: the certificate for an mqtts listener (None: plain mqtt).
        user: the account the broker runs as when started as root (None: mosquitto's default).
    """
    lines = [
        "# Mosquitto for a Knapp café (written by `knapp fleet broker-config`).",
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {password_file}",
        f"acl_file {acl_file}",
        "autosave_interval 30",
        "# The café's queue while it is away; the tables keep everything else themselves.",
        "max_queued_messages 100000",
        "max_inflight_messages 100",
        "connection_messages true",
    ]
    if data_dir is not None:
        lines += ["persistence true", f"persistence_location {data_dir}/", "log_dest stderr",
                  "log_type error", "log_type warning", "log_type notice",
                  "log_type information"]
    if user is not None:
        lines.append(f"user {user}")
    lines.append(f"listener {port}{' ' + bind if bind else ''}")
    if tls is not None:
        lines += [f"cafile {tls.ca_file}", f"certfile {tls.cert_file}",
                  f"keyfile {tls.key_file}", "tls_version tlsv1.2"]
    return "\n".join(lines) + "\n"
