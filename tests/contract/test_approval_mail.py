"""Links that reach the phone, locally: e-mail approvers get their request (and reminders) through the outbox with
a working link, each once, whatever the path (start, relink, escalation, reminder, a retry, a crash, racing
senders); no secret is stored, logged or audited. Runs the installed CLI on a real data dir, the SMTP test sink,
and the delivery step with an injected clock where a lease has to pass."""

from __future__ import annotations

import email
import email.policy
import os
import re
import sqlite3
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from production_orchestrator import faults
from production_orchestrator.adapters.local.mail_transports import SmtpTransport
from production_orchestrator.cli.commands.outbox import DEFAULT_SENDER
from production_orchestrator.cli.reminders import link_base_for
from production_orchestrator.cli.root import local_mac_key, local_runtime
from production_orchestrator.domain.approval.links import LinkMint
from production_orchestrator.domain.messages.outbox import OutboxMessage
from production_orchestrator.domain.records import parse_utc, utc_iso
from production_orchestrator.services.outbox.deliver import Deliver, DeliveryReport, deliver
from tests.approvals.test_policy import endpoint
from tests.support.clidriver import Run, cli, finish, spawn
from tests.support.smtp_sink import SmtpSink, smtp_sink

APPROVERS = "Ana@Example.com,ben@example.com,cyril"  # two addresses (one in capitals), one plain name
_LINK = re.compile(r"http://127\.0\.0\.1:8765/approve\?\S+")


def _start(tmp_path: Path, *flags: str) -> tuple[Path, Run]:
    data_dir = tmp_path / "data"
    run = cli("start", "--data-dir", str(data_dir), "--approvers", APPROVERS, "--approval-window", "72h", *flags)
    assert run.returncode == 0, run.stderr
    return data_dir, run


def _send(data_dir: Path, sink: SmtpSink, *flags: str) -> Run:
    return cli("outbox", "send", "--data-dir", str(data_dir), "--smtp", sink.address, *flags)


def _mails(data_dir: Path) -> list[OutboxMessage]:
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        stored = [OutboxMessage.model_validate_json(r) for (r,) in conn.execute("SELECT raw FROM outbox ORDER BY seq")]
    return [m for m in stored if not m.is_plan]


def _stored(data_dir: Path) -> tuple[Any, ...]:
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        return tuple(
            conn.execute(f"SELECT raw FROM {table} ORDER BY seq").fetchall()
            for table in ("approvals", "outbox", "audit")
        )


def _bodies(sink: SmtpSink) -> list[tuple[str, str, str]]:
    """(to, subject, body) of each message the sink received."""
    out = []
    for received in sink.received:
        parsed = email.message_from_bytes(received.data, policy=email.policy.default)
        body = parsed.get_body(preferencelist=("plain",))
        assert body is not None
        out.append((str(parsed["To"]), str(parsed["Subject"]), str(body.get_content())))
    return out


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def _link_of(text: str) -> dict[str, str]:
    (url,) = _LINK.findall(text)
    return _query(url)


def _opens_as(data_dir: Path, query: dict[str, str]) -> str:
    """Whom the page greets for this link ("" for the neutral page)."""
    page = endpoint(data_dir)[0].show(query)
    found = re.search(r"You are</dt><dd>([^<]+)", page.body)
    return found.group(1) if page.status == 200 and found else ""


def _deliver_at(data_dir: Path, sink: SmtpSink, at: Any) -> DeliveryReport:
    """One delivery round of approval mail with the clock at ``at`` (the lease of a crashed sender can pass)."""
    rt = local_runtime(data_dir, create=False)
    assert rt.approvals is not None
    state = rt.store.load_state()
    assert state is not None
    transport = SmtpTransport(sink.host, sink.port, DEFAULT_SENDER, sender_name=state.name)  # as `outbox send`
    rt = replace(rt, transport=transport, mint=LinkMint(local_mac_key(data_dir)), clock=lambda: at)
    return deliver(rt, Deliver(link_base=link_base_for(data_dir)))


