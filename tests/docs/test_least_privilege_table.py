"""The least-privilege table of docs/concepts/architecture.md names every function role the stack synthesizes
(with inbound mail and reminders on: every optional function exists)."""

from __future__ import annotations

from pathlib import Path

from tests.support.cdk_template import synthesize

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = {
    "approverEmails": "ana@x.example,ben@x.example",
    "senderEmail": "orders@x.example",
    "inboundAddress": "orders@in.x.example",
}


def test_every_function_role_is_in_the_least_privilege_table() -> None:
    text = (ROOT / "docs" / "concepts" / "architecture.md").read_text(encoding="utf-8")
    table = text[text.index("## Least privilege") :]
    table = table[: table.index("\n## ")]
    template = synthesize(CONTEXT)
    handlers = {
        r["Properties"]["Handler"].split(".")[-2]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Lambda::Function" and r["Properties"].get("Handler", "").startswith("production_")
    }
    assert handlers
    missing = sorted(h for h in handlers if f"| `{h}`" not in table)
    assert missing == []
