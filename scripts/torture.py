"""The torture suite: races, crashes, tampering, hostile input and the approval policy (model-based, on
DynamoDB-on-moto); writes evidence/torture.json.

    python scripts/torture.py [--size full|ci] [--out evidence/torture.json]

Every family counts what it attempted, what survived (the promise held) and the failures (each one named).
Processes are forked from this one (strands and the AWS models are imported once), so each resume and
each crash is a separate process with its own store connection, and a crash is a real SIGKILL.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

import pytest  # noqa: E402  (MonkeyPatch for the moto world outside a test)

from production_orchestrator import faults  # noqa: E402
from production_orchestrator.domain.records import AuditEvent, DecisionRecord, utc_iso  # noqa: E402
from production_orchestrator.domain.shop.file_format import read_shop  # noqa: E402
from production_orchestrator.services.asking.request_approval import operator_plan  # noqa: E402
from production_orchestrator.services.runs.plan_request import PlanRequest  # noqa: E402
from production_orchestrator.services.runs.start import StartRun, start_run  # noqa: E402
from production_orchestrator.services.shop.importing import ImportShop, import_shop  # noqa: E402
from scripts.torture_world import (  # noqa: E402
    BINDING,
    LEASE,
    MOTO,
    RACE_LEASE,
    RUSH_MESSAGES,
    Family,
    World,
    Worlds,
    do_resume,
    do_start,
    facts,
    moto_env,
    run_forked,
    snapshot,
)

SIZES = {
    "full": {
        "race_trials": 12,
        "threaded_trials": 4,
        "racers": 32,
        "start_racers": 12,
        "hostile_examples": 150,
        "policy_examples": 40,
        "policy_steps": 20,
    },
    "ci": {
        "race_trials": 2,
        "threaded_trials": 0,
        "racers": 32,
        "start_racers": 4,
        "hostile_examples": 25,
        "policy_examples": 4,
        "policy_steps": 12,
    },
}


def races(worlds: Worlds, size: dict[str, int]) -> Family:
    """N concurrent resumes of one decision, per store; half the trials race takeovers of a dead claim."""
    fam = Family("races")
    doubles, double_claims, double_queued = 0, 0, 0
    plan = [("sqlite", size["race_trials"]), ("dynamodb", size["race_trials"])]
    plan.append(("dynamodb-threaded-moto", size["threaded_trials"]))
    for kind, trials in plan:
        MOTO["serialized"] = kind != "dynamodb-threaded-moto"
        for trial in range(trials):
            # The racers' own lease outlasts any resume here: a race, not a takeover of a live claim.
            world = replace(worlds.new(kind.split("-")[0]), lease=RACE_LEASE)
            ids = do_start(world)
            takeover = trial % 2 == 1
            if takeover:  # a resume claimed this decision and died; its lease is over
                _plant_dead_claim(world, ids)
            outcomes = run_forked([lambda w=world, i=ids: do_resume(w, i)] * size["racers"], together=True)
            won = [o for o in outcomes if o.result]
            lost = [o for o in outcomes if o.refused == "ALREADY_DECIDED"]
            now = facts(world)
            doubles += max(0, now["applications"] - 1)
            double_claims += max(0, len([o for o in outcomes if not o.refused]) - 1)
            ok = len(won) == 1 and len(lost) == len(outcomes) - 1
            # The plan's three drafts are queued by the one apply, each once, whatever the racers did.
            double_queued += max(0, now["messages_queued"] - RUSH_MESSAGES * now["applications"])
            if MOTO["serialized"]:
                ok = ok and now["applications"] == 1 and now["plan_applied_events"] == 1 and now["revision"] == 2
                ok = ok and now["messages_queued"] == now["distinct_messages"] == RUSH_MESSAGES
            else:  # threaded moto breaks claim atomicity (and can starve the audit chain): safety only
                ok = now["applications"] <= 1 and now["plan_applied_events"] == now["applications"]
                ok = ok and now["messages_queued"] == RUSH_MESSAGES * now["applications"]
            errors = [o.error[:300] for o in outcomes if o.error][:2]
            fam.check(f"{kind} trial {trial}{' takeover' if takeover else ''}", ok, f"{len(won)} won, {now}, {errors}")
    MOTO["serialized"] = True
    double_runs = _start_races(worlds, fam, size["start_racers"])
    fam.detail = {
        "start_racers_per_store": size["start_racers"],
        "requests_started_more_than_once": double_runs,
        "racers_per_trial": size["racers"],
        "trials": {kind: trials for kind, trials in plan},
        "double_applications": doubles,
        "messages_queued_more_than_once": double_queued,
        "threaded_moto_resumes_past_the_claim_beyond_one": double_claims,
    }
    return fam


def _start_totes(world: World) -> dict[str, Any]:
    """Start the example shop's tote request (a customer's e-mail, not a scenario: held to the one-run rule)."""
    from tests.support.provider_runs import EXAMPLE_DAY, EXAMPLE_REQUESTS

    request = PlanRequest(text=EXAMPLE_REQUESTS["request-totes"].read_text(), planning_day=EXAMPLE_DAY)
    result = start_run(world.runtime(), StartRun(request, BINDING, timedelta(days=7), operator_plan()))
    return {"checkpoint_id": result.checkpoint.checkpoint_id}


def _start_races(worlds: Worlds, fam: Family, racers: int) -> int:
    """``racers`` starts of one customer e-mail released together, per store: one run is written, every other
    start answers ALREADY_PENDING (or is refused as the loser of the request claim) and writes no run."""
    from tests.support.provider_runs import EXAMPLES

    doubles = 0
    for kind in ("sqlite", "dynamodb"):
        world = worlds.new(kind)
        shop = read_shop(json.loads((EXAMPLES / "print-shop.json").read_text()))
        import_shop(replace(world.runtime(), clock=lambda: datetime.now(UTC)), ImportShop(shop))
        outcomes = run_forked([lambda w=world: _start_totes(w)] * racers, together=True)
        won = [o for o in outcomes if o.result]
        answered = [o for o in outcomes if o.error.startswith(("AlreadyPendingError", "RequestClaimTakenError"))]
        store = world.runtime().store
        runs = len(store.list_checkpoints())
        requested = [e.event_type for e in store.audit_events()].count("approval_requested")
        doubles += max(0, runs - 1)
        ok = len(won) == 1 and len(answered) == racers - 1 and runs == requested == 1
        pending = [o.error[:80] for o in answered][:2]
        fam.check(f"{kind} {racers} starts of one e-mail", ok, f"{len(won)} won, {runs} runs, {pending}")
    return doubles


def _plant_dead_claim(world: World, ids: dict[str, Any]) -> None:
    """What a resume that died leaves: the approver's vote (the approval decided and woken) and its claim of
    the decision, whose lease is over."""
    from production_orchestrator.services.deciding.authorize import (
        RecordVote,
        cast_vote,
        governing_approval,
        new_decision,
    )
    from production_orchestrator.services.evidence import load_checkpoint

    rt = world.runtime()
    assert rt.approvals is not None
    past = datetime.now(UTC) - timedelta(minutes=1)
    checkpoint = load_checkpoint(rt.store, ids["checkpoint_id"])
    approval = governing_approval(rt, checkpoint.checkpoint_id)
    assert approval is not None
    vote = new_decision(True, ids["proposal_hash"], "torture", "", past)
    approval = cast_vote(replace(rt, clock=lambda: past), RecordVote(approval, checkpoint, vote, via="cli"))
    rt.approvals.record_wake(approval.approval_id, now=past, confirmed=True)
    assert approval.decision is not None
    record = DecisionRecord(
        checkpoint_id=ids["checkpoint_id"],
        decision=approval.decision,
        resume_pid=999999,
        claimed_at=utc_iso(past),
        claim_token="dead" * 8,
        lease_expires_at=utc_iso(past + LEASE),
    )
    rt.store.claim_decision(record, AuditEvent(event_type="decision_recorded", at=utc_iso(past)))


# -- crashes ------------------------------------------------------------------------------------------


def crashes(worlds: Worlds) -> Family:
    """SIGKILL at each persistence point of start and resume; the re-run (or the next command) converges."""
    fam = Family("crashes")
    for kind in ("sqlite", "dynamodb"):
        for point in faults.START_POINTS:
            fam.check(f"{kind} start@{point}", *_crash_start(worlds.new(kind), point))
        for point in faults.RESUME_POINTS:
            for approve in (True, False):
                if not approve and point in ("inside_apply", "inside_apply_outbox", "after_apply_before_session_sync"):
                    continue  # a rejection never reaches the apply
                label = f"{kind} resume({'approve' if approve else 'reject'})@{point}"
                fam.check(label, *_crash_resume(worlds.new(kind), point, approve))
    fam.detail = {"points": list(faults.START_POINTS + faults.RESUME_POINTS), "lease_seconds": LEASE.total_seconds()}
    return fam


def _crash_start(world: World, point: str) -> tuple[bool, str]:
    (crash,) = run_forked([lambda: do_start(world)], {faults.ENV_KILL_AT: point})
    if not crash.killed:
        return False, f"not killed: {crash}"
    if point == "after_checkpoint_write":  # the next command: status lists it, resume it
        from production_orchestrator.domain.records import Checkpoint

        (raw,) = world.runtime().store.list_checkpoints()
        cp = Checkpoint.model_validate_json(raw)
        ids = {"checkpoint_id": cp.checkpoint_id, "proposal_hash": cp.proposal_hash}
    else:
        (again,) = run_forked([lambda: do_start(world)])
        if not again.result:
            return False, f"re-run of start failed: {again}"
        ids = again.result
    (resumed,) = run_forked([lambda: do_resume(world, ids)])
    now = facts(world, ids["proposal_hash"])
    ok = resumed.result.get("outcome") == "applied" and now["applications"] == 1 and now["proposal_stored"]
    ok = ok and now["messages_queued"] == RUSH_MESSAGES
    return ok and now["plan_applied_events"] == 1, f"{resumed} {now}"


def _crash_resume(world: World, point: str, approve: bool) -> tuple[bool, str]:
    (started,) = run_forked([lambda: do_start(world)])
    ids = started.result
    (crash,) = run_forked([lambda: do_resume(world, ids, approve)], {faults.ENV_KILL_AT: point})
    if not crash.killed:
        return False, f"not killed: {crash}"
    outcome = "applied" if approve else "rejected"
    # Straight away: the dead resume's lease normally still runs ("in progress"); on a slow machine it may
    # already have passed, and then this re-run is the takeover that finishes the decision.
    (early,) = run_forked([lambda: do_resume(world, ids, approve)])
    if point == "after_completion":
        expect_early = early.refused == "ALREADY_DECIDED" and "already" in early.message
    else:
        in_progress = early.refused == "ALREADY_DECIDED" and "in progress" in early.message
        expect_early = in_progress or early.result.get("outcome") == outcome
    (other,) = run_forked([lambda: do_resume(world, ids, not approve)])
    time.sleep(LEASE.total_seconds() + 1.1)
    (late,) = run_forked([lambda: do_resume(world, ids, approve)])
    if point == "after_completion" or early.result:
        expect_late = late.refused == "ALREADY_DECIDED"
    else:
        expect_late = late.result.get("outcome") == outcome
    (replay,) = run_forked([lambda: do_resume(world, ids, approve)])
    now = facts(world)
    want = 1 if approve else 0
    ok = expect_early and expect_late and other.refused == "ALREADY_DECIDED" and replay.refused == "ALREADY_DECIDED"
    ok = ok and now["applications"] == want and now["plan_applied_events"] == want
    ok = ok and now["revision"] == (2 if approve else 1)
    # Messages exist exactly when the plan applied, each once: none for a reject, three for an approve.
    ok = ok and now["messages_queued"] == now["distinct_messages"] == RUSH_MESSAGES * want
    return (
        ok,
        f"early={early.refused}:{early.message[:80]} late={late.result or late.refused or late.error[:300]} {now}",
    )


# -- tampering ----------------------------------------------------------------------------------------


def tampering(worlds: Worlds) -> Family:
    """Each persisted artifact altered after the decision: the resume refuses and writes nothing."""
    fam = Family("tampering")
    for kind in ("sqlite", "dynamodb"):
        for name, (expected, tamper) in TAMPERS[kind].items():
            world = worlds.new(kind)
            ids = do_start(world)
            tamper(world, ids)
            before = snapshot(world)
            (out,) = run_forked([lambda w=world, i=ids: do_resume(w, i)])
            after = snapshot(world)
            ok = out.refused in expected and before == after
            fam.check(
                f"{kind} {name}", ok, f"got {out.refused or out.result or out.error[:200]}, unchanged={before == after}"
            )
    fam.detail = {"artifacts": sorted({n for t in TAMPERS.values() for n in t})}
    fam.detail["approval_records"] = "tests/integration/test_aws_refusals.py (run by make test) rewrites the approval"
    return fam


def _session_files(world: World) -> list[Path]:
    assert world.data_dir is not None
    return sorted((world.data_dir / "sessions").rglob("agent.json"))


def _rewrite_json(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _sql(world: World, statement: str, *args: Any) -> None:
    assert world.data_dir is not None
    con = sqlite3.connect(world.data_dir / "shop.sqlite3")
    con.execute(statement, args)
    con.commit()
    con.close()


def _interrupt_answered(data: dict[str, Any]) -> None:
    for item in data["_internal_state"]["interrupt_state"]["interrupts"].values():
        item["response"] = {"approved": True}


def _interrupt_reason(data: dict[str, Any]) -> None:
    for item in data["_internal_state"]["interrupt_state"]["interrupts"].values():
        item["reason"]["proposal_hash"] = "0" * 64


def _s3_agent_objects(world: World) -> list[str]:
    keys = []
    for page in world.aws.s3.get_paginator("list_objects_v2").paginate(Bucket=world.aws.bucket):
        keys += [o["Key"] for o in page.get("Contents", []) if o["Key"].endswith("agent.json")]
    return keys


def _s3_rewrite(world: World, change: Callable[[dict[str, Any]], None]) -> None:
    for key in _s3_agent_objects(world):
        body = json.loads(world.aws.s3.get_object(Bucket=world.aws.bucket, Key=key)["Body"].read())
        change(body)
        world.aws.s3.put_object(Bucket=world.aws.bucket, Key=key, Body=json.dumps(body).encode())


def _dynamo_rewrite(world: World, pk: str, sk: str, attr: str, change: Callable[[Any], Any]) -> None:
    item = world.aws.raw_item(pk, sk)
    kind = next(iter(item[attr]))
    item[attr] = {kind: change(item[attr][kind])}
    world.aws.put_raw_item(item)


def _checkpoint_edit(raw: str) -> str:
    data = json.loads(raw)
    data["expires_at"] = "2099-01-01T00:00:00Z"  # a longer window, granted by nobody
    return json.dumps(data)


def _state_edit(raw: str) -> str:
    data = json.loads(raw)
    for material in data["materials"]:
        if material["id"] == "THREAD-RED-40":
            material["on_hand"] = 0  # the thread the plan counted on, silently gone (more stock would stale nothing)
    return json.dumps(data)


def _dynamo_state_edit(world: World) -> None:
    """Alter the stored state itself: inline in the STATE item, or the chunk of the snapshot it points at."""
    t = _dyn_keys()
    item = world.aws.raw_item(*t.state_key())
    if "state" in item:
        _dynamo_rewrite(world, *t.state_key(), "state", _state_edit)
        return
    digest = item["digest"]["S"]
    _dynamo_rewrite(
        world,
        t.SNAPSHOT_PK_PREFIX + digest,
        t.SNAPSHOT_CHUNK_SK_PREFIX + "0000",
        "data",
        lambda data: _state_edit(bytes(data).decode()).encode(),
    )


def _dyn_keys() -> Any:
    from production_orchestrator.adapters.aws import table_schema as t

    return t


TAMPERS: dict[str, dict[str, tuple[set[str], Callable[[World, dict[str, Any]], None]]]] = {
    "sqlite": {
        "session-deleted": ({"SESSION_MISMATCH"}, lambda w, i: [p.unlink() for p in _session_files(w)] and None),
        "session-garbage": (
            {"SESSION_MISMATCH"},
            lambda w, i: [p.write_text("{not json") for p in _session_files(w)] and None,
        ),
        "session-interrupt-answered": (
            {"INTERRUPT_MISMATCH"},
            lambda w, i: [_rewrite_json(p, _interrupt_answered) for p in _session_files(w)] and None,
        ),
        "session-interrupt-reason": (
            {"PROPOSAL_INTEGRITY"},
            lambda w, i: [_rewrite_json(p, _interrupt_reason) for p in _session_files(w)] and None,
        ),
        "proposal-bytes": (
            {"PROPOSAL_INTEGRITY"},
            lambda w, i: _sql(w, "UPDATE proposals SET data = replace(data, '600', '6000')"),
        ),
        "proposal-deleted": ({"PROPOSAL_INTEGRITY"}, lambda w, i: _sql(w, "DELETE FROM proposals")),
        "checkpoint-field": (
            {"CHECKPOINT_INVALID"},
            lambda w, i: _sql(
                w,
                "UPDATE checkpoints SET raw = ?",
                _checkpoint_edit(w.runtime().store.get_checkpoint(i["checkpoint_id"]) or ""),
            ),
        ),
        "checkpoint-garbage": ({"CHECKPOINT_INVALID"}, lambda w, i: _sql(w, "UPDATE checkpoints SET raw = '{'")),
        "domain-state": (
            {"STALE_DOMAIN_STATE"},
            lambda w, i: _sql(
                w,
                "UPDATE shop SET state = ?",
                _state_edit(json.dumps(w.runtime().store.load_state().model_dump(mode="json"))),
            ),  # type: ignore[union-attr]
        ),
    },
    "dynamodb": {
        "session-deleted-in-s3": (
            {"SESSION_MISMATCH"},
            lambda w, i: [w.aws.s3.delete_object(Bucket=w.aws.bucket, Key=k) for k in _s3_agent_objects(w)] and None,
        ),
        "session-interrupt-answered-in-s3": ({"INTERRUPT_MISMATCH"}, lambda w, i: _s3_rewrite(w, _interrupt_answered)),
        "session-interrupt-reason-in-s3": ({"PROPOSAL_INTEGRITY"}, lambda w, i: _s3_rewrite(w, _interrupt_reason)),
        "proposal-bytes": (
            {"PROPOSAL_INTEGRITY"},
            lambda w, i: _dynamo_rewrite(
                w,
                _dyn_keys().PROPOSAL_PK_PREFIX + i["proposal_hash"],
                _dyn_keys().PROPOSAL_SK,
                "data",
                lambda v: bytes(v).replace(b"600", b"6000"),
            ),
        ),
        "checkpoint-field": (
            {"CHECKPOINT_INVALID"},
            lambda w, i: _dynamo_rewrite(w, *_dyn_keys().checkpoint_key(i["checkpoint_id"]), "raw", _checkpoint_edit),
        ),
        "domain-state": (
            {"STALE_DOMAIN_STATE"},
            lambda w, i: _dynamo_state_edit(w),
        ),
    },
}


# -- main ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument("--out", type=Path, default=ROOT / "evidence" / "torture.json")
    parser.add_argument("--families", default="races,crashes,tampering,hostile,outbox,policy")
    parser.add_argument("--merge", action="store_true", help="replace only these families in the --out report")
    args = parser.parse_args(argv)
    size = SIZES[args.size]
    wanted = args.families.split(",")
    report: dict[str, Any] = {"size": args.size, "lease_seconds": LEASE.total_seconds(), "families": {}}
    if args.merge and args.out.exists():
        report = json.loads(args.out.read_text())
    tmp = Path(tempfile.mkdtemp(prefix="po-torture-"))
    try:
        with moto_env() as (endpoint, patch):
            worlds = Worlds(tmp, endpoint, patch)
            runners: dict[str, Callable[[], Family]] = {
                "races": lambda: races(worlds, size),
                "crashes": lambda: crashes(worlds),
                "tampering": lambda: tampering(worlds),
                "hostile": lambda: _hostile(endpoint, patch, tmp, size["hostile_examples"]),
                "outbox": lambda: _outbox(worlds, size),
                "policy": lambda: policy(endpoint, tmp, size),
            }
            for name in wanted:
                t0 = time.monotonic()
                fam = runners[name]()
                entry = fam.report()
                entry["seconds"] = round(time.monotonic() - t0, 1)
                report["families"][name] = entry
                tally = f"{fam.survived}/{fam.attempted} survived, {len(fam.failures)} failures"
                print(f"{name}: {tally} ({entry['seconds']}s)")
                for failure in fam.failures[:5]:
                    print(f"  FAIL {failure[:400]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report["seconds"] = round(sum(f["seconds"] for f in report["families"].values()), 1)
    report["failures"] = sum(f["failures"] for f in report["families"].values())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"wrote {args.out} in {report['seconds']}s: {report['failures']} failures")
    return 1 if report["failures"] else 0


def policy(endpoint: str, tmp: Path, size: dict[str, int]) -> Family:
    """The approval policy, model-based, on DynamoDB-on-moto (tests/support/policy_model.py): random sequences
    of every path to a decision against a reference model of the rules, invariants after every step."""
    from tests.support.policy_model import dynamodb_worlds, run_machine

    fam = Family("policy")
    tally, failure = run_machine(
        dynamodb_worlds(endpoint, tmp / "policy-keys"), examples=size["policy_examples"], steps=size["policy_steps"]
    )
    fam.attempted = tally.sequences
    fam.survived = tally.sequences - (1 if failure else 0)
    fam.failures = tally.violations[:1] or ([failure] if failure else [])
    fam.detail = {"store": "dynamodb-on-moto", "cases_tried": tally.steps, "cases": dict(sorted(tally.cases.items()))}
    return fam


def _hostile(endpoint: str, patch: pytest.MonkeyPatch, tmp: Path, examples: int) -> Family:
    from scripts.torture_hostile import hostile

    return hostile(endpoint, patch, tmp, examples, Family)


def _outbox(worlds: Worlds, size: dict[str, int]) -> Family:
    from scripts.torture_outbox import outbox

    return outbox(worlds, size)


if __name__ == "__main__":
    sys.exit(main())
