"""Measure the e-mail reader on e-mails its writers have not seen: every e-mail of a batch through the real reader
(the deterministic provider's reading call, as ``start`` makes it) against a shop, compared with the expected facts.

    .venv/bin/python scripts/intake_eval.py --shop SHOP.json --emails DIR [--answers DIR/answers.json]
        [--out evidence/intake_strangers.json --label batch1]

``answers.json`` maps each file name to ``{"plain": bool, "product": code|null, "quantity": int|null,
"due": "YYYY-MM-DD"|null}``: a plain e-mail states product, quantity and date plainly and must be planned with
exactly those facts; any other must wait as *needs facts* (planning it is counted as a wrong fact). Each e-mail
is read on the day it was sent (its ``Date:``), as a shop receiving it that day would. Prints a table and, with
``--out``, merges the figures under ``--label`` into that evidence file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functions"))

from production_orchestrator.agent.extraction import read_request
from production_orchestrator.agent.model_settings import ModelSettings
from production_orchestrator.agent.providers import build_binding
from production_orchestrator.cli.files import read_text
from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import Product


def _shop(path: Path) -> tuple[Any, bool]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    ignored = False
    if "aliases" not in Product.model_fields:  # a reader from before aliases: it cannot take them
        for product in doc.get("products", []):
            ignored = product.pop("aliases", None) is not None or ignored
    return read_shop(doc), ignored


def _outcome(expected: dict[str, Any], found: dict[str, Any] | None) -> str:
    if found is None:
        return "needs_facts"
    if expected.get("plain") and all(found[k] == expected.get(k) for k in ("product", "quantity", "due")):
        return "planned_right"
    return "planned_wrong"


def evaluate(shop_path: Path, emails: Path, answers: dict[str, Any]) -> dict[str, Any]:
    """Every e-mail of ``answers`` read against the shop: per file what was found, and the counts."""
    shop, aliases_ignored = _shop(shop_path)
    binding, settings = build_binding("deterministic"), ModelSettings()
    rows: dict[str, Any] = {}
    for name in sorted(answers):
        expected = answers[name]
        text = read_text(str(emails / name), "request")
        found: dict[str, Any] | None = None
        language, problems = "?", []
        try:
            message = read_message(text)
            language = message.language
            day = (message.sent_day or date.today()).isoformat()
            order, _ = read_request(binding, settings, message, shop, day)
            found = {"product": order.product, "quantity": order.quantity, "due": order.due}
        except IntakeError as exc:
            problems = list(exc.problems) or [str(exc)]
        rows[name] = {
            "plain": bool(expected.get("plain")),
            "language": language,
            "outcome": _outcome(expected, found),
            "found": found,
            "problems": problems,
        }
    return {"aliases_ignored": aliases_ignored, "files": rows, **_counts(rows)}


def _counts(rows: dict[str, Any]) -> dict[str, Any]:
    plain = [r for r in rows.values() if r["plain"]]
    other = [r for r in rows.values() if not r["plain"]]
    by_language: dict[str, Counter[str]] = defaultdict(Counter)
    for row in plain:
        by_language[row["language"]][row["outcome"]] += 1
    right = sum(1 for r in plain if r["outcome"] == "planned_right")
    return {
        "plain": dict(Counter(r["outcome"] for r in plain), total=len(plain)),
        "plain_planned_right_percent": round(100 * right / len(plain), 1) if plain else None,
        "not_plain": dict(Counter(r["outcome"] for r in other), total=len(other)),
        "wrong_facts": sum(1 for r in rows.values() if r["outcome"] == "planned_wrong"),
        "plain_by_language": {k: dict(v) for k, v in sorted(by_language.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shop", type=Path, required=True)
    parser.add_argument("--emails", type=Path, required=True)
    parser.add_argument("--answers", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--label", default="batch")
    parser.add_argument("--note", default="")
    args = parser.parse_args(argv)
    answers = json.loads((args.answers or args.emails / "answers.json").read_text(encoding="utf-8"))
    result = evaluate(args.shop, args.emails, answers)
    for name, row in result["files"].items():
        said = row["found"] or "; ".join(row["problems"])[:150]
        print(f"{name:14} {'plain' if row['plain'] else 'other':5} {row['language']} {row['outcome']:13} {said}")
    summary = {k: v for k, v in result.items() if k != "files"}
    print(json.dumps(summary, indent=1, sort_keys=True))
    if args.out:
        evidence = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else {}
        evidence[args.label] = {
            **summary,
            "note": args.note,
            "outcomes": {n: r["outcome"] for n, r in result["files"].items()},
        }
        args.out.write_text(json.dumps(evidence, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
