"""The operator's ``--table`` shop writes on moto, MACed by the stack's operator function (the audit key's
GenerateMac is the functions' alone): a keyed ``audit verify`` of a fresh stack reports the chain intact, and
the function refuses what an operator's command would not append.

The Lambda hop runs the handler in this process (moto runs no function code without Docker); DynamoDB and KMS
are the server's.
"""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import boto3
import pytest

from production_orchestrator.cli import main
from production_orchestrator.contracts import OPERATOR_FUNCTION_TAG
from production_orchestrator.domain.approval.audit_chain import _HEAD, _LINK, GENESIS
from production_orchestrator.domain.canonical import canonical_bytes
from production_orchestrator.handlers import sign_operator_audit
from production_orchestrator.handlers.root import core, runtime
from tests.support.moto_aws import AwsWorld
from tests.support.provider_runs import EXAMPLES

SHOP_FILE = EXAMPLES / "print-shop.json"
FUNCTION = "ProductionOrchestrator-OperatorAudit"


class _Context:
    function_name = FUNCTION
    function_version = "$LATEST"
    memory_limit_in_mb = 256
    invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{FUNCTION}"
    aws_request_id = "00000000-0000-0000-0000-000000000000"
    log_group_name = f"/aws/lambda/{FUNCTION}"
    log_stream_name = "test"


class InProcessLambda:
    """``lambda.invoke`` of the operator function, answered by its handler (with the function's environment)."""

    calls: list[str] = []

    def invoke(self, FunctionName: str, Payload: bytes) -> dict[str, Any]:
        assert FunctionName == FUNCTION
        self.calls.append(FunctionName)
        result = sign_operator_audit.handler(json.loads(Payload), _Context())
        return {"StatusCode": 200, "Payload": io.BytesIO(json.dumps(result).encode())}


@pytest.fixture
def audit_key(aws: AwsWorld, monkeypatch: pytest.MonkeyPatch) -> str:
    """The stack's audit key (KMS HMAC, on the server), set for the function; the CLI's lambda client routed to it."""
    made = aws.session.client("kms").create_key(KeySpec="HMAC_256", KeyUsage="GENERATE_VERIFY_MAC")
    key_id = str(made["KeyMetadata"]["KeyId"])
    monkeypatch.setenv("PO_AUDIT_KEY_ID", key_id)
    core.cache_clear()
    runtime.cache_clear()
    real = boto3.Session.client

    def client(self: Any, *args: Any, **kwargs: Any) -> Any:
        service = args[0] if args else kwargs.get("service_name")
        return InProcessLambda() if service == "lambda" else real(self, *args, **kwargs)

    monkeypatch.setattr(boto3.Session, "client", client)
    return key_id


