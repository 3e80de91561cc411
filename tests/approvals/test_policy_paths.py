"""Every path to a decision asks the one policy (issue 11: each test is one way it used to be walked around).

Runs are started by the real CLI; decisions arrive by the shared page endpoint (with a recording callback
where the resume process would run), by ``resume`` and ``resume-approval`` in fresh processes.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.domain.presentation import fingerprint as plan_fingerprint
from production_orchestrator.services.runs.repropose import ProposeAgain
from production_orchestrator.services.runs.start import StartRun
from tests.approvals.test_policy import SOD, approval_rows, endpoint, form, link
from tests.support.clidriver import Run, cli
from tests.support.localstore import fingerprint, shop_state
from tests.support.net import APPROVERS

BIG_QUORUM = ("--approvers", APPROVERS, "--quorum", "2", "--quorum-above", "1000")


def _resume(data_dir: Path, run: Run, decision: str, approver: str, *extra: str) -> Run:
    return cli(
        "resume", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"], "--decision", decision,
        "--reviewed-hash", run["PROPOSAL_HASH"], "--approver", approver, *extra,
    )  # fmt: skip


def _stored(data_dir: Path) -> tuple[Any, ...]:
    """Everything a refusal must leave alone: the shop's tables, the sessions and the approval records."""
    return fingerprint(data_dir), approval_rows(data_dir)


def _approval_status(data_dir: Path, approval_id: str) -> str:
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        (raw,) = conn.execute("SELECT raw FROM approvals WHERE approval_id = ?", (approval_id,)).fetchone()
    return str(re.search(r'"status":"(\w+)"', raw).group(1))  # type: ignore[union-attr]


# -- 1. a policy nobody can satisfy; a checkpoint without its approval -------------------------------------


@pytest.mark.parametrize(
    "flags",
    [
        ("--approvers", "ana@x.com", "--requester", "ANA@x.com", "--separation-of-duties"),
        ("--approvers", "ana@x.com,ben@x.com", "--quorum", "3", "--quorum-above", "100"),
        ("--approvers", "ab,ben@x.com"),
        ("--approvers", "ana@x.com,ben@x.com", "--separation-of-duties", "--requester", " "),
    ],
    ids=["requester-is-the-only-approver", "quorum-above-the-list", "unparseable-approver", "no-requester"],
)
def test_a_policy_nobody_can_satisfy_stops_start_before_anything_is_written(tmp_path: Path, flags: Any) -> None:
    data_dir = tmp_path / "data"
    run = cli("start", "--data-dir", str(data_dir), *flags)
    assert run.returncode == 2 and "approval policy" in run.stderr and "Traceback" not in run.stderr
    assert "CHECKPOINT_ID" not in run.stdout
    assert not data_dir.exists()  # no shop seeded, no session, no checkpoint: the agent never ran


def test_a_checkpoint_without_its_approval_record_is_never_approvable(tmp_path: Path) -> None:
    from production_orchestrator.agent.providers import build_binding
    from production_orchestrator.cli.root import local_runtime
    from production_orchestrator.services.runs.start import start_run

    data_dir = tmp_path / "data"
    # The shape a crash (or AWS before request_approval) leaves: a sealed checkpoint, no approval.
    started = start_run(
        local_runtime(data_dir, create=True), StartRun("rush-order", build_binding("deterministic"), timedelta(1))
    )
    run = Run(
        (), 0, f"CHECKPOINT_ID={started.checkpoint.checkpoint_id}\nPROPOSAL_HASH={started.checkpoint.proposal_hash}", ""
    )
    before = _stored(data_dir)
    for approver in ("shop-owner", "anyone"):
        refused = _resume(data_dir, run, "approve", approver)
        assert refused.returncode == 3 and refused["REFUSED"] == "UNAUTHORIZED_APPROVER", refused.stderr
        assert "no approval was requested" in refused.stderr
    assert _stored(data_dir) == before
    status = cli("status", "--data-dir", str(data_dir))
    assert f"{started.checkpoint.checkpoint_id}  no_approval" in status.stdout


# -- 2. a rejection recorded on the page is final ----------------------------------------------------------


