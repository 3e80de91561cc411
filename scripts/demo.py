"""`make demo`: start, exit, resume (approve) in a fresh process, told in a shop owner's words.

The story runs in a temporary data dir. At the end one more run is started in the default data dir
(`$PO_DATA_DIR`, else `.production-orchestrator`, the one `make serve` serves) and left waiting, so
`make serve` right after `make demo` has a plan for you to open and decide on.
"""

from __future__ import annotations

import os
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.clidriver import Run, cli
from tests.support.refusal_cases import Pending


def _must(run: Run) -> Run:
    if run.returncode != 0:
        sys.exit(f"demo failed: {' '.join(run.args[:1])} exited {run.returncode}: {run.stderr.strip()}")
    return run


def main() -> None:
    scenario = sys.argv[1] if len(sys.argv) > 1 else "rush-order"
    data_dir = Path(tempfile.mkdtemp(prefix="po-demo-"))
    d = ("--data-dir", str(data_dir))
    print(f"Production Orchestrator demo ({scenario}), shop data in {data_dir}\n")

    print("1. A rush request arrives. The agent reads orders, stock and machines, and proposes a plan.")
    start = _must(cli("start", *d, "--scenario", scenario))
    print(f"   The agent asked for approval and its process (pid {start['START_PID']}) has exited.")
    print("   Nothing runs while we wait: the session, the proposal and a checkpoint are on disk.\n")

    print("2. What the approver sees:")
    show = _must(cli("show", *d, "--checkpoint", start["CHECKPOINT_ID"]))
    print(textwrap.indent(show.stdout.rstrip(), "   | ", lambda _: True), "\n")

    before = _must(cli("status", *d))
    print("3. The shop before deciding:", before.stdout.splitlines()[0], "\n")

    print("4. The approver approves exactly this plan. A fresh process re-checks everything first.")
    pending = Pending.from_start(data_dir, start)
    ids = ("--interrupt-id", pending.interrupt_id, "--session-id", pending.session_id)
    resume = _must(pending.resume("approve", *ids))
    print(
        f"   Decision {resume['DECISION']} in process {resume['RESUME_PID']} "
        f"(the plan was proposed by process {resume['START_PID']})."
    )
    print(f"   The shop moved to revision {resume['STATE_REVISION']}; plans applied: {resume['PLAN_APPLIED_COUNT']}.\n")

    print("5. Clicking approve again changes nothing:")
    again = pending.resume("approve")
    print(f"   refused with {again.values.get('REFUSED', '?')} (exit {again.returncode}).\n")

    print("6. The shop after the decision:")
    print(textwrap.indent(_must(cli("shop", *d, "show")).stdout.rstrip(), "   | ", lambda _: True))
    print("\n   The plan's messages were queued with the apply, once each:")
    print(textwrap.indent(_must(cli("outbox", *d, "list")).stdout.rstrip(), "   | ", lambda _: True))
    outgoing = ("--to-dir", str(data_dir / "outgoing"))
    first, second = _must(cli("outbox", *d, "send", *outgoing)), _must(cli("outbox", *d, "send", *outgoing))
    print(
        f"   `outbox send` delivered {first['SENT']} (here as .eml files in {data_dir / 'outgoing'}); "
        f"sent again, it delivered {second['SENT']} ({second['ALREADY_SENT']} already sent)."
    )
    _your_turn(scenario)


def _your_turn(scenario: str) -> None:
    """Leave one run waiting in the data dir `make serve` serves, and say how to open it."""
    data_dir = os.environ.get("PO_DATA_DIR") or ".production-orchestrator"
    run = cli("start", "--data-dir", data_dir, "--scenario", scenario)
    if run.returncode != 0:
        reason = (run.error_lines or [run.stderr.strip()])[-1]
        print(f"\n7. Your turn: no run was left waiting in {data_dir}: {reason}")
        print("   (`make clean` removes that data dir; then run `make demo` again.)")
        return
    print(f"\n7. Your turn: a run waits for your decision in {data_dir}.")
    print("   Run `make serve`, then open this link in a browser and approve or reject the plan:")
    print(f"   {run['APPROVAL_URL']}")


if __name__ == "__main__":
    main()
