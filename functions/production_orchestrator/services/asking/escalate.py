"""Escalation and links that never went out: the parts of a reminder pass that hand out links.

    escalation due, not done  -> ONE transaction: backups (each a fresh link) added to who is asked, the event
                                 ``approval_escalated`` and (outbox) each e-mail backup's request
    an asked approver whose link never went out (a crash, a backup without e-mail):
         outbox + e-mail: the request queued (one transaction, once per link)
         else: claim link|<approver> (lease) -> the link to the notifier -> marked sent and notified (one write)

A claimed link is sent at most once per lease; a crash after the claim leaves it to the next pass, which rebuilds
the same link (links.py). A crash after the notifier took it and before the mark is the at-least-once window.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ...domain.approval.approvals import ApprovalRecord, ApproverLink
from ...domain.approval.links import LinkMint
from ...domain.approval.policy import identity
from ...domain.approval.reminders import ReminderSchedule
from ...domain.messages.approval_mail import approval_request, is_mail_address
from ...domain.ports import ApprovalNotifier, ApprovalStore, ShopStore
from ...domain.records import AuditEvent, audit_event
from ..evidence import review
from ..runtime import Runtime, need
from .approval_mail import queue_requests
from .request_approval import approval_link, message_for


@dataclass
class RemindReport:
    """What one run did: reminders sent (approval, point, approver), backups added, links sent (or queued)."""

    reminded: list[tuple[str, str, str]] = field(default_factory=list)
    escalated: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    links_sent: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class ReminderPass:
    """One pass of reminders: its ports, settings and report."""

    rt: Runtime
    schedule: ReminderSchedule
    now: datetime
    link_base: Callable[[ApprovalRecord], str]
    lease: timedelta
    zone: str
    outbox: bool
    report: RemindReport

    @property
    def store(self) -> ShopStore:
        return self.rt.store

    @property
    def approvals(self) -> ApprovalStore:
        return self.rt.approvals

    @property
    def notifier(self) -> ApprovalNotifier:
        return need(self.rt.notifier, "approval notifier")

    @property
    def mint(self) -> LinkMint:
        return self.rt.mint or LinkMint()

    def event(self, kind: str, record: ApprovalRecord, **detail: Any) -> AuditEvent:
        return audit_event(
            kind,
            self.now,
            checkpoint_id=record.checkpoint_id,
            proposal_hash=record.proposal_hash,
            approval_id=record.approval_id,
            **detail,
        )

    def mails(self, approver: str) -> bool:
        """True when ``approver``'s messages go through the outbox (an address, and this pass queues mail)."""
        return self.outbox and self.mint.derivable and is_mail_address(approver)


def escalate(run: ReminderPass, record: ApprovalRecord) -> tuple[ApprovalRecord, dict[str, str]]:
    """Add the backups once, with their links, the event and (outbox) their requests in one transaction; the
    secrets of the links this run stored (none when another run won)."""
    # The run's requester is never one of its backups: their approve would be refused (separation of duties), and
    # they must not even get the link.
    requester = identity(record.requester) if record.requester else ""
    joining = [
        b for b in run.schedule.backups if identity(b) not in record.policy.approvers and identity(b) != requester
    ]
    fresh = {b: run.mint.mint(b) for b in joining}
    links = tuple(link for _, link in fresh.values())
    mail = [
        approval_request(record.approval_id, b, link.nonce, run.now)
        for b, (_, link) in fresh.items()
        if run.mails(b) and link.nonce
    ]  # fmt: skip

    def change(before: ApprovalRecord) -> ApprovalRecord:
        after = before.escalated(links, run.now)
        if after == before:
            return before  # another run escalated first: nothing of ours is written
        for m in mail:
            link = after.link_of(m.approver)
            assert link is not None
            after = after.delivered(after.task_token, m.approver, link.secret_hash, link.nonce)
        return after

    def event(after: ApprovalRecord) -> AuditEvent:
        added = sorted(b for b, (_, link) in fresh.items() if after.link_of(b) == link)
        return run.event("approval_escalated", after, added=added, asked=list(after.policy.approvers))

    after, changed = run.store.change_approval(record.approval_id, change, event, mail=mail)
    if not changed:
        return after, {}
    mine = {b: secret for b, (secret, link) in fresh.items() if after.link_of(b) == link}
    run.report.escalated.append((after.approval_id, tuple(sorted(mine))))
    run.report.links_sent += [(after.approval_id, m.approver) for m in mail]
    return after, mine


def send_missing_links(run: ReminderPass, record: ApprovalRecord, held: dict[str, str]) -> ApprovalRecord:
    """Each asked approver whose link never went out gets it once: queued (outbox), or claimed, sent, marked."""
    if run.outbox and any(a not in record.notified and run.mails(a) for a in record.policy.approvers):
        queued = queue_requests(run.store, run.approvals, record.approval_id, run.now)
        run.report.links_sent += [(record.approval_id, a) for a in queued]
        record = run.approvals.get_approval(record.approval_id) or record
    checkpoint, proposal = review(run.store, record.checkpoint_id)
    for approver in record.policy.approvers:
        if approver in record.notified or record.status != "pending" or run.mails(approver):
            continue
        if not run.outbox and approver not in run.schedule.backups:
            continue  # elsewhere (AWS) the request step sends the first links: a pass sends only the backups'
        key, token = f"link|{approver}", secrets.token_hex(16)
        record = run.approvals.record_reminder_claim(record.approval_id, key, token, now=run.now, lease=run.lease)
        claim = record.reminder(key)
        if claim is None or claim.claim != token or claim.sent_at or approver in record.notified:
            continue  # another run holds it or sent it
        link = record.link_of(approver)
        assert link is not None
        secret = held.get(approver) or run.mint.reissue(link)
        if secret is None:  # a random link this run does not hold: lost; a fresh one replaces it
            secret, link = run.mint.mint(approver)
        url = approval_link(run.link_base(record), record.approval_id, secret)
        run.notifier.notify(message_for(checkpoint, proposal, record.approval_id, approver, url))
        record = mark_link_sent(run, record, key, token, approver, link)
        run.report.links_sent.append((record.approval_id, approver))
    return record


def mark_link_sent(
    run: ReminderPass, record: ApprovalRecord, key: str, token: str, approver: str, link: ApproverLink
) -> ApprovalRecord:
    """The claim ``key`` marked sent and ``approver``'s ``link`` recorded as delivered: one write."""

    def mark(before: ApprovalRecord) -> ApprovalRecord:
        done = before.reminder_sent(key, token, run.now)
        return done.delivered(done.task_token, approver, link.secret_hash, link.nonce)

    after, _ = run.store.change_approval(record.approval_id, mark, lambda _: None)
    return after