def _no_secret_anywhere(data_dir: Path, secrets: list[str]) -> None:
    for path in data_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(s.encode() in data for s in secrets), path


def test_start_queues_each_e_mail_approver_one_request_with_a_working_link_and_the_summary(tmp_path: Path) -> None:
    data_dir, run = _start(tmp_path)
    # Addresses get no link on stdout (it would sit in a terminal or a cron log); the plain name gets theirs.
    assert (run["APPROVER_1"], run["APPROVAL_SENT_1"]) == ("ana@example.com", "outbox")
    assert (run["APPROVER_2"], run["APPROVAL_SENT_2"]) == ("ben@example.com", "outbox")
    assert "APPROVAL_URL_1" not in run.values and "APPROVAL_URL_2" not in run.values
    assert (
        run["APPROVAL_URL"] == run["APPROVAL_URL_3"] and _opens_as(data_dir, _query(run["APPROVAL_URL_3"])) == "cyril"
    )
    assert "outbox send" in run.stderr
    with smtp_sink() as sink:
        sent = _send(data_dir, sink)
        again = _send(data_dir, sink)
    assert sent.returncode == 0, sent.stderr
    assert sent["APPROVAL_MAIL_SENT"] == "2" and again["APPROVAL_MAIL_SENT"] == "0"  # each once
    mails = _bodies(sink)
    assert sorted(to for to, _, _ in mails) == ["ana@example.com", "ben@example.com"]
    secrets = []
    for to, subject, body in mails:
        assert subject.startswith("Approve plan for order RUSH-200?")
        for words in ("Order:       RUSH-200", "Due:", "Timing:", "Fingerprint:", "Decide by:", "do not forward"):
            assert words in body, (words, body)
        assert re.search(r"Decide by:\s+\S.*[+-]\d\d:?\d\d|UTC", body)  # the shop's time, with its offset
        query = _link_of(body)
        assert _opens_as(data_dir, query) == to
        secrets.append(query["s"])
    assert len(set(sink.message_ids())) == 2
    types = [e for e in _audit(data_dir) if e["event_type"] == "approval_mail_sent"]
    assert sorted(e["detail"]["approver"] for e in types) == ["ana@example.com", "ben@example.com"]
    _no_secret_anywhere(data_dir, secrets)
    assert not any(s in sent.stdout + sent.stderr for s in secrets)


def _audit(data_dir: Path) -> list[dict[str, Any]]:
    import json

    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        return [json.loads(raw) for (raw,) in conn.execute("SELECT raw FROM audit ORDER BY seq")]


def test_relink_queues_the_new_link_in_its_transaction_and_voids_the_request_for_the_old(tmp_path: Path) -> None:
    data_dir, run = _start(tmp_path)
    done = cli("approvals", "relink", "--data-dir", str(data_dir), "--approval", run["APPROVAL_ID"],
               "--approver", "  BEN@example.COM ")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done["APPROVER"] == "ben@example.com" and done["APPROVAL_SENT"] == "outbox"
    assert "APPROVAL_URL" not in done.values and "http" not in done.stdout
    with smtp_sink() as sink:
        sent = _send(data_dir, sink)
    assert sent.returncode == 0, sent.stderr
    # ben's first request was still queued: void (never sent with a revoked link); the new one goes, once.
    assert (sent["APPROVAL_MAIL_SENT"], sent["APPROVAL_MAIL_VOID"]) == ("2", "1")
    by_to = {to: _link_of(body) for to, _, body in _bodies(sink)}
    assert _opens_as(data_dir, by_to["ben@example.com"]) == "ben@example.com"
    void = [m for m in _mails(data_dir) if m.status == "void"]
    assert len(void) == 1 and void[0].approver == "ben@example.com" and "relink" in void[0].last_error
    assert [e["event_type"] for e in _audit(data_dir)].count("approval_relinked") == 1


