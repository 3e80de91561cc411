"""A throwaway certificate authority and a server certificate for 127.0.0.1, for TLS on loopback test servers."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from functools import cache
from pathlib import Path
from tempfile import mkdtemp

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

# Fixed, far from any test's injected clock: the certificate does not depend on when the test runs.
_NOT_BEFORE = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
_NOT_AFTER = datetime.datetime(2100, 1, 1, tzinfo=datetime.UTC)


@cache
def _files() -> tuple[Path, Path, Path]:
    """(CA certificate, server certificate, server key) as PEM files in a private temp dir."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test sink CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_NOT_BEFORE)
        .not_valid_after(_NOT_AFTER)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    server = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_NOT_BEFORE)
        .not_valid_after(_NOT_AFTER)
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    directory = Path(mkdtemp(prefix="po-tls-"))
    ca_file, cert_file, key_file = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(server.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    key_file.chmod(0o600)
    return ca_file, cert_file, key_file


def ca_file() -> Path:
    """The CA certificate clients trust (``SSL_CERT_FILE`` for a CLI process)."""
    return _files()[0]


def server_context() -> ssl.SSLContext:
    """A server context with the 127.0.0.1 certificate."""
    _, cert, key = _files()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def client_context() -> ssl.SSLContext:
    """A client context that trusts only the test CA and checks the host name, as the default context does."""
    context = ssl.create_default_context(cafile=str(ca_file()))
    return context
