"""The deploy guide's "Deploying for real" steps (docs/how-to/deploy.md), run as written against the moto server.

Every shell line of every numbered step is recognized and run, in order: ``aws ...`` lines as the same
botocore operation (the operation, each parameter and its type checked against the service model), the
operator commands (``production-orchestrator --table ...``) as the installed module in a fresh process,
``production-orchestrator submit`` through the CLI's own parser and the submit function, and ``npx cdk deploy``
as the synthesized template (with its ``-c`` values, checked by the app's own settings) deployed on moto by the
deployment the workflow tests use.
What a person does between lines (opening the link and pressing Approve) is played by the test; a line that
needs what only a person has (the confirmation token from a mail) is checked, not run. A line this runner
does not know fails, so the steps cannot drift from the code.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import botocore.session
import pytest

from infra.constants import STATE_PLAN_APPLIED, STATE_SEND_MESSAGES
from production_orchestrator.cli.main import COMMAND_MODULES
from production_orchestrator.cli.parser import build_parser
from tests.support.cdk_template import synthesize
from tests.support.deploy_guide import operator_policy, placeholders
from tests.support.moto_workflow import REGION, Deployment, LocalAws, local_aws, ses_accepted

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_GUIDE = ROOT / "docs" / "how-to" / "deploy.md"
SECTION = "## Deploying for real"
# What the moto deployment needs instead of Bedrock: the scripted model, and a window long enough to decide in.
MOTO_CONTEXT = {
    "provider": "deterministic",
    "modelId": "scripted-planner-v1",
    "modelRegion": "",
    "approvalWindow": "10m",
}
# Each of these must be a step's subject, in this order: the deploy is complete only with all of them.
REQUIRED_STEPS = (
    "tools",
    "bootstrap",
    "bedrock model access",
    "ses",
    "deploy",
    "import your shop",
    "submit",
    "approvers confirm",
    "first request",
    "teardown",
)
HUMAN_ONLY = {"<token>"}  # from a mail only the approver receives


def cli_context(args: list[str]) -> dict[str, str]:
    """The ``-c key=value`` pairs of a ``cdk`` command line, refused as the CDK CLI refuses them (a key under
    ``aws:`` is reserved: "User-provided context cannot use keys prefixed with 'aws:'")."""
    context: dict[str, str] = {}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        assert flag in ("-c", "--context"), flag
        key, _, raw = value.partition("=")
        assert not key.startswith("aws:"), f"the CDK CLI refuses user-provided context key {key!r}"
        context[key] = raw
    return context


def documented_cdk_lines() -> list[tuple[str, str]]:
    """Every ``npx cdk deploy|synth ...`` command of the README and the docs (shell blocks and inline code), with
    the file it stands in."""
    found: list[tuple[str, str]] = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        candidates = re.findall(r"^\s*(npx cdk (?:deploy|synth)\b[^\n]*)$", text, re.M)
        candidates += re.findall(r"`(npx cdk (?:deploy|synth)\b[^`]*)`", text)
        for line in candidates:
            found.append((str(path.relative_to(ROOT)), line.split(" #", 1)[0].strip()))
    return sorted(set(found))


@dataclass
class Step:
    number: int
    title: str
    text: str
    commands: list[str] = field(default_factory=list)


def guide_steps() -> list[Step]:
    """The numbered steps of the section and the shell lines of each (comments and blank lines dropped)."""
    text = DEPLOY_GUIDE.read_text(encoding="utf-8")
    section = text[text.index(SECTION) + len(SECTION) :]
    section = section[: section.index("\n## ")]
    steps: list[Step] = []
    for match in re.finditer(r"^(\d+)\. \*\*(.+?)\*\*(.*?)(?=^\d+\. \*\*|\Z)", section, re.S | re.M):
        body = match.group(3)
        step = Step(int(match.group(1)), match.group(2), body)
        for block in re.findall(r"```sh\n(.*?)\n\s*```", body, re.S):
            for line in block.splitlines():
                line = line.strip()
                if line and not line.startswith("#"):
                    step.commands.append(line)
        steps.append(step)
    return steps


def test_the_steps_are_numbered_and_complete() -> None:
    steps = guide_steps()
    assert [s.number for s in steps] == list(range(1, len(steps) + 1))
    subjects = [f"{s.title} {s.text[:200]}".lower() for s in steps]
    position = 0
    for required in REQUIRED_STEPS:
        found = next((i for i in range(position, len(subjects)) if required in subjects[i]), None)
        assert found is not None, f"no step about {required!r} after step {position + 1}"
        position = found


class Runner:
    """Runs the deploy guide's lines against one moto deployment; ``values`` fills ``<Placeholders>``."""

    def __init__(self, aws: LocalAws, tmp: Path) -> None:
        self.aws = aws
        self.tmp = tmp
        self.deployment: Deployment | None = None
        self.template: dict[str, Any] = {}
        self.values: dict[str, str] = {}
        self.botocore = botocore.session.get_session()
        self.ran: list[str] = []

    # -- placeholders --------------------------------------------------------------------------------

    def fill(self, line: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if self.template and name[0].isupper() and "_" not in name:
                assert name in self.template["Outputs"], f"<{name}> is not a stack output"
            assert name in self.values, f"nothing fills <{name}> yet"
            return self.values[name]

        return re.sub(r"<([A-Za-z_]+)>", one, line)

    # -- dispatch ------------------------------------------------------------------------------------

    def run(self, line: str) -> Any:
        words = shlex.split(line)
        if words[:1] == ["make"]:
            return self._make(words[1:])
        if words[:1] in (["source"], ["."]):
            return self._activate(words[1:])
        if words[:2] == ["npx", "cdk"]:
            return self._cdk(words[2:])
        if words[:1] == ["aws"]:
            return self._aws(line)
        if words[2:3] == ["production_orchestrator.cli.aws_ops"]:
            raise AssertionError(
                f"{line}: the operator commands are the CLI's own now, e.g. "
                "`production-orchestrator --table <TableName> shop import PATH` (cli/aws_ops.py is gone)"
            )
        if words[:2] == ["python", "-c"]:
            return self._python(self.fill(line))
        if words[:2] == ["production-orchestrator", "submit"]:
            return self._submit(words[2:])
        if words[:1] == ["production-orchestrator"]:
            return self._operator_cli(self.fill(line))
        raise AssertionError(f"the deploy guide's runner does not know this line: {line}")

    def _make(self, targets: list[str]) -> None:
        # The test suite runs inside what `make setup` built; the targets must exist as written.
        makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
        for target in targets:
            assert re.search(rf"^{re.escape(target)}:", makefile, re.M), f"no make target {target}"

    def _activate(self, args: list[str]) -> None:
        # `make setup` builds the virtualenv the tests run in: activating it puts the console script on PATH.
        assert args == [".venv/bin/activate"], args
        assert (ROOT / ".venv" / "bin" / "activate").exists()
        assert (ROOT / ".venv" / "bin" / "production-orchestrator").exists()

    def _cdk(self, args: list[str]) -> None:
        command, rest = args[0], args[1:]
        if command == "bootstrap":
            assert len(rest) == 1 and re.fullmatch(r"aws://\d{12}/[a-z]{2}(-[a-z]+)+-\d", rest[0]), rest
            return
        if command == "destroy":
            assert self.deployment is not None and not rest
            return
        assert command == "deploy", f"cdk {command}"
        context = cli_context(rest)
        # The guide's values as the app reads them (synthesis refuses a deployment that cannot work), with the
        # scripted model in place of Bedrock.
        self.template = synthesize({**context, **MOTO_CONTEXT})
        # The sender identity is verified by the guide's own step, not by the deployment.
        self.deployment = self.aws.deploy(self.template, verify_sender=False)
        outputs = self.template["Outputs"]
        self.values.update(
            {
                "TableName": self.deployment.table_name,
                "ApprovalTopicArn": self.deployment.topic_arn,
                "StateMachineArn": self.deployment.state_machine_arn,
                "SessionBucketName": self.deployment.bucket_name,
                "OperatorFunctionName": self.deployment.function_name("sign_operator_audit"),
            }
        )
        # The template's bucket is versioned (StateStore): so is the deployment's, for the teardown to empty.
        assert self.template["Resources"][_bucket_id(self.template)]["Properties"]["VersioningConfiguration"] == {
            "Status": "Enabled"
        }
        self.aws.client("s3").put_bucket_versioning(
            Bucket=self.deployment.bucket_name, VersioningConfiguration={"Status": "Enabled"}
        )
        assert {"SubmitUrl", "DecisionUrl", "TableName", "ApprovalTopicArn", "OperatorFunctionName"} <= set(outputs)

    def _aws(self, line: str) -> Any:
        words = shlex.split(line)
        # `aws s3api` is the CLI's name for the s3 API's operations (`aws s3` is its high-level commands).
        service, operation_name, params = {"s3api": "s3"}.get(words[1], words[1]), words[2], words[3:]
        model = self.botocore.get_service_model(service)
        operation = model.operation_model(
            next(
                name
                for name in model.operation_names
                if re.sub(r"(?<!^)([A-Z])", r"-\1", name).lower() == operation_name
            )
        )
        members = operation.input_shape.members if operation.input_shape else {}
        by_flag = {re.sub(r"(?<!^)([A-Z])", r"-\1", name).lower(): name for name in members}
        kwargs: dict[str, Any] = {}
        query = None
        index = 0
        while index < len(params):
            flag = params[index].removeprefix("--")
            if flag == "query":
                query = params[index + 1]
                index += 2
                continue
            negated = flag.startswith("no-") and flag[3:] in by_flag and flag not in by_flag
            name = by_flag[flag[3:] if negated else flag]
            shape = members[name]
            if shape.type_name == "boolean" and (
                negated or index + 1 >= len(params) or params[index + 1].startswith("--")
            ):
                kwargs[name] = not negated
                index += 1
                continue
            raw = params[index + 1]
            kwargs[name] = {"boolean": raw == "true", "integer": int(raw) if raw.isdigit() else raw}.get(
                shape.type_name, raw
            )
            index += 2
        for required in operation.input_shape.required_members if operation.input_shape else ():
            assert required in kwargs, f"{line}: missing --{required}"
        if any(placeholder in line for placeholder in HUMAN_ONLY):
            return None  # checked against the model above; the value is in a person's mailbox
        filled = {k: self.fill(v) if isinstance(v, str) else v for k, v in kwargs.items()}
        method = re.sub(r"(?<!^)([A-Z])", r"_\1", operation.name).lower()
        assert self.deployment is not None or service in ("sesv2", "sts"), f"{line} before the deploy"
        response = getattr(self.aws.client(service), method)(**filled)
        return response.get(query) if query else response

    def _python(self, line: str) -> None:
        # A one-line script on the virtualenv's interpreter (boto3), with the deployment's credentials.
        words = shlex.split(line)
        self._subprocess(line, [sys.executable, *words[1:]])

    def _operator_cli(self, line: str) -> None:
        words = shlex.split(line)
        self._subprocess(line, [sys.executable, "-m", "production_orchestrator", *words[1:]])

    def keyed_verify(self) -> tuple[list[str], str]:
        """The MAC of every audit event on the table, and what a keyed ``audit verify`` prints (exit 0 asserted),
        with the audit key the functions hold (the operators have only its VerifyMac)."""
        assert self.deployment is not None
        table = self.deployment.table_name
        items = self.aws.client("dynamodb").scan(TableName=table, ConsistentRead=True)["Items"]
        macs = [json.loads(i["raw"]["S"]).get("mac", "") for i in items if i["sk"]["S"].startswith("AUDIT#")]
        config = self.aws.client("lambda").get_function_configuration(
            FunctionName=self.deployment.function_name("sign_operator_audit")
        )
        key = config["Environment"]["Variables"]["PO_AUDIT_KEY_ID"]
        line = f"production-orchestrator --table {table} audit verify --audit-key {key}"
        return macs, self._subprocess(line, [sys.executable, "-m", "production_orchestrator", *shlex.split(line)[1:]])

    def _subprocess(self, line: str, argv: list[str]) -> str:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("AWS_")},
            "AWS_ENDPOINT_URL": self.aws.endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": REGION,
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "PYTHONPATH": str(ROOT / "functions"),
        }
        done = subprocess.run(
            argv,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def _submit(self, args: list[str]) -> None:
        # The installed CLI's parser accepts the line as written (--stack reads SubmitUrl from CloudFormation,
        # which moto's deployment does not run): the request goes to the deployed submit function, signed as
        # the Identity Center user the guide's submitters map names.
        parsed = build_parser(COMMAND_MODULES).parse_args(["submit", *args])
        assert self.deployment is not None
        assert parsed.stack == "ProductionOrchestrator"
        request = (ROOT / parsed.request).read_text(encoding="utf-8")
        options = {"as_of": parsed.as_of} if parsed.as_of else {}
        out = self.deployment.submit(request, **options)
        self.values["EXECUTION_ARN"] = str(out["execution_arn"])
        self.values["EXECUTION_NAME"] = str(out["execution_name"])


def _bucket_id(template: dict[str, Any]) -> str:
    (bucket_id,) = [k for k, r in template["Resources"].items() if r["Type"] == "AWS::S3::Bucket"]
    return bucket_id


@pytest.fixture(scope="module")
def aws() -> Iterator[LocalAws]:
    with local_aws() as local:
        yield local


def test_the_deploy_steps_run_as_written(aws: LocalAws, tmp_path: Path) -> None:
    runner = Runner(aws, tmp_path)
    ses_mark = len(ses_accepted())
    results: dict[str, Any] = {}
    for step in guide_steps():
        for line in step.commands:
            if line.startswith("aws stepfunctions describe-execution"):
                # The person watches the console until the approver has decided: play the approver here.
                deployment = runner.deployment
                assert deployment is not None
                message = deployment.wait_for_message()
                page, decided = deployment.decide(message.link, approve=True)
                assert (page.status, decided.status) == (200, 200)
                deployment.wait_for_status(runner.values["EXECUTION_ARN"])
            results[line] = runner.run(line)
            runner.ran.append(line)
            if re.search(r"\bshop import\b", line):
                # --table alone: the CLI found the operator function by the table's tag, so the import's audit
                # event carries a MAC and a keyed verify of the fresh stack reports the chain intact.
                macs, verified = runner.keyed_verify()
                assert macs and all(macs), macs
                assert "AUDIT_CHAIN=intact" in verified, verified
    deployment = runner.deployment
    assert deployment is not None
    status_lines = [line for line in results if line.startswith("aws stepfunctions describe-execution")]
    assert [results[line] for line in status_lines] == ["SUCCEEDED"]
    states = deployment.states(runner.values["EXECUTION_ARN"])
    assert states[-2:] == [STATE_SEND_MESSAGES, STATE_PLAN_APPLIED]
    # The plan applied on the imported shop, its messages went out through SES from the verified sender.
    assert len(ses_accepted()) > ses_mark
    # Teardown: the table is gone.
    tables = aws.client("dynamodb").list_tables()["TableNames"]
    assert deployment.table_name not in tables
    # ... and the versioned session bucket, emptied of every version first.
    buckets = [b["Name"] for b in aws.client("s3").list_buckets()["Buckets"]]
    assert deployment.bucket_name not in buckets
    assert any(line.startswith("npx cdk deploy") for line in runner.ran)
    assert any(re.search(r"\bshop[ -]import\b", line) for line in runner.ran)


def test_a_submit_before_the_shop_import_step_ends_in_no_shop_to_plan_on(aws: LocalAws, tmp_path: Path) -> None:
    """The guide's order matters: a run submitted between the deploy and the shop import step says why it
    cannot plan (the state NoShopToPlanOn), and writes nothing."""
    runner = Runner(aws, tmp_path)
    steps = guide_steps()
    deploy = next(line for s in steps for line in s.commands if line.startswith("npx cdk deploy"))
    submit = next(line for s in steps for line in s.commands if line.startswith("production-orchestrator submit"))
    for line in next(s for s in steps if "ses" in s.title.lower()).commands:
        runner.run(line)
    runner.run(deploy)
    runner.run(submit)
    deployment = runner.deployment
    assert deployment is not None
    arn = runner.values["EXECUTION_ARN"]
    assert deployment.wait_for_status(arn) == "FAILED"
    assert deployment.states(arn)[-1] == "NoShopToPlanOn"
    assert deployment.store.load_state() is None


def test_an_unknown_line_fails_the_runner(aws: LocalAws, tmp_path: Path) -> None:
    runner = Runner(aws, tmp_path)
    with pytest.raises(AssertionError, match="does not know"):
        runner.run("curl https://example.com/install.sh")
    with pytest.raises(StopIteration):
        runner.run("aws dynamodb drop-everything --table-name x")
    with pytest.raises(KeyError):
        runner.run("aws sesv2 create-email-identity --email-address orders@harbour-print.example")


def test_a_synth_refusal_in_the_deploy_line_fails_the_runner(aws: LocalAws, tmp_path: Path) -> None:
    from production_orchestrator.domain.errors import ConfigurationError

    runner = Runner(aws, tmp_path)
    with pytest.raises(ConfigurationError, match="senderEmail"):
        runner.run("npx cdk deploy -c approverEmails=ana@harbour-print.example")
    assert json.dumps(MOTO_CONTEXT)  # the overrides never touch the guide's approvers, sender or submitters


@pytest.mark.parametrize(("where", "line"), documented_cdk_lines(), ids=lambda v: v[:60])
def test_every_documented_cdk_command_synthesizes_as_written(where: str, line: str) -> None:
    """Each ``npx cdk deploy|synth`` the docs show, with exactly its ``-c`` values: the CDK CLI would accept its
    context, and the app synthesizes it (a refusal, e.g. a missing senderEmail, fails here)."""
    words = shlex.split(line)
    assert words[2] in ("deploy", "synth"), line
    rest = [w for w in words[3:] if w not in ("--quiet",)]
    context = cli_context(rest)
    template = synthesize(context)
    assert {"TableName", "SubmitUrl", "SubmitFunctionArn"} <= set(template["Outputs"]), where


def test_the_documented_cdk_commands_include_the_guides() -> None:
    lines = documented_cdk_lines()
    assert any(w == "docs/how-to/deploy.md" and "deploy" in line for w, line in lines)
    assert any("bundling=off" in line for _, line in lines)
    with pytest.raises(AssertionError, match="refuses user-provided context"):
        cli_context(["-c", "aws:cdk:bundling-stacks=[]"])


def test_the_submit_permission_step_grants_both_actions_on_a_stack_output() -> None:
    """Step 7's policy statement, parsed from the guide: both actions a Function URL call needs (since October
    2025), on the ``SubmitFunctionArn`` output, as the IAM evaluator the workflow tests use reads it."""
    from tests.support.iam_calls import allowed

    step = next(s for s in guide_steps() if "submit url" in s.title.lower())
    statement = json.loads(re.search(r"`(\{\"Effect\".*?\})`", step.text, re.S).group(1))  # type: ignore[union-attr]
    assert statement["Resource"] == "<SubmitFunctionArn>"
    template = synthesize({})
    assert "SubmitFunctionArn" in template["Outputs"]
    for action in ("lambda:InvokeFunctionUrl", "lambda:InvokeFunction"):
        assert allowed([statement], action, None), action


def test_the_shop_import_step_grants_the_operators_what_the_cli_calls_on_stack_outputs() -> None:
    """Step 6's policy, parsed from the guide: invoking the operator function, reading the table's tags
    (DescribeTable for its ARN, ListTagsOfResource) and its items, each on the stack output naming its resource.
    What each operator command calls is checked against the same policy on moto
    (tests/integration/test_aws_operator_policy.py)."""
    from tests.support.iam_calls import allowed

    step = next(s for s in guide_steps() if "import your shop" in s.title.lower())
    statements = operator_policy()
    outputs = synthesize({})["Outputs"]
    for statement in statements:
        assert [p for p in placeholders(statement) if p not in outputs] == [], statement
    by_sid = {s["Sid"]: [s] for s in statements}
    assert by_sid["MacOperatorWrites"][0]["Resource"] == "<OperatorFunctionArn>"
    assert allowed(by_sid["MacOperatorWrites"], "lambda:InvokeFunction", None)
    for action in ("dynamodb:DescribeTable", "dynamodb:ListTagsOfResource"):
        assert allowed(by_sid["FindOperatorFunction"], action, None), action
    assert "--operator-function" not in " ".join(step.commands)  # --table alone finds it
