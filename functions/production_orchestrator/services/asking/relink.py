"""Relink: a new link for one approver of an open approval; their old link stops working at once.

    operator: relink --approval ID --approver EMAIL
      -> the approval still open, the approver one it asks (else a refusal, nothing written)
      -> a fresh link (a new nonce: derived from the shop's key locally, random in AWS)
      -> ONE transaction: the new hash replaces the old one on the record (the old link: the neutral page),
         audit ``approval_relinked`` (approval, approver; no secret, no hash) and, locally for an e-mail
         approver, the request carrying the new link queued in the outbox (the queued one for the old link
         becomes void at send)
      -> otherwise the link to the approver, as the first one went (stdout locally, SNS e-mail in AWS)

The secret exists only in the message that carries the link (locally it can be rebuilt from the key). If that
send fails, the old link is already revoked: run relink again (each run revokes the one before).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.links import LinkMint
from ...domain.approval.policy import identity
from ...domain.errors import (
    ApprovalActionRefusedError,
    ApprovalExpiredError,
    DecisionAlreadyClaimedError,
    NotFoundError,
    ValidationError,
)
from ...domain.messages.approval_mail import approval_request, is_mail_address
from ...domain.records import AuditEvent, audit_event
from ..evidence import current_approval, review
from ..runtime import Runtime, need
from .request_approval import approval_link, message_for


@dataclass(frozen=True)
class Relinked:
    """What relink did (the link itself only goes to the notifier, or the outbox)."""

    approval_id: str
    approver: str
    checkpoint_id: str
    queued: bool = False  # True: the new link waits in the outbox for ``outbox send``


@dataclass(frozen=True)
class Relink:
    """A new link for ``approver`` on ``approval_id`` (links start ``link_base_url``); with ``outbox``, an
    e-mail approver's request is queued (derivable links only) instead of going to the notifier."""

    approval_id: str
    approver: str
    link_base_url: str
    outbox: bool = False


def relink(rt: Runtime, cmd: Relink) -> Relinked:
    """Issue ``approver`` a new link to ``approval_id`` (or the approval that replaced it) and revoke the old.

    With ``outbox`` and a derivable ``rt.mint``, an e-mail approver's new link is queued in the same transaction
    (delivered by ``outbox send``) instead of going to ``rt.notifier``.
    """
    store, approvals, now = rt.store, rt.approvals, rt.clock()
    approval_id, approver = cmd.approval_id, cmd.approver
    approval = current_approval(approvals, approval_id)
    if approval is None:
        raise ApprovalActionRefusedError("NOT_FOUND", f"approval {approval_id} does not exist")
    person = identity(approver)
    if person not in approval.policy.approvers:
        asked = ", ".join(approval.policy.approvers)
        raise ApprovalActionRefusedError(
            "NOT_AN_APPROVER", f"{approver} is not asked on approval {approval.approval_id} (asked: {asked})"
        )
    checkpoint, proposal = review(store, approval.checkpoint_id)
    secret, link = (rt.mint or LinkMint()).mint(person)
    queued = cmd.outbox and bool(link.nonce) and is_mail_address(person)
    mail = [approval_request(approval.approval_id, person, link.nonce, now)] if queued else []

    def event(after: ApprovalRecord) -> AuditEvent:
        return audit_event(
            "approval_relinked",
            now,
            session_id=checkpoint.session_id,
            checkpoint_id=checkpoint.checkpoint_id,
            proposal_hash=checkpoint.proposal_hash,
            approval_id=after.approval_id,
            approver=person,
        )

    try:  # the domain refuses a closed or expired approval here, before anything is written
        record, _ = store.change_approval(
            approval.approval_id,
            lambda before: before.relinked(person, link.secret_hash, now, link.nonce),
            event,
            mail=mail,
        )
    except ApprovalExpiredError as exc:
        raise ApprovalActionRefusedError("EXPIRED", f"{exc}: a new run is needed, not a new link") from None
    except DecisionAlreadyClaimedError as exc:
        raise ApprovalActionRefusedError("APPROVAL_CLOSED", f"{exc}: its links only show what happened") from None
    except (NotFoundError, ValidationError) as exc:
        raise ApprovalActionRefusedError("NOT_FOUND", str(exc)) from None
    if not queued:
        url = approval_link(cmd.link_base_url, record.approval_id, secret)
        need(rt.notifier, "approval notifier").notify(
            message_for(checkpoint, proposal, record.approval_id, person, url)
        )
    return Relinked(
        approval_id=record.approval_id, approver=person, checkpoint_id=checkpoint.checkpoint_id, queued=queued
    )