def test_relink_after_delivery_sends_a_new_link_and_the_old_one_opens_nothing(tmp_path: Path) -> None:
    data_dir, run = _start(tmp_path)
    with smtp_sink() as sink:
        assert _send(data_dir, sink).returncode == 0
        old = next(_link_of(body) for to, _, body in _bodies(sink) if to == "ana@example.com")
        done = cli("approvals", "relink", "--data-dir", str(data_dir), "--approval", run["APPROVAL_ID"],
                   "--approver", "ana@example.com")  # fmt: skip
        assert done.returncode == 0, done.stderr
        again = _send(data_dir, sink)
    assert again["APPROVAL_MAIL_SENT"] == "1"
    new = _link_of(_bodies(sink)[-1][2])
    assert new["s"] != old["s"]
    assert _opens_as(data_dir, new) == "ana@example.com" and _opens_as(data_dir, old) == ""


def test_a_relink_that_dies_inside_its_transaction_leaves_nothing_behind(tmp_path: Path) -> None:
    """The approval and its audit event used to be two writes: a crash between them is now a crash before both."""
    data_dir, run = _start(tmp_path, "--print-links")
    before = _stored(data_dir)
    os.environ[faults.ENV_KILL_AT] = "inside_approval_change"
    try:
        died = cli("approvals", "relink", "--data-dir", str(data_dir), "--approval", run["APPROVAL_ID"],
                   "--approver", "ben@example.com", "--print-link")  # fmt: skip
    finally:
        del os.environ[faults.ENV_KILL_AT]
    assert died.returncode == -9 and "APPROVAL_URL" not in died.stdout
    assert _stored(data_dir) == before
    assert _opens_as(data_dir, _query(run["APPROVAL_URL_2"])) == "ben@example.com"  # the old link still works


def test_a_crash_after_the_claim_sends_nothing_until_the_lease_passes_then_once(tmp_path: Path) -> None:
    data_dir, _ = _start(tmp_path)
    with smtp_sink() as sink:
        os.environ[faults.ENV_KILL_AT] = "after_approval_mail_claim"
        try:
            died = _send(data_dir, sink, "--lease", "1h")
        finally:
            del os.environ[faults.ENV_KILL_AT]
        assert died.returncode == -9 and sink.received == []
        held = next(m for m in _mails(data_dir) if m.claim_token)
        until = parse_utc(held.lease_until)
        early = _deliver_at(data_dir, sink, until - timedelta(seconds=1))
        assert len(early.sent) == 1 and len(early.pending) == 1  # the other one; the held one waits
        late = _deliver_at(data_dir, sink, until)
    assert len(late.sent) == 1 and late.sent[0].key == held.key and late.sent[0].attempts == 2
    assert sorted(r.recipients[0] for r in sink.received) == ["ana@example.com", "ben@example.com"]


def test_a_crash_between_sent_and_marked_resends_the_same_bytes_and_message_id(tmp_path: Path) -> None:
    data_dir, _ = _start(tmp_path)
    with smtp_sink() as sink:
        os.environ[faults.ENV_KILL_AT] = "after_approval_mail_send"
        try:
            died = _send(data_dir, sink, "--lease", "1h")
        finally:
            del os.environ[faults.ENV_KILL_AT]
        assert died.returncode == -9 and len(sink.received) == 1
        held = next(m for m in _mails(data_dir) if m.claim_token)
        _deliver_at(data_dir, sink, parse_utc(held.lease_until))
    assert len(sink.received) == 3
    first, *rest = sink.received
    assert sum(r.data == first.data for r in rest) == 1  # the one at-least-once window: same bytes, same id


def test_racing_sends_deliver_each_request_once(tmp_path: Path) -> None:
    data_dir, _ = _start(tmp_path)
    with smtp_sink() as sink:
        racers = [spawn("outbox", "send", "--data-dir", str(data_dir), "--smtp", sink.address) for _ in range(6)]
        results = [finish(p) for p in racers]
    assert sum(int(r["APPROVAL_MAIL_SENT"]) for r in results) == 2, [r.stderr for r in results]
    assert len(sink.received) == 2 and len(set(sink.message_ids())) == 2


