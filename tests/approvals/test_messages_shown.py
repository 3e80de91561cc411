"""What the approver is told about the plan's messages: on the page and in the e-mail, what will be sent
to whom once they approve; on the outcome page, what the apply queued."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import urlencode
from urllib.request import Request, urlopen

from production_orchestrator.cli.root import local_runtime
from production_orchestrator.domain.presentation import MESSAGES_ON_APPROVAL
from production_orchestrator.services.asking.request_approval import message_for
from production_orchestrator.services.evidence import review
from tests.approvals.test_policy import endpoint, link
from tests.support.local_serve import Served
from tests.support.net import APPROVERS, free_port


def _drafts(data_dir: Path, proposal_hash: str) -> list[dict[str, Any]]:
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        (data,) = conn.execute("SELECT data FROM proposals WHERE proposal_hash = ?", (proposal_hash,)).fetchone()
    return list(json.loads(bytes(data))["communication_drafts"])


def test_the_page_says_what_is_sent_to_whom_when_approved(started: Any) -> None:
    data_dir, run = started("--approvers", APPROVERS)
    page = endpoint(data_dir)[0].show(link(run, 1))
    assert page.status == 200
    assert "Messages this plan sends" in page.body and MESSAGES_ON_APPROVAL.split(":")[0] in page.body
    assert "Rejecting sends nothing." in page.body
    for draft in _drafts(data_dir, run["PROPOSAL_HASH"]):
        assert f"To the {draft['audience']}</b> ({draft['to']})" in page.body
    assert "not sent yet" not in page.body


def test_the_approval_email_says_what_is_sent_to_whom_when_approved(started: Any) -> None:
    data_dir, run = started("--approvers", APPROVERS)
    checkpoint, proposal = review(local_runtime(data_dir, create=False).store, run["CHECKPOINT_ID"])
    mail = message_for(checkpoint, proposal, "appr-" + "0" * 32, "ana@example.com", "http://127.0.0.1:8765/approve")
    assert "Messages this plan sends:" in mail.body and MESSAGES_ON_APPROVAL in mail.body
    drafts = _drafts(data_dir, run["PROPOSAL_HASH"])
    for draft in drafts:
        assert f"To the {draft['audience']} ({draft['to']}): {draft['subject']}" in mail.body
    assert {d["audience"] for d in drafts} == {"customer", "operator", "supplier"}


def test_the_outcome_page_lists_what_the_apply_queued(started: Any) -> None:
    port = free_port()
    data_dir, run = started("--approvers", APPROVERS, link_base=f"http://127.0.0.1:{port}/approve")
    served = Served(data_dir, port)
    form = {"decision": "approve", "reviewed_hash": run["PROPOSAL_HASH"]}
    try:
        with urlopen(Request(run["APPROVAL_URL_1"], data=urlencode(form).encode(), method="POST"), timeout=120) as r:
            page = r.read().decode()
    finally:
        served.stop()
    assert "Plan approved" in page and "Queued to send" in page
    for draft in _drafts(data_dir, run["PROPOSAL_HASH"]):
        assert f"To the {draft['audience']} ({draft['to']}): " in page
    assert page.count("(queued)") == 3
