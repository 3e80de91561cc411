"""``production-orchestrator outbox list|send``: the approved plans' messages, and their delivery.

    outbox list [--json]                              every queued, sent and failed message
    outbox send (--smtp HOST:PORT | --to-dir DIR)     deliver what is queued; a second send delivers nothing new
                [--from ADDRESS] [--starttls] [--proposal HASH]

SMTP credentials come from ``PO_SMTP_USERNAME`` / ``PO_SMTP_PASSWORD`` (never a flag: flags show in the
process list). Exit codes: 0 every message is sent, 2 bad input, 6 a message is still queued or failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..adapters.local.mail_transports import EmlDirectory, SmtpTransport
from ..contracts import ENV_MAIL_FROM, ENV_SMTP_PASSWORD, ENV_SMTP_USERNAME, is_approver_email
from ..domain.durations import parse_duration
from ..domain.errors import ValidationError
from ..domain.outbox import OutboxMessage
from ..domain.ports import MessageTransport
from ..domain.presentation import fingerprint
from ..domain.records import require_hash
from ..lifecycle.deliver import deliver
from .root import local_runtime, utc_now

DEFAULT_SENDER = "production-orchestrator@shop.example"
EXIT_OK, EXIT_UNDELIVERED = 0, 6


def register(subparsers: Any) -> None:
    """Add ``outbox list`` and ``outbox send`` to the console script's subcommands."""
    from .main import DEFAULT_DATA_DIR  # resolved at call time: main imports this module

    outbox = subparsers.add_parser("outbox", help="the approved plans' messages: list and send them")
    outbox.add_argument("--data-dir", type=Path, default=Path(DEFAULT_DATA_DIR))
    commands = outbox.add_subparsers(dest="outbox_command", required=True, parser_class=type(outbox))
    listing = commands.add_parser("list", help="every message an applied plan queued, and its status")
    # Before or after the subcommand, like every other command's --data-dir.
    listing.add_argument("--data-dir", type=Path, default=argparse.SUPPRESS)
    listing.add_argument("--json", action="store_true")
    send = commands.add_parser("send", help="deliver the queued messages, each once")
    send.add_argument("--data-dir", type=Path, default=argparse.SUPPRESS)
    target = send.add_mutually_exclusive_group(required=True)
    target.add_argument("--smtp", metavar="HOST:PORT", help="deliver through this SMTP server")
    target.add_argument("--to-dir", type=Path, metavar="DIR", help="write one .eml file per message")
    send.add_argument(
        "--from",
        dest="sender",
        default=os.environ.get(ENV_MAIL_FROM) or DEFAULT_SENDER,
        help=f"From address (default ${ENV_MAIL_FROM} or {DEFAULT_SENDER})",
    )
    send.add_argument("--starttls", action="store_true", help="upgrade the SMTP connection with STARTTLS")
    send.add_argument("--proposal", default=None, metavar="HASH", help="only this plan's messages")
    send.add_argument(
        "--lease",
        default="2m",
        help="how long a message being sent is held before another send may retry it (default 2m)",
    )


def run(args: argparse.Namespace) -> int:
    """Dispatch ``outbox list`` / ``outbox send``."""
    if args.outbox_command == "list":
        return _list(args)
    return _send(args)


def as_json(message: OutboxMessage) -> dict[str, Any]:
    """One message for ``--json`` and the evidence (the body is left out: it is in the proposal)."""
    return {
        "kind": message.kind,
        "to": message.to,
        "subject": message.subject,
        "status": message.status,
        "proposal_hash": message.proposal_hash,
        "index": message.index,
        "message_id": message.message_id,
        "transport_id": message.transport_id,
        "attempts": message.attempts,
        "queued_at": message.queued_at,
        "sent_at": message.sent_at,
        "last_error": message.last_error,
    }


def _list(args: argparse.Namespace) -> int:
    messages = local_runtime(args.data_dir, create=False).store.outbox_messages()
    if args.json:
        print(json.dumps([as_json(m) for m in messages], indent=2, sort_keys=True))
        return EXIT_OK
    if not messages:
        print("no messages: nothing was queued (a plan queues its messages when it is approved and applied)")
    for m in messages:
        print(f"{m.status:<7} {m.kind:<9} {m.to:<36} {m.subject}  [{fingerprint(m.proposal_hash)} #{m.index}]")
        if m.last_error:
            print(f"        last error: {m.last_error}")
    return EXIT_OK


def parse_smtp(value: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port); ``ValidationError`` otherwise."""
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValidationError(f"--smtp must be HOST:PORT, got {value!r}")
    return host.strip("[]"), int(port)


def _transport(args: argparse.Namespace) -> MessageTransport:
    if not is_approver_email(args.sender):
        raise ValidationError(f"--from {args.sender!r} is not an e-mail address")
    if args.to_dir is not None:
        return EmlDirectory(args.to_dir, args.sender)
    host, port = parse_smtp(args.smtp)
    return SmtpTransport(
        host,
        port,
        args.sender,
        starttls=args.starttls,
        username=os.environ.get(ENV_SMTP_USERNAME, ""),
        password=os.environ.get(ENV_SMTP_PASSWORD, ""),
    )


def _send(args: argparse.Namespace) -> int:
    if args.proposal is not None:
        try:
            require_hash(args.proposal, "--proposal")
        except ValueError as exc:
            raise ValidationError(str(exc)) from None
    lease = parse_duration(args.lease)
    transport = _transport(args)
    rt = local_runtime(args.data_dir, create=False)
    report = deliver(rt.store, transport, clock=utc_now, proposal_hash=args.proposal, lease=lease)
    for m in report.sent:
        print(f"sent    [{m.kind}] to {m.to}: {m.subject} ({m.transport_id})")
    for m in report.pending:
        print(f"pending [{m.kind}] to {m.to}: {m.last_error or 'held by another sender'}", file=sys.stderr)
    for m in report.failed:
        print(f"failed  [{m.kind}] to {m.to}: {m.last_error}", file=sys.stderr)
    for name, value in report.counts().items():
        print(f"{name.upper()}={value}")
    if report.complete:
        return EXIT_OK
    print(
        "error: not every message was delivered; pending ones are retried by the next send, "
        "failed ones need a person (see outbox list)",
        file=sys.stderr,
    )
    return EXIT_UNDELIVERED
