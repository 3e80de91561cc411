"""`make demo-month`: a shop's month through the real CLI, on the rehearsal clock, with every figure counted.

    import the generated shop (scripts/month_shop.py) -> each working day, on PO_NOW:
      morning   deliveries (the plans' purchases due), completions (orders whose last booked day passed),
                held requests completed with what the customer meant (needs facts) or dropped (possible
                duplicates), a cancellation (day 6) and an ERP re-import (day 11: first without the committed
                purchases, which must be refused, then with them)
      the day   5-10 customer e-mails in five languages, each started as it arrives; decisions at human pace
                (within hours, the next morning, two days later, a rejection, some never: they expire); a stale
                refusal is proposed again and the new plan approved
      evening   outbox send to a directory of .eml files; one line for the day
    -> the month's counts; independent checks: every machine-day within capacity (from `shop export`), every
       request traced to a run or a hold, every approved order in the shop once, every message delivered once
    -> evidence/month.json (--out); exit 1 when a check fails

Every step is a subprocess of the installed console script (tests/support/clidriver.py). ``--days 3`` is the
small month tests/contract/test_demo_month.py runs.
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from email import message_from_bytes
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.clidriver import Run, cli  # noqa: E402

from scripts.month_shop import Mail, Mailbox, shop, working_days  # noqa: E402

FIRST_DAY = date(2027, 2, 1)  # a Monday
HOLIDAY = date(2027, 2, 15)
SERVICE_DAY = date(2027, 2, 10)  # MILL-2 is serviced
WINDOW = "3d"
MORNING = 7 * 60  # minutes after midnight UTC: 08:00 in the shop
FIRST_MAIL = MORNING + 30
EVENING = 16 * 60


@dataclass
class Plan:
    """One run waiting for a decision, and what the person will do with it."""

    mail: Mail
    checkpoint: str
    proposal_hash: str
    intent: str  # approve | reject | expire
    read: dict[str, str]  # product, quantity, due as the plan has them


@dataclass
class Month:
    """The month's data dir, clock and tallies."""

    data_dir: Path
    mail_dir: Path
    outbox_dir: Path
    rng: random.Random
    now: datetime = datetime(2027, 2, 1, 6, 0, tzinfo=UTC)
    counts: Counter[str] = field(default_factory=Counter)
    today: Counter[str] = field(default_factory=Counter)
    events: list[tuple[datetime, int, str, Plan]] = field(default_factory=list)
    traced: dict[str, str] = field(default_factory=dict)  # mail name -> checkpoint / held id / "duplicate of ..."
    held: dict[str, Mail] = field(default_factory=dict)  # held id -> the e-mail
    plans: list[Plan] = field(default_factory=list)
    stale: list[dict[str, str]] = field(default_factory=list)
    wrong: list[dict[str, Any]] = field(default_factory=list)
    reimport: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    mails: list[Mail] = field(default_factory=list)  # every e-mail sent, in order
    plain_unread: list[dict[str, str]] = field(default_factory=list)  # plain e-mails the reader held
    _seq: int = 0

    def at(self, when: datetime) -> None:
        """Move the clock to ``when`` (never back: the data dir refuses an earlier clock)."""
        self.now = max(self.now, when) + timedelta(seconds=1)

    def cli(self, *args: str) -> Run:
        """One command on the month's data dir at the month's clock."""
        stamp = self.now.strftime("%Y-%m-%dT%H:%M:%SZ")
        return cli("--data-dir", str(self.data_dir), "--now", stamp, *args, timeout=300)

    def must(self, *args: str) -> Run:
        done = self.cli(*args)
        if done.returncode != 0:
            self.failures.append(f"{' '.join(args[:2])} exited {done.returncode}: {done.stderr.strip()[:300]}")
        return done

    def count(self, name: str, n: int = 1) -> None:
        self.counts[name] += n
        self.today[name] += n

    def later(self, when: datetime, action: str, plan: Plan) -> None:
        self._seq += 1
        heapq.heappush(self.events, (when, self._seq, action, plan))

    def due_events(self, until: datetime) -> None:
        """Run the decisions whose time has come, in time order."""
        while self.events and self.events[0][0] <= until:
            when, _, action, plan = heapq.heappop(self.events)
            self.at(when)
            decide(self, plan, action)

    def export(self) -> dict[str, Any]:
        exported: dict[str, Any] = json.loads(self.must("shop", "export", "-").stdout)
        return exported


