"""``make evidence-outbox`` (part of ``make evidence``): evidence/outbox.json, computed from real runs.

    local: start -> resume approve (fresh processes) -> outbox send --smtp twice to a loopback SMTP server
           -> a replayed approve; and start -> reject -> outbox send
    answers: copies of one approved data dir, each sent to a sink that answers one step otherwise (DATA ended
           451 / 554, QUIT 421), to no server at all for ten runs, or holding a message edited in the store;
           then outbox retry / audit verify where that is what a person would do next
    aws:   the synthesized workflow on moto: signed submit -> approve on the page -> SendApprovedMessages
           (SES on moto) -> the send state invoked once more, as a Step Functions retry would; and a reject

Every number is counted from what happened: the outbox listing, the messages the SMTP server and moto's SES
accepted (by Message-ID / outbox header), the CLI's own SENT= lines, the execution history.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

from tests.support.cdk_template import synthesize  # noqa: E402
from tests.support.clidriver import Run, cli  # noqa: E402
from tests.support.moto_workflow import LOCAL_CONTEXT, Deployment, local_aws, run_case, ses_accepted  # noqa: E402
from tests.support.refusal_cases import Pending  # noqa: E402
from tests.support.smtp_sink import SmtpSink, smtp_sink  # noqa: E402

SCENARIO = "rush-order"
SEND_STATE = "SendApprovedMessages"


def _checked(run: Run, what: str, *codes: int) -> Run:
    if run.returncode not in (codes or (0,)):
        sys.exit(f"{what} failed ({run.returncode}): {run.stderr}")
    return run


def _listed(pending: Pending) -> list[dict[str, Any]]:
    return list(json.loads(_checked(pending.cli("outbox", "list", "--json"), "outbox list").stdout))


def _send_counts(run: Run) -> dict[str, int]:
    return {key.lower(): int(run[key]) for key in ("SENT", "ALREADY_SENT", "PENDING", "FAILED", "REFUSED")}


def _delivery(sink: SmtpSink) -> dict[str, int]:
    ids = sink.message_ids()
    return {"delivered": len(ids), "distinct": len(set(ids)), "duplicates": len(ids) - len(set(ids))}


def _local(work: Path, decision: str) -> dict[str, Any]:
    data_dir = work / decision
    started = _checked(cli("start", "--data-dir", str(data_dir), "--scenario", SCENARIO), "start")
    pending = Pending.from_start(data_dir, started)
    reason = ("--reason", "evidence run: not this week") if decision == "reject" else ()
    resumed = _checked(pending.resume(decision, *reason), "resume")
    queued = _listed(pending)
    with smtp_sink() as sink:
        first = _checked(pending.cli("outbox", "send", "--smtp", sink.address), "first send")
        second = _checked(pending.cli("outbox", "send", "--smtp", sink.address), "second send")
        delivered = _delivery(sink)
    replay = _checked(pending.resume(decision, *reason), "replayed resume", 3)
    after = _listed(pending)
    return {
        "proposal_hash": pending.proposal_hash,
        "decision": resumed["DECISION"],
        "queued": len(queued),
        "queued_messages": [{k: m[k] for k in ("kind", "to", "subject", "message_id")} for m in queued],
        "first_send": _send_counts(first),
        "second_send": _send_counts(second),
        "smtp": delivered,
        "status_after": dict(Counter(m["status"] for m in after)),
        "transport_ids": [m["transport_id"] for m in after],
        "replayed_resume": replay["REFUSED"],
        "queued_after_replay": len(after),
    }


def _outcome(pending: Pending, sent: Run, sink: SmtpSink | None) -> dict[str, Any]:
    listed = _listed(pending)
    return {
        "exit": sent.returncode,
        "counts": _send_counts(sent),
        "status_after": dict(Counter(m["status"] for m in listed)),
        "attempts": [m["attempts"] for m in listed],
        "smtp_accepted": len(sink.received) if sink is not None else 0,
    }


def _answers(work: Path) -> dict[str, Any]:
    """What each answer of the SMTP server (or its absence, or an edited record) does to the outbox."""
    base = work / "answers-base"
    started = _checked(cli("start", "--data-dir", str(base), "--scenario", SCENARIO), "start")
    template = Pending.from_start(base, started)
    _checked(template.resume("approve"), "resume")

    def copy(name: str) -> Pending:
        shutil.copytree(base, work / name)
        return template.moved_to(work / name)

    cases: dict[str, Any] = {}
    for name, step, reply in (
        ("data_451", "after DATA", "451 4.7.1 greylisted, try again later"),
        ("data_554", "after DATA", "554 5.7.1 message refused"),
        ("quit_421", "QUIT", "421 4.4.2 closing"),
    ):
        pending = copy(name)
        with smtp_sink() as sink:
            sink.replies[step] = reply
            first = pending.cli("outbox", "send", "--smtp", sink.address)
            case = {"reply": f"{step}: {reply}", "first_send": _outcome(pending, first, sink)}
            del sink.replies[step]
            if name == "data_554":
                retried = _checked(pending.cli("outbox", "retry", "--failed"), "outbox retry")
                case["retry_requeued"] = int(retried["REQUEUED"])
            second = pending.cli("outbox", "send", "--smtp", sink.address)
            case["next_send"] = _outcome(pending, second, sink)
        cases[name] = case

    pending = copy("server_down")
    with smtp_sink() as sink:
        closed = sink.address
    runs = [pending.cli("outbox", "send", "--smtp", closed) for _ in range(10)]
    down = {
        "runs": len(runs),
        "exits": sorted({r.returncode for r in runs}),
        "after": _outcome(pending, runs[-1], None),
    }
    with smtp_sink() as sink:
        down["server_back"] = _outcome(pending, pending.cli("outbox", "send", "--smtp", sink.address), sink)
    cases["server_down"] = down

    pending = copy("edited_in_store")
    with sqlite3.connect(pending.data_dir / "shop.sqlite3") as conn:
        key, raw = sorted(conn.execute("SELECT msg_key, raw FROM outbox").fetchall())[0]
        edited = {**json.loads(raw), "to": "attacker@evil.example"}
        conn.execute("UPDATE outbox SET raw = ? WHERE msg_key = ?", (json.dumps(edited), key))
    with smtp_sink() as sink:
        sent = pending.cli("outbox", "send", "--smtp", sink.address)
        to_attacker = sum("attacker@evil.example" in r.recipients for r in sink.received)
        cases["edited_in_store"] = {**_outcome(pending, sent, sink), "delivered_to_the_edited_address": to_attacker}
    verified = pending.cli("audit", "verify")
    cases["edited_in_store"]["audit_verify"] = {
        "exit": verified.returncode,
        "chain": verified.values.get("AUDIT_CHAIN"),
    }
    return cases


def _send_again(deployment: Deployment, checkpoint_id: str, proposal_hash: str) -> dict[str, Any]:
    """The send state's function invoked again with the same payload, as a Step Functions retry would."""
    (function,) = [name for name, state in deployment.state_of_function.items() if state == SEND_STATE]
    invocation = deployment.aws.router.invoke(
        function, {"checkpoint_id": checkpoint_id, "proposal_hash": proposal_hash}
    )
    return dict(invocation.result or {"error": invocation.error})


