"""The outbox family of the torture suite: racing senders and SIGKILL at each delivery fault point.

per store (SQLite, DynamoDB on moto): start -> approve (three messages queued)
  races:   N forked ``deliver`` rounds released at once against one loopback SMTP sink
           -> each Message-ID arrives once, every message marked sent once
  crashes: SIGKILL at after_outbox_claim / after_outbox_send, then rounds until all are sent
           -> every message arrives; a repeat only after after_outbox_send, byte-identical (same
              Message-ID), which is the at-least-once window docs/concepts/exactly-once.md states
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support.smtp_sink import SmtpSink, smtp_sink

from production_orchestrator import faults
from production_orchestrator.adapters.local.mail_transports import SmtpTransport
from production_orchestrator.services.outbox.deliver import Deliver, deliver
from scripts.torture_world import RUSH_MESSAGES, Family, World, Worlds, do_resume, do_start, run_forked

SEND_LEASE = timedelta(seconds=1)  # crashes: short, so the retry after a SIGKILL comes soon
RACE_LEASE = timedelta(minutes=2)  # races: the default, longer than any send here takes (as in production)
SENDER = "torture@shop.example"


def _round(world: World, sink: SmtpSink, lease: timedelta = SEND_LEASE) -> dict[str, Any]:
    transport = SmtpTransport(sink.host, sink.port, SENDER, timeout=10)
    rt = replace(world.runtime(), transport=transport, clock=lambda: datetime.now(UTC))
    report = deliver(rt, Deliver(lease=lease))
    return report.counts()


def _approved(worlds: Worlds, kind: str) -> World:
    world = worlds.new(kind)
    ids = do_start(world)
    do_resume(world, ids)
    return world


def _marked(world: World) -> tuple[int, int]:
    messages = world.runtime().store.outbox_messages()
    return len(messages), sum(m.status == "sent" for m in messages)


def outbox(worlds: Worlds, size: dict[str, int]) -> Family:
    """Racing delivery rounds and crashes inside delivery, on both stores."""
    fam = Family("outbox")
    raw_duplicates = {point: 0 for point in faults.OUTBOX_POINTS}
    double_sends_in_races = 0
    for kind in ("sqlite", "dynamodb"):
        for trial in range(size["race_trials"]):
            world = _approved(worlds, kind)
            with smtp_sink() as sink:
                outcomes = run_forked(
                    [lambda w=world, s=sink: _round(w, s, RACE_LEASE)] * size["racers"], together=True
                )
                ids = sink.message_ids()
            queued, sent = _marked(world)
            double_sends_in_races += len(ids) - len(set(ids))
            errors = [o.error[:200] for o in outcomes if o.error][:2]
            ok = queued == sent == RUSH_MESSAGES and len(ids) == len(set(ids)) == RUSH_MESSAGES
            fam.check(f"{kind} race {trial}", ok and not errors, f"{len(ids)} delivered, {sent}/{queued}, {errors}")
        for point in faults.OUTBOX_POINTS:
            ok, why, repeats = _crash(worlds, kind, point)
            raw_duplicates[point] += repeats
            fam.check(f"{kind} deliver@{point}", ok, why)
    fam.detail = {
        "racers_per_trial": size["racers"],
        "messages_per_plan": RUSH_MESSAGES,
        "points": list(faults.OUTBOX_POINTS),
        "double_sends_in_races": double_sends_in_races,
        # Only after_outbox_send may repeat a message, byte for byte under its one Message-ID.
        "repeated_deliveries_after_crash": raw_duplicates,
        "send_lease_seconds": {"races": RACE_LEASE.total_seconds(), "crashes": SEND_LEASE.total_seconds()},
    }
    return fam


def _crash(worlds: Worlds, kind: str, point: str) -> tuple[bool, str, int]:
    world = _approved(worlds, kind)
    with smtp_sink() as sink:
        (crash,) = run_forked([lambda: _round(world, sink)], {faults.ENV_KILL_AT: point})
        if not crash.killed:
            return False, f"not killed: {crash}", 0
        before = len(sink.received)
        time.sleep(SEND_LEASE.total_seconds() + 0.2)
        rounds = [run_forked([lambda: _round(world, sink)])[0] for _ in range(2)]
        received = list(sink.received)
    ids = [r.message_id for r in received]
    queued, sent = _marked(world)
    repeats = len(ids) - len(set(ids))
    ok = queued == sent == RUSH_MESSAGES and len(set(ids)) == RUSH_MESSAGES
    ok = ok and rounds[1].result.get("sent") == 0 and rounds[1].result.get("already_sent") == RUSH_MESSAGES
    if point == "after_outbox_claim":
        ok = ok and before == 0 and repeats == 0
    else:  # the transport took the first message, the mark died with the process
        repeated = [r.data for r in received if ids.count(r.message_id) > 1]
        ok = ok and before == 1 and repeats == 1 and len(set(repeated)) == 1
    return ok, f"before={before} ids={len(ids)} distinct={len(set(ids))} sent={sent}/{queued} {rounds}", repeats