def test_operator_writes_are_maced_and_a_keyed_verify_reports_the_chain_intact(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    flags = ["--table", aws.table, "--operator-function", FUNCTION]
    assert main([*flags, "shop", "import", str(SHOP_FILE)]) == 0
    state = json.loads(SHOP_FILE.read_text())
    material, order = state["materials"][0]["id"], state["orders"][0]["id"]
    assert main([*flags, "shop", "receive", material, "100", "--ref", "PO-1"]) == 0
    assert main([*flags, "order", "progress", order, "--minutes", "30"]) == 0
    assert "warning" not in capsys.readouterr().err  # keyed: nothing to warn about
    # The CLI itself holds no GenerateMac: only VerifyMac, with the key's id.
    monkeypatch.delenv("PO_AUDIT_KEY_ID")
    assert main(["--table", aws.table, "audit", "verify", "--audit-key", audit_key]) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert "intact" in out.lower() or "CHAIN_INTACT=1" in out
    items = aws.dynamodb.scan(TableName=aws.table)["Items"]
    events = [json.loads(i["raw"]["S"]) for i in items if i["sk"]["S"].startswith("AUDIT#")]
    assert sorted(e["event_type"] for e in events) == ["material_received", "order_progressed", "shop_imported"]
    assert all(e["mac"] for e in events)
    assert InProcessLambda.calls


def test_without_the_operator_function_a_keyed_verify_finds_the_unkeyed_link(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 0
    warning = capsys.readouterr().err.splitlines()[0]  # said first, before the write, on stderr
    assert warning.startswith("warning: no --operator-function") and "OperatorFunctionName" in warning
    material = json.loads(SHOP_FILE.read_text())["materials"][0]["id"]
    assert main(["--table", aws.table, "shop", "receive", material, "5", "--ref", "PO-2"]) == 0
    assert "no MAC" in capsys.readouterr().err
    assert main(["--table", aws.table, "audit", "verify", "--audit-key", audit_key]) == 5


def _link(event_type: str, seq: int = 1, prev: str = GENESIS) -> bytes:
    content = {"event_type": event_type, "at": "2026-12-01T00:00:00Z", "seq": seq, "prev_hash": prev, "detail": {}}
    return _LINK + canonical_bytes(content)


@pytest.mark.parametrize("event_type", ["plan_applied", "decision_recorded", "vote_recorded", "approval_created"])
def test_the_function_refuses_to_mac_what_no_operator_command_appends(
    aws: AwsWorld, audit_key: str, event_type: str
) -> None:
    reply = sign_operator_audit.handler({"message": base64.b64encode(_link(event_type)).decode()}, _Context())
    assert "refused" in reply and "mac" not in reply


def test_the_function_refuses_a_head_that_does_not_close_its_links_and_any_other_message(
    aws: AwsWorld, audit_key: str
) -> None:
    link = _link("material_received")
    mac = sign_operator_audit.handler({"message": base64.b64encode(link).decode()}, _Context())["mac"]
    forged_head = _HEAD + canonical_bytes({"seq": 1, "hash": "f" * 64})
    reply = sign_operator_audit.handler(
        {"message": base64.b64encode(forged_head).decode(), "links": [[base64.b64encode(link).decode(), mac]]},
        _Context(),
    )
    assert "refused" in reply
    reply = sign_operator_audit.handler(
        {"message": base64.b64encode(forged_head).decode(), "links": [[base64.b64encode(link).decode(), "x" + mac]]},
        _Context(),
    )
    assert "refused" in reply
    assert "refused" in sign_operator_audit.handler({"message": base64.b64encode(b"anything").decode()}, _Context())


def test_the_table_commands_take_the_region_from_the_flag_then_aws_region(
    aws: AwsWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """boto3 reads AWS_DEFAULT_REGION and the profile's region, not AWS_REGION: the CLI adds it, and --region
    wins over both."""
    import argparse

    from production_orchestrator.cli.aws import aws_region, table_runtime

    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    assert aws_region(argparse.Namespace()) == "eu-central-1"
    assert aws_region(argparse.Namespace(region="ap-southeast-2")) == "ap-southeast-2"
    rt = table_runtime(aws.table, args=argparse.Namespace(region="eu-west-1"))
    assert rt.store._table.client.meta.region_name == "eu-west-1"  # type: ignore[attr-defined]
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    rt = table_runtime(aws.table, args=argparse.Namespace())
    assert rt.store._table.client.meta.region_name == "us-west-2"  # type: ignore[attr-defined]


def test_the_table_commands_take_the_profiles_region_and_the_flag_wins_over_it(
    aws: AwsWorld, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """--profile names the profile (its region used when neither --region nor the variables name one)."""
    import argparse

    from production_orchestrator.cli.aws import table_runtime

    config = tmp_path / "config"
    config.write_text("[profile shop-ops]\nregion = ap-south-1\n", encoding="utf-8")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    rt = table_runtime(aws.table, args=argparse.Namespace(profile="shop-ops"))
    assert rt.store._table.client.meta.region_name == "ap-south-1"  # type: ignore[attr-defined]
    rt = table_runtime(aws.table, args=argparse.Namespace(profile="shop-ops", region="eu-north-1"))
    assert rt.store._table.client.meta.region_name == "eu-north-1"  # type: ignore[attr-defined]
    monkeypatch.setenv("AWS_PROFILE", "shop-ops")  # the variable, as boto3 reads it
    rt = table_runtime(aws.table, args=argparse.Namespace())
    assert rt.store._table.client.meta.region_name == "ap-south-1"  # type: ignore[attr-defined]


# --- finding the operator function, and never breaking a keyed chain -------------------------------------------


def _tag(aws: AwsWorld, function: str) -> None:
    """The tag the stack sets on its table (infra/constructs/operator_access.py), naming ``function``."""
    arn = aws.dynamodb.describe_table(TableName=aws.table)["Table"]["TableArn"]
    aws.dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": OPERATOR_FUNCTION_TAG, "Value": function}])


def _items(aws: AwsWorld) -> list[dict[str, Any]]:
    return sorted(
        aws.dynamodb.scan(TableName=aws.table, ConsistentRead=True)["Items"], key=lambda i: (i["pk"]["S"], i["sk"]["S"])
    )


def _verify(aws: AwsWorld, audit_key: str) -> int:
    return main(["--table", aws.table, "audit", "verify", "--audit-key", audit_key])


SHOP = json.loads(SHOP_FILE.read_text())
MATERIAL, ORDER = SHOP["materials"][0]["id"], SHOP["orders"][0]["id"]


def test_with_the_table_alone_the_cli_finds_the_operator_function_by_the_tag(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _tag(aws, FUNCTION)
    calls = len(InProcessLambda.calls)
    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 0
    assert main(["--table", aws.table, "shop", "receive", MATERIAL, "100", "--ref", "PO-1"]) == 0
    assert main(["order", "progress", ORDER, "--minutes", "30", "--table", aws.table]) == 0
    assert main(["--table", aws.table, "order", "complete", ORDER]) == 0
    assert "warning" not in capsys.readouterr().err
    assert len(InProcessLambda.calls) > calls
    events = [json.loads(i["raw"]["S"]) for i in _items(aws) if i["sk"]["S"].startswith("AUDIT#")]
    assert len(events) == 4 and all(e["mac"] for e in events)
    assert _verify(aws, audit_key) == 0
    assert "AUDIT_CHAIN=intact" in capsys.readouterr().out


def test_the_flag_then_the_variable_win_over_the_tag(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _tag(aws, "ProductionOrchestrator-elsewhere-operator-audit")  # InProcessLambda answers FUNCTION only
    assert main(["--table", aws.table, "--operator-function", FUNCTION, "shop", "import", str(SHOP_FILE)]) == 0
    monkeypatch.setenv("PO_OPERATOR_FUNCTION", FUNCTION)
    assert main(["--table", aws.table, "shop", "receive", MATERIAL, "5"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert _verify(aws, audit_key) == 0


@pytest.mark.parametrize(
    "args",
    [
        ("shop", "import", str(SHOP_FILE)),
        ("shop", "receive", MATERIAL, "5"),
        ("order", "complete", ORDER),
        ("order", "cancel", ORDER, "--reason", "customer withdrew"),
        ("order", "progress", ORDER, "--minutes", "30"),
    ],
    ids=lambda a: "-".join(a[:2]),
)
def test_a_write_on_a_keyed_chain_with_no_operator_function_known_is_refused_and_writes_nothing(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    assert main(["--table", aws.table, "--operator-function", FUNCTION, "shop", "import", str(SHOP_FILE)]) == 0
    capsys.readouterr()
    before = _items(aws)
    assert main(["--table", aws.table, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: NO_OPERATOR_FUNCTION: ") and err.count("NO_OPERATOR_FUNCTION") == 1, err
    # The message names the fix: the flag and the stack output it takes, the variable, and the way out.
    fixes = ("--operator-function", "OperatorFunctionName", "PO_OPERATOR_FUNCTION", "--unkeyed", OPERATOR_FUNCTION_TAG)
    assert [fix for fix in fixes if fix not in err] == []
    assert _items(aws) == before
    assert _verify(aws, audit_key) == 0


def test_unkeyed_writes_on_a_keyed_chain_when_asked_warned_and_a_keyed_verify_finds_it(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--table", aws.table, "--operator-function", FUNCTION, "shop", "import", str(SHOP_FILE)]) == 0
    capsys.readouterr()
    assert main(["--table", aws.table, "shop", "receive", MATERIAL, "5", "--unkeyed"]) == 0
    warning = capsys.readouterr().err.splitlines()[0]
    assert warning.startswith("warning: --unkeyed") and "no MAC" in warning
    assert main(["--table", aws.table, "--unkeyed", "order", "progress", ORDER, "--minutes", "30"]) == 0
    assert _verify(aws, audit_key) == 5


def test_unkeyed_with_an_operator_function_is_refused_and_writes_nothing(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--table", aws.table, "--operator-function", FUNCTION, "--unkeyed"]
    assert main([*flags, "shop", "import", str(SHOP_FILE)]) == 2
    assert "choose one" in capsys.readouterr().err
    assert _items(aws) == []


def test_a_known_operator_function_that_cannot_be_invoked_refuses_the_write_and_writes_nothing(
    aws: AwsWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """No such function on the server (a wrong name, or no lambda:InvokeFunction): the first MAC fails before the
    write, on an empty chain too, since the stack has a function to key it with."""
    _tag(aws, "ProductionOrchestrator-gone-operator-audit")
    assert main(["--table", aws.table, "shop", "import", str(SHOP_FILE)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: OPERATOR_FUNCTION_UNREACHABLE: ") and "lambda:InvokeFunction" in err, err
    assert "--unkeyed" in err and "Nothing was written" in err
    assert _items(aws) == []


# --- approvals relink: an operator write on the approval's chain, MACed like the shop writes ----------------------


def _relink(aws: AwsWorld, approval_id: str, approver: str, *flags: str) -> int:
    from tests.support.moto_aws import LINK_BASE_URL

    return main(
        ["--table", aws.table, *flags, "approvals", "relink", "--topic-arn", aws.topic_arn,
         "--link-base", LINK_BASE_URL, "--approval", approval_id, "--approver", approver]
    )  # fmt: skip


def _parked_on_a_keyed_chain(aws: AwsWorld) -> Any:
    """A run parked for its decision, every event so far appended by the functions with the audit key."""
    from tests.support.aws_flow import start

    flow = start(aws)
    flow.request_approval()
    aws.links()
    return flow


def test_relink_is_maced_by_the_operator_function_and_a_keyed_verify_reports_the_chain_intact(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.moto_aws import APPROVERS

    flow = _parked_on_a_keyed_chain(aws)
    _tag(aws, FUNCTION)
    calls = len(InProcessLambda.calls)
    assert _relink(aws, flow.approval_id, APPROVERS[1]) == 0, capsys.readouterr().err
    assert "warning" not in capsys.readouterr().err
    assert len(InProcessLambda.calls) > calls  # the link and the head were MACed by the function
    (relinked,) = [
        json.loads(i["raw"]["S"]) for i in _items(aws) if "approval_relinked" in i.get("raw", {}).get("S", "")
    ]
    assert relinked["mac"]
    monkeypatch.delenv("PO_AUDIT_KEY_ID")  # the operator verifies with the key's id, holding only VerifyMac
    assert _verify(aws, audit_key) == 0
    assert "AUDIT_CHAIN=intact" in capsys.readouterr().out


def test_relink_on_a_keyed_chain_with_no_operator_function_known_is_refused_and_writes_nothing(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.moto_aws import APPROVERS

    flow = _parked_on_a_keyed_chain(aws)
    before = _items(aws)
    assert _relink(aws, flow.approval_id, APPROVERS[1]) == 2
    assert capsys.readouterr().err.startswith("error: NO_OPERATOR_FUNCTION: ")
    assert _items(aws) == before and aws.links() == []
    assert _verify(aws, audit_key) == 0


# --- what the operator's commands call, against the policy the deploy guide gives the operators -------------------


def _record_operator_calls(monkeypatch: pytest.MonkeyPatch) -> list[list[Any]]:
    """Every AWS call the CLI makes from here on, as tests/support/iam_calls.py reads them; the operator function's
    own calls (it runs in this process) are its role's, not the operator's, and are left out."""
    from botocore.client import BaseClient  # type: ignore[import-untyped]

    from tests.support.lambda_process import _partition_keys

    calls: list[list[Any]] = []
    inside = [False]
    original, invoke = BaseClient._make_api_call, InProcessLambda.invoke

    def recording(client: Any, operation: str, params: dict[str, Any]) -> Any:
        if not inside[0]:
            signing = client.meta.service_model.signing_name
            keys = _partition_keys(operation, params) if signing == "dynamodb" else []
            calls.append([signing, operation, keys, params.get("IndexName")])
        return original(client, operation, params)

    def invoking(self: InProcessLambda, FunctionName: str, Payload: bytes) -> dict[str, Any]:
        calls.append(["lambda", "InvokeFunction", [], None])
        inside[0] = True
        try:
            return invoke(self, FunctionName, Payload)
        finally:
            inside[0] = False

    monkeypatch.setattr(BaseClient, "_make_api_call", recording)
    monkeypatch.setattr(InProcessLambda, "invoke", invoking)
    return calls


def test_every_operator_command_is_allowed_by_the_guides_policy_and_writes_only_what_it_owns(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each ``--table`` command of the guide's operator, run on moto; each call it made, allowed by step 6's
    policy as IAM evaluates it; and that policy refuses every write of an item type the operator does not own."""
    from production_orchestrator.adapters.aws import table_schema as t
    from tests.support.deploy_guide import operator_policy
    from tests.support.iam_calls import denied
    from tests.support.moto_aws import APPROVERS

    flow = _parked_on_a_keyed_chain(aws)
    _tag(aws, FUNCTION)
    monkeypatch.delenv("PO_AUDIT_KEY_ID")  # the operator holds the key's id for VerifyMac only
    orders = [o["id"] for o in SHOP["orders"]]
    table = ["--table", aws.table]
    relink = ["approvals", "relink", "--topic-arn", aws.topic_arn, "--link-base", "https://x.example/a"]
    commands = [
        ["shop", "import", str(SHOP_FILE), "--replace"],
        ["shop", "receive", MATERIAL, "5", "--ref", "PO-9"],
        ["order", "progress", orders[0], "--minutes", "5"],
        ["order", "complete", orders[1]],
        ["order", "cancel", orders[2], "--reason", "withdrawn"],
        [*relink, "--approval", flow.approval_id, "--approver", APPROVERS[1]],
        ["audit", "verify", "--audit-key", audit_key],
        ["request", "list"],
        ["shop", "export", "-"],
    ]
    calls = _record_operator_calls(monkeypatch)
    for command in commands:
        assert main([*table, *command]) == 0, (command, capsys.readouterr().err)
    operators = len(calls)
    # The approver rejects on the page (the decide role's calls, not recorded); then the reconciler runs.
    assert flow.post("reject")["statusCode"] == 200
    del calls[operators:]
    assert main([*table, "approvals", "wake"]) == 0, capsys.readouterr().err
    policy = operator_policy()
    assert denied(policy, [call[:3] for call in calls]) == []
    written = {(c[1], k) for c in calls for k in c[2] if c[1] in ("PutItem", "UpdateItem", "TransactWriteItems")}
    assert any(k.startswith("Update:APPROVAL#") for _, k in written)  # relink
    # The page woke the workflow itself here; a wake the reconciler sends records it and calls SendTaskSuccess.
    wake = [("dynamodb", "UpdateItem", [t.APPROVAL_PK_PREFIX + flow.approval_id]), ("states", "SendTaskSuccess", [])]
    assert denied(policy, wake) == []
    assert any(c[3] == t.OPEN_RUNS_INDEX for c in calls)  # the index is its own resource: the policy names it
    (reads,) = [s for s in policy if s["Sid"] == "ReadItems"]
    assert "<TableArn>/index/open-runs" in reads["Resource"]
    # What a compromised operator credential would try beyond that: all refused.
    checkpoint, digest, approval = "ckpt-" + "b" * 32, "a" * 64, "appr-" + "c" * 32
    foreign = [
        t.checkpoint_key(checkpoint)[0],
        t.decision_key(checkpoint)[0],
        t.application_key(digest)[0],
        t.outbox_key(f"{digest}#00")[0],
        t.approval_of_key(checkpoint, approval)[0],
        t.PROPOSAL_PK_PREFIX + digest,
        t.SUBMISSION_PK_PREFIX + "sub-" + "d" * 32,
        t.RUN_REQUEST_PK_PREFIX + digest,
        t.RUN_MESSAGE_PK_PREFIX + digest,
        t.HELD_PK,
    ]
    for pk in foreign:
        for call in (
            ("dynamodb", "PutItem", [pk]),
            ("dynamodb", "UpdateItem", [pk]),
            ("dynamodb", "TransactWriteItems", [f"Put:{pk}"]),
        ):
            assert denied(policy, [call]) != [], call
    for pk in (*foreign, t.state_key()[0], t.AUDIT_PK, t.APPROVAL_PK_PREFIX + approval):
        for operation in ("DeleteItem", "BatchWriteItem"):
            assert denied(policy, [("dynamodb", operation, [pk])]) != [], (operation, pk)
    # An approval is never created by put; the shop's state is never updated in place.
    assert denied(policy, [("dynamodb", "PutItem", [t.APPROVAL_PK_PREFIX + approval])]) != []
    assert denied(policy, [("dynamodb", "UpdateItem", [t.AUDIT_PK])]) != []


# --- two operator writes at once: the head they both read is taken by one ----------------------------------------


def test_two_operator_writes_on_one_chain_head_cannot_both_commit_on_it(
    aws: AwsWorld, audit_key: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two operators' ``shop receive`` read the same shop and chain head, get both their heads MACed by the operator
    function (each follows the stored head when it asks), and send their transactions together. The head's
    condition lets one commit on that head; the other fails whole, reads the shop and head again and commits
    after it: both deliveries counted once, one event each, the keyed chain intact."""
    import argparse
    import threading

    from production_orchestrator.adapters.aws.dynamo_table import DynamoTable
    from production_orchestrator.adapters.aws.operator_signer import read_head
    from production_orchestrator.adapters.aws.table_schema import AUDIT_HEAD_SK
    from production_orchestrator.cli.aws import write_runtime
    from production_orchestrator.services.shop.life import Receive, receive

    assert main(["--table", aws.table, "--operator-function", FUNCTION, "shop", "import", str(SHOP_FILE)]) == 0
    capsys.readouterr()
    stored = read_head(aws.dynamodb, aws.table)
    assert stored is not None
    runtimes = [write_runtime(argparse.Namespace(operator_function=FUNCTION), aws.table) for _ in range(2)]
    for rt in runtimes:
        rt.store._table.know_head(stored)  # type: ignore[attr-defined]  # both start from the head they read
    on_hand = next(m for m in SHOP["materials"] if m["id"] == MATERIAL)["on_hand"]

    together = threading.Barrier(2, timeout=60)
    first = threading.local()
    sent: list[tuple[int, bool]] = []  # (the head seq a transaction was conditioned on, whether it committed)
    real = DynamoTable.transact

    def racing(self: DynamoTable, writes: Any) -> None:
        (head,) = [w["Put"] for w in writes if w.get("Put", {}).get("Item", {}).get("sk", {}).get("S") == AUDIT_HEAD_SK]
        conditioned = int(head["ExpressionAttributeValues"][":seq"]["N"]) if "ExpressionAttributeValues" in head else 0
        if not getattr(first, "done", False):
            first.done = True
            together.wait()  # both MACed and built on the same head: now both go
        try:
            real(self, writes)
        except Exception:
            sent.append((conditioned, False))
            raise
        sent.append((conditioned, True))

    monkeypatch.setattr(DynamoTable, "transact", racing)
    errors: list[BaseException] = []

    def deliver(rt: Any, ref: str) -> None:
        try:
            receive(rt, Receive(MATERIAL, 5, ref))
        except BaseException as exc:  # reported below, not swallowed
            errors.append(exc)

    threads = [threading.Thread(target=deliver, args=(rt, f"PO-{i}")) for i, rt in enumerate(runtimes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    monkeypatch.setattr(DynamoTable, "transact", real)
    assert errors == []
    on_the_head = [ok for seq, ok in sent if seq == stored[0]]
    assert on_the_head.count(True) == 1 and len(on_the_head) >= 2, sent  # both tried it; one took it
    state = runtimes[0].store.load_state()
    assert state is not None
    assert next(m.on_hand for m in state.materials if m.id == MATERIAL) == on_hand + 10
    events = [json.loads(i["raw"]["S"]) for i in _items(aws) if i["sk"]["S"].startswith("AUDIT#")]
    assert [e["event_type"] for e in events].count("material_received") == 2
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    monkeypatch.delenv("PO_AUDIT_KEY_ID")
    assert _verify(aws, audit_key) == 0
    assert "AUDIT_CHAIN=intact" in capsys.readouterr().out
