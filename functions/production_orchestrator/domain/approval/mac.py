"""The key receipts and the audit chain are MACed with, as the domain sees it (a port: adapters hold it)."""

from __future__ import annotations

from typing import Protocol


class MacKey(Protocol):
    """A message-authentication key that never leaves its adapter (a 0600 file, a KMS HMAC key)."""

    @property
    def key_id(self) -> str:
        """Which key (a file name, a KMS key id): recorded in each receipt."""
        ...

    def sign(self, message: bytes) -> str:
        """The MAC of ``message``, as text."""
        ...

    def verify(self, message: bytes, mac: str) -> bool:
        """True when ``mac`` is this key's MAC of ``message``."""
        ...