def test_a_rejection_recorded_on_the_page_cannot_be_overridden_at_the_cli(started: Any) -> None:
    data_dir, run = started(*SOD)
    made, recorder = endpoint(data_dir)  # the resume never runs: serve died, or its provider differs
    assert made.post(link(run, 2), form(run, "reject", "not this week")).label == "recorded"
    assert len(recorder.calls) == 1
    before = _stored(data_dir)
    for approver in ("ben@example.com", "cy@example.com", "shop-owner"):
        refused = _resume(data_dir, run, "approve", approver)
        assert refused.returncode == 3, refused.stderr
        assert refused["REFUSED"] in ("ALREADY_DECIDED", "UNAUTHORIZED_APPROVER")
    assert _resume(data_dir, run, "approve", "cy@example.com")["REFUSED"] == "ALREADY_DECIDED"
    assert _stored(data_dir) == before
    assert _approval_status(data_dir, run["APPROVAL_ID"]) == "rejected"
    done = cli(
        "resume-approval", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"],
        "--approval", run["APPROVAL_ID"],
    )  # fmt: skip
    assert done.returncode == 0 and done["DECISION"] == "rejected" and done["STATE_REVISION"] == "1"


# -- 3. propose again keeps the policy, not a number ---------------------------------------------------------


def test_proposing_again_recomputes_the_quorum_under_the_stored_policy(started: Any) -> None:
    data_dir, run = started(*BIG_QUORUM)
    assert run["APPROVALS_REQUIRED"] == "1"  # rush-order buys 600 units: under the 1000 threshold
    assert cli("shop", "--data-dir", str(data_dir), "set-inventory", "THREAD-RED-40", "0").returncode == 0
    again = cli("repropose", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"])
    assert again.returncode == 0, again.stderr
    assert again["APPROVALS_REQUIRED"] == "2"  # the new plan buys 1200: above it
    made, recorder = endpoint(data_dir)
    proposal = {"decision": "approve", "reviewed_hash": again["PROPOSAL_HASH"], "reason": ""}
    first = made.post(link(run, 2), proposal)  # the old link opens the new plan
    assert first.label == "vote_recorded" and recorder.calls == []
    new_run = Run((), 0, f"CHECKPOINT_ID={again['CHECKPOINT_ID']}\nPROPOSAL_HASH={again['PROPOSAL_HASH']}", "")
    assert _resume(data_dir, new_run, "approve", "ben@example.com")["REFUSED"] == "ALREADY_DECIDED"  # not twice
    assert shop_state(data_dir)["revision"] == 1
    assert made.post(link(run, 3), proposal).label == "recorded" and len(recorder.calls) == 1


# -- 4. a stale plan can be cancelled ----------------------------------------------------------------------


def test_a_stale_plan_is_rejected_on_the_page_and_the_approval_closes(started: Any) -> None:
    data_dir, run = started(*SOD)
    assert cli("shop", "--data-dir", str(data_dir), "set-inventory", "THREAD-RED-40", "0").returncode == 0
    made, recorder = endpoint(data_dir)
    shown = made.show(link(run, 2))
    assert "This plan no longer holds" in shown.body and "Reject" in shown.body
    assert "Approve this exact plan" not in shown.body
    before = _stored(data_dir)
    refused = made.post(link(run, 2), form(run, "approve"))
    assert refused.status == 409 and refused.label == "stale" and "not recorded" in refused.body
    assert _stored(data_dir) == before
    digest = shop_state(data_dir)["digest"]
    assert made.post(link(run, 2), form(run, "reject", "the delivery came")).label == "recorded"
    assert _approval_status(data_dir, run["APPROVAL_ID"]) == "rejected" and len(recorder.calls) == 1
    done = cli(
        "resume-approval", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"],
        "--approval", run["APPROVAL_ID"],
    )  # fmt: skip
    assert done.returncode == 0 and done["DECISION"] == "rejected", done.stderr
    assert shop_state(data_dir) == {"revision": 1, "digest": digest}
    after = made.show(link(run, 3))
    assert after.label == "state_shown" and "Plan rejected" in after.body and "the delivery came" in after.body


def test_resume_reject_cancels_a_stale_plan(started: Any) -> None:
    data_dir, run = started(*SOD)
    assert cli("shop", "--data-dir", str(data_dir), "set-inventory", "THREAD-RED-40", "0").returncode == 0
    digest = shop_state(data_dir)["digest"]
    stale = _resume(data_dir, run, "approve", "ben@example.com")
    assert stale["REFUSED"] == "STALE_DOMAIN_STATE" and "or cancel it" in stale.stderr
    done = _resume(data_dir, run, "reject", "ben@example.com", "--reason", "the delivery came")
    assert done.returncode == 0 and done["DECISION"] == "rejected", done.stderr
    assert shop_state(data_dir) == {"revision": 1, "digest": digest}
    assert _approval_status(data_dir, run["APPROVAL_ID"]) == "rejected"
    assert _resume(data_dir, run, "approve", "cy@example.com")["REFUSED"] == "ALREADY_DECIDED"


# -- 11. the page tells a valid link the truth ----------------------------------------------------------------


def test_a_refused_form_comes_back_with_why_and_the_reason_kept(started: Any) -> None:
    data_dir, run = started(*SOD)
    made, _ = endpoint(data_dir)
    blank = made.post(link(run, 2), form(run, "reject", "   "))
    assert blank.status == 400 and "a rejection needs a reason" in blank.body
    assert 'name="reason"' in blank.body and 'class="reject"' in blank.body  # the form, not a dead end
    long_reason = "the customer called; " * 100
    too_long = made.post(link(run, 2), form(run, "reject", long_reason))
    assert too_long.status == 400 and long_reason.strip() in too_long.body.replace("&#x27;", "'")
    own = made.post(link(run, 1), {**form(run, "approve"), "reason": "mine"})
    assert own.status == 403 and "not recorded" in own.body and "separation of duties" in own.body


def test_a_valid_link_shows_what_was_decided_in_the_shops_time(started: Any) -> None:
    data_dir, run = started(*SOD)
    made, _ = endpoint(data_dir)
    open_page = made.show(link(run, 3)).body
    assert "left (until " in open_page and not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", open_page)
    assert made.post(link(run, 2), form(run, "reject", "wait for Friday")).label == "recorded"
    for number in (1, 2, 3):  # the requester, the decider and someone who never voted
        page = made.show(link(run, number))
        assert page.status == 200 and page.label == "state_shown", number
        assert "Plan rejected" in page.body and "ben@example.com rejected on" in page.body
        assert "wait for Friday" in page.body and plan_fingerprint(run["PROPOSAL_HASH"]) in page.body
        # The scenario shop keeps Europe/Berlin time (CET in December); no ISO timestamp shows.
        assert " CET" in page.body and not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", page.body)
    forged = made.show({"a": run["APPROVAL_ID"], "s": "x" * 43})
    assert forged.status == 404 and forged.label == "not_usable"


# -- 8. two "propose again" at once cannot fork ---------------------------------------------------------------


def test_two_propose_again_at_once_leave_one_successor_and_no_orphan(started: Any) -> None:
    import threading

    from production_orchestrator.agent.providers import build_binding
    from production_orchestrator.cli.root import local_approvals, local_runtime
    from production_orchestrator.services.runs.repropose import propose_again

    data_dir, run = started(*SOD)
    assert cli("shop", "--data-dir", str(data_dir), "set-inventory", "THREAD-RED-40", "0").returncode == 0
    both = threading.Barrier(2)
    results: list[Any] = []

    def click() -> None:
        rt = local_runtime(data_dir, create=False)  # each click its own process: its own connections
        both.wait(timeout=30)
        try:
            results.append(propose_again(rt, ProposeAgain(run["APPROVAL_ID"], build_binding("deterministic"))))
        except Exception as exc:  # collected: exactly one click must lose, cleanly
            results.append(exc)

    clicks = [threading.Thread(target=click) for _ in range(2)]
    for thread in clicks:
        thread.start()
    for thread in clicks:
        thread.join(timeout=120)
    won = [r for r in results if not isinstance(r, Exception)]
    assert len(won) == 1 and len(results) == 2, results
    approvals = local_approvals(data_dir).list_approvals()
    assert [a.approval_id for a in approvals] == [run["APPROVAL_ID"], won[0].approval.approval_id]
    assert approvals[0].status == "superseded" and approvals[0].superseded_by == approvals[1].approval_id
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        assert conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0] == 2  # the loser wrote nothing
    made, _ = endpoint(data_dir)
    page = made.show(link(run, 2))  # the old links open the one new plan
    assert page.label == "confirmation_shown" and won[0].checkpoint.proposal_hash in page.body