def _clock(day: date, minute: int) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(minutes=minute)


def _read_of(m: Month, checkpoint: str) -> dict[str, str]:
    shown = json.loads(m.must("show", "--checkpoint", checkpoint, "--json").stdout)
    order = shown["proposal"]["target_order"]
    return {"product": order["product"], "quantity": str(order["quantity"]), "due": order["due"]}


def _intent(m: Month) -> tuple[str, timedelta]:
    """What the person does with a plan and after how long (human pace)."""
    roll = m.rng.random()
    if roll < 0.55:
        return "approve", timedelta(minutes=m.rng.randint(30, 180))
    if roll < 0.77:
        return "approve", timedelta(hours=m.rng.randint(18, 24))  # the next morning
    if roll < 0.82:
        return "approve", timedelta(hours=m.rng.randint(44, 50))  # two days later (a weekend may close it first)
    if roll < 0.91:
        return "reject", timedelta(minutes=m.rng.randint(20, 240))
    return "expire", timedelta(0)


def _planned(m: Month, mail: Mail, started: Run, *, completed: bool = False) -> None:
    """A run waits for a decision: its facts checked against what the customer meant, its decision scheduled."""
    plan = Plan(mail, started["CHECKPOINT_ID"], started["PROPOSAL_HASH"], "", {})
    plan.read = _read_of(m, plan.checkpoint)
    m.count("holds_completed" if completed else "planned")
    if plan.read != mail.intended:
        m.count("planned_wrong_fact")
        m.wrong.append({"mail": mail.name, "language": mail.language, "meant": mail.intended, "read": plan.read})
    elif mail.plain and not completed:
        m.count("plain_planned_right")
    m.traced[mail.name] = plan.checkpoint
    m.plans.append(plan)
    plan.intent, wait = _intent(m)
    if plan.intent != "expire":
        m.later(m.now + wait, plan.intent, plan)


def receive(m: Month, mail: Mail) -> None:
    """A customer's e-mail arrives: start its run (or it is held, or it is the same envelope again)."""
    path = m.mail_dir / f"{mail.name}.eml"
    path.write_text(mail.text, encoding="utf-8")
    m.count("received")
    m.count(f"received_{mail.language}")
    m.count("received_plain" if mail.plain and not (mail.resend_of or mail.redelivery_of) else "received_other")
    started = m.cli("start", "--request", str(path), "--approval-window", WINDOW)
    values = started.values
    if started.returncode != 0:
        code = values.get("REFUSED") or next(iter(started.error_lines), started.stderr.strip()[:200])
        if mail.redelivery_of and "already decided" in started.stderr:
            m.count("duplicates")
            m.traced[mail.name] = f"duplicate of {mail.redelivery_of} (already decided)"
            return
        m.count("start_refused")
        m.failures.append(f"{mail.name}: start exited {started.returncode}: {code}")
        return
    if values.get("NEEDS_FACTS") == "1":
        m.count("needs_facts")
        m.held[values["HELD_ID"]] = mail
        m.traced[mail.name] = values["HELD_ID"]
        if mail.plain:
            m.count("plain_needs_facts")
            m.plain_unread.append({"mail": mail.name, "language": mail.language, "missing": values.get("MISSING", "")})
    elif values.get("POSSIBLE_DUPLICATE") == "1":
        m.count("duplicates")
        m.held[values["HELD_ID"]] = mail
        m.traced[mail.name] = values["HELD_ID"]
    elif values.get("ALREADY_PENDING") == "1":
        m.count("duplicates")
        m.traced[mail.name] = f"duplicate of {values['CHECKPOINT_ID']}"
    else:
        _planned(m, mail, started)


