"""Messages out: the approve queues exactly the plan's drafts, once; ``outbox send`` delivers each once.

Every command is the real CLI in its own process; the SMTP server is a loopback sink that keeps what it got.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator import faults
from production_orchestrator.adapters.local.mail_transports import SmtpTransport
from production_orchestrator.cli.commands.outbox import as_json
from production_orchestrator.cli.root import local_runtime
from production_orchestrator.domain.messages.outbox import OutboxMessage
from production_orchestrator.domain.records import parse_utc
from production_orchestrator.services.outbox.deliver import Deliver, DeliveryReport, deliver
from tests.support import localstore
from tests.support.clidriver import Run, cli, finish, spawn
from tests.support.refusal_cases import Pending
from tests.support.smtp_sink import SmtpSink, smtp_sink
from tests.support.tls_certs import ca_file, server_context


def _drafts(run: Pending) -> list[dict[str, Any]]:
    with sqlite3.connect(run.data_dir / localstore.DB_NAME) as conn:
        (data,) = conn.execute("SELECT data FROM proposals WHERE proposal_hash = ?", (run.proposal_hash,)).fetchone()
    return list(json.loads(bytes(data))["communication_drafts"])


def _listed(run: Pending) -> list[dict[str, Any]]:
    """What ``outbox list --json`` prints."""
    listed = run.cli("outbox", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return list(json.loads(listed.stdout))


def _outbox(run: Pending) -> list[dict[str, Any]]:
    """The stored outbox, read straight from the data dir (in the listing's shape and order)."""
    with sqlite3.connect(run.data_dir / localstore.DB_NAME) as conn:
        stored = [OutboxMessage.model_validate_json(raw) for (raw,) in conn.execute("SELECT raw FROM outbox")]
    return [as_json(m) for m in sorted(stored, key=lambda m: (m.queued_at, m.key))]


@pytest.fixture(scope="module")
def approved_template(templates: Callable[[str], Pending], tmp_path_factory: pytest.TempPathFactory) -> Pending:
    """A rush-order run approved once (per worker); tests work on copies of its data dir."""
    source = templates("rush-order")
    target = tmp_path_factory.mktemp("approved") / "data"
    shutil.copytree(source.data_dir, target)
    run = source.moved_to(target)
    resumed = run.resume("approve")
    assert resumed.returncode == 0, resumed.stderr
    return run


@pytest.fixture
def approved(approved_template: Pending, tmp_path: Path) -> Pending:
    """A private copy of the approved rush-order run: three messages queued."""
    target = tmp_path / "approved"
    shutil.copytree(approved_template.data_dir, target)
    return approved_template.moved_to(target)


def _approved(fresh: Callable[..., Pending], scenario: str) -> Pending:
    run = fresh(scenario)
    resumed = run.resume("approve")
    assert resumed.returncode == 0, resumed.stderr
    return run


def _send(run: Pending, sink: SmtpSink, *extra: str) -> Run:
    return run.cli("outbox", "send", "--smtp", sink.address, *extra)


@pytest.mark.parametrize("scenario", ["rush-order", "team-jerseys"])
def test_approve_queues_exactly_the_proposals_messages(scenario: str, fresh: Callable[..., Pending]) -> None:
    run = _approved(fresh, scenario)
    drafts = _drafts(run)
    queued = _listed(run)
    assert queued == _outbox(run)
    assert [(m["kind"], m["to"], m["subject"]) for m in queued] == [
        (d["audience"], d["to"], d["subject"]) for d in drafts
    ]
    assert len(queued) == {"rush-order": 3, "team-jerseys": 2}[scenario]
    assert {m["status"] for m in queued} == {"queued"}
    assert {m["proposal_hash"] for m in queued} == {run.proposal_hash}
    assert [m["message_id"] for m in queued] == [
        f"<{run.proposal_hash}.{i}@outbox.production-orchestrator>" for i in range(len(drafts))
    ]
    assert json.loads(run.cli("status", "--json").stdout)["messages"] == {"queued": len(drafts)}
    plan_applied = [e for e in _audit(run) if e["event_type"] == "plan_applied"]
    assert len(plan_applied) == 1 and plan_applied[0]["detail"]["messages_queued"] == len(drafts)
    # The supplier's purchase request is among them exactly when the plan buys material.
    assert ("supplier" in {m["kind"] for m in queued}) == (scenario == "rush-order")


def test_reject_queues_nothing_and_send_has_nothing_to_do(fresh: Callable[..., Pending]) -> None:
    run = fresh("rush-order")
    assert run.resume("reject", "--reason", "not this week").returncode == 0
    assert _listed(run) == []
    assert "nothing was queued" in run.cli("outbox", "list").stdout
    with smtp_sink() as sink:
        sent = _send(run, sink)
    assert sent.returncode == 0, sent.stderr
    assert (sent["SENT"], sent["ALREADY_SENT"], sent["PENDING"], sent["FAILED"]) == ("0", "0", "0", "0")
    assert sink.received == []


def test_a_replayed_approve_queues_nothing_more(approved: Pending) -> None:
    run = approved
    before = _outbox(run)
    replay = run.resume("approve")
    assert replay.returncode == 3 and replay["REFUSED"] == "ALREADY_DECIDED"
    assert _outbox(run) == before and len(before) == 3


def test_send_twice_delivers_each_message_once(approved: Pending) -> None:
    run = approved
    with smtp_sink() as sink:
        first = _send(run, sink, "--from", "planner@shop.example")
        second = _send(run, sink, "--from", "planner@shop.example")
    assert first.returncode == 0, first.stderr
    assert (first["SENT"], first["ALREADY_SENT"]) == ("3", "0")
    assert second.returncode == 0, second.stderr
    assert (second["SENT"], second["ALREADY_SENT"], second["PENDING"], second["FAILED"]) == ("0", "3", "0", "0")
    drafts = _drafts(run)
    assert len(sink.received) == 3
    assert [r.recipients for r in sink.received] == [(d["to"],) for d in drafts]
    assert {r.mail_from for r in sink.received} == {"planner@shop.example"}
    shop = json.loads(run.cli("shop", "show", "--json").stdout)["name"]
    assert {r.headers["From"] for r in sink.received} == {f"{shop} <planner@shop.example>"}  # the shop's name
    assert [r.headers["Subject"] for r in sink.received] == [d["subject"] for d in drafts]
    listed = _listed(run)
    assert {m["status"] for m in listed} == {"sent"}
    # Each is marked with the id the server gave it ("queued as <id>").
    assert [m["transport_id"] for m in listed] == [f"smtp:{r.queue_id}" for r in sink.received]
    assert [m["message_id"] for m in listed] == sink.message_ids()
    assert [e["event_type"] for e in _audit(run)].count("message_sent") == 3


def test_to_dir_writes_one_eml_per_message_and_nothing_twice(approved: Pending, tmp_path: Path) -> None:
    run = approved
    out = tmp_path / "mail"
    first = run.cli("outbox", "send", "--to-dir", str(out))
    assert first.returncode == 0 and first["SENT"] == "3", first.stderr
    files = sorted(out.glob("*.eml"))
    assert [f.name for f in files] == [f"{run.proposal_hash}-{i:02d}.eml" for i in range(3)]
    stamps = [f.stat().st_mtime_ns for f in files]
    second = run.cli("outbox", "send", "--to-dir", str(out))
    assert second.returncode == 0 and (second["SENT"], second["ALREADY_SENT"]) == ("0", "3")
    assert [f.stat().st_mtime_ns for f in sorted(out.glob("*.eml"))] == stamps
    assert b"Message-ID: <" + run.proposal_hash.encode() + b".0@" in files[0].read_bytes()
    assert [m["transport_id"] for m in _outbox(run)] == [f"eml:{f.name}" for f in files]


def test_a_refused_recipient_fails_for_good_and_the_rest_go_out(approved: Pending) -> None:
    run = approved
    supplier = _drafts(run)[2]["to"]
    with smtp_sink() as sink:
        sink.refuse[supplier] = "550 5.1.1 no such mailbox"
        first = _send(run, sink)
        second = _send(run, sink)
    assert first.returncode == 6 and (first["SENT"], first["FAILED"]) == ("2", "1")
    assert "550 5.1.1 no such mailbox" in first.stderr
    assert second.returncode == 6 and (second["SENT"], second["ALREADY_SENT"], second["FAILED"]) == ("0", "2", "1")
    assert len(sink.received) == 2 and supplier not in {r.recipients[0] for r in sink.received}
    failed = [m for m in _outbox(run) if m["status"] == "failed"]
    assert [m["to"] for m in failed] == [supplier] and failed[0]["attempts"] == 1
    assert "550" in failed[0]["last_error"]


def test_a_transient_refusal_stays_queued_and_the_next_send_delivers(approved: Pending) -> None:
    run = approved
    customer = _drafts(run)[0]["to"]
    with smtp_sink() as sink:
        sink.refuse[customer] = "451 4.3.0 try again later"
        first = _send(run, sink)
        del sink.refuse[customer]
        second = _send(run, sink)
    assert first.returncode == 6 and (first["SENT"], first["PENDING"]) == ("2", "1")
    assert second.returncode == 0 and (second["SENT"], second["ALREADY_SENT"]) == ("1", "2")
    assert sorted(sink.message_ids()) == sorted(m["message_id"] for m in _outbox(run))
    assert [m["attempts"] for m in _outbox(run)] == [2, 1, 1]


def test_no_smtp_server_leaves_everything_queued(approved: Pending) -> None:
    run = approved
    with smtp_sink() as sink:
        address = sink.address  # closed when the block ends: nothing listens there any more
    sent = run.cli("outbox", "send", "--smtp", address)
    assert sent.returncode == 6 and (sent["SENT"], sent["PENDING"]) == ("0", "3")
    assert {m["status"] for m in _outbox(run)} == {"queued"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--smtp", "no-port"), "--smtp must be HOST:PORT"),
        (("--smtp", "127.0.0.1:99999"), "--smtp must be HOST:PORT"),
        (("--smtp", "127.0.0.1:25", "--from", "not an address"), "is not a plain ASCII e-mail address"),
        (("--smtp", "127.0.0.1:25", "--proposal", "abc"), "is not a full proposal hash"),
        (("--smtp", "127.0.0.1:25", "--from", "plänner@shop.example"), "SENDER_INVALID"),
        (("--smtp", "127.0.0.1:25", "--from", "planner@shop.example\n"), "ends in a line break"),
        (("--smtp", "127.0.0.1:25", "--from", "Shop <planner@shop.example>"), "SENDER_INVALID"),
        (("--smtp", "127.0.0.1:25", "--starttls", "--smtps"), "not allowed with argument"),
        (("--to-dir", "out", "--starttls"), "TLS_WITHOUT_SMTP"),
        (("--smtp", "127.0.0.1:25", "--lease", "soon"), "is not like 90s"),
        (("--smtp", "127.0.0.1:25", "--to-dir", "x"), "not allowed with argument"),
        ((), "one of the arguments --smtp --to-dir is required"),
    ],
)
def test_bad_send_arguments_change_nothing(args: tuple[str, ...], message: str, approved: Pending) -> None:
    run = approved
    before = localstore.fingerprint(run.data_dir), _outbox(run)
    sent = run.cli("outbox", "send", *args)
    assert sent.returncode == 2 and message in sent.stderr and "Traceback" not in sent.stderr
    assert (localstore.fingerprint(run.data_dir), _outbox(run)) == before


