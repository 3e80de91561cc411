"""Customer e-mails received by SES: which may start a run, and who each run is recorded as asked by.

    SES receipt rule (the inbound address, spam and virus scan on) -> S3 inbound/<message id> -> receive_email
      check_receipt:  SPF, DKIM and DMARC verdicts PASS              else VERDICT_FAILED
                      spam and virus verdicts PASS or GRAY           else SPAM_OR_VIRUS
                      the inbound address among the recipients       else WRONG_RECIPIENT
      accept_message: the stored message read, its text short enough else MESSAGE_UNREADABLE / MESSAGE_TOO_LARGE
                      its MIME parts nested at most 12 deep      else MIME_TOO_DEEP
                      one From, the address SES judged DMARC on      else SENDER_INVALID
                      the sender is no approver                      else SENDER_IS_APPROVER
      -> requested_by = the channel (``inbound:<address>``), customer = the sender

The requester is the channel, not the sender: an e-mail proves which domain sent it (DMARC aligns the From
domain with SPF or DKIM), not which person may approve. Separation of duties then compares the channel, so
any approver may approve such a run, and an approver's own address may not start one by e-mail (that would
let them approve what they asked for: signed submits record them as the requester instead).
A missing verdict counts as a failed one: a rule without scanning, or a forged event, starts nothing.
"""

from __future__ import annotations

import email.utils
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import InboundRefusalCode, InboundRefusedError, IntakeError, MimeTooDeepError, RequestTooLongError
from ..identity import channel_identity, is_email_address, normalize_identity
from .customer_message import CustomerMessage, read_message

# SES message ids are lower-case letters and digits; they become S3 keys, so nothing else is let through.
MESSAGE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}\Z")
MUST_PASS = ("spf", "dkim", "dmarc")
MUST_NOT_FAIL = ("spam", "virus")
_NOT_FAILED = frozenset({"PASS", "GRAY"})


@dataclass(frozen=True)
class ReceivedMail:
    """What the SES event says about one received message (statuses are empty when the event lacks them)."""

    message_id: str
    recipients: tuple[str, ...]
    header_from: tuple[str, ...]  # the From header as SES read it (``commonHeaders.from``)
    spf: str = ""
    dkim: str = ""
    dmarc: str = ""
    spam: str = ""
    virus: str = ""


@dataclass(frozen=True)
class AcceptedMail:
    """A received e-mail that may start a run: who asked (the channel), for whom, and what."""

    requested_by: str
    customer: str
    request: str
    message: CustomerMessage


def _refuse(code: InboundRefusalCode, message: str) -> InboundRefusedError:
    return InboundRefusedError(code, message)


def check_receipt(mail: ReceivedMail, inbound_address: str) -> None:
    """Refuse (:class:`InboundRefusedError`) a message whose verdicts or recipient do not allow a run."""
    if not MESSAGE_ID_PATTERN.fullmatch(mail.message_id):
        raise _refuse(InboundRefusalCode.EVENT_INVALID, "the event names no valid SES message id")
    failed = [f"{name}={getattr(mail, name) or 'missing'}" for name in MUST_PASS if getattr(mail, name) != "PASS"]
    if failed:
        raise _refuse(InboundRefusalCode.VERDICT_FAILED, f"sender authentication did not pass: {', '.join(failed)}")
    flagged = [
        f"{name}={getattr(mail, name) or 'missing'}" for name in MUST_NOT_FAIL if getattr(mail, name) not in _NOT_FAILED
    ]
    if flagged:
        raise _refuse(InboundRefusalCode.SPAM_OR_VIRUS, f"the content scan did not clear it: {', '.join(flagged)}")
    if normalize_identity(inbound_address) not in {normalize_identity(r) for r in mail.recipients}:
        raise _refuse(InboundRefusalCode.WRONG_RECIPIENT, "the message was not received for the inbound address")


def _single_sender(header_from: Iterable[str]) -> str:
    addresses = [address for _, address in email.utils.getaddresses(list(header_from)) if address]
    if len(addresses) != 1 or not is_email_address(addresses[0]):
        raise _refuse(InboundRefusalCode.SENDER_INVALID, "the message must have exactly one From address")
    return normalize_identity(addresses[0])


def accept_message(mail: ReceivedMail, raw: str, *, inbound_address: str, approvers: Iterable[str]) -> AcceptedMail:
    """The run ``raw`` (the stored message of ``mail``, receipt checked) may start, or a refusal."""
    try:
        message = read_message(raw)
    except RequestTooLongError as exc:
        raise _refuse(InboundRefusalCode.MESSAGE_TOO_LARGE, str(exc)) from None
    except MimeTooDeepError as exc:
        raise _refuse(InboundRefusalCode.MIME_TOO_DEEP, str(exc)) from None
    except IntakeError as exc:
        raise _refuse(InboundRefusalCode.MESSAGE_UNREADABLE, str(exc)) from None
    sender = _single_sender(mail.header_from)
    # DMARC judged the From SES read; the stored message must name that same sender.
    if normalize_identity(message.sender) != sender:
        raise _refuse(InboundRefusalCode.SENDER_INVALID, "the stored message's From is not the one SES judged")
    if sender in {normalize_identity(a) for a in approvers}:
        raise _refuse(
            InboundRefusalCode.SENDER_IS_APPROVER,
            "an approver may not start a run by e-mail (use the signed submit, which records them as the requester)",
        )
    return AcceptedMail(
        requested_by=channel_identity(inbound_address), customer=sender, request=message.text, message=message
    )
