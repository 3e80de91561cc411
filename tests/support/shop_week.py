"""A shop's week on docs/examples/, told in a shop owner's words (`make demo-week` runs scripts/demo_week.py).

import the shop -> three customer e-mails, three plans waiting side by side -> approve one, reject one,
the third still approvable -> a delivery arrives -> an order completes -> the spreadsheet comes back
(re-import with --dry-run: what would change, and what it needs --replace for)

Every step is a real CLI process on a data dir. ``week()`` returns each step's run, so
tests/contract/test_demo_week.py asserts the same story `make demo-week` tells.
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.clidriver import Run, cli
from tests.support.refusal_cases import Pending

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SHOP_FILE = EXAMPLES / "print-shop.json"
AS_OF = "2026-12-01"
# (who writes, the e-mail): the tote bags and the caps use other machines and materials; the red totes
# want the same presses as the navy ones.
EMAILS = (
    ("Harbour Books (400 navy totes)", EXAMPLES / "request-totes.eml"),
    ("the Lakeside Rowing Club (80 caps)", EXAMPLES / "request-caps.txt"),
    ("the Old Town Market (200 red totes)", EXAMPLES / "request-red-totes.txt"),
)


@dataclass
class Week:
    """Each step's CLI run, by name, in the order the story tells them."""

    data_dir: Path
    runs: dict[str, Run] = field(default_factory=dict)
    plans: list[Pending] = field(default_factory=list)

    def run(self, name: str, *args: str) -> Run:
        """Run one CLI command on the week's data dir and keep it under ``name``."""
        done = cli(args[0], "--data-dir", str(self.data_dir), *args[1:])
        self.runs[name] = done
        return done


def _say(text: str = "") -> None:
    print(text)


def _show(run: Run, *, err: bool = False) -> None:
    text = (run.stderr if err else run.stdout).rstrip()
    if text:
        _say(textwrap.indent(text, "   | ", lambda _: True))


def _must(run: Run) -> Run:
    if run.returncode != 0:
        sys.exit(f"demo-week failed: {' '.join(run.args[:2])} exited {run.returncode}: {run.stderr.strip()}")
    return run


def _decided(run: Run) -> str:
    if run.returncode == 0:
        return f"{run['DECISION']} (revision {run['STATE_REVISION']})"
    code = run.values.get("REFUSED", "?")
    first = next((line for line in run.stderr.splitlines() if line.strip()), "")
    note = (
        "\n   (this shop still stales every pending plan on any change: footprint staleness, issue 18, "
        "makes plans that do not conflict approvable side by side)"
        if code == "STALE_DOMAIN_STATE"
        else ""
    )
    return f"refused: {code}: {first.removeprefix('refused: ')}{note}"


def week(data_dir: Path, *, tell: bool = True) -> Week:
    """The whole week on ``data_dir``; with ``tell``, narrated on stdout."""
    say = _say if tell else (lambda *_: None)
    w = Week(data_dir)

    say("Monday morning. The shop's spreadsheet goes in: machines, stock, products and 5 orders.")
    imported = _must(w.run("import", "shop", "import", str(SHOP_FILE)))
    say(f"   Shop {imported['SHOP']!r} at revision {imported['STATE_REVISION']}.")
    if tell:
        _show(imported, err=True)

    say("\n1. Three customers write. For each e-mail the agent proposes a plan and stops; nothing is applied.")
    for index, (who, path) in enumerate(EMAILS, start=1):
        started = _must(w.run(f"start-{index}", "start", "--request", str(path), "--as-of", AS_OF))
        w.plans.append(Pending.from_start(data_dir, started))
        plan, checkpoint = started["PROPOSAL_HASH"][:12], started["CHECKPOINT_ID"]
        say(f"   {who}: plan {plan} waits for approval (checkpoint {checkpoint}).")
    listing = _must(w.run("list-pending", "order", "list", "--as-of", AS_OF))
    say("   The orders and the requests waiting beside them:")
    if tell:
        _show(listing)

    totes, caps, red = w.plans
    say("\n2. The owner approves the navy totes.")
    say(f"   {_decided(w.run('approve-totes', *totes.resume_args('approve')))}")
    say("3. The owner rejects the red totes (the presses are full this week).")
    say(f"   {_decided(w.run('reject-red', *red.resume_args('reject', '--reason', 'presses full this week')))}")
    say("4. The caps use other machines and materials: their plan is still approvable.")
    say(f"   {_decided(w.run('approve-caps', *caps.resume_args('approve')))}")

    say("\n5. Wednesday: 200 cap blanks arrive from the supplier.")
    received = _must(w.run("receive", "shop", "receive", "CAP-BLANK", "200", "--ref", "delivery note 4711"))
    say(f"   CAP-BLANK on hand: {received['ON_HAND']}; revision {received['STATE_REVISION']}.")
    if tell:
        _show(received, err=True)

    say("\n6. Thursday: order ORD-1002 (240 red totes for the City Museum) is made.")
    done = _must(w.run("complete", "order", "complete", "ORD-1002", "--as-of", "2026-12-03"))
    say(f"   {done['ORDER']} {done['STATUS']}; revision {done['STATE_REVISION']}.")
    if tell:
        _show(done, err=True)
    after = _must(w.run("list-end", "order", "list", "--as-of", "2026-12-03"))
    if tell:
        _show(after)

    say("\n7. Friday: someone re-imports the original spreadsheet. A dry run first: what would it change?")
    dry = _must(w.run("reimport-dry-run", "shop", "import", "--dry-run", str(SHOP_FILE)))
    changes = "yes" if dry["CHANGED"] == "1" else "none"
    say(f"   Changes: {changes}; needs --replace: {'yes' if dry['NEEDS_REPLACE'] == '1' else 'no'}.")
    if tell:
        _show(dry, err=True)
    if dry["NEEDS_REPLACE"] == "1":
        guarded = w.run("reimport", "shop", "import", str(SHOP_FILE))
        say(f"   Imported as it is, it is refused (exit {guarded.returncode}) and nothing changes:")
        if tell:
            _show(guarded, err=True)
        say("   (shop import --replace would change it anyway; the audit trail records what it replaced.)")
    else:
        say("   No applied or pending plan relies on what it changes: shop import would take it as it is.")
    return w
