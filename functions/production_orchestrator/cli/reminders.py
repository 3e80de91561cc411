"""Reminders and escalation, one pass over the data dir's open approvals (services/asking/remind.py): the flags
that say when, the pass itself, and ``serve``'s pass every minute.

Locally the messages go where ``start`` sent the links: e-mail approvers' are queued in the outbox (with
their link, rebuilt from the data dir's key when ``outbox send`` delivers them), the others' print on stdout.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.errors import ValidationError
from ..domain.identity import normalize_identity
from ..domain.limits import DEFAULT_REMINDER_POINTS as DEFAULT_POINTS
from . import inputs
from .output import emit
from .root import DEFAULT_LINK_BASE, link_bases, local_runtime, record_link_base, utc_now

if TYPE_CHECKING:  # the services load when a command runs, not when the parser is built
    from ..domain.approval.approvals import ApprovalRecord
    from ..domain.approval.reminders import ReminderSchedule
    from ..domain.ports import ApprovalMessage
    from ..services.asking.remind import RemindReport

PASS_SECONDS = 60  # how often ``serve`` runs a pass


class PrintingNotifier:
    """The local e-mail of approvers who have no address: each message as ``KEY=value`` lines on stdout, with
    their link (``APPROVAL_URL_<n>``, a first link; ``REMINDER_URL_<n>``, the same link again in a reminder)."""

    def __init__(self) -> None:
        self.count = 0

    def notify(self, message: ApprovalMessage) -> None:
        """Print one message."""
        self.count += 1
        kind = "reminder_url" if message.subject.startswith("Reminder:") else "approval_url"
        values: dict[str, Any] = {
            f"message_{self.count}_to": message.approver,
            f"message_{self.count}": message.subject,
        }
        if message.link:
            values[f"{kind}_{self.count}"] = message.link
        emit(values, as_json=False)


def add_reminder_flags(parser: argparse.ArgumentParser) -> None:
    """When approvers are reminded and when the backups join (``remind``, ``serve``)."""
    group = parser.add_argument_group("reminders and escalation")
    group.add_argument(
        "--remind-at",
        type=_points,
        default=DEFAULT_POINTS,
        metavar="POINTS",
        help="when to remind who has not voted: halfway, a share of the window (25%%) or a time before it "
        f"ends (24h), comma-separated (default: {','.join(DEFAULT_POINTS)})",
    )
    group.add_argument(
        "--escalate-after",
        type=inputs.duration,
        default=None,
        metavar="DURATION",
        help="after this long open, add --backup-approvers to the approval (once, audited)",
    )
    group.add_argument(
        "--backup-approvers",
        type=inputs.names,
        default=(),
        metavar="A,B",
        help="who joins an approval that waited --escalate-after (each gets their own link)",
    )


def _points(text: str) -> tuple[str, ...]:
    from ..domain.approval.reminders import parse_points

    try:
        return parse_points(text)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def schedule_of(args: argparse.Namespace) -> ReminderSchedule:
    """The reminder schedule the flags describe; backups without a time (or the reverse) is refused."""
    from ..domain.approval.reminders import ReminderSchedule

    backups = tuple(normalize_identity(str(b)) for b in args.backup_approvers)
    if bool(backups) != (args.escalate_after is not None):
        raise ValidationError("--escalate-after and --backup-approvers go together: pass both, or neither")
    return ReminderSchedule(points=tuple(args.remind_at), escalate_after=args.escalate_after, backups=backups)


def link_base_for(where: Path) -> Callable[[ApprovalRecord], str]:
    """The link base ``start`` used for an approval (or the one it replaced), for the links of backups."""

    def base(record: ApprovalRecord) -> str:
        bases = link_bases(where)
        return bases.get(record.approval_id) or bases.get(record.supersedes) or DEFAULT_LINK_BASE

    return base


def run_pass(where: Path, schedule: ReminderSchedule, now: datetime) -> RemindReport:
    """One pass over ``where``'s open approvals, messages on stdout."""
    from ..services.asking.remind import Remind, remind

    rt = local_runtime(where, create=False)
    assert rt.approvals is not None
    bases = link_base_for(where)
    # The data dir's runtime mints links with its key (the same link as the first message, rebuilt).
    report = remind(
        replace(rt, notifier=PrintingNotifier(), clock=lambda: now), Remind(schedule, link_base=bases, outbox=True)
    )
    for approval_id, _ in report.links_sent:
        record = rt.approvals.get_approval(approval_id)
        if record is not None:
            record_link_base(where, approval_id, bases(record))
    return report


def every_minute(where: Path, schedule: ReminderSchedule, stop: threading.Event) -> threading.Thread:
    """``serve``'s pass, each minute until ``stop`` is set (a failed pass is logged and the next one tries)."""
    import logging

    log = logging.getLogger(__name__)

    def loop() -> None:
        while not stop.is_set():
            try:
                report = run_pass(where, schedule, utc_now())
                if report.reminded or report.escalated or report.links_sent:
                    log.info(
                        "reminders reminded=%s escalated=%s links_sent=%s",
                        len(report.reminded), len(report.escalated), len(report.links_sent),
                    )  # fmt: skip
            except Exception as exc:  # one bad pass must not stop serving the pages
                log.warning("reminder pass failed: %s", type(exc).__name__)
            stop.wait(PASS_SECONDS)

    thread = threading.Thread(target=loop, name="reminders", daemon=True)
    thread.start()
    return thread
