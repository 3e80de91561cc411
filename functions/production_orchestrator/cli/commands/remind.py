"""``remind``: one pass of reminders and escalation over the data dir's open approvals (services/asking/remind.py).

Safe from cron every minute (``* * * * * production-orchestrator remind --data-dir /srv/shop``): a pass that
finds nothing due sends nothing, and each reminder goes once. ``serve`` runs the same pass every minute while it
serves. Locally the messages go where ``start`` sent the links: e-mail approvers' are queued in the outbox (with
their link, rebuilt from the data dir's key when ``outbox send`` delivers them), the others' print on stdout.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..output import EXIT_OK, emit
from ..parser import GROUP_MESSAGES, command, data_dir
from ..reminders import add_reminder_flags, run_pass, schedule_of
from ..root import utc_now

GROUP = GROUP_MESSAGES


def _remind(args: argparse.Namespace) -> int:
    from ...domain.records import parse_utc

    where = data_dir(args)
    schedule = schedule_of(args)
    now = parse_utc(args.now) if args.now else utc_now()
    report = run_pass(where, schedule, now)
    emit(
        {
            "reminded": len(report.reminded),
            "escalated": len(report.escalated),
            "links_sent": len(report.links_sent),
        },
        as_json=False,
    )
    return EXIT_OK


def register(subparsers: Any) -> None:
    """``remind``."""
    parser = command(
        subparsers,
        "remind",
        summary="remind approvers who have not voted; add backups to approvals that waited too long",
        description="One pass over the open approvals: each approver who has not voted gets one reminder at "
        "each point (the latest that has come), and with --escalate-after the backup approvers join an "
        "approval that has waited that long (once, audited; nothing else of its policy changes). Idempotent: "
        "safe to run from cron every minute. `serve` runs the same pass every minute while it serves.",
        examples=[
            "remind",
            "remind --remind-at halfway,24h,2h --escalate-after 36h --backup-approvers dan@example.com",
        ],
        handler=_remind,
    )
    add_reminder_flags(parser)
    parser.add_argument(
        "--now",
        default=None,
        metavar="ISO",
        help="act as if it were this UTC moment (e.g. 2026-08-12T20:00:00Z; tests and catch-up); default: now",
    )
