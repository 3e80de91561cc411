"""Link secrets that can be issued again without ever being stored.

    mint:    nonce = 16 random bytes (hex, kept on the approval beside the hash: not a secret)
             secret = MAC_linkkey("approval-link/v1" NUL nonce NUL approver)   (64 hex characters)
             stored: sha256(secret) and the nonce; the secret only goes into the message that carries the link
    reissue: the same nonce and key give the same secret, checked against the stored hash (a reminder, an
             approval request sent from the outbox long after it was queued)
    relink:  a new nonce, so a new secret; the old hash is replaced and the old link opens nothing

Whoever holds the key and the approval record can rebuild a link, which is who can already decide locally (the
data dir's owner). Without a key (the AWS request path, which sends links by SNS once) a mint is 32 random bytes
and cannot be issued again. The key is the one that MACs receipts and the audit chain: those sign canonical JSON,
which never holds a NUL byte, so no message of theirs can equal a link derivation's.
"""

from __future__ import annotations

import hmac
import secrets

from .approvals import ApproverLink, hash_link_secret
from .mac import MacKey
from .policy import identity

_DERIVATION = b"approval-link/v1\x00"


def derive_link_secret(key: MacKey, nonce: str, approver: str) -> str:
    """The secret of ``approver``'s link minted with ``nonce`` under ``key``."""
    return key.sign(_DERIVATION + nonce.encode("ascii") + b"\x00" + identity(approver).encode("utf-8"))


class LinkMint:
    """Mints approval links: derivable ones with a key, random ones without."""

    def __init__(self, key: MacKey | None = None) -> None:
        self._key = key

    @property
    def derivable(self) -> bool:
        """True when links minted here can be issued again."""
        return self._key is not None

    def mint(self, approver: str) -> tuple[str, ApproverLink]:
        """A new link for ``approver``: its secret (for the message only) and what the approval stores."""
        person = identity(approver)
        if self._key is None:
            secret = secrets.token_urlsafe(32)
            return secret, ApproverLink(approver=person, secret_hash=hash_link_secret(secret))
        nonce = secrets.token_hex(16)
        secret = derive_link_secret(self._key, nonce, person)
        return secret, ApproverLink(approver=person, secret_hash=hash_link_secret(secret), nonce=nonce)

    def reissue(self, link: ApproverLink) -> str | None:
        """The secret of the stored ``link`` again, or None when it cannot be rebuilt (no key, a random link, or a
        key other than the one it was minted with)."""
        if self._key is None or not link.nonce:
            return None
        secret = derive_link_secret(self._key, link.nonce, link.approver)
        return secret if hmac.compare_digest(hash_link_secret(secret), link.secret_hash) else None
