#!/usr/bin/env python3
"""Generate stress-test shop files for Production Orchestrator's planner.

Usage:  python3 gen.py [SEED] [--out DIR]

Writes 12 shop files DIR/<family>-<n>.json (n = 1..3) in four families:

  busy       dense job shop, 6-8 machines, 60-150 orders over 3 weeks at 75-95% load
  materials  scarce materials, supplier lead times, on_order / committed procurement,
             one shop with a pre-existing shortage
  calendar   part-time machines, many closed days, short days, narrow eligibility,
             awkward unit sizes against min_split_minutes
  priority   mostly low-priority movable work, pinned high/equal-priority work,
             zero-slack traps, tiny orders, (one shop) work already in progress

Every shop holds exactly one unscheduled order "NEW" whose due date is 3-12 days
after the planning day 2027-03-01 and whose size exceeds the free time before its
due date on its machines (so it can be met only by moving lower-priority work).

Every file is checked before it is written: against docs/shop.schema.json (a small
built-in validator, standard library only) when that file is found, and always
against the rules the importer and planner state: references, duplicate ids,
eligible machines, working days (weekdays, closed days), machine-day capacity,
schedule minutes == quantity x minutes_per_unit, whole units per allocation, one
entry per machine and day, no allocation after the order's due date.

A manifest (DIR/../manifest.json) records per shop what was built: load, the NEW
order's size, the free and movable time in its window, and what is being probed.
Standard library only.  Same seed -> byte-identical files.
"""
import json
import math
import os
import random
import re
import sys
from datetime import date, timedelta

PLAN_DAY = date(2027, 3, 1)          # a Monday
HORIZON = 21                          # existing work lives in the next 3 weeks
WD = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_CANDIDATES = [
    os.path.join(HERE, "..", "main", "docs", "shop.schema.json"),
    "/work/main/docs/shop.schema.json",
]

CUSTOMERS = [
    "Harbor Cafe", "City Museum", "Book Nook", "Lakeside Gym", "Riverside United",
    "Alpine Outfitters", "Nordwind GmbH", "Atelier Dupont", "Ferreteria Sol",
    "De Molen BV", "Kestrel Aero", "Blue Fern Studio", "Oakridge School",
    "Metro Transit", "Sunrise Bakery", "Iron Gate Fitness", "Lumen Labs",
    "Quarry Brewing", "Seaside Hotel", "Northgate Clinic", "Vela Marine",
    "Brightwater Farm", "Copperleaf Tea", "Granite Works", "Pine & Co",
    "Rheinblick AG", "Boulangerie Martin", "Taller Ruiz", "Van Dijk Techniek",
    "Summit Robotics", "Old Mill Pottery", "Redwood Scouts",
]
LANGS = ["en", "en", "en", "de", "fr", "es", "nl"]


def d2s(d):
    return d.isoformat()


def day(i):
    return PLAN_DAY + timedelta(days=i)


def slug(s):
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")