def test_outbox_needs_a_shop(tmp_path: Path) -> None:
    from tests.support.clidriver import cli

    listed = cli("outbox", "list", "--data-dir", str(tmp_path / "none"))
    assert listed.returncode == 2 and "no shop in" in listed.stderr and "Traceback" not in listed.stderr


def _deliver_at(run: Pending, sink: SmtpSink, moment: datetime) -> DeliveryReport:
    """One delivery round on the run's data dir, in this process, with the clock standing at ``moment``."""
    rt = local_runtime(run.data_dir, create=False)
    state = rt.store.load_state()
    assert state is not None
    # As `outbox send` builds it: the shop's name as the From display name.
    transport = SmtpTransport(sink.host, sink.port, "planner@shop.example", timeout=10.0, sender_name=state.name)
    return deliver(replace(rt, transport=transport, clock=lambda: moment), Deliver())


def _lease_of(run: Pending, index: int) -> datetime:
    """When the claim a crashed sender left on message ``index`` runs out (read from the store)."""
    with sqlite3.connect(run.data_dir / localstore.DB_NAME) as conn:
        stored = [OutboxMessage.model_validate_json(raw) for (raw,) in conn.execute("SELECT raw FROM outbox")]
    return parse_utc(next(m for m in stored if m.index == index).lease_until)