def _stale(m: Month, plan: Plan, refused: Run) -> None:
    message = next((line for line in refused.stderr.splitlines() if line.strip()), "")
    m.count("stale")
    m.stale.append({"mail": plan.mail.name, "checkpoint": plan.checkpoint, "message": message[:400]})
    again = m.must("repropose", "--checkpoint", plan.checkpoint)
    if again.returncode != 0:
        return
    m.count("reproposed")
    m.at(m.now + timedelta(minutes=5))
    successor = Plan(plan.mail, again["CHECKPOINT_ID"], again["PROPOSAL_HASH"], "approve", plan.read)
    m.plans.append(successor)
    m.traced[plan.mail.name] = successor.checkpoint
    decide(m, successor, "approve", retry=False)


def decide(m: Month, plan: Plan, action: str, *, retry: bool = True) -> None:
    """Approve or reject ``plan`` as the shop owner; a stale refusal is proposed again once and approved."""
    extra = ("--reason", "not this month") if action == "reject" else ()
    done = m.cli(
        "resume",
        "--checkpoint",
        plan.checkpoint,
        "--decision",
        action,
        "--reviewed-hash",
        plan.proposal_hash,
        "--approver",
        "shop-owner",
        *extra,
    )
    if done.returncode == 0:
        m.count("approved" if action == "approve" else "rejected")
        return
    code = done.values.get("REFUSED", "")
    if code == "STALE_DOMAIN_STATE" and retry:
        _stale(m, plan, done)
    elif code == "EXPIRED":
        m.count("decided_after_expiry")
    else:
        m.count("decision_refused")
        m.failures.append(f"resume {action} {plan.checkpoint}: exit {done.returncode} {code} {done.stderr[:200]}")


