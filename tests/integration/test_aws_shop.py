"""Your shop on AWS: the operator imports a shop file into the table, an execution carries the e-mail.

shop import --table -> (bad file: exit 2, every problem by path, nothing written)
run_agent {"request": ...} or {"request_s3_key": "requests/..."} -> the plan of that e-mail on that shop
-> approve through the page -> resume applies it once
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.cli import main
from production_orchestrator.domain.errors import NotFoundError, ShopError, ValidationError
from production_orchestrator.domain.planning.proposal import load_proposal
from tests.support.aws_flow import Flow, _invoke
from tests.support.moto_aws import AwsWorld, Clock
from tests.support.provider_runs import EXAMPLE_DAY, EXAMPLE_REQUESTS, EXAMPLES

SHOP_FILE = EXAMPLES / "print-shop.json"
TOTES = EXAMPLE_REQUESTS["request-totes"].read_text()


@pytest.fixture(autouse=True)
def hand_typed_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """These executions are started by hand (``start-execution`` with the e-mail in the input, or its S3 key),
    which separation of duties refuses without a submission (tests/integration/test_aws_submit.py): here it
    is off, as an operator who starts runs that way would deploy it."""
    monkeypatch.setenv("PO_SEPARATION_OF_DUTIES", "false")


def _store(aws: AwsWorld) -> DynamoShopStore:
    return DynamoShopStore(aws.dynamodb, aws.table)


def _items(aws: AwsWorld) -> list[dict[str, Any]]:
    return list(aws.dynamodb.scan(TableName=aws.table, ConsistentRead=True)["Items"])


def _run(aws: AwsWorld, **event: Any) -> Flow:
    return Flow(aws=aws, run=_invoke("run_agent", event))


def test_operator_imports_a_shop_and_an_execution_plans_an_email(
    aws: AwsWorld, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 0
    printed = capsys.readouterr().out
    assert "SHOP=Harbour Print & Stitch" in printed and "STALE_PLANS=0" in printed
    flow = _run(aws, request=TOTES, as_of=EXAMPLE_DAY, requested_by="ops@example.com")
    data = _store(aws).get_proposal(flow.proposal_hash)
    assert data is not None
    proposal = load_proposal(data, flow.proposal_hash)
    assert (proposal.target_order.product, proposal.target_order.quantity) == ("TOTE-NAVY", 400)
    assert proposal.planning_day == EXAMPLE_DAY and proposal.target_order.due == "2026-12-04"
    flow.request_approval()
    assert flow.post("approve", link=flow.link("ben@example.com"))["statusCode"] == 200
    assert flow.resume()["outcome"] == "applied"
    state = _store(aws).load_state()
    assert state is not None and state.revision == 2 and state.digest() == proposal.result_digest


def test_an_email_larger_than_the_execution_input_is_read_from_the_request_prefix(aws: AwsWorld, clock: Clock) -> None:
    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 0
    head, body = TOTES.split("\n\n", 1)
    head = head.replace("Content-Type: text/plain; charset=utf-8", 'Content-Type: multipart/mixed; boundary="b"')
    attachment = "QUJD" * 100_000  # a 400 KB artwork file: the text part is what is read
    raw = (
        f"{head}\n\n--b\nContent-Type: text/plain; charset=utf-8\n\n{body}\n--b\n"
        f"Content-Type: image/png\nContent-Transfer-Encoding: base64\n\n{attachment}\n--b--\n"
    )
    assert len(raw) > 256 * 1024
    aws.s3.put_object(Bucket=aws.bucket, Key="requests/festival.eml", Body=raw.encode())
    flow = _run(aws, request_s3_key="requests/festival.eml", as_of=EXAMPLE_DAY)
    proposal = load_proposal(_store(aws).get_proposal(flow.proposal_hash) or b"", flow.proposal_hash)
    assert proposal.target_order.quantity == 400


@pytest.mark.parametrize(
    ("event", "error"),
    [
        ({"request_s3_key": "requests/missing.eml"}, NotFoundError),
        ({"request_s3_key": "sessions/other.json"}, ValidationError),
        ({"request_s3_key": "requests/../sessions/x"}, ValidationError),
        ({"request": TOTES, "request_s3_key": "requests/x.eml"}, ValidationError),
        ({"request": TOTES, "as_of": "01.12.2026"}, ValidationError),
    ],
)
def test_a_bad_request_input_writes_nothing(
    aws: AwsWorld, clock: Clock, event: dict[str, Any], error: type[Exception]
) -> None:
    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 0
    before = _items(aws)
    with pytest.raises(error):
        _run(aws, **event)
    assert _items(aws) == before


def test_a_request_that_cannot_be_read_waits_on_the_table_as_needs_facts(aws: AwsWorld, clock: Clock) -> None:
    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 0
    before = _items(aws)
    out = _invoke("run_agent", {"request": "Hello, do you make mugs?", "as_of": EXAMPLE_DAY})  # returns: no retry
    added = [item for item in _items(aws) if item not in before]
    assert out["held_id"].startswith("held-") and any(out["held_id"] in str(item) for item in added)
    assert not any("ckpt-" in str(item) for item in added)  # nothing planned: no run, no checkpoint


def test_a_request_needs_an_imported_shop(aws: AwsWorld, clock: Clock) -> None:
    with pytest.raises(ShopError, match="import"):
        _run(aws, request=TOTES)
    assert _items(aws) == []


def test_a_bad_shop_file_is_refused_with_every_path_and_writes_nothing(
    aws: AwsWorld, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(SHOP_FILE.read_text())
    doc["orders"][0]["product"] = "MUG"
    doc["machines"][1]["id"] = "PRESS-A"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert main(["--table", aws.table, "shop", "import", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "$.orders[0] (ORD-1001).product" in err and "$.machines[1] (PRESS-A).id" in err
    assert _items(aws) == []


def test_export_of_the_table_imports_to_the_same_digest(aws: AwsWorld, tmp_path: Path) -> None:
    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 0
    out = tmp_path / "export.json"
    assert main(["--table", aws.table, "shop", "export", str(out)]) == 0
    exported = json.loads(out.read_text())
    state = _store(aws).load_state()
    assert state is not None and exported["revision"] == 1
    from production_orchestrator.domain.shop.file_format import read_shop

    assert read_shop(exported).digest() == state.digest()


def test_the_same_email_twice_on_dynamodb_is_already_pending_and_writes_nothing(aws: AwsWorld, clock: Clock) -> None:
    """The start Lambda keeps the rule of the CLI: a request whose run is open starts no second run."""
    from production_orchestrator.domain.errors import AlreadyPendingError

    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 0
    shop = _store(aws).load_state()
    flow = _run(aws, request=TOTES, as_of=EXAMPLE_DAY)
    state = _store(aws).load_state()
    assert state is not None and shop is not None and state.digest() == shop.digest()  # held beside the shop
    before = _items(aws)
    with pytest.raises(AlreadyPendingError) as pending:
        _run(aws, request=TOTES.replace("Hi there,", "Hi there, "), as_of=EXAMPLE_DAY)
    assert pending.value.checkpoint_id == flow.run["checkpoint_id"]
    assert _items(aws) == before


def test_a_resent_email_on_dynamodb_is_held_and_writes_only_the_hold(aws: AwsWorld, clock: Clock) -> None:
    """Issue 27 on the start Lambda: the same sender's same words under a new Message-ID are a possible duplicate,
    held (one HELD item and its audit event), no run; the same envelope again is the same hold."""
    from production_orchestrator.domain.errors import PossibleDuplicateError

    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 0
    flow = _run(aws, request=TOTES, as_of=EXAMPLE_DAY)
    before = _items(aws)
    resent = TOTES.replace("festival-totes-0001", "festival-totes-0002")
    with pytest.raises(PossibleDuplicateError) as held:
        _run(aws, request=resent, as_of=EXAMPLE_DAY)
    assert held.value.checkpoint_id == flow.run["checkpoint_id"]
    added = [i for i in _items(aws) if i not in before]
    kinds = sorted(str(i["pk"]["S"]).split("#")[0] for i in added)
    assert "HELD" in kinds and not [i for i in added if str(i["sk"]["S"]).startswith("CHECKPOINT#")]
    [hold] = _store(aws).held_requests()
    assert (hold.held_id, hold.duplicate_of) == (held.value.held_id, flow.run["checkpoint_id"])
    after = _items(aws)
    with pytest.raises(PossibleDuplicateError):
        _run(aws, request=resent, as_of=EXAMPLE_DAY)
    assert len(_store(aws).held_requests()) == 1 and len(_store(aws).audit_events()) == len(
        [i for i in after if str(i["sk"]["S"]).startswith("AUDIT#")]
    )
