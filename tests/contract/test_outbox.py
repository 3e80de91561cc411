"""Messages out: the approve queues exactly the plan's drafts, once; ``outbox send`` delivers each once.

Every command is the real CLI in its own process; the SMTP server is a loopback sink that keeps what it got.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator import faults
from production_orchestrator.cli.outbox import as_json
from production_orchestrator.domain.messages.outbox import OutboxMessage
from tests.support import localstore
from tests.support.clidriver import Run, finish, spawn
from tests.support.refusal_cases import Pending
from tests.support.smtp_sink import SmtpSink, smtp_sink


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
        (("--smtp", "127.0.0.1:25", "--from", "not an address"), "is not an e-mail address"),
        (("--smtp", "127.0.0.1:25", "--proposal", "abc"), "--proposal must be the full"),
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


def test_a_crash_after_the_claim_sends_nothing_until_the_lease_passes(approved: Pending) -> None:
    run = approved
    with smtp_sink() as sink:
        crashed = _crash(run, sink, "after_outbox_claim")
        assert crashed.returncode == -9 and sink.received == []
        held = _send(run, sink, "--lease", "5s")
        assert held.returncode == 6 and (held["SENT"], held["PENDING"]) == ("2", "1")  # the first one is held
        time.sleep(5.2)
        again = _send(run, sink, "--lease", "5s")
    assert again.returncode == 0 and (again["SENT"], again["ALREADY_SENT"]) == ("1", "2")
    assert sorted(sink.message_ids()) == sorted(m["message_id"] for m in _outbox(run))  # each exactly once


def test_a_crash_between_sent_and_marked_resends_the_same_message_id(approved: Pending) -> None:
    """The one at-least-once window: the transport took it, the mark was never written."""
    run = approved
    with smtp_sink() as sink:
        crashed = _crash(run, sink, "after_outbox_send")
        assert crashed.returncode == -9 and len(sink.received) == 1
        time.sleep(5.2)
        again = _send(run, sink)
    assert again.returncode == 0 and again["SENT"] == "3"
    ids = sink.message_ids()
    first = _outbox(run)[0]["message_id"]
    # Delivered twice, byte for byte, under one Message-ID: a receiver that drops repeats sees it once.
    assert ids.count(first) == 2 and len(set(ids)) == 3
    assert sink.received[0].data == sink.received[1].data


def _crash(run: Pending, sink: SmtpSink, point: str) -> Run:
    os.environ[faults.ENV_KILL_AT] = point
    try:
        return _send(run, sink, "--lease", "5s")
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
