"""``serve --bind`` for a phone on the LAN: TLS required for anything but loopback, the Host check kept, and
over TLS the page rules hold (GET/HEAD change nothing, no secret in the log). The certificate is self-signed,
made here for 127.0.0.1."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import ssl
from pathlib import Path
from typing import Any
from urllib.error import URLError
from urllib.parse import parse_qs, urlsplit
from urllib.request import Request, urlopen

import pytest

from tests.approvals.test_policy import approval_rows
from tests.support.clidriver import cli, interrupt, spawn, wait_for_line
from tests.support.localstore import fingerprint
from tests.support.net import APPROVERS, free_port


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (and its key), valid for a day."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def test_over_tls_get_and_head_change_nothing_and_a_plain_client_gets_nothing(started: Any, tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    port = free_port()
    base = f"https://127.0.0.1:{port}/approve"
    data_dir, run = started("--approvers", APPROVERS, link_base=base)
    secret = parse_qs(urlsplit(run["APPROVAL_URL_2"]).query)["s"][0]
    server = spawn(
        "serve",
        "--data-dir",
        str(data_dir),
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--tls-cert",
        str(cert),
        "--tls-key",
        str(key),
    )
    trusted = ssl.create_default_context(cafile=str(cert))
    before = (fingerprint(data_dir), approval_rows(data_dir))
    try:
        assert wait_for_line(server, "SERVING=").strip() == f"SERVING=https://127.0.0.1:{port}/"
        for method in ("HEAD", "GET"):
            with urlopen(Request(run["APPROVAL_URL_2"], method=method), timeout=20, context=trusted) as response:
                body = response.read().decode()
                assert response.status == 200
                assert (method == "GET") == ("<svg" in body)
        with urlopen(f"https://127.0.0.1:{port}/", timeout=20, context=trusted) as response:
            assert "RUSH-200" in response.read().decode()
        with pytest.raises((URLError, OSError, http.client.HTTPException)):  # the secret never goes out in clear text
            urlopen(run["APPROVAL_URL_2"].replace("https://", "http://"), timeout=5).read()
        spoofed = Request(f"https://127.0.0.1:{port}/", headers={"Host": f"evil.example:{port}"})
        with pytest.raises(URLError) as refused:
            urlopen(spoofed, timeout=10, context=trusted)
        assert getattr(refused.value, "code", None) == 400  # the Host check is kept over TLS
    finally:
        done = interrupt(server)
    assert (fingerprint(data_dir), approval_rows(data_dir)) == before
    assert secret not in done.stderr and "GET /approve" in done.stderr
    assert "warning:" not in done.stderr  # the https links point at this server


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (("--bind", "192.168.1.20"), "pass --tls-cert and --tls-key"),
        (("--bind", "0.0.0.0"), "listens everywhere"),
        (("--bind", "shop-laptop"), "is not an IP address"),
        (("--tls-cert", "x.pem"), "go together"),
    ],
)
def test_unsafe_binds_are_refused_before_anything_listens(started: Any, flags: tuple[str, ...], expected: str) -> None:
    data_dir, _ = started("--approvers", APPROVERS)
    done = cli("serve", "--data-dir", str(data_dir), "--port", "0", *flags, timeout=60)
    assert done.returncode == 2 and expected in done.stderr, done.stderr
    assert "SERVING=" not in done.stdout


def test_an_unusable_certificate_is_one_clear_error(started: Any, tmp_path: Path) -> None:
    data_dir, _ = started("--approvers", APPROVERS)
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate")
    done = cli("serve", "--data-dir", str(data_dir), "--port", "0", "--bind", "127.0.0.1",
               "--tls-cert", str(bad), "--tls-key", str(bad), timeout=60)  # fmt: skip
    assert done.returncode == 2 and "cannot use the TLS certificate" in done.stderr, done.stderr
