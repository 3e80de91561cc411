"""``production-orchestrator outbox list|send|retry``: every message the shop sends, and its delivery.

    outbox list [--json]                              every message of every kind and its status: a plan's
                                                      (customer, operator, supplier) and an approval's
                                                      (request, reminder)
    outbox send (--smtp HOST:PORT | --to-dir DIR)     deliver what is queued; a second send delivers nothing new
                [--from ADDRESS] [--starttls | --smtps] [--proposal HASH]
    outbox retry (--id ID | --failed)                 queue failed messages of any kind again (audited)

Every argument, the sender and the target are checked before any message is claimed: a refusal (exit 2, a
stable code first on the ``error:`` line) changes nothing. SMTP credentials come from ``PO_SMTP_USERNAME`` /
``PO_SMTP_PASSWORD`` (never a flag: flags show in the process list) and are only ever sent over TLS.
Exit codes: 0 every message is sent, 2 bad input, 6 a message is still queued, failed or refused.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...contracts import ENV_MAIL_FROM, ENV_SMTP_PASSWORD, ENV_SMTP_USERNAME
from ...domain.durations import parse_duration
from ...domain.errors import OutboxRefusedError
from ..inputs import proposal_hash
from ..output import terminal_safe
from ..parser import GROUP_MESSAGES, actions, command, data_dir
from ..reminders import link_base_for
from ..root import local_mac_key, local_runtime

if TYPE_CHECKING:  # the outbox and its transports load when a command runs, not when the parser is built
    from ...adapters.local.mail_transports import SmtpSecurity
    from ...domain.messages.outbox import OutboxMessage
    from ...domain.ports import MessageTransport
    from ...services.outbox.deliver import DeliveryReport

DEFAULT_SENDER = "production-orchestrator@shop.example"
EXIT_OK, EXIT_UNDELIVERED = 0, 6
# A message's id as listed: ``<proposal hash>#<index>`` (any case; the index with or without its leading zero).
_MESSAGE_ID = re.compile(r"([0-9a-f]{64})#([0-9]{1,2})")
# An approval mail's id as listed: ``<approval id>#request#<nonce>`` or ``<approval id>#reminder#<point>#<approver>``.
_MAIL_ID = re.compile(r"appr-[0-9a-f]{32}#(request#[0-9a-f]{32}|reminder#[^#\s]{1,40}#[^#\s]{3,254})")

GROUP = GROUP_MESSAGES


def register(subparsers: Any) -> None:
    """``outbox list`` and ``outbox send``."""
    outbox = command(
        subparsers,
        "outbox",
        summary="every message the shop sends (a plan's, an approval's): list and send them",
        description="Applying a plan queues its drafted messages (customer, floor lead, supplier) in the same "
        "write as the shop change, once. `outbox send` delivers the queued ones, each marked sent with the "
        "transport's id, so a second send delivers nothing new. Approval requests and reminders to approvers with an "
        "e-mail address wait in the same outbox (their links rebuilt from the data dir's key when sent). Exit 6 when "
        "a message could not be delivered.",
        examples=[
            "outbox list",
            "outbox send --smtp 127.0.0.1:2525",
            "outbox send --to-dir outgoing/",
            "outbox retry --failed",
        ],
    )
    what = actions(outbox, metavar="ACTION", title="actions")
    listing = command(
        what,
        "list",
        summary="every message queued, of every kind, and its status",
        description="Each queued message: status (queued, sent, failed, void), kind (a plan's: customer, operator, "
        "supplier; an approval's: request, reminder), to, and what it is: a plan's subject and the proposal it "
        "belongs to, or which approval a request or reminder is for.",
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
        default=None,
        metavar="ADDRESS",
        help=f"From address, plain ASCII (default ${ENV_MAIL_FROM} when set, else {DEFAULT_SENDER})",
    )
    tls = send.add_mutually_exclusive_group()
    tls.add_argument("--starttls", action="store_true", help="upgrade the SMTP connection with STARTTLS")
    tls.add_argument("--smtps", action="store_true", help="SMTP over TLS from the first byte (port 465)")
    send.add_argument("--proposal", default=None, type=proposal_hash, metavar="HASH", help="only this plan's messages")
    send.add_argument(
        "--lease",
        default="2m",
        help="how long a message being sent is held before another send may retry it",
    )
    retry = command(
        what,
        "retry",
        summary="queue failed messages again, for the next send",
        description="A message the server refused for good, or too often, is `failed` and never sent by itself. "
        "`retry` queues it again (a plan's message or an approval's request or reminder) with a fresh budget of "
        "attempts, recorded in the audit trail (message_requeued, with who and the last error); the next "
        "`outbox send` delivers it. Ids are listed by `outbox list`.",
        examples=["outbox retry --failed", "outbox retry --id <proposal hash>#02"],
        handler=_retry,
    )
    which = retry.add_mutually_exclusive_group(required=True)
    which.add_argument("--id", dest="ids", action="append", metavar="ID", help="this message (repeatable)")
    which.add_argument("--failed", action="store_true", help="every failed message")


def as_json(message: OutboxMessage) -> dict[str, Any]:
    """One message for ``--json`` and the evidence (the body is left out: a plan's is in the proposal, an
    approval's is composed at send). ``kind`` names it: a plan's message carries its subject, proposal and index;
    an approval's request or reminder its approval and reminder point."""
    if message.is_plan:
        what: dict[str, Any] = {
            "subject": message.subject,
            "proposal_hash": message.proposal_hash,
            "index": message.index,
        }
    else:
        what = {"approval_id": message.approval_id, "point": message.point}
    return {
        "id": message.key,
        "kind": message.kind,
        "to": message.to,
        "status": message.status,
        **what,
        "message_id": message.message_id,
        "transport_id": message.transport_id,
        "attempts": message.attempts,
        "queued_at": message.queued_at,
        "sent_at": message.sent_at,
        "last_error": message.last_error,
    }


def _what(m: OutboxMessage) -> str:
    from ...domain.presentation import fingerprint

    """A message's last column: a plan's subject and plan, or which approval a request or reminder is for (never
    the link: the row has none)."""
    if m.is_plan:
        return f"{terminal_safe(m.subject)}  [{fingerprint(m.proposal_hash)} #{m.index}]"
    return f"{m.kind}{f' ({terminal_safe(m.point)})' if m.point else ''} for approval {m.approval_id}"


def _list(args: argparse.Namespace) -> int:
    messages = local_runtime(data_dir(args), create=False).store.outbox_messages()
    if args.json:
        print(json.dumps([as_json(m) for m in messages], indent=2, sort_keys=True))
        return EXIT_OK
    if not messages:
        print("no messages: nothing was queued (a plan queues its messages when it is approved and applied)")
    for m in messages:
        # Recipient, subject and error came from a customer's e-mail, a shop file or a server: shown, never obeyed.
        print(f"{m.status:<7} {m.kind:<9} {terminal_safe(m.to):<36} {_what(m)}")
        if m.last_error:
            print(f"        last error: {terminal_safe(m.last_error)}")
        if m.status == "failed":
            print(f"        queue it again: outbox retry --id {terminal_safe(m.key)}")
    return EXIT_OK


def parse_smtp(value: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port); ``ValidationError`` otherwise."""
    host, _, port = value.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536 or not host.isascii() or not host.isprintable():
        raise OutboxRefusedError("SMTP_ADDRESS_INVALID", f"--smtp must be HOST:PORT, got {value!r}")
    return host, int(port)


def _sender(args: argparse.Namespace) -> str:
    from ...domain.shop.model import EMAIL_PATTERN

    """The From address, checked whole: plain ASCII, no display name, no line break (a header is built of it)."""
    if args.sender is not None:
        value, source = str(args.sender), "--from"
    else:
        value, source = os.environ.get(ENV_MAIL_FROM) or DEFAULT_SENDER, f"${ENV_MAIL_FROM}"
    if not EMAIL_PATTERN.fullmatch(value):
        hint = " (it ends in a line break: strip it)" if value.rstrip("\r\n") != value else ""
        raise OutboxRefusedError(
            "SENDER_INVALID", f"{source} {value!r} is not a plain ASCII e-mail address like shop@example.com{hint}"
        )
    return value


def _eml_directory(directory: Path) -> Path:
    """``--to-dir``: a directory this user can write (created when absent), never a file."""
    if directory.exists() and not directory.is_dir():
        raise OutboxRefusedError("TARGET_INVALID", f"--to-dir {directory} is a file, not a directory")
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise OutboxRefusedError("TARGET_INVALID", f"--to-dir {directory} cannot be created: {exc.strerror}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutboxRefusedError("TARGET_INVALID", f"--to-dir {directory} is not writable by this user")
    return directory


def _transport(args: argparse.Namespace, shop_name: str) -> MessageTransport:
    from ...adapters.local.mail_transports import EmlDirectory, SmtpTransport

    sender = _sender(args)
    if args.to_dir is not None:
        if args.starttls or args.smtps:
            raise OutboxRefusedError("TLS_WITHOUT_SMTP", "--starttls and --smtps go with --smtp, not --to-dir")
        return EmlDirectory(_eml_directory(args.to_dir), sender, shop_name)
    host, port = parse_smtp(args.smtp)
    username = os.environ.get(ENV_SMTP_USERNAME, "")
    password = os.environ.get(ENV_SMTP_PASSWORD, "")
    if bool(username) != bool(password):
        missing = ENV_SMTP_PASSWORD if username else ENV_SMTP_USERNAME
        raise OutboxRefusedError("SMTP_CREDENTIALS_INCOMPLETE", f"${missing} is not set: set both or neither")
    security: SmtpSecurity = "smtps" if args.smtps else "starttls" if args.starttls else "none"
    if username and security == "none":
        raise OutboxRefusedError(
            "SMTP_CREDENTIALS_NEED_TLS",
            f"${ENV_SMTP_USERNAME}/${ENV_SMTP_PASSWORD} are set but the connection would be in clear: add --starttls "
            "(port 587) or --smtps (port 465); the password is never sent unencrypted",
        )
    return SmtpTransport(
        host, port, sender, security=security, username=username, password=password, sender_name=shop_name
    )


def _send(args: argparse.Namespace) -> int:
    from ...domain.approval.links import LinkMint
    from ...services.outbox.deliver import Deliver, deliver

    # Everything is checked before any message is claimed: a refusal changes nothing.
    lease = parse_duration(args.lease)
    where = data_dir(args)
    rt = local_runtime(where, create=False)
    state = rt.store.load_state()
    transport = _transport(args, state.name if state is not None else "")
    # One round for every kind; approval mail only in a round of all (--proposal names one plan's messages).
    rt = replace(rt, transport=transport, mint=LinkMint(local_mac_key(where)))
    bases = link_base_for(where) if args.proposal is None else None
    report = deliver(rt, Deliver(proposal_hash=args.proposal, lease=lease, link_base=bases))
    _print_report(report, approvals=args.proposal is None)
    if report.complete:
        return EXIT_OK
    print(
        "error: not every message was delivered; pending ones are retried by the next send, failed ones are "
        "queued again by `outbox retry --failed` once the cause is fixed (see outbox list)",
        file=sys.stderr,
    )
    return EXIT_UNDELIVERED


def _label(m: OutboxMessage) -> str:
    return f"[{m.kind}] to {terminal_safe(m.to)}" if m.is_plan else f"[approval {m.kind}] to {terminal_safe(m.to)}"


def _print_report(report: DeliveryReport, *, approvals: bool) -> None:
    from ...domain.messages.outbox import APPROVAL_KINDS, PLAN_KINDS

    for m in report.sent:
        subject = f": {terminal_safe(m.subject)}" if m.is_plan else ""
        print(f"sent    {_label(m)}{subject} ({m.transport_id})")
    for m in report.void:
        print(f"void    {_label(m)}: {terminal_safe(m.last_error)}")
    for m in report.pending:
        print(f"pending {_label(m)}: {terminal_safe(m.last_error or 'held by another sender')}", file=sys.stderr)
    for m in report.failed:
        print(f"failed  {_label(m)}: {terminal_safe(m.last_error)}", file=sys.stderr)
    for _, problem in report.refused:
        print(f"refused MESSAGE_TAMPERED: {terminal_safe(problem)}", file=sys.stderr)
    plans = report.counts(PLAN_KINDS)
    for name in ("sent", "already_sent", "pending", "failed", "refused"):
        print(f"{name.upper()}={plans[name]}")
    if approvals:
        mail = report.counts(APPROVAL_KINDS)
        for name in ("sent", "pending", "failed", "void", "refused"):
            print(f"APPROVAL_MAIL_{name.upper()}={mail[name]}")


def _message_key(text: str) -> str:
    from ...domain.messages.outbox import outbox_key

    if _MAIL_ID.fullmatch(text.strip()):
        return text.strip()  # an approval's request or reminder, as outbox list shows it
    match = _MESSAGE_ID.fullmatch(text.strip().lower())
    if match is None:
        raise OutboxRefusedError(
            "MESSAGE_ID_INVALID",
            f"--id {text!r} is not a message id (<proposal hash>#<index>, or an approval's, as outbox list shows)",
        )
    return outbox_key(match.group(1), int(match.group(2)))


def _retry(args: argparse.Namespace) -> int:
    from ...services.outbox.requeue import Requeue, requeue

    keys = tuple(dict.fromkeys(_message_key(i) for i in args.ids or ()))
    rt = local_runtime(data_dir(args), create=False)
    try:
        by = getpass.getuser()
    except (OSError, KeyError):
        by = f"uid {os.getuid()}"
    try:
        report = requeue(rt, Requeue(by=f"cli:{by}", keys=keys, all_failed=args.failed))
    except KeyError as exc:
        raise OutboxRefusedError(
            "MESSAGE_NOT_FOUND", f"no message {exc.args[0]} in the outbox (see outbox list)"
        ) from None
    except ValueError as exc:
        raise OutboxRefusedError("MESSAGE_NOT_RETRYABLE", str(exc)) from None
    for m in report.requeued:
        what = terminal_safe(m.subject) if m.is_plan else _what(m)
        print(f"queued  {_label(m)}: {what}  [{terminal_safe(m.key)}]")
    for _, problem in report.refused:
        print(f"refused MESSAGE_TAMPERED: {terminal_safe(problem)}", file=sys.stderr)
    print(f"REQUEUED={len(report.requeued)}")
    print(f"REFUSED={len(report.refused)}")
    if report.requeued:
        print("next: outbox send delivers them", file=sys.stderr)
    elif not report.refused:
        print("no failed message: nothing to queue again", file=sys.stderr)
    return EXIT_UNDELIVERED if report.refused else EXIT_OK