# --------------------------------------------------------------------------
# Shop builder
# --------------------------------------------------------------------------
class Builder:
    def __init__(self, rng, name, tz, min_split):
        self.rng = rng
        self.name = name
        self.tz = tz
        self.min_split = min_split
        self.machines = {}      # id -> dict(cap, weekdays(list|None), closed(set of date))
        self.products = {}      # code -> dict(desc, machines, mpu, materials{id:per}, aliases)
        self.materials = {}     # id -> dict(on_hand, on_order, supplier, lead)
        self.orders = []        # dicts (json-ready except schedule list of tuples)
        self.booked = {}        # (mid, date) -> minutes
        self.fill = {}          # (mid, date) -> generation cap (<= cap)
        self.procurement = []
        self.closed_orders = []
        self.seq = 1000
        self.notes = []
        self.no_topup = set()
        self.no_machine = set()

    # calendar -----------------------------------------------------------
    def add_machine(self, mid, cap, weekdays=None, closed=()):
        self.machines[mid] = {"cap": cap, "weekdays": weekdays, "closed": set(closed)}

    def works(self, mid, d):
        m = self.machines[mid]
        if m["weekdays"] is not None and WD[d.weekday()] not in m["weekdays"]:
            return False
        return d not in m["closed"]

    def free(self, mid, d, gen=False):
        cap = self.machines[mid]["cap"]
        if gen:
            cap = self.fill.get((mid, d), cap)
        return cap - self.booked.get((mid, d), 0)

    def capacity(self, mids, days):
        return sum(self.machines[m]["cap"] for m in mids for d in days if self.works(m, d))

    def booked_on(self, mids, days):
        return sum(self.booked.get((m, d), 0) for m in mids for d in days)

    def set_fill(self, lo, hi):
        """Per machine-day generation cap, a fraction of capacity (leaves odd gaps)."""
        for mid, m in self.machines.items():
            for i in range(-7, HORIZON + 40):
                d = day(i)
                self.fill[(mid, d)] = int(m["cap"] * self.rng.uniform(lo, hi))

    # placement ----------------------------------------------------------
    def place(self, code, qty, first, last, sticky=True, max_chunk=None, only=None):
        """Place qty units of product code on days first..last (indices).

        Whole units per entry; every entry >= min(min_split, total); greedy earliest
        day first; one entry per machine-day. Returns list of (mid, date, minutes)
        or None (nothing is booked then)."""
        p = self.products[code]
        mpu = p["mpu"]
        total = qty * mpu
        ms = min(self.min_split, total)
        ms_units = math.ceil(ms / mpu) * mpu
        remaining = total
        alloc = []
        prev = None
        for i in range(first, last + 1):
            d = day(i)
            ms_list = [m for m in p["machines"] if only is None or m in only]
            self.rng.shuffle(ms_list)
            if sticky and prev in ms_list:
                ms_list.remove(prev)
                ms_list.insert(0, prev)
            for mid in ms_list:
                if remaining == 0:
                    break
                if not self.works(mid, d):
                    continue
                fr = self.free(mid, d, gen=True)
                chunk = min(remaining, (max(fr, 0) // mpu) * mpu)
                if max_chunk is not None and chunk < remaining:
                    chunk = min(chunk, max(ms_units, (max_chunk // mpu) * mpu))
                if chunk <= 0:
                    continue
                if chunk < remaining:
                    if chunk < ms:
                        continue
                    if remaining - chunk < ms:
                        chunk = remaining - ms_units
                        if chunk < ms:
                            continue
                if chunk > 1440:
                    continue
                alloc.append((mid, d, chunk))
                self.booked[(mid, d)] = self.booked.get((mid, d), 0) + chunk
                remaining -= chunk
                prev = mid
            if remaining == 0:
                break
        if remaining:
            for mid, d, c in alloc:
                self.booked[(mid, d)] -= c
            return None
        return alloc

    def new_id(self):
        self.seq += self.rng.randint(1, 3)
        return "ORD-%d" % self.seq

    def customer(self):
        c = self.rng.choice(CUSTOMERS)
        return c, "orders@%s.example" % slug(c)

    def add_order(self, code, qty, alloc, priority, slack_days, oid=None):
        last = max(d for _, d, _ in alloc)
        cust, email = self.customer()
        o = {
            "id": oid or self.new_id(),
            "customer": cust,
            "customer_email": email,
            "language": self.rng.choice(LANGS),
            "product": code,
            "quantity": qty,
            "due": d2s(last + timedelta(days=slack_days)),
            "priority": priority,
            "schedule": [{"machine": m, "day": d2s(d), "minutes": c}
                         for m, d, c in sorted(alloc, key=lambda a: (a[1], a[0]))],
        }
        if self.rng.random() < 0.3:
            o["reference"] = "PO-%05d" % self.rng.randint(1, 99999)
        self.orders.append(o)
        return o

    def fill_orders(self, n_target, load_target, size_fn, prio_fn, slack_fn,
                    start_fn, machines_for_load=None, max_fail=20000, codes=None):
        mids = machines_for_load or list(self.machines)
        days = [day(i) for i in range(HORIZON)]
        cap = self.capacity(mids, days)
        codes = codes or list(self.products)
        fails = 0
        while len(self.orders) < n_target and fails < max_fail:
            if self.booked_on(mids, days) >= load_target * cap:
                break
            code = self.rng.choice(codes)
            mpu = self.products[code]["mpu"]
            minutes = size_fn(code)
            qty = max(1, round(minutes / mpu))
            start = start_fn()
            alloc = self.place(code, qty, start, HORIZON - 1)
            if alloc is None:
                fails += 1
                continue
            prio = prio_fn()
            self.add_order(code, qty, alloc, prio, slack_fn(prio))
        return self.booked_on(mids, days) / cap if cap else 0.0

    def overall_load(self):
        days = [day(i) for i in range(HORIZON)]
        mids = list(self.machines)
        cap = self.capacity(mids, days)
        return self.booked_on(mids, days) / cap if cap else 0.0

    def machine_load(self, mid):
        days = [day(i) for i in range(HORIZON)]
        cap = self.capacity([mid], days)
        return self.booked_on([mid], days) / cap if cap else 1.0

    def top_up(self, target, prio_fn, slack_fn, max_orders, frac=(0.15, 0.8), max_fail=3000):
        """Bring every machine up to `target` load over the 3 weeks with orders that run
        on that machine alone (their product may still allow others)."""
        fails = 0
        while len(self.orders) < max_orders and fails < max_fail:
            low = [m for m in self.machines if self.machine_load(m) < target
                   and any(m in p["machines"] for p in self.products.values())]
            if not low:
                break
            mid = min(low, key=lambda m: (self.machine_load(m), m))
            codes = [c for c, p in self.products.items() if mid in p["machines"] and c not in self.no_topup]
            if not codes:
                self.no_machine.add(mid)
                fails += 1
                continue
            code = self.rng.choice(codes)
            mpu = self.products[code]["mpu"]
            cap = self.machines[mid]["cap"]
            minutes = int(cap * self.rng.uniform(*frac))
            qty = max(1, minutes // mpu)
            start = self.rng.randint(0, HORIZON - 1)
            alloc = self.place(code, qty, start, min(HORIZON - 1, start + 4), only=[mid])
            if alloc is None:
                fails += 1
                continue
            prio = prio_fn()
            self.add_order(code, qty, alloc, prio, slack_fn(prio))
        return {m: round(self.machine_load(m), 3) for m in self.machines}

    # NEW order sizing ---------------------------------------------------
    def window_stats(self, code, first, last, prio):
        p = self.products[code]
        mpu = p["mpu"]
        free_usable = 0
        movable = 0
        pinned = 0
        cap = 0
        for i in range(first, last + 1):
            d = day(i)
            for mid in p["machines"]:
                if not self.works(mid, d):
                    continue
                cap += self.machines[mid]["cap"]
                fr = self.free(mid, d)
                u = (fr // mpu) * mpu
                if u >= min(self.min_split, mpu):
                    free_usable += u
        by_id = {o["id"]: o for o in self.orders}
        for o in self.orders:
            for e in o.get("schedule", []):
                if e["machine"] in p["machines"] and first <= (date.fromisoformat(e["day"]) - PLAN_DAY).days <= last:
                    if o["priority"] < prio and o["due"] > e["day"] and e["day"] >= d2s(PLAN_DAY):
                        movable += e["minutes"]
                    else:
                        pinned += e["minutes"]
        return {"window_capacity": cap, "free_usable": free_usable,
                "movable_estimate": movable, "pinned": pinned}

    # feasibility witness ------------------------------------------------
    def _place_new(self, booked, code, qty, first, last):
        """Place NEW on real capacity (no moves): whole units, parts >= min split."""
        p = self.products[code]
        mpu = p["mpu"]
        total = qty * mpu
        ms = min(self.min_split, total)
        ms_units = math.ceil(ms / mpu) * mpu
        remaining = total
        alloc = []
        for i in range(first, last + 1):
            d = day(i)
            for mid in p["machines"]:          # fixed order: deterministic
                if remaining == 0:
                    break
                if not self.works(mid, d):
                    continue
                fr = self.machines[mid]["cap"] - booked.get((mid, d), 0)
                chunk = min(remaining, (max(fr, 0) // mpu) * mpu)
                if chunk <= 0:
                    continue
                if chunk < remaining:
                    if chunk < ms:
                        continue
                    if remaining - chunk < ms:
                        chunk = remaining - ms_units
                        if chunk < ms:
                            continue
                alloc.append((mid, d, chunk))
                remaining -= chunk
        return alloc if remaining == 0 else None

    def witness(self, code, qty, first, last, prio, frozen=()):
        """A plan the planner's rules allow that puts NEW on time, if this simple
        search finds one: move whole allocations of lower-priority, not-started orders
        out of NEW's machine-days (to the same or a later working day on a machine of
        their own product, never past their due date, never onto a NEW machine-day in
        the window), lowest priority first, until NEW fits. Returns a dict or None."""
        booked = dict(self.booked)
        newm = set(self.products[code]["machines"])
        alloc = self._place_new(booked, code, qty, first, last)
        if alloc is not None:
            return {"moves": [], "new": alloc}
        cands = []
        for o in self.orders:
            if o["id"] == "NEW" or o["priority"] >= prio or o["id"] in frozen or not o.get("schedule"):
                continue
            if min(e["day"] for e in o["schedule"]) < d2s(PLAN_DAY):
                continue
            for e in o["schedule"]:
                di = (date.fromisoformat(e["day"]) - PLAN_DAY).days
                if e["machine"] in newm and first <= di <= last:
                    cands.append((o["priority"], e["day"], e["machine"], o["id"], o, e))
        cands.sort(key=lambda c: c[:4])
        moves = []
        for _, _, _, oid, o, e in cands:
            src_d = date.fromisoformat(e["day"])
            due = date.fromisoformat(o["due"])
            p = self.products[o["product"]]
            mpu = p["mpu"]
            total = o["quantity"] * mpu
            ms = min(self.min_split, total)
            ms_units = math.ceil(ms / mpu) * mpu
            remaining = e["minutes"]
            parts = []
            trial = dict(booked)
            trial[(e["machine"], src_d)] -= remaining
            dd = src_d
            while dd <= due and remaining:
                di = (dd - PLAN_DAY).days
                for mid in p["machines"]:
                    if remaining == 0:
                        break
                    if (mid in newm and first <= di <= last) or not self.works(mid, dd):
                        continue
                    fr = self.machines[mid]["cap"] - trial.get((mid, dd), 0)
                    chunk = min(remaining, (max(fr, 0) // mpu) * mpu)
                    if chunk <= 0:
                        continue
                    if chunk < remaining:
                        if chunk < ms:
                            continue
                        if remaining - chunk < ms:
                            chunk = remaining - ms_units
                            if chunk < ms:
                                continue
                    trial[(mid, dd)] = trial.get((mid, dd), 0) + chunk
                    parts.append((mid, dd, chunk))
                    remaining -= chunk
                dd += timedelta(days=1)
            if remaining:
                continue
            booked = trial
            for mid, dd, c in parts:
                moves.append({"order": oid, "priority": o["priority"], "minutes": c,
                              "from": [e["machine"], e["day"]], "to": [mid, d2s(dd)]})
            alloc = self._place_new(booked, code, qty, first, last)
            if alloc is not None:
                return {"moves": moves, "new": alloc}
        return None

    def add_new(self, code, due_off, ready_off, prio, frac, empty_schedule=True, frozen=()):
        """Size NEW so that it does NOT fit without moves, and (when a witness exists)
        at `frac` of the way between the smallest such size and the largest size the
        witness search can still make on time."""
        stats = self.window_stats(code, ready_off, due_off, prio)
        mpu = self.products[code]["mpu"]
        # smallest qty that no longer fits without moving anything
        lo, hi = 1, 1
        while self._place_new(self.booked, code, hi, ready_off, due_off) is not None:
            lo, hi = hi, hi * 2
        while lo < hi:
            mid = (lo + hi) // 2
            if self._place_new(self.booked, code, mid, ready_off, due_off) is None:
                hi = mid
            else:
                lo = mid + 1
        q_lo = lo
        q_max = None
        if self.witness(code, q_lo, ready_off, due_off, prio, frozen):
            lo2, hi2 = q_lo, q_lo
            while self.witness(code, hi2 * 2, ready_off, due_off, prio, frozen) and hi2 < 10 ** 6:
                hi2 *= 2
            lo2, hi2 = hi2, hi2 * 2
            while lo2 + 1 < hi2:
                m = (lo2 + hi2) // 2
                if self.witness(code, m, ready_off, due_off, prio, frozen):
                    lo2 = m
                else:
                    hi2 = m
            q_max = lo2
            qty = q_lo + int(round((q_max - q_lo) * frac))
        else:
            qty = q_lo
        wit = self.witness(code, qty, ready_off, due_off, prio, frozen)
        cust, email = self.customer()
        o = {
            "id": "NEW",
            "customer": cust,
            "customer_email": email,
            "language": self.rng.choice(LANGS),
            "reference": "RUSH-%04d" % self.rng.randint(1, 9999),
            "product": code,
            "quantity": qty,
            "due": d2s(day(due_off)),
            "priority": prio,
        }
        if empty_schedule:
            o["schedule"] = []
        self.orders.append(o)
        stats.update({"new_minutes": qty * mpu, "new_quantity": qty, "new_minutes_per_unit": mpu,
                      "new_due": d2s(day(due_off)), "new_ready_day": d2s(day(ready_off)),
                      "new_priority": prio, "new_machines": list(self.products[code]["machines"]),
                      "qty_fits_without_moves_max": q_lo - 1,
                      "qty_witness_max": q_max,
                      "on_time_witness": None if wit is None else {
                          "moved_orders": len({m["order"] for m in wit["moves"]}),
                          "moved_minutes": sum(m["minutes"] for m in wit["moves"]),
                          "moves": wit["moves"],
                          "new": [[m, d2s(d), c] for m, d, c in wit["new"]]}})
        return o, stats

    # materials ----------------------------------------------------------
    def consumption(self, only_scheduled=True):
        use = {}
        for o in self.orders:
            if only_scheduled and not o.get("schedule"):
                continue
            for mat, per in self.products[o["product"]]["materials"].items():
                use[mat] = use.get(mat, 0) + per * o["quantity"]
        return use

    # output -------------------------------------------------------------
    def to_json(self, extra=None):
        machines = []
        for mid, m in self.machines.items():
            e = {"id": mid, "minutes_per_day": m["cap"]}
            if m["closed"]:
                e["closed_days"] = sorted(d2s(d) for d in m["closed"])
            if m["weekdays"] is not None:
                e["weekdays"] = list(m["weekdays"])
            machines.append(e)
        mats = []
        for mid, m in self.materials.items():
            e = {"id": mid, "on_hand": m["on_hand"]}
            if m.get("on_order"):
                e["on_order"] = m["on_order"]
            e["supplier_email"] = m["supplier"]
            e["lead_time_days"] = m["lead"]
            mats.append(e)
        prods = []
        for code, p in self.products.items():
            e = {"code": code, "description": p["desc"], "machines": list(p["machines"]),
                 "minutes_per_unit": p["mpu"]}
            if p.get("aliases"):
                e["aliases"] = list(p["aliases"])
            if p["materials"]:
                e["materials"] = [{"id": k, "per_unit": v} for k, v in p["materials"].items()]
            prods.append(e)
        shop = {"name": self.name, "timezone": self.tz}
        if extra:
            shop.update(extra.get("head", {}))
        shop["machines"] = machines
        if mats:
            shop["materials"] = mats
        shop["products"] = prods
        shop["orders"] = self.orders
        if self.procurement:
            shop["procurement"] = self.procurement
        shop["min_split_minutes"] = self.min_split
        if self.closed_orders:
            shop["closed_orders"] = self.closed_orders
        if extra:
            shop.update(extra.get("tail", {}))
        return shop


NOUNS = [("bracket", "Winkel"), ("flange", "Flansch"), ("bushing", "Buchse"),
         ("housing", "Gehaeuse"), ("panel", "Platte"), ("spacer", "Abstandshalter"),
         ("hinge", "Scharnier"), ("shaft", "Welle"), ("cover", "Deckel"),
         ("clamp", "Klemme"), ("gear", "Zahnrad"), ("lever", "Hebel"),
         ("tote", "Tasche"), ("cap", "Muetze"), ("badge", "Abzeichen"),
         ("patch", "Aufnaeher"), ("sign", "Schild"), ("label", "Etikett")]
ADJS = ["steel", "alloy", "brass", "nylon", "oak", "acrylic", "printed", "embroidered",
        "anodised", "laser-cut", "powder-coated", "recycled"]


def make_products(b, n, mach_ids, elig_fn, mpu_choices, prefix="P"):
    rng = b.rng
    for k in range(n):
        code = "%s-%02d" % (prefix, k + 1)
        noun, noun_de = NOUNS[(k + rng.randint(0, 3)) % len(NOUNS)]
        adj = rng.choice(ADJS)
        desc = "%s %s %s" % (adj, noun, code.lower())
        b.products[code] = {
            "desc": desc,
            "machines": elig_fn(k),
            "mpu": rng.choice(mpu_choices),
            "materials": {},
            "aliases": ["%s %s" % (noun_de, code.lower()), "%s no. %d" % (noun, k + 1)],
        }


def plentiful_materials(b, n_mats, lead_range=(1, 5)):
    rng = b.rng
    for k in range(n_mats):
        b.materials["MAT-%02d" % (k + 1)] = {"on_hand": 0, "on_order": 0,
                                             "supplier": "sales@supplier%d.example" % (k % 3 + 1),
                                             "lead": rng.randint(*lead_range)}
    for code, p in b.products.items():
        for mat in rng.sample(list(b.materials), rng.randint(0, min(2, n_mats))):
            p["materials"][mat] = rng.randint(1, 6)


def stock_plenty(b, factor=3):
    use = b.consumption(only_scheduled=False)
    for mat, m in b.materials.items():
        m["on_hand"] = use.get(mat, 0) * factor + 500


# --------------------------------------------------------------------------
# Families
# --------------------------------------------------------------------------
def fam_busy(rng, n):
    """Dense job shop: many orders, high load, random priorities, odd gaps."""
    tz = ["Europe/Berlin", "America/Chicago", "Europe/Amsterdam"][n - 1]
    b = Builder(rng, "Busy Job Shop %d" % n, tz, min_split=rng.choice([30, 60, 60, 90]))
    n_m = rng.randint(6, 8)
    kinds = ["CNC", "LATHE", "MILL", "PRESS", "LASER", "WELD", "DRILL", "SAW"]
    mids = []
    for k in range(n_m):
        mid = "%s-%02d" % (kinds[k], k + 1)
        weekdays = rng.choice([["mon", "tue", "wed", "thu", "fri"]] * 3 +
                              [["mon", "tue", "wed", "thu", "fri", "sat"], None])
        closed = set()
        if rng.random() < 0.5:
            closed.add(day(rng.randint(0, HORIZON - 1)))
        b.add_machine(mid, rng.choice([420, 450, 480, 480, 510, 600]), weekdays, closed)
        mids.append(mid)
    b.set_fill(0.86, 1.0)
    make_products(b, rng.randint(9, 13), mids,
                  lambda k: sorted(rng.sample(mids, rng.randint(2, 4))),
                  [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 45])
    plentiful_materials(b, 4)
    n_target = rng.randint(70, 130)
    cap = b.capacity(mids, [day(i) for i in range(HORIZON)])
    load = rng.uniform(0.80, 0.93)
    avg = load * cap / n_target
    got = b.fill_orders(
        n_target, load,
        size_fn=lambda c: max(20, int(avg * rng.uniform(0.3, 1.7))),
        prio_fn=lambda: rng.randint(5, 95),
        slack_fn=lambda p: rng.choice([0, 0, 1, 2, 3, 5, 7, 10]),
        start_fn=lambda: int(rng.triangular(0, HORIZON - 1, 0)))
    per_machine = b.top_up(load, prio_fn=lambda: rng.randint(5, 95),
                           slack_fn=lambda p: rng.choice([0, 1, 2, 3, 5, 7, 10]), max_orders=150)
    got = b.overall_load()
    # NEW: the product whose machines are the most loaded in the first 10 days
    due_off = [4, 7, 11][n - 1] + rng.randint(-1, 1)
    best = max(b.products, key=lambda c: b.booked_on(b.products[c]["machines"],
                                                     [day(i) for i in range(due_off + 1)]))
    prio = rng.randint(88, 96)
    new, st = b.add_new(best, due_off, 0, prio, rng.uniform(0.75, 0.95), empty_schedule=(n != 2))
    stock_plenty(b)
    # closed orders from February (never planned again), on working days
    for k in range(rng.randint(2, 4)):
        code = rng.choice(list(b.products))
        p = b.products[code]
        mid = p["machines"][0]
        dd = PLAN_DAY - timedelta(days=rng.randint(3, 20))
        while not b.works(mid, dd):
            dd -= timedelta(days=1)
        q = max(1, 120 // p["mpu"])
        c, e = b.customer()
        b.closed_orders.append({
            "order": {"id": "OLD-%03d" % (k + 1), "customer": c, "customer_email": e,
                      "product": code, "quantity": q, "due": d2s(dd + timedelta(days=2)),
                      "priority": 50, "schedule": [{"machine": mid, "day": d2s(dd), "minutes": q * p["mpu"]}]},
            "status": rng.choice(["complete", "cancelled"]),
            "closed_on": d2s(dd + timedelta(days=1)),
            "reason": "closed before the planning day"})
    st.update({"load_3w": round(got, 3),
               "probe": "dense calendar, odd gaps under min split, many orders to move, random priorities"})
    head = {"operator_email": "floor@busy%d.example" % n, "revision": rng.randint(2, 40)}
    return b, st, {"head": head}


def fam_materials(rng, n):
    """Scarce materials: NEW's material must be bought and arrives late in its window."""
    tz = ["Europe/Paris", "America/New_York", "Europe/Madrid"][n - 1]
    b = Builder(rng, "Scarce Stock Works %d" % n, tz, min_split=60)
    n_m = rng.randint(4, 6)
    mids = []
    for k in range(n_m):
        mid = "LINE-%s" % "ABCDEF"[k]
        b.add_machine(mid, rng.choice([420, 480, 480, 540]),
                      rng.choice([["mon", "tue", "wed", "thu", "fri"], ["mon", "tue", "wed", "thu", "fri", "sat"], None]))
        mids.append(mid)
    b.set_fill(0.9, 1.0)
    make_products(b, rng.randint(7, 10), mids,
                  lambda k: sorted(rng.sample(mids, rng.randint(1, 3))),
                  [2, 3, 4, 5, 6, 8, 10, 12], prefix="SKU")
    # materials: 3 scarce, 3 plentiful, one with lead time 0, one never used
    specs = [("RESIN-BLK", 6), ("STEEL-SHEET", 9), ("PCB-CTRL", 4),
             ("BOLT-M6", 1), ("PAINT-GRY", 2), ("FOAM-PAD", 0), ("GASKET-X", 14)]
    for mid, lead in specs:
        b.materials[mid] = {"on_hand": 0, "on_order": 0,
                            "supplier": "orders@%s.example" % mid.lower().split("-")[0], "lead": lead}
    scarce = ["RESIN-BLK", "STEEL-SHEET", "PCB-CTRL"]
    plenty = ["BOLT-M6", "PAINT-GRY", "FOAM-PAD"]
    for code, p in b.products.items():
        for m in rng.sample(scarce, rng.randint(1, 2)):
            p["materials"][m] = rng.randint(1, 12)
        for m in rng.sample(plenty, rng.randint(0, 2)):
            p["materials"][m] = rng.randint(1, 20)
    n_target = rng.randint(45, 90)
    cap = b.capacity(mids, [day(i) for i in range(HORIZON)])
    load = rng.uniform(0.8, 0.9)
    avg = load * cap / n_target
    got = b.fill_orders(
        n_target, load,
        size_fn=lambda c: max(30, int(avg * rng.uniform(0.4, 1.6))),
        prio_fn=lambda: rng.randint(10, 90),
        slack_fn=lambda p: rng.choice([0, 2, 4, 7, 10, 14]),
        start_fn=lambda: rng.randint(0, HORIZON - 2))
    per_machine = b.top_up(load, prio_fn=lambda: rng.randint(10, 90),
                           slack_fn=lambda p: rng.choice([0, 2, 4, 7, 10, 14]), max_orders=110)
    got = b.overall_load()
    due_off = [9, 11, 8][n - 1] + rng.randint(0, 1)
    # NEW product: a dedicated product using the scarce material(s) under test
    new_code = "SKU-RUSH"
    elig = sorted(rng.sample(mids, 2))
    b.products[new_code] = {"desc": "rush assembly sku-rush", "machines": elig,
                            "mpu": rng.choice([3, 4, 5, 6]), "materials": {},
                            "aliases": ["Eilbaugruppe", "rush kit"]}
    # existing orders on the same machines were generated from other SKUs; SKU-RUSH has none
    if n == 1:
        # scarce material with lead time: ready day = due - 3..4, leftover covers a part only
        mat = "STEEL-SHEET"
        lead = due_off - rng.randint(3, 4)
        b.materials[mat]["lead"] = lead
        b.products[new_code]["materials"] = {mat: 3, "BOLT-M6": 4}
        ready = lead
        probe = ("NEW's STEEL-SHEET cannot come before day +%d (lead time); stock left after "
                 "scheduled orders covers only part, so NEW is squeezed into its last days" % lead)
    elif n == 2:
        # material covered EXACTLY by on_hand leftover + on_order + committed procurement;
        # its lead time is far past the due date, so any mis-count of incoming makes NEW late.
        mat = "PCB-CTRL"
        b.materials[mat]["lead"] = 30
        b.products[new_code]["materials"] = {mat: 2, "RESIN-BLK": 1}
        b.materials["RESIN-BLK"]["lead"] = 2
        ready = 2
        probe = ("NEW's PCB-CTRL is covered exactly by leftover stock + on_order + a committed "
                 "procurement line (lead time 30 days); its RESIN-BLK must be bought (lead 2)")
    else:
        # pre-existing shortage in the material NEW also uses: the shop's shortage must stay
        # the shop's; NEW's own purchase is lead time due-2.
        mat = "RESIN-BLK"
        lead = due_off - 2
        b.materials[mat]["lead"] = lead
        b.products[new_code]["materials"] = {mat: 4, "FOAM-PAD": 1}
        ready = lead
        probe = ("scheduled orders already lack RESIN-BLK (a shortage of the shop's own); NEW "
                 "also needs it, lead time %d days, ready 2 days before due" % lead)
    prio = rng.randint(80, 92)
    new, st = b.add_new(new_code, due_off, ready, prio, rng.uniform(0.8, 1.0))
    newq = new["quantity"]
    use = b.consumption(only_scheduled=True)
    for m, spec in b.materials.items():
        spec["on_hand"] = use.get(m, 0) * 2 + 300          # plentiful default
    for m in scarce:
        spec = b.materials[m]
        spec["on_hand"] = use.get(m, 0) + rng.randint(0, 40)  # barely covers scheduled work
    need = {m: per * newq for m, per in b.products[new_code]["materials"].items()}
    sc = {}
    if n == 1:
        m = "STEEL-SHEET"
        b.materials[m]["on_hand"] = use.get(m, 0) + int(need[m] * rng.uniform(0.2, 0.5))
        b.materials["BOLT-M6"]["on_hand"] = use.get("BOLT-M6", 0) + need["BOLT-M6"] * 3
        sc[m] = "short for NEW"
    elif n == 2:
        m = "PCB-CTRL"
        left = int(need[m] * 0.3)
        oo = int(need[m] * 0.3)
        pr = need[m] - left - oo
        b.materials[m]["on_hand"] = use.get(m, 0) + left
        b.materials[m]["on_order"] = oo
        b.procurement.append({"material": m, "quantity": pr, "needed_by": d2s(day(1)),
                              "supplier_email": b.materials[m]["supplier"]})
        b.materials["RESIN-BLK"]["on_hand"] = use.get("RESIN-BLK", 0)  # nothing left for NEW
        sc[m] = "exactly covered (on_hand %d left + on_order %d + procurement %d = %d)" % (left, oo, pr, need[m])
    else:
        m = "RESIN-BLK"
        short = max(1, int(use.get(m, 0) * rng.uniform(0.05, 0.12)))
        b.materials[m]["on_hand"] = use.get(m, 0) - short
        b.materials[m]["on_order"] = 0
        sc[m] = "shop already short by %d before NEW" % short
    # a material nobody uses and one with zero stock, zero lead time, used by an idle product
    b.materials["GASKET-X"]["on_hand"] = 0
    b.products["SKU-IDLE"] = {"desc": "idle gasket kit sku-idle", "machines": [mids[-1]], "mpu": 7,
                              "materials": {"GASKET-X": 1}, "aliases": []}
    st.update({"load_3w": round(got, 3), "materials": sc, "probe": probe,
               "new_material_need": need})
    head = {"operator_email": "planner@scarce%d.example" % n}
    return b, st, {"head": head}


def fam_calendar(rng, n):
    """Irregular calendars, short days, closed days, narrow eligibility, awkward units."""
    tz = ["Europe/London", "Asia/Tokyo", "Australia/Sydney"][n - 1]
    ms = [90, 120, 60][n - 1]
    b = Builder(rng, "Odd Hours Workshop %d" % n, tz, min_split=ms)
    patterns = [
        ("KILN-1", 600, ["mon", "tue", "wed", "thu"]),
        ("KILN-2", 300, ["tue", "wed", "thu", "fri", "sat"]),
        ("ROUTER", 240, ["mon", "wed", "fri"]),
        ("PAINT", 450, ["mon", "tue", "wed", "thu", "fri"]),
        ("NIGHT-OVEN", 1440, ["sat", "sun"]),
        ("HAND-BENCH", 150, None),
        ("PRESS-X", 330, ["mon", "tue", "thu", "fri"]),
    ]
    chosen = patterns[:5] + rng.sample(patterns[5:], rng.randint(0, 2))
    holiday = day(rng.choice([3, 4, 8, 9, 10]))      # a shared shop holiday in NEW's window
    mids = []
    for mid, cap, wd in chosen:
        closed = {holiday}
        for _ in range(rng.randint(2, 7)):
            closed.add(day(rng.randint(0, HORIZON - 1)))
        if rng.random() < 0.5:
            closed.add(PLAN_DAY)                     # closed on the planning day itself
        closed.add(date(2027, 2, 26))                # past closed day (harmless)
        closed.add(date(2027, 5, 3))                 # far-future closed day
        b.add_machine(mid, cap, wd, closed)
        mids.append(mid)
    if n == 3:
        # a machine that never works: weekdays present but empty
        b.add_machine("SPARE-CELL", 480, [], set())
    b.set_fill(0.9, 1.0)
    awkward = [7, 13, 25, 45, 50, 70, 110]
    make_products(b, rng.randint(7, 10), mids,
                  lambda k: sorted(rng.sample(mids, rng.choice([1, 1, 2]))),
                  awkward, prefix="CAL")
    plentiful_materials(b, 3)
    due_off = [5, 7, 9][n - 1] + rng.randint(-1, 1)
    # NEW: two part-time machines, awkward unit against min split and day length
    elig = {1: ["KILN-2", "ROUTER"], 2: ["ROUTER", "PRESS-X" if "PRESS-X" in mids else "KILN-1"],
            3: ["SPARE-CELL", "KILN-2", "HAND-BENCH" if "HAND-BENCH" in mids else "ROUTER"]}[n]
    mpu = {1: 45, 2: 70, 3: 25}[n]
    b.products["CAL-RUSH"] = {"desc": "rush glazed tile set cal-rush", "machines": sorted(elig),
                              "mpu": mpu, "materials": {}, "aliases": ["Eilfliesen"]}
    b.no_topup.add("CAL-RUSH")
    # fillers booked on NEW's machines only, but also allowed on one other machine
    # (so a plan can move them off NEW's machines on the same day)
    real = sorted(m for m in elig if m != "SPARE-CELL")
    alt = rng.choice([m for m in mids if m not in elig])
    b.products["CAL-FILL"] = {"desc": "filler batch cal-fill", "machines": real,
                              "mpu": 15, "materials": {}, "aliases": []}
    for _ in range(rng.randint(10, 18)):
        q = rng.randint(6, 20)
        s = rng.randint(0, due_off)
        a = b.place("CAL-FILL", q, s, min(HORIZON - 1, s + 6))
        if a:
            pr = rng.randint(5, 70)
            b.add_order("CAL-FILL", q, a, pr, rng.choice([2, 6, 9, 12, 16]))
    b.products["CAL-FILL"]["machines"] = sorted(real + [alt])
    n_target = rng.randint(40, 80)
    cap = b.capacity(mids, [day(i) for i in range(HORIZON)])
    load = rng.uniform(0.82, 0.92)
    avg = load * cap / n_target
    got = b.fill_orders(
        n_target, load,
        size_fn=lambda c: max(b.min_split, int(avg * rng.uniform(0.4, 1.6))),
        prio_fn=lambda: rng.randint(5, 85),
        slack_fn=lambda p: rng.choice([0, 2, 4, 7, 10, 14]),
        start_fn=lambda: rng.randint(0, HORIZON - 2),
        codes=[c for c in b.products if c not in ("CAL-RUSH", "CAL-FILL")])
    per_machine = b.top_up(load, prio_fn=lambda: rng.randint(5, 85),
                           slack_fn=lambda p: rng.choice([0, 2, 4, 7, 10, 14]), max_orders=120)
    got = b.overall_load()
    prio = rng.randint(80, 90)
    new, st = b.add_new("CAL-RUSH", due_off, 0, prio, rng.uniform(0.8, 1.0), empty_schedule=(n != 1))
    stock_plenty(b)
    st.update({"load_3w": round(got, 3), "holiday": d2s(holiday),
               "probe": ("NEW on %s (part-time/short days, shared holiday %s, closed days), "
                         "unit %d min vs min split %d" % (", ".join(sorted(elig)), d2s(holiday), mpu, ms)
                         + ("; SPARE-CELL has weekdays [] (never works)" if n == 3 else ""))})
    head = {"operator_email": "" if n == 2 else "ops@oddhours%d.example" % n}
    return b, st, {"head": head}


def fam_priority(rng, n):
    """Mostly low-priority movable work, a pinned high/equal-priority backbone."""
    tz = ["Europe/Vienna", "America/Los_Angeles", "Europe/Brussels"][n - 1]
    ms = [60, 60, 120][n - 1]
    b = Builder(rng, "Priority Mix Fabrication %d" % n, tz, min_split=ms)
    n_m = rng.randint(5, 7)
    mids = ["ST-%d" % (k + 1) for k in range(n_m)]
    for mid in mids:
        b.add_machine(mid, rng.choice([420, 480, 480, 540]),
                      rng.choice([["mon", "tue", "wed", "thu", "fri"], ["mon", "tue", "wed", "thu", "fri", "sat"]]))
    b.set_fill(0.92, 1.0)
    make_products(b, rng.randint(8, 12), mids,
                  lambda k: sorted(rng.sample(mids, rng.randint(2, 3))),
                  [1, 2, 3, 4, 5, 6, 9, 12, 20], prefix="PM")
    plentiful_materials(b, 3)
    new_prio = rng.randint(70, 80)
    high = lambda: rng.choice([new_prio, new_prio, 100, rng.randint(new_prio + 1, 99)])

    def prio_fn():
        r = rng.random()
        if r < 0.72:
            return rng.randint(1, 30)
        if r < 0.84:
            return rng.randint(31, new_prio - 1)       # just below NEW: movable but dear
        return high()                                  # equal or higher: pinned

    def slack_fn(p):
        if p >= new_prio:
            return rng.choice([0, 1, 2])
        if rng.random() < 0.15:
            return 0                                   # low priority but no room to move later
        return rng.choice([3, 5, 8, 12, 16, 20])

    if n == 3:
        size_fn = lambda c: rng.choice([rng.randint(15, 110), rng.randint(15, 110), rng.randint(120, 700)])
        n_target = rng.randint(130, 150)
    else:
        size_fn = lambda c: rng.randint(90, 900)
        n_target = rng.randint(100, 170)
    cap = b.capacity(mids, [day(i) for i in range(HORIZON)])
    got = b.fill_orders(n_target, rng.uniform(0.84, 0.94), size_fn, prio_fn, slack_fn,
                        start_fn=lambda: int(rng.triangular(0, HORIZON - 1, 0)))
    per_machine = b.top_up(0.9, prio_fn, slack_fn, max_orders=190,
                           frac=(0.2, 0.9))
    got = b.overall_load()
    started = []
    if n == 2:
        # work already in progress: low-priority orders with an allocation on the last working
        # day before the planning day (Fri 2027-02-26) and the rest from the planning day on
        for o in list(b.orders):
            if len(started) >= 4:
                break
            if o["priority"] > 20 or len(o["schedule"]) < 2:
                continue
            e0 = o["schedule"][0]
            if e0["day"] != d2s(PLAN_DAY):
                continue
            past = date(2027, 2, 26)
            if not b.works(e0["machine"], past):
                continue
            mpu = b.products[o["product"]]["mpu"]
            units = max(1, math.ceil(ms / mpu))
            if units * mpu > b.free(e0["machine"], past):
                continue
            o["quantity"] += units
            o["schedule"].insert(0, {"machine": e0["machine"], "day": d2s(past), "minutes": units * mpu})
            b.booked[(e0["machine"], past)] = b.booked.get((e0["machine"], past), 0) + units * mpu
            started.append(o["id"])
    due_off = [6, 4, 10][n - 1] + rng.randint(0, 2)
    best = max(b.products, key=lambda c: b.booked_on(b.products[c]["machines"],
                                                     [day(i) for i in range(due_off + 1)]))
    new, st = b.add_new(best, due_off, 0, new_prio, rng.uniform(0.85, 1.0), frozen=started)
    stock_plenty(b)
    pr = [o["priority"] for o in b.orders if o["id"] != "NEW"]
    st.update({"load_3w": round(got, 3),
               "orders_below_new_priority": sum(p < new_prio for p in pr),
               "orders_equal_new_priority": sum(p == new_prio for p in pr),
               "orders_above_new_priority": sum(p > new_prio for p in pr),
               "started_before_planning_day": started,
               "probe": ("most work is low priority and movable (with 15% zero-slack traps), "
                         "equal/higher priority work pinned"
                         + ("; many orders smaller than min split 120 must move whole" if n == 3 else "")
                         + ("; some low-priority orders already started on 2027-02-26" if started else ""))})
    head = {"priority_from": ["@priority%d.example" % n], "staleness": "footprint"}
    return b, st, {"head": head}


FAMILIES = [("busy", fam_busy), ("materials", fam_materials),
            ("calendar", fam_calendar), ("priority", fam_priority)]


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------
class SchemaValidator:
    """The subset of JSON Schema 2020-12 that docs/shop.schema.json uses."""

    def __init__(self, schema):
        self.root = schema

    def resolve(self, ref):
        assert ref.startswith("#/")
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def check(self, inst, sch, path="$", errs=None):
        errs = [] if errs is None else errs
        if "$ref" in sch:
            self.check(inst, self.resolve(sch["$ref"]), path, errs)
        if "anyOf" in sch:
            if not any(not self.check(inst, s, path, []) for s in sch["anyOf"]):
                errs.append("%s: matches none of anyOf" % path)
        if "const" in sch and inst != sch["const"]:
            errs.append("%s: != const" % path)
        if "enum" in sch and inst not in sch["enum"]:
            errs.append("%s: %r not in enum" % (path, inst))
        t = sch.get("type")
        if t:
            ok = {"object": isinstance(inst, dict), "array": isinstance(inst, list),
                  "string": isinstance(inst, str),
                  "integer": isinstance(inst, int) and not isinstance(inst, bool)}[t]
            if not ok:
                errs.append("%s: not %s" % (path, t))
                return errs
        if isinstance(inst, dict):
            for r in sch.get("required", []):
                if r not in inst:
                    errs.append("%s: missing %s" % (path, r))
            props = sch.get("properties", {})
            for k, v in inst.items():
                if k in props:
                    self.check(v, props[k], "%s.%s" % (path, k), errs)
                elif sch.get("additionalProperties") is False:
                    errs.append("%s: unexpected %s" % (path, k))
        if isinstance(inst, list):
            if "minItems" in sch and len(inst) < sch["minItems"]:
                errs.append("%s: fewer than minItems" % path)
            if "maxItems" in sch and len(inst) > sch["maxItems"]:
                errs.append("%s: more than maxItems" % path)
            if sch.get("uniqueItems"):
                seen = [json.dumps(x, sort_keys=True) for x in inst]
                if len(seen) != len(set(seen)):
                    errs.append("%s: items not unique" % path)
            if "items" in sch:
                for i, x in enumerate(inst):
                    self.check(x, sch["items"], "%s[%d]" % (path, i), errs)
        if isinstance(inst, str):
            if "minLength" in sch and len(inst) < sch["minLength"]:
                errs.append("%s: too short" % path)
            if "maxLength" in sch and len(inst) > sch["maxLength"]:
                errs.append("%s: too long" % path)
            if "pattern" in sch and not re.search(sch["pattern"], inst):
                errs.append("%s: %r does not match %s" % (path, inst, sch["pattern"]))
        if isinstance(inst, int) and not isinstance(inst, bool):
            if "minimum" in sch and inst < sch["minimum"]:
                errs.append("%s: below minimum" % path)
            if "maximum" in sch and inst > sch["maximum"]:
                errs.append("%s: above maximum" % path)
        return errs


def semantic_check(shop):
    errs = []
    pd = PLAN_DAY
    machines = {m["id"]: m for m in shop["machines"]}
    products = {p["code"]: p for p in shop["products"]}
    materials = {m["id"]: m for m in shop.get("materials", [])}
    for kind, ids in (("machine", [m["id"] for m in shop["machines"]]),
                      ("product", [p["code"] for p in shop["products"]]),
                      ("material", list(materials) if len(materials) == len(shop.get("materials", [])) else
                       [m["id"] for m in shop.get("materials", [])]),
                      ("order", [o["id"] for o in shop.get("orders", [])] +
                       [c["order"]["id"] for c in shop.get("closed_orders", [])])):
        if len(ids) != len(set(ids)):
            errs.append("duplicate %s ids" % kind)
    names = {}
    for p in shop["products"]:
        for nm in [p["code"], p["description"]] + p.get("aliases", []):
            k = nm.strip().lower()
            if k in names and names[k] != p["code"]:
                errs.append("name %r used by %s and %s" % (nm, names[k], p["code"]))
            names[k] = p["code"]
        for m in p["machines"]:
            if m not in machines:
                errs.append("product %s: unknown machine %s" % (p["code"], m))
        for mt in p.get("materials", []):
            if mt["id"] not in materials:
                errs.append("product %s: unknown material %s" % (p["code"], mt["id"]))
    for pr in shop.get("procurement", []):
        if pr["material"] not in materials:
            errs.append("procurement: unknown material")

    def works(mid, d):
        m = machines[mid]
        if "weekdays" in m and WD[date.fromisoformat(d).weekday()] not in m["weekdays"]:
            return False
        return d not in m.get("closed_days", [])

    load = {}
    all_orders = [(o, False) for o in shop.get("orders", [])] + \
                 [(c["order"], True) for c in shop.get("closed_orders", [])]
    ms = shop.get("min_split_minutes", 60)
    for o, closed in all_orders:
        oid = o["id"]
        p = products.get(o["product"])
        if p is None:
            errs.append("%s: unknown product" % oid)
            continue
        sch = o.get("schedule") or []
        if not sch:
            continue
        total = o["quantity"] * p["minutes_per_unit"]
        if sum(e["minutes"] for e in sch) != total:
            errs.append("%s: schedule minutes %d != %d" % (oid, sum(e["minutes"] for e in sch), total))
        keys = [(e["machine"], e["day"]) for e in sch]
        if len(keys) != len(set(keys)):
            errs.append("%s: two entries on one machine-day" % oid)
        for e in sch:
            if e["machine"] not in machines:
                errs.append("%s: unknown machine" % oid)
                continue
            if e["machine"] not in p["machines"]:
                errs.append("%s: %s not eligible for %s" % (oid, e["machine"], p["code"]))
            if not works(e["machine"], e["day"]):
                errs.append("%s: %s does not work on %s" % (oid, e["machine"], e["day"]))
            if e["minutes"] % p["minutes_per_unit"]:
                errs.append("%s: %d minutes not whole units" % (oid, e["minutes"]))
            if len(sch) > 1 and e["minutes"] < min(ms, total) and not closed:
                errs.append("%s: part of %d under min split" % (oid, e["minutes"]))
            if e["day"] > o["due"] and not closed:
                errs.append("%s: scheduled after its due date" % oid)
            if not closed:
                k = (e["machine"], e["day"])
                load[k] = load.get(k, 0) + e["minutes"]
    # closed orders' bookings are counted too (stricter than needed; they sit in February)
    for o, closed in all_orders:
        if closed:
            for e in o.get("schedule") or []:
                k = (e["machine"], e["day"])
                load[k] = load.get(k, 0) + e["minutes"]
    for (mid, d), mnt in load.items():
        if mnt > machines[mid]["minutes_per_day"]:
            errs.append("%s %s over capacity: %d > %d" % (mid, d, mnt, machines[mid]["minutes_per_day"]))
    news = [o for o in shop.get("orders", []) if o["id"] == "NEW"]
    if len(news) != 1:
        errs.append("need exactly one NEW order")
    else:
        nw = news[0]
        if nw.get("schedule"):
            errs.append("NEW must be unscheduled")
        off = (date.fromisoformat(nw["due"]) - pd).days
        if not 3 <= off <= 12:
            errs.append("NEW due %s not 3-12 days after planning day" % nw["due"])
        others = [o["priority"] for o in shop["orders"] if o["id"] != "NEW"]
        if sum(p < nw["priority"] for p in others) <= len(others) / 2:
            errs.append("NEW priority not higher than most")
    unsched = [o["id"] for o in shop.get("orders", []) if not o.get("schedule") and o["id"] != "NEW"]
    if unsched:
        errs.append("unscheduled existing orders: %s" % unsched)
    if len(shop.get("orders", [])) >= 200:
        errs.append("200 orders or more")
    return errs


def verify_witness(shop, st):
    """Apply the on-time witness to a copy of the shop and check it against the
    planning rules: NEW on time on its machines/working days, capacity, moved work only
    of lower priority and not started, on the same or a later day, on its own product's
    machines, never past its due date, never on a NEW machine-day of its window, whole
    units and parts >= min split."""
    w = st["on_time_witness"]
    if w is None:
        return []
    import copy
    s = copy.deepcopy(shop)
    errs = []
    orders = {o["id"]: o for o in s["orders"]}
    products = {p["code"]: p for p in s["products"]}
    ms = s.get("min_split_minutes", 60)
    new = orders["NEW"]
    newm = set(products[new["product"]]["machines"])
    first, last = st["new_ready_day"], st["new_due"]
    for mv in w["moves"]:
        o = orders[mv["order"]]
        p = products[o["product"]]
        total = o["quantity"] * p["minutes_per_unit"]
        if o["priority"] >= new["priority"]:
            errs.append("witness moves %s of priority %d" % (o["id"], o["priority"]))
        if min(e["day"] for e in o["schedule"]) < d2s(PLAN_DAY):
            errs.append("witness moves started order %s" % o["id"])
        (fm, fd), (tm, td) = mv["from"], mv["to"]
        if td < fd or td > o["due"]:
            errs.append("witness moves %s to %s (from %s, due %s)" % (o["id"], td, fd, o["due"]))
        if tm not in p["machines"]:
            errs.append("witness moves %s onto %s" % (o["id"], tm))
        if tm in newm and first <= td <= last:
            errs.append("witness moves %s onto NEW machine-day %s %s" % (o["id"], tm, td))
        if mv["minutes"] % p["minutes_per_unit"] or mv["minutes"] < min(ms, total):
            errs.append("witness part of %s: %d minutes" % (o["id"], mv["minutes"]))
        src_e = [e for e in o["schedule"] if e["machine"] == fm and e["day"] == fd]
        if not src_e or src_e[0]["minutes"] < mv["minutes"]:
            errs.append("witness moves more than %s holds on %s %s" % (o["id"], fm, fd))
            continue
        src_e[0]["minutes"] -= mv["minutes"]
        dst = [e for e in o["schedule"] if e["machine"] == tm and e["day"] == td]
        if dst:
            dst[0]["minutes"] += mv["minutes"]
        else:
            o["schedule"].append({"machine": tm, "day": td, "minutes": mv["minutes"]})
    for o in s["orders"]:
        if o.get("schedule"):
            o["schedule"] = [e for e in o["schedule"] if e["minutes"] > 0]
    new["schedule"] = [{"machine": m, "day": d, "minutes": c} for m, d, c in w["new"]]
    for m, d, c in w["new"]:
        if not first <= d <= last:
            errs.append("witness NEW on %s outside %s..%s" % (d, first, last))
    # reuse the import rules (NEW now scheduled: its 'must be unscheduled' error is expected)
    for e in semantic_check(s):
        if e not in ("NEW must be unscheduled",):
            errs.append("witness: " + e)
    return errs


def material_report(shop):
    """Cumulative use by first scheduled day (earliest first) against on_hand."""
    products = {p["code"]: p for p in shop["products"]}
    mats = {m["id"]: m for m in shop.get("materials", [])}
    use = {}
    order_list = sorted((o for o in shop["orders"] if o.get("schedule")),
                        key=lambda o: (min(e["day"] for e in o["schedule"]), o["id"]))
    short = {}
    for o in order_list:
        for mt in products[o["product"]].get("materials", []):
            use[mt["id"]] = use.get(mt["id"], 0) + mt["per_unit"] * o["quantity"]
            if use[mt["id"]] > mats[mt["id"]]["on_hand"]:
                short.setdefault(mt["id"], []).append(o["id"])
    return {m: {"on_hand": mats[m]["on_hand"], "on_order": mats[m].get("on_order", 0),
                "scheduled_use": use.get(m, 0),
                "left_on_hand": mats[m]["on_hand"] - use.get(m, 0),
                "orders_short_on_hand_only": short.get(m, [])} for m in mats}


# --------------------------------------------------------------------------
def main(argv):
    seed = 41
    out = os.path.join(HERE, "shops")
    args = list(argv)
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    if args:
        seed = int(args[0])
    os.makedirs(out, exist_ok=True)
    schema = None
    for c in SCHEMA_CANDIDATES:
        if os.path.exists(c):
            with open(c) as f:
                schema = json.load(f)
            break
    validator = SchemaValidator(schema) if schema else None
    if validator is None:
        print("warning: shop.schema.json not found; schema check skipped", file=sys.stderr)
    manifest = {"seed": seed, "planning_day": d2s(PLAN_DAY), "shops": {}}
    for fi, (fam, fn) in enumerate(FAMILIES):
        for n in (1, 2, 3):
            # retry (deterministically) until the simple search finds an on-time plan
            for attempt in range(40):
                rng = random.Random("%d/%s/%d/%d" % (seed, fam, n, attempt))
                b, st, extra = fn(rng, n)
                if st["on_time_witness"] is not None:
                    break
            st["attempt"] = attempt
            shop = b.to_json(extra)
            errs = (validator.check(shop, schema) if validator else []) + semantic_check(shop)
            errs += verify_witness(shop, st)
            if errs:
                raise SystemExit("%s-%d invalid:\n  %s" % (fam, n, "\n  ".join(errs[:30])))
            path = os.path.join(out, "%s-%d.json" % (fam, n))
            with open(path, "w") as f:
                json.dump(shop, f, indent=1, ensure_ascii=False)
                f.write("\n")
            days3 = [day(i) for i in range(HORIZON)]
            st["machine_load_3w"] = {m: (round(b.booked_on([m], days3) / b.capacity([m], days3), 3)
                                         if b.capacity([m], days3) else None) for m in b.machines}
            nd = (date.fromisoformat(st["new_due"]) - PLAN_DAY).days
            nr = (date.fromisoformat(st["new_ready_day"]) - PLAN_DAY).days
            wdays = [day(i) for i in range(nr, nd + 1)]
            nm = st["new_machines"]
            st["new_window_load"] = round(b.booked_on(nm, wdays) / b.capacity(nm, wdays), 3) \
                if b.capacity(nm, wdays) else None
            st["existing_orders_below_new_priority"] = sum(
                o["priority"] < st["new_priority"] for o in shop["orders"] if o["id"] != "NEW")
            st.update({"machines": len(shop["machines"]), "orders": len(shop["orders"]),
                       "products": len(shop["products"]),
                       "min_split_minutes": shop["min_split_minutes"]})
            if fam == "materials":
                st["material_report"] = material_report(shop)
            manifest["shops"]["%s-%d" % (fam, n)] = st
            w = st["on_time_witness"]
            print("%-12s machines=%d orders=%3d load=%.2f window-load=%.2f NEW %5d min due %s; "
                  "fits unmoved <= %d units, on-time witness %s" % (
                      "%s-%d" % (fam, n), st["machines"], st["orders"], st["load_3w"],
                      st["new_window_load"] or 0, st["new_minutes"], st["new_due"],
                      st["qty_fits_without_moves_max"],
                      "none found" if w is None else "moves %d orders / %d min" % (
                          w["moved_orders"], w["moved_minutes"])))
    with open(os.path.join(os.path.dirname(os.path.abspath(out)), "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