def morning(m: Month, day: date, index: int, days: int) -> None:
    """Deliveries, completions, held requests, and the day's one-off event."""
    m.at(_clock(day, MORNING))
    shop_now = m.export()
    _deliveries(m, day, shop_now)
    _completions(m, day, shop_now)
    _holds(m)
    if index == max(1, days * 6 // 20):  # day 6 of 20
        _cancel(m, day, shop_now)
    if index == max(2, days * 11 // 20):  # day 11 of 20
        _reimport(m, day)


def _deliveries(m: Month, day: date, shop_now: dict[str, Any]) -> None:
    """The plans' purchases arrive the day before they are needed."""
    for line in shop_now.get("procurement", []):
        if date.fromisoformat(line["needed_by"]) <= day + timedelta(days=1):
            ref = f"delivery {line['material']} {line['needed_by']}"
            if m.must("shop", "receive", line["material"], str(line["quantity"]), "--ref", ref).returncode == 0:
                m.count("deliveries")


def _completions(m: Month, day: date, shop_now: dict[str, Any]) -> None:
    """Every order whose last booked day has passed is made."""
    for order in shop_now["orders"]:
        days = [date.fromisoformat(s["day"]) for s in order.get("schedule", [])]
        if days and max(days) < day and m.must("order", "complete", order["id"]).returncode == 0:
            m.count("completed")


def _holds(m: Month) -> None:
    """The operator asks the customer what a held request lacks and completes it; a resend is dropped."""
    for held in json.loads(m.must("request", "list", "--json").stdout)["held"]:
        mail = m.held.get(held["held_id"])
        if mail is None:
            continue
        if held["kind"] != "needs_facts":
            if m.must("request", "drop", held["held_id"], "--reason", "the customer sent it again").returncode == 0:
                m.count("holds_dropped")
            continue
        facts = mail.intended
        given = (f"--product={facts['product']}", f"--quantity={facts['quantity']}", f"--due={facts['due']}")
        done = m.must("request", "complete", held["held_id"], *given, f"--approval-window={WINDOW}")
        if done.returncode == 0 and "CHECKPOINT_ID" in done.values:
            _planned(m, mail, done, completed=True)


def _cancel(m: Month, day: date, shop_now: dict[str, Any]) -> None:
    later = [o for o in shop_now["orders"] if any(date.fromisoformat(s["day"]) > day for s in o.get("schedule", []))]
    if later:
        order = m.rng.choice(sorted(later, key=lambda o: o["id"]))
        if m.must("order", "cancel", order["id"], "--reason", "the customer withdrew").returncode == 0:
            m.count("cancelled")


def _reimport(m: Month, day: date) -> None:
    """The ERP's export comes back with three new orders and without the purchases the plans committed."""
    current = m.export()
    committed = current.get("procurement", [])
    erp = {k: v for k, v in current.items() if k not in ("procurement", "revision")}
    erp["orders"] = [
        *current["orders"],
        *(
            {
                "id": f"ERP-{7001 + n}",
                "customer": "Northfield Pumps",
                "customer_email": "purchasing@northfield-pumps.example",
                "product": "DP-SS-6X30",
                "quantity": 300,
                "due": (day + timedelta(days=20 + n)).isoformat(),
                "priority": 30,
                "schedule": [],
            }
            for n in range(3)
        ),
    ]
    erp_file = m.mail_dir.parent / "erp-export.json"
    erp_file.write_text(json.dumps(erp, indent=1), encoding="utf-8")
    dry = m.cli("shop", "import", "--dry-run", str(erp_file))
    plain = m.cli("shop", "import", str(erp_file))
    merged = m.mail_dir.parent / "erp-export-merged.json"
    merged.write_text(json.dumps({**erp, "procurement": committed}, indent=1), encoding="utf-8")
    applied = m.cli("shop", "import", str(merged)) if plain.returncode != 0 else plain
    after = m.export().get("procurement", [])
    key = lambda line: (line["material"], line["needed_by"], line["quantity"])  # noqa: E731
    dropped = [line for line in committed if key(line) not in {key(a) for a in after}]
    m.count("reimports")
    m.reimport = {
        "day": day.isoformat(),
        "committed_purchases": len(committed),
        "dry_run_exit": dry.returncode,
        "dry_run_needs_replace": dry.values.get("NEEDS_REPLACE", ""),
        "without_purchases_exit": plain.returncode,
        "without_purchases_refusal": next(iter(plain.error_lines), "")[:300],
        "merged_exit": applied.returncode,
        "committed_purchases_dropped": len(dropped),
        "orders_added": 3,
    }
    if applied.returncode != 0:
        m.failures.append(f"re-import of the merged ERP file exited {applied.returncode}: {applied.stderr[:300]}")


def evening(m: Month, day: date) -> None:
    m.at(_clock(day, EVENING))
    sent = m.must("outbox", "send", "--to-dir", str(m.outbox_dir))
    if sent.returncode == 0:
        m.count("outbox_sends")


def _over_capacity(exported: dict[str, Any]) -> list[str]:
    """Machine-days booked over capacity or on a day the machine does not work, read from the export alone."""
    names = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    machines = {machine["id"]: machine for machine in exported["machines"]}
    booked: Counter[tuple[str, str]] = Counter()
    for order in exported["orders"]:
        for entry in order.get("schedule", []):
            booked[(entry["machine"], entry["day"])] += entry["minutes"]
    found = []
    for (machine_id, day), minutes in sorted(booked.items()):
        machine = machines[machine_id]
        works = names[date.fromisoformat(day).weekday()] in machine.get("weekdays", names)
        if not works or day in machine.get("closed_days", []) or minutes > machine["minutes_per_day"]:
            found.append(f"{machine_id} {day}: {minutes} of {machine['minutes_per_day']} minutes")
    return found


def _checks(m: Month) -> dict[str, Any]:
    """The month's invariants, each from what the CLI reports now (never from the tallies above)."""
    m.at(m.now + timedelta(minutes=10))
    exported = m.export()
    status = json.loads(m.must("status", "--json", "--limit", "0").stdout)
    held = {h["held_id"]: h for h in json.loads(m.must("request", "list", "--all", "--json").stdout)["held"]}
    runs = {a["checkpoint_id"]: a for a in status["approvals"]}
    lost = [
        name
        for name, trace in sorted(m.traced.items())
        if not (trace in runs or trace in held or trace.startswith("duplicate of "))
    ]
    lost += [mail.name for mail in m.mails if mail.name not in m.traced]
    in_shop = Counter(o["id"] for o in exported["orders"])
    in_shop.update(c["order"]["id"] for c in exported.get("closed_orders", []))
    approved = [a for a in runs.values() if a["status"] == "approved"]
    orders_not_once = [a["target_order_id"] for a in approved if in_shop[a["target_order_id"]] != 1]
    messages = json.loads(m.must("outbox", "list", "--json").stdout)
    ids = []
    for path in sorted(m.outbox_dir.glob("*.eml")):
        ids.append(str(message_from_bytes(path.read_bytes()).get("Message-ID", path.name)))
    statuses = Counter(a["status"] for a in runs.values())
    return {
        "machine_days_over_capacity": _over_capacity(exported),
        "requests_lost": lost,
        "approved_orders_not_in_shop_once": orders_not_once,
        "messages_queued": len(messages),
        "messages_delivered": len(ids),
        "messages_sent_twice": len(ids) - len(set(ids)),
        "messages_not_sent": sum(1 for msg in messages if msg.get("status") != "sent"),
        "run_statuses": dict(sorted(statuses.items())),
        "plan_applied_count": status["plan_applied_count"],
        "revision": status["revision"],
        "audit": m.cli("audit", "verify").returncode,
    }


def day_line(m: Month, index: int, day: date, mails: int) -> str:
    t = m.today
    return (
        f"day {index:2d} {day.isoformat()} {day.strftime('%a')}: {mails} e-mails -> {t['planned']} planned, "
        f"{t['needs_facts']} needs facts, {t['duplicates']} duplicates; {t['approved']} approved, "
        f"{t['rejected']} rejected, {t['stale']} stale; {t['deliveries']} deliveries, {t['completed']} completed"
        + (", 1 cancellation" if t["cancelled"] else "")
        + (", the ERP re-import" if t["reimports"] else "")
    )


def run_month(days: int, seed: int, data_root: Path, emails: int | None = None) -> tuple[dict[str, Any], list[str]]:
    """The month on ``data_root``; its report and the failed checks."""
    rng = random.Random(seed)
    m = Month(data_root / "shop", data_root / "mail", data_root / "outbox", rng)
    m.mail_dir.mkdir(parents=True)
    m.outbox_dir.mkdir()
    shop_file = data_root / "shop.json"
    shop_file.write_text(json.dumps(shop(rng, FIRST_DAY, HOLIDAY, SERVICE_DAY), indent=1), encoding="utf-8")
    m.must("shop", "import", str(shop_file))
    mailbox = Mailbox(rng, FIRST_DAY)
    m.mails = mailbox.sent
    calendar = working_days(FIRST_DAY, days, frozenset({HOLIDAY}))
    for index, day in enumerate(calendar, start=1):
        m.today = Counter()
        m.due_events(_clock(day, MORNING))
        morning(m, day, index, days)
        mails = mailbox.day(day, emails)
        for number, mail in enumerate(mails):
            arrives = _clock(day, FIRST_MAIL + number * 45)
            m.due_events(arrives)
            m.at(arrives)
            receive(m, mail)
        m.due_events(_clock(day, EVENING))
        evening(m, day)
        print(day_line(m, index, day, len(mails)), flush=True)
    checks = _checks(m)
    c = m.counts
    statuses = checks["run_statuses"]
    plans = len(m.plans)
    report = {
        "seed": seed,
        "working_days": days,
        "first_day": calendar[0].isoformat(),
        "last_day": calendar[-1].isoformat(),
        "approval_window": WINDOW,
        "emails_per_day": "5-10" if emails is None else str(emails),
        "counts": {
            "received": c["received"],
            "received_by_language": {lang: c[f"received_{lang}"] for lang in ("en", "de", "fr", "es", "nl")},
            "received_plain": c["received_plain"],
            "planned": c["planned"],
            "plain_planned_right": c["plain_planned_right"],
            "planned_wrong_fact": c["planned_wrong_fact"],
            "needs_facts": c["needs_facts"],
            "plain_needs_facts": c["plain_needs_facts"],
            "holds_completed": c["holds_completed"],
            "duplicates": c["duplicates"],
            "holds_dropped": c["holds_dropped"],
            "start_refused": c["start_refused"],
            "pending_plans": plans,
            "approved": c["approved"],
            "rejected": c["rejected"],
            "expired": statuses.get("expired", 0),
            "decided_after_expiry": c["decided_after_expiry"],
            "stale": c["stale"],
            "stale_share_of_pending_plans": round(c["stale"] / plans, 4) if plans else 0.0,
            "reproposed": c["reproposed"],
            "still_pending_at_end": statuses.get("pending", 0) + statuses.get("stale", 0),
            "deliveries": c["deliveries"],
            "completed": c["completed"],
            "cancelled": c["cancelled"],
            "reimports": c["reimports"],
            "messages": checks["messages_delivered"],
        },
        "plain_planned_right_share": round(c["plain_planned_right"] / c["received_plain"], 4)
        if c["received_plain"]
        else 0.0,
        "plain_needs_facts": m.plain_unread,
        "stale_plans": m.stale,
        "wrong_facts": m.wrong,
        "reimport": m.reimport,
        "checks": {k: (len(v) if isinstance(v, list) else v) for k, v in checks.items()},
        "check_details": {k: v for k, v in checks.items() if isinstance(v, list) and v},
        "step_failures": m.failures,
    }
    failed = []
    if checks["machine_days_over_capacity"]:
        failed.append(f"machine-days over capacity: {checks['machine_days_over_capacity']}")
    if checks["requests_lost"]:
        failed.append(f"requests lost: {checks['requests_lost']}")
    if checks["messages_sent_twice"]:
        failed.append(f"messages sent twice: {checks['messages_sent_twice']}")
    if checks["approved_orders_not_in_shop_once"]:
        failed.append(f"approved orders not in the shop exactly once: {checks['approved_orders_not_in_shop_once']}")
    if checks["audit"] != 0:
        failed.append("audit verify failed")
    return report, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=20, help="working days (default 20)")
    parser.add_argument("--seed", type=int, default=27, help="the RNG seed of the shop, the e-mails and the decisions")
    parser.add_argument("--emails", type=int, default=None, help="e-mails a day (default: 5 to 10)")
    parser.add_argument("--out", type=Path, default=ROOT / "evidence" / "month.json", help="the report")
    args = parser.parse_args(argv)
    data_root = Path(tempfile.mkdtemp(prefix="po-month-"))
    print(f"Production Orchestrator: a shop's month ({args.days} working days, seed {args.seed}) in {data_root}")
    began = time.monotonic()
    report, failed = run_month(args.days, args.seed, data_root, args.emails)
    report["wall_seconds"] = round(time.monotonic() - began, 1)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    c = report["counts"]
    print(
        f"\nthe month: {c['received']} received, {c['planned']} planned ({report['plain_planned_right_share']:.0%} "
        f"of plain e-mails with the right facts, {c['planned_wrong_fact']} with a wrong fact), {c['needs_facts']} "
        f"needs facts, {c['duplicates']} duplicates; {c['approved']} approved, {c['rejected']} rejected, "
        f"{c['expired']} expired, {c['stale']} stale ({c['stale_share_of_pending_plans']:.1%} of "
        f"{c['pending_plans']} pending plans); {c['messages']} messages"
    )
    print(f"checks: {report['checks']}")
    print(f"report: {args.out}")
    for line in failed:
        print(f"FAILED: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
