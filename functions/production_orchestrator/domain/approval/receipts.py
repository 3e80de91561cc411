"""Decision receipts: a MACed, canonical record of who decided what on which evidence.

    decision (page POST or CLI) --make_receipt(checkpoint, decision, key)--> Receipt (stored with the vote)
    resume --check_receipt(receipt, key, checkpoint, decision)--> None | problem -> RECEIPT_INVALID

The MAC covers the canonical JSON of every field but ``mac``; the key never leaves its adapter (a 0600
key file locally, a KMS HMAC key in AWS). The reason is kept as a hash so the receipt can be shown
without repeating free text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..canonical import canonical_bytes, sha256_hex
from ..records import Checkpoint, Decision, ProviderBinding

if TYPE_CHECKING:
    from .mac import MacKey

RECEIPT_SCHEMA_VERSION: Literal[1] = 1


class Receipt(BaseModel):
    """One decision, sealed with a MAC over its canonical JSON."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    schema_version: Literal[1] = RECEIPT_SCHEMA_VERSION
    checkpoint_id: str
    interrupt_id: str
    session_id: str
    proposal_hash: str
    domain_digest: str
    provider_binding: ProviderBinding
    approval_id: str = ""
    approver: str
    decision: Literal["approve", "reject"]
    reason_hash: str
    decided_at: str
    expires_at: str
    key_id: str = Field(max_length=300)
    mac: str = ""

    def signed_bytes(self) -> bytes:
        """What the MAC covers: canonical JSON of every field but ``mac``."""
        return canonical_bytes(self.model_dump(mode="json", exclude={"mac"}))


def reason_hash(reason: str) -> str:
    """SHA-256 of the reason's UTF-8 bytes."""
    return sha256_hex(reason.encode("utf-8"))


def make_receipt(checkpoint: Checkpoint, decision: Decision, key: MacKey, *, approval_id: str = "") -> Receipt:
    """The receipt of ``decision`` on ``checkpoint``, MACed with ``key``."""
    unsigned = Receipt(
        checkpoint_id=checkpoint.checkpoint_id,
        interrupt_id=checkpoint.interrupt_id,
        session_id=checkpoint.session_id,
        proposal_hash=checkpoint.proposal_hash,
        domain_digest=checkpoint.domain_digest,
        provider_binding=checkpoint.provider_binding,
        approval_id=approval_id,
        approver=decision.approver,
        decision="approve" if decision.approved else "reject",
        reason_hash=reason_hash(decision.reason),
        decided_at=decision.decided_at,
        expires_at=checkpoint.expires_at,
        key_id=key.key_id,
    )
    return unsigned.model_copy(update={"mac": key.sign(unsigned.signed_bytes())})


def check_receipt(receipt: Receipt | None, key: MacKey, *, checkpoint: Checkpoint, decision: Decision) -> str | None:
    """None when ``receipt`` is intact and describes ``decision`` on ``checkpoint``; else what is wrong."""
    if receipt is None:
        return f"the decision of {decision.approver} carries no receipt"
    if not receipt.mac or not key.verify(receipt.signed_bytes(), receipt.mac):
        return f"the receipt of {receipt.approver}'s decision does not verify (altered in storage, or another key)"
    expected = make_receipt(checkpoint, decision, _NoKey(receipt.key_id), approval_id=receipt.approval_id)
    if expected.model_dump(exclude={"mac"}) != receipt.model_dump(exclude={"mac"}):
        return f"the receipt of {receipt.approver}'s decision does not describe the recorded decision"
    return None


class _NoKey:
    """Builds the unsigned receipt to compare field by field."""

    def __init__(self, key_id: str) -> None:
        self.key_id = key_id

    def sign(self, message: bytes) -> str:
        return ""

    def verify(self, message: bytes, mac: str) -> bool:
        return False