def test_reminders_carry_the_same_working_link_and_go_once(tmp_path: Path) -> None:
    data_dir, run = _start(tmp_path)
    created = parse_utc(run["EXPIRES_AT"]) - timedelta(hours=72)
    with smtp_sink() as sink:
        _send(data_dir, sink)
        first = {to: _link_of(body) for to, _, body in _bodies(sink)}
        due = cli("remind", "--data-dir", str(data_dir), "--now", utc_iso(created + timedelta(hours=37)))
        twice = cli("remind", "--data-dir", str(data_dir), "--now", utc_iso(created + timedelta(hours=37, minutes=1)))
        assert (due["REMINDED"], twice["REMINDED"]) == ("3", "0"), due.stdout
        # cy has no address: their reminder prints, with their link (the same one they were given).
        assert due["REMINDER_URL_1"] == run["APPROVAL_URL_3"]
        sent = _send(data_dir, sink)
        assert sent["APPROVAL_MAIL_SENT"] == "2" and _send(data_dir, sink)["APPROVAL_MAIL_SENT"] == "0"
    reminders = [(to, subject, body) for to, subject, body in _bodies(sink) if subject.startswith("Reminder:")]
    assert sorted(to for to, _, _ in reminders) == ["ana@example.com", "ben@example.com"]
    for to, _, body in reminders:
        assert _link_of(body) == first[to] and _opens_as(data_dir, _link_of(body)) == to
        assert "Time left:" in body and "Decide by:" in body


def test_a_reminder_queued_for_someone_who_votes_before_the_send_is_void(tmp_path: Path) -> None:
    data_dir, run = _start(tmp_path)
    created = parse_utc(run["EXPIRES_AT"]) - timedelta(hours=72)
    with smtp_sink() as sink:
        _send(data_dir, sink)
        ana = next(_link_of(body) for to, _, body in _bodies(sink) if to == "ana@example.com")
        assert (
            cli("remind", "--data-dir", str(data_dir), "--now", utc_iso(created + timedelta(hours=37))).returncode == 0
        )
        form = {"decision": "approve", "reviewed_hash": run["PROPOSAL_HASH"], "reason": ""}
        assert endpoint(data_dir)[0].post(ana, form).status == 200
        sent = _send(data_dir, sink)
    # the approval needs one vote and ana's closed it: neither reminder is sent any more.
    assert (sent["APPROVAL_MAIL_SENT"], sent["APPROVAL_MAIL_VOID"]) == ("0", "2")


def test_backups_join_once_and_an_e_mail_backup_gets_a_request_once(tmp_path: Path) -> None:
    data_dir, run = _start(tmp_path)
    created = parse_utc(run["EXPIRES_AT"]) - timedelta(hours=72)
    flags = ("--escalate-after", "12h", "--backup-approvers", "Dan@Example.com")
    racers = [
        spawn("remind", "--data-dir", str(data_dir), "--now", utc_iso(created + timedelta(hours=12)), *flags)
        for _ in range(4)
    ]
    results = [finish(p) for p in racers]
    assert sum(int(r["ESCALATED"]) for r in results) == 1, [r.stdout for r in results]
    assert sum(int(r["LINKS_SENT"]) for r in results) == 1
    with smtp_sink() as sink:
        _send(data_dir, sink)
    dan = [body for to, _, body in _bodies(sink) if to == "dan@example.com"]
    assert len(dan) == 1 and _opens_as(data_dir, _link_of(dan[0])) == "dan@example.com"
    assert [e["event_type"] for e in _audit(data_dir)].count("approval_escalated") == 1


@pytest.mark.parametrize("flag", ["--to-dir"])
def test_eml_directory_keeps_each_request_once_and_private(tmp_path: Path, flag: str) -> None:
    data_dir, _ = _start(tmp_path)
    out = tmp_path / "mail"
    assert cli("outbox", "send", "--data-dir", str(data_dir), flag, str(out)).returncode == 0
    assert cli("outbox", "send", "--data-dir", str(data_dir), flag, str(out)).returncode == 0
    files = sorted(out.glob("approval-*.eml"))
    assert len(files) == 2 and all(f.stat().st_mode & 0o077 == 0 for f in files)
