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
from ..domain.messages.outbox import OutboxMessage
from ..domain.ports import MessageTransport
from ..domain.presentation import fingerprint
from ..domain.records import require_hash
from ..lifecycle.deliver import deliver
from .parser import actions, command, data_dir
from .root import local_runtime, utc_now

DEFAULT_SENDER = "production-orchestrator@shop.example"
EXIT_OK, EXIT_UNDELIVERED = 0, 6


def register(subparsers: Any) -> None:
    """``outbox list`` and ``outbox send``."""
    outbox = command(
        subparsers,
        "outbox",
        summary="the approved plans' messages: list and send them",
        description="Applying a plan queues its drafted messages (customer, floor lead, supplier) in the same "
        "write as the shop change, once. `outbox send` delivers the queued ones, each marked sent with the "
        "transport's id, so a second send delivers nothing new. Exit 6 when a message could not be delivered.",
        examples=["outbox list", "outbox send --smtp 127.0.0.1:2525", "outbox send --to-dir outgoing/"],
    )
    what = actions(outbox, metavar="ACTION", title="actions")
    listing = command(
        what,
        "list",
        summary="every message an applied plan queued, and its status",
        description="Each queued message: kind (customer, operator, supplier), to, subject, status "
        "(queued, sent, failed) and the proposal it belongs to.",
        examples=["outbox list", "outbox list --json"],
        handler=_list,
    )
    listing.add_argument("--json", action="store_true", help="one JSON object on stdout")
    send = command(
        what,
        "send",
        summary="deliver the queued messages, each once",
        description="Deliver every queued message through an SMTP server or into a directory as .eml files; "
        "each is claimed, sent and marked sent with the transport's id.",
        examples=["outbox send --smtp 127.0.0.1:2525", "outbox send --to-dir outgoing/"],
        handler=_send,
    )
    target = send.add_mutually_exclusive_group(required=True)
    target.add_argument("--smtp", metavar="HOST:PORT", help="deliver through this SMTP server")
    target.add_argument("--to-dir", type=Path, metavar="DIR", help="write one .eml file per message")
    send.add_argument(
        "--from",
        dest="sender",
        default=os.environ.get(ENV_MAIL_FROM) or DEFAULT_SENDER,
        help=f"From address (${ENV_MAIL_FROM} when set)",
    )
    send.add_argument("--starttls", action="store_true", help="upgrade the SMTP connection with STARTTLS")
    send.add_argument("--proposal", default=None, metavar="HASH", help="only this plan's messages")
    send.add_argument(
        "--lease",
        default="2m",
        help="how long a message being sent is held before another send may retry it",
    )


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
    messages = local_runtime(data_dir(args), create=False).store.outbox_messages()
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
    rt = local_runtime(data_dir(args), create=False)
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