def test_a_crash_after_the_claim_sends_nothing_until_the_lease_passes(approved: Pending) -> None:
    """The lease is an hour and the clock is injected: nothing here depends on how fast the machine is."""
    run = approved
    with smtp_sink() as sink:
        crashed = _crash(run, sink, "after_outbox_claim", lease="1h")
        assert crashed.returncode == -9 and sink.received == []
        lease_until = _lease_of(run, 0)
        held = _send(run, sink)
        assert held.returncode == 6 and (held["SENT"], held["PENDING"]) == ("2", "1")  # the first one is held
        still_held = _deliver_at(run, sink, lease_until - timedelta(seconds=1))
        assert still_held.counts()["pending"] == 1 and len(sink.received) == 2
        passed = _deliver_at(run, sink, lease_until)
    assert passed.counts() == {"sent": 1, "already_sent": 2, "pending": 0, "failed": 0, "refused": 0, "void": 0}
    assert sorted(sink.message_ids()) == sorted(m["message_id"] for m in _outbox(run))  # each exactly once
    assert next(m for m in _outbox(run) if m["index"] == 0)["attempts"] == 2  # the dead sender's attempt counts


def test_a_crash_between_sent_and_marked_resends_the_same_message_id(approved: Pending) -> None:
    """The one at-least-once window: the transport took it, the mark was never written."""
    run = approved
    with smtp_sink() as sink:
        crashed = _crash(run, sink, "after_outbox_send", lease="1h")
        assert crashed.returncode == -9 and len(sink.received) == 1
        again = _deliver_at(run, sink, _lease_of(run, 0))
    assert again.counts()["sent"] == 3
    ids = sink.message_ids()
    first = _outbox(run)[0]["message_id"]
    # Delivered twice, byte for byte, under one Message-ID: a receiver that drops repeats sees it once.
    assert ids.count(first) == 2 and len(set(ids)) == 3
    assert sink.received[0].data == sink.received[1].data


