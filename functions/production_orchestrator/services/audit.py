"""Audit verification: the keyed chain holds, and every vote it records is the vote the approval holds, with a
receipt that verifies. Reads only; strands-free (the local CLI and the AWS operator command share it).

    chain: seq, prev_hash, each link's MAC, the head's MAC       -> first bad position and seq
    votes: each approval_vote event <-> its approval's vote       -> the event's seq when they disagree
           (approver, decision, receipt; the receipt MAC under the receipt key)
    outbox: each stored message's status <-> the delivery steps the trail records for it (a sent message
           edited back to queued, a failed one queued without ``outbox retry``), every kind;
           each plan message <-> its plan's draft and the digest its ``plan_applied`` event recorded
           (a recipient, subject or body changed in storage; a message added or removed)
"""

from __future__ import annotations

from ..domain.approval.approvals import ApprovalRecord, Vote
from ..domain.approval.audit_chain import ChainReport, verify_chain
from ..domain.approval.policy import identity
from ..domain.approval.receipts import Receipt, check_receipt
from ..domain.errors import IntegrityError, ResumeRefusedError
from ..domain.messages.outbox import OutboxMessage, binding_problem, messages_digest
from ..domain.messages.outbox_trail import OutboxTrail
from ..domain.planning.proposal import ProposalContent, load_proposal
from ..domain.ports import MacKey, ShopStore
from ..domain.records import AuditEvent
from .evidence import load_checkpoint
from .runtime import Runtime


def verify_audit(rt: Runtime) -> ChainReport:
    """The first link or vote that does not hold (by position and seq), or an intact report: the chain's links
    under ``rt.audit_key``, every vote's receipt under ``rt.receipt_key`` (None: not checked)."""
    store, receipt_key = rt.store, rt.receipt_key
    events, head = store.raw_audit_trail()
    report = verify_chain(events, head, rt.audit_key)
    if not report.intact:
        return report
    records = {a.approval_id: a for a in rt.approvals.list_approvals()}
    seen: set[tuple[str, str]] = set()
    for position, event in enumerate(events, start=1):
        if event is None or event.event_type != "approval_vote":
            continue
        problem = _vote_problem(store, event, records, receipt_key)
        if problem is not None:
            return ChainReport(len(events), position, problem, event.seq)
        seen.add((str(event.detail.get("approval_id")), identity(str(event.detail.get("approver", "")))))
    for record in records.values():
        for vote in record.votes:
            if (record.approval_id, identity(vote.decision.approver)) not in seen:
                return ChainReport(
                    len(events),
                    len(events),
                    f"approval {record.approval_id} holds a vote of {vote.decision.approver} that no audit event "
                    "records (added in storage)",
                )
    return _outbox_report(store, events) or report


def _outbox_report(store: ShopStore, events: list[AuditEvent | None]) -> ChainReport | None:
    """The first outbox message whose status the trail contradicts, or that is not what its applied plan queued,
    as a broken report; None when all hold."""
    stored = store.outbox_messages()  # read after ``events``: a step committed since is judged on a second read
    contradicted = _trail_report(store, events, stored)
    if contradicted is not None:
        return contradicted
    applied: dict[str, tuple[int, AuditEvent]] = {}
    for position, event in enumerate(events, start=1):
        if event is not None and event.event_type == "plan_applied" and event.proposal_hash not in applied:
            applied[event.proposal_hash] = (position, event)
    plans: dict[str, list[OutboxMessage]] = {}
    for message in (m for m in stored if m.is_plan):
        plans.setdefault(message.proposal_hash, []).append(message)
    for proposal_hash, messages in plans.items():
        if proposal_hash not in applied:
            return ChainReport(
                len(events),
                len(events),
                f"outbox message {messages[0].key} belongs to plan {proposal_hash}, which the audit trail never "
                "applied (added in storage)",
            )
        position, event = applied[proposal_hash]
        proposal = _proposal(store, proposal_hash)
        for message in messages:
            problem = binding_problem(message, proposal)
            if problem is not None:
                return ChainReport(len(events), position, f"outbox: {problem}", event.seq)
        recorded = event.detail.get("messages_digest")
        count = event.detail.get("messages_queued")
        if (recorded is not None and recorded != messages_digest(messages)) or (
            count is not None and count != len(messages)
        ):
            return ChainReport(
                len(events),
                position,
                f"outbox: plan {proposal_hash} queued {count} message(s) at seq {event.seq}; the outbox holds "
                f"{len(messages)} that differ from them (added or removed in storage)",
                event.seq,
            )
    return None


def _trail_report(store: ShopStore, events: list[AuditEvent | None], stored: list[OutboxMessage]) -> ChainReport | None:
    """The first message whose status the audit trail contradicts (a sent one edited back to queued), any kind."""
    trail = OutboxTrail.of(events)
    suspects = [m for m in stored if trail.problem(m) is not None]
    if not suspects:
        return None
    later = OutboxTrail.of(store.raw_audit_trail()[0])
    for message in suspects:
        problem = later.problem(message, since=trail.length)
        if problem is not None:
            return ChainReport(len(events), len(events), f"outbox: {problem}")
    return None


def _proposal(store: ShopStore, proposal_hash: str) -> ProposalContent | None:
    data = store.get_proposal(proposal_hash)
    try:
        return None if data is None else load_proposal(data, proposal_hash)
    except IntegrityError:
        return None


def _vote_of(record: ApprovalRecord, approver: str) -> Vote | None:
    return next((v for v in record.votes if identity(v.decision.approver) == identity(approver)), None)


def _vote_problem(
    store: ShopStore, event: AuditEvent, records: dict[str, ApprovalRecord], key: MacKey | None
) -> str | None:
    detail = event.detail
    label = f"the vote recorded at seq {event.seq}"
    record = records.get(str(detail.get("approval_id", "")))
    if record is None:
        return f"{label} names approval {detail.get('approval_id')!r}, which does not exist"
    vote = _vote_of(record, str(detail.get("approver", "")))
    if vote is None:
        return f"{label} ({detail.get('approver')}) is not among the votes approval {record.approval_id} holds"
    if bool(detail.get("approved")) != vote.decision.approved:
        return f"{label} says {'approve' if detail.get('approved') else 'reject'}; the approval holds the opposite"
    stored = vote.receipt
    told = detail.get("receipt")
    if told is not None and (stored is None or Receipt.model_validate(told) != stored):
        return f"{label}: its receipt differs from the one approval {record.approval_id} holds"
    if told is None and detail.get("receipt_mac", "") != (stored.mac if stored else ""):
        return f"{label}: its receipt MAC differs from the one approval {record.approval_id} holds"
    if key is None:
        return None
    try:
        checkpoint = load_checkpoint(store, record.checkpoint_id)
    except ResumeRefusedError as exc:
        return f"{label}: its checkpoint cannot be read ({exc.human_message})"
    problem = check_receipt(stored, key, checkpoint=checkpoint, decision=vote.decision)
    return None if problem is None else f"{label}: {problem}"
