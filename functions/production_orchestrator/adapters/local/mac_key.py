"""The local receipt key: 32 random bytes in a file of the data dir, created once with mode 0600."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from ...domain.errors import ConfigurationError

KEY_FILE = "receipt.key"
_KEY_BYTES = 32


class KeyMissingError(ConfigurationError):
    """The key file a check needs is not there: checking with a new key would only report every MAC as bad."""

    code = "AUDIT_KEY_MISSING"

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{self.code}: the receipt key {path} is missing; it MACs the audit chain and every receipt, so nothing "
            "can be verified without it. Restore it from your backup of the data dir (a new key is never created "
            "for a check)"
        )


class FileMacKey:
    """HMAC-SHA256 with a key file that only its owner can read. The key is never printed or logged.

    The file is read (or created) on first use, so a command that only reads, or fails before it signs or
    verifies anything, leaves the data dir as it found it.
    """

    def __init__(self, path: Path, *, create: bool = True) -> None:
        self._path = path
        self._create = create
        self._loaded: bytes | None = None

    @property
    def _key(self) -> bytes:
        if self._loaded is None:
            if not self._create and not self._path.exists():
                raise KeyMissingError(self._path)
            self._loaded = self._load_or_create(self._path)
        return self._loaded

    def __repr__(self) -> str:
        return f"FileMacKey(key_id={self.key_id!r})"

    @staticmethod
    def _load_or_create(path: Path) -> bytes:
        try:
            # O_EXCL: of two processes creating the key at once, one creates and the other reads it.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(_KEY_BYTES))
                handle.flush()
                os.fsync(handle.fileno())
        if path.stat().st_mode & 0o077:
            raise ConfigurationError(f"receipt key {path} is readable by others; chmod 600 it")
        key = path.read_bytes()
        if len(key) != _KEY_BYTES:
            raise ConfigurationError(f"receipt key {path} is not a {_KEY_BYTES}-byte key")
        return key

    @property
    def key_id(self) -> str:
        """The key file's name and a short hash of the key (identifies it, reveals nothing)."""
        return f"file:{self._path.name}:{hashlib.sha256(b'key-id' + self._key).hexdigest()[:12]}"

    def sign(self, message: bytes) -> str:
        """HMAC-SHA256 of ``message``, hex."""
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def verify(self, message: bytes, mac: str) -> bool:
        """Constant-time comparison with the expected MAC."""
        return hmac.compare_digest(self.sign(message), mac)