def _crash(run: Pending, sink: SmtpSink, point: str, *, lease: str) -> Run:
    os.environ[faults.ENV_KILL_AT] = point
    try:
        return _send(run, sink, "--from", "planner@shop.example", "--lease", lease)
    finally:
        del os.environ[faults.ENV_KILL_AT]


def test_racing_sends_deliver_each_message_once(approved: Pending) -> None:
    run = approved
    with smtp_sink() as sink:
        racers = [spawn("outbox", "send", "--data-dir", str(run.data_dir), "--smtp", sink.address) for _ in range(8)]
        results = [finish(p) for p in racers]
    assert sum(int(r["SENT"]) for r in results) == 3, [r.stderr for r in results]
    assert len(sink.received) == 3 and len(set(sink.message_ids())) == 3
    assert {m["status"] for m in _outbox(run)} == {"sent"}


def _audit(run: Pending) -> list[dict[str, Any]]:
    with sqlite3.connect(run.data_dir / localstore.DB_NAME) as conn:
        return [json.loads(raw) for (raw,) in conn.execute("SELECT raw FROM audit ORDER BY seq")]


def _unchanged(run: Pending) -> tuple[Any, ...]:
    return localstore.fingerprint(run.data_dir), _outbox(run)


@pytest.mark.parametrize(
    ("environ", "args", "code"),
    [
        ({"PO_MAIL_FROM": "planner@shop.example\n"}, (), "SENDER_INVALID"),
        ({"PO_MAIL_FROM": "planner@shöp.example"}, (), "SENDER_INVALID"),
        ({"PO_SMTP_USERNAME": "shop", "PO_SMTP_PASSWORD": "s3cret"}, (), "SMTP_CREDENTIALS_NEED_TLS"),
        ({"PO_SMTP_USERNAME": "shop"}, ("--starttls",), "SMTP_CREDENTIALS_INCOMPLETE"),
    ],
)
def test_the_sender_and_credentials_are_checked_before_any_message_is_claimed(
    approved: Pending, environ: dict[str, str], args: tuple[str, ...], code: str
) -> None:
    run = approved
    before = _unchanged(run)
    with smtp_sink() as sink:
        sent = cli("outbox", "send", "--data-dir", str(run.data_dir), "--smtp", sink.address, *args, environ=environ)
    assert sent.returncode == 2 and f"error: {code}:" in sent.stderr and "Traceback" not in sent.stderr
    assert "s3cret" not in sent.stdout + sent.stderr
    assert sink.connections == 0 and _unchanged(run) == before