def _aws(aws: Any, case: str) -> dict[str, Any]:
    deployment = aws.deploy(synthesize(LOCAL_CONTEXT))
    run = run_case(deployment, case)
    queued = deployment.store.outbox_messages(run.proposal_hash) if run.proposal_hash else []
    report: dict[str, Any] = {
        "status": run.status,
        "states": run.states,
        "requested_by": run.requested_by,
        "queued": len(queued),
        "ses": {
            "delivered": len(run.ses_outbox_keys),
            "distinct": len(set(run.ses_outbox_keys)),
            "duplicates": len(run.ses_outbox_keys) - len(set(run.ses_outbox_keys)),
        },
        "status_after": dict(Counter(m.status for m in queued)),
    }
    if queued:
        mark = len(ses_accepted())
        retry = _send_again(deployment, queued[0].checkpoint_id, run.proposal_hash)
        report["send_state_retried"] = {k: retry.get(k) for k in ("sent", "already_sent", "error")}
        report["ses_accepted_by_the_retry"] = len(ses_accepted()) - mark
    return report


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="po-outbox-") as tmp:
        local = {decision: _local(Path(tmp), decision) for decision in ("approve", "reject")}
        answers = _answers(Path(tmp))
    with local_aws() as aws:
        remote = {case: _aws(aws, case) for case in ("approve", "reject")}
    queued = sum(r["queued"] for r in (*local.values(), *remote.values()))
    delivered = sum(r["smtp"]["distinct"] for r in local.values()) + sum(r["ses"]["distinct"] for r in remote.values())
    duplicates = sum(r["smtp"]["duplicates"] for r in local.values()) + sum(
        r["ses"]["duplicates"] + r.get("ses_accepted_by_the_retry", 0) for r in remote.values()
    )
    report = {
        "generated_by": "make evidence-outbox (scripts/evidence_outbox.py)",
        "messages_queued": queued,
        "messages_delivered": delivered,
        "duplicates": duplicates,
        "local": local,
        "smtp_answers": answers,
        "aws": remote,
    }
    out = ROOT / "evidence" / "outbox.json"
    out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}: queued {queued}, delivered {delivered}, duplicates {duplicates}")
    ok = queued == delivered and duplicates == 0 and local["reject"]["queued"] == remote["reject"]["queued"] == 0
    ok = ok and _answers_hold(answers)
    return 0 if ok else 1


def _answers_hold(answers: dict[str, Any]) -> bool:
    """Each answer did what docs/concepts/exactly-once.md says: counted here, so a regression fails the evidence run."""
    return (
        answers["data_451"]["first_send"]["status_after"] == {"queued": 3}
        and answers["data_451"]["next_send"]["status_after"] == {"sent": 3}
        and answers["data_554"]["first_send"]["status_after"] == {"failed": 3}
        and answers["data_554"]["retry_requeued"] == 3
        and answers["data_554"]["next_send"]["status_after"] == {"sent": 3}
        and answers["quit_421"]["first_send"]["exit"] == 0
        and answers["quit_421"]["next_send"]["smtp_accepted"] == 3
        and answers["server_down"]["after"]["attempts"] == [0, 0, 0]
        and answers["server_down"]["server_back"]["status_after"] == {"sent": 3}
        and answers["edited_in_store"]["delivered_to_the_edited_address"] == 0
        and answers["edited_in_store"]["audit_verify"]["chain"] == "broken"
    )


if __name__ == "__main__":
    sys.exit(main())
