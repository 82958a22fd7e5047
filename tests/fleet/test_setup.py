"""A café's broker as hardware/fleet/README.md sets it up: Debian's layout, accounts, TLS."""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import pwd
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from controller.evidence.signing import TableKey
from controller.fleet.broker import Tls
from controller.fleet.cafe import CafeService
from controller.fleet.config import BrokerConfig, CafeConfig, FleetConfig
from controller.fleet.local import LocalMosquitto, free_port, mosquitto_binary
from controller.fleet.table import TableLink
from tests.fleet.helpers import PASSWORDS, Table, holds_all, wait_for


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def make_tls(folder: Path) -> Tls:
    """A café's own CA and the broker's certificate for 127.0.0.1 and localhost."""
    folder.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name("Knapp café CA"))
          .issuer_name(_name("Knapp café CA")).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now)
          .not_valid_after(now + dt.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(_name("localhost")).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .sign(ca_key, hashes.SHA256()))
    tls = Tls(folder / "ca.pem", folder / "broker.pem", folder / "broker.key")
    tls.ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    tls.cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    tls.key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    return tls


# paho-mqtt 2.x leaves the socket of a failed TLS handshake for the garbage collector
# (Client._ssl_wrap_socket does not close it when do_handshake raises): the stranger's
# refused attempts end in ResourceWarnings that are paho's, not ours.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_records_travel_over_tls_to_a_broker_the_table_trusts(tmp_path: Path, dsn: str) -> None:
    tls = make_tls(tmp_path / "certs")
    mq = LocalMosquitto(PASSWORDS, tls=tls).start()
    try:
        def broker(user: str, ca: Path | None) -> BrokerConfig:
            pw = tmp_path / f"{user}.pw"
            pw.write_text(PASSWORDS[user])
            return BrokerConfig("127.0.0.1", mq.port, tls=True, username=user,
                                password_file=pw, ca_file=ca)

        cafe = CafeService(CafeConfig("tls", dsn, broker("cafe", tls.ca_file))).start()
        table = Table(mq, "t1", tmp_path / "t1")
        table.link.stop()  # replace the plain link by one over TLS
        table.link = TableLink(FleetConfig("t1", broker("t1", tls.ca_file)), table.db_path,
                               signer=table.key, poll_s=0.02).start()
        # A table that does not trust this CA (the system's CAs) never connects.
        stranger = TableLink(FleetConfig("t2", broker("t2", None)), tmp_path / "t2.db",
                             signer=TableKey.load_or_create(tmp_path / "t2"))
        stranger.start()
        try:
            table.play(1)
            wait_for(cafe, lambda: holds_all(cafe, table), "t1's records over TLS")
            assert not stranger.connected
        finally:
            stranger.stop()
            table.close()
            cafe.stop()
    finally:
        mq.close()


def test_broker_config_fits_debian_s_mosquitto(tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    (etc / "conf.d").mkdir(parents=True)
    port = free_port()
    out = subprocess.run([sys.executable, "-m", "controller", "fleet", "broker-config",
                          "--out", str(etc / "conf.d"), "--etc", str(etc), "--port", str(port),
                          "--plain"], capture_output=True, text=True, check=True)
    assert "mosquitto_passwd" in out.stdout
    (etc / "conf.d" / "acl").rename(etc / "acl")
    for user in ("cafe", "t1"):
        subprocess.run([str(mosquitto_binary("mosquitto_passwd")), "-b",
                        *(["-c"] if user == "cafe" else []), str(etc / "knapp.passwd"), user,
                        PASSWORDS[user]], check=True)
    # Debian's own mosquitto.conf, with its folders moved here.
    (tmp_path / "lib").mkdir()
    me = pwd.getpwuid(os.geteuid()).pw_name
    (etc / "mosquitto.conf").write_text(
        f"persistence true\npersistence_location {tmp_path / 'lib'}/\nlog_dest stderr\n"
        f"user {me}\ninclude_dir {etc / 'conf.d'}\n")
    proc = subprocess.Popen([str(mosquitto_binary()), "-c", str(etc / "mosquitto.conf")],
                            stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        fd = proc.stderr.fileno()
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        log = b""
        deadline = time.monotonic() + 30
        while b" running" not in log and time.monotonic() < deadline \
                and sel.select(deadline - time.monotonic()):
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            log += chunk
        sel.close()
        assert b" running" in log, log.decode()
        assert f"port {port}".encode() in log
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        proc.stderr.close()  # type: ignore[union-attr]