def test_the_sender_from_the_environment_is_used(approved: Pending) -> None:
    with smtp_sink() as sink:
        sent = cli(
            "outbox", "send", "--data-dir", str(approved.data_dir), "--smtp", sink.address,
            environ={"PO_MAIL_FROM": "orders@shop.example"},
        )  # fmt: skip
    assert sent.returncode == 0 and {r.mail_from for r in sink.received} == {"orders@shop.example"}


def test_to_dir_naming_a_file_is_refused_before_any_message_is_claimed(approved: Pending, tmp_path: Path) -> None:
    run = approved
    target = tmp_path / "a-file"
    target.write_text("not a directory")
    before = _unchanged(run)
    for _ in range(3):
        sent = run.cli("outbox", "send", "--to-dir", str(target))
        assert sent.returncode == 2 and "TARGET_INVALID" in sent.stderr and "is a file" in sent.stderr
    assert _unchanged(run) == before and {m["attempts"] for m in _outbox(run)} == {0}


def test_proposal_in_upper_case_is_the_same_plan(approved: Pending) -> None:
    run = approved
    with smtp_sink() as sink:
        sent = _send(run, sink, "--proposal", f"  {run.proposal_hash.upper()} ")
    assert sent.returncode == 0 and sent["SENT"] == "3", sent.stderr


@pytest.mark.parametrize(
    ("step", "reply", "exit_code", "status"),
    [
        ("after DATA", "554 5.7.1 refused: looks like spam", 6, "failed"),
        ("after DATA", "451 4.7.1 greylisted", 6, "queued"),
        ("QUIT", "421 4.4.2 bye for now", 0, "sent"),
    ],
)
def test_the_reply_to_data_decides_and_quit_changes_nothing(
    approved: Pending, step: str, reply: str, exit_code: int, status: str
) -> None:
    run = approved
    with smtp_sink() as sink:
        sink.replies[step] = reply
        first = _send(run, sink)
        second = _send(run, sink)
    assert first.returncode == exit_code, first.stderr
    assert {m["status"] for m in _outbox(run)} == {status}
    if status == "sent":
        assert len(sink.received) == 3 and second["ALREADY_SENT"] == "3"  # never delivered twice
    else:
        assert sink.received == [] and reply in first.stderr
    if status == "failed":
        assert {m["last_error"] for m in _outbox(run)} == {f"smtp the message (end of DATA) refused: {reply}"}
        assert second["FAILED"] == "3" and "outbox retry --failed" in second.stderr


def test_outbox_retry_queues_failed_messages_again_and_the_next_send_delivers(approved: Pending) -> None:
    run = approved
    supplier = _drafts(run)[2]["to"]
    with smtp_sink() as sink:
        sink.refuse[supplier] = "550 5.1.1 no such mailbox"
        assert _send(run, sink).returncode == 6
        failed = [m for m in _outbox(run) if m["status"] == "failed"]
        assert [m["to"] for m in failed] == [supplier]
        listed = run.cli("outbox", "list").stdout
        assert f"outbox retry --id {failed[0]['id']}" in listed
        retried = run.cli("outbox", "retry", "--id", failed[0]["id"].upper())
        assert retried.returncode == 0 and retried["REQUEUED"] == "1", retried.stderr
        del sink.refuse[supplier]
        sent = _send(run, sink)
    assert sent.returncode == 0 and sent["SENT"] == "1"
    assert len(sink.received) == 3 and {m["status"] for m in _outbox(run)} == {"sent"}
    requeued = [e for e in _audit(run) if e["event_type"] == "message_requeued"]
    assert len(requeued) == 1 and requeued[0]["detail"]["message"] == failed[0]["id"]
    assert requeued[0]["detail"]["by"].startswith("cli:")
    assert run.cli("audit", "verify")["AUDIT_CHAIN"] == "intact"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--id", "nonsense"), "MESSAGE_ID_INVALID"),
        (("--id", "f" * 64 + "#00"), "MESSAGE_NOT_FOUND"),
        (("--id", "{first}"), "MESSAGE_NOT_RETRYABLE"),
    ],
)
def test_retry_refusals_change_nothing(approved: Pending, args: tuple[str, ...], code: str) -> None:
    run = approved
    first = _outbox(run)[0]["id"]
    before = _unchanged(run)
    retried = run.cli("outbox", "retry", *(a.format(first=first) for a in args))
    assert retried.returncode == 2 and f"error: {code}:" in retried.stderr and "Traceback" not in retried.stderr
    assert _unchanged(run) == before


def _edit_stored_message(run: Pending, index: int, **fields: str) -> None:
    with sqlite3.connect(run.data_dir / localstore.DB_NAME) as conn:
        rows = conn.execute("SELECT msg_key, raw FROM outbox").fetchall()
        key, raw = sorted(rows)[index]
        conn.execute("UPDATE outbox SET raw = ? WHERE msg_key = ?", (json.dumps({**json.loads(raw), **fields}), key))


@pytest.mark.parametrize(
    "fields", [{"to": "attacker@evil.example"}, {"subject": "Invoice"}, {"body": "Our bank details changed."}]
)
def test_a_message_edited_in_the_store_is_refused_at_send_and_named_by_audit_verify(
    approved: Pending, fields: dict[str, str]
) -> None:
    run = approved
    assert run.cli("audit", "verify")["AUDIT_CHAIN"] == "intact"
    _edit_stored_message(run, 0, **fields)
    edited = _outbox(run)[0]
    with smtp_sink() as sink:
        sent = _send(run, sink)
    assert sent.returncode == 6 and sent["REFUSED"] == "1" and sent["SENT"] == "2"
    assert "MESSAGE_TAMPERED" in sent.stderr and next(iter(fields)) in sent.stderr
    assert "attacker@evil.example" not in {r.recipients[0] for r in sink.received} and len(sink.received) == 2
    assert _outbox(run)[0] == edited  # left as found: no claim, no attempt
    verified = run.cli("audit", "verify")
    assert verified.returncode == 5 and verified["AUDIT_CHAIN"] == "broken"
    assert "outbox" in verified.stderr and edited["id"] in verified.stderr


def test_audit_verify_without_its_key_says_so_and_creates_none(approved: Pending) -> None:
    run = approved
    key = run.data_dir / "receipt.key"
    key.unlink()
    before = localstore.fingerprint(run.data_dir)
    verified = run.cli("audit", "verify")
    assert verified.returncode == 2 and "AUDIT_KEY_MISSING" in verified.stderr and "is missing" in verified.stderr
    assert "AUDIT_CHAIN" not in verified.stdout and not key.exists()
    assert localstore.fingerprint(run.data_dir) == before


def test_outbox_list_shows_control_characters_escaped(approved: Pending) -> None:
    run = approved
    with smtp_sink() as sink:
        sink.replies["after DATA"] = "554 5.7.1 \x1b[8mhidden\x1b[0m \x07"
        _send(run, sink)
    listed = run.cli("outbox", "list")
    assert "\x1b" not in listed.stdout and "\x07" not in listed.stdout
    assert "\\x1b[8mhidden\\x1b[0m" in listed.stdout


@pytest.mark.parametrize("mode", ["--starttls", "--smtps"])
def test_credentials_go_over_tls_from_the_cli(approved: Pending, mode: str) -> None:
    run = approved
    secrets = {"PO_SMTP_USERNAME": "shop", "PO_SMTP_PASSWORD": "s3cret", "SSL_CERT_FILE": str(ca_file())}
    with smtp_sink(tls=server_context(), implicit_tls=mode == "--smtps") as sink:
        sent = cli("outbox", "send", "--data-dir", str(run.data_dir), "--smtp", sink.address, mode, environ=secrets)
    assert sent.returncode == 0 and sent["SENT"] == "3", sent.stderr
    assert sink.logins == [("shop", "s3cret", True)] * 3 and all(r.over_tls for r in sink.received)
    assert "s3cret" not in sent.stdout + sent.stderr
