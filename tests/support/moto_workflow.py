"""The synthesized workflow, executed on a moto server with our handlers as the Lambda functions.

    LocalAws (moto on 127.0.0.1, Step Functions execution on, Lambda invoke routed to LambdaRouter)
      -> Deployment(template): table, bucket, topic (+ a capture queue), one function per template
         function with the template's environment rendered, the state machine from the template's
         definition with Ref / Fn::GetAtt / Fn::Join resolved to the moto ARNs
      -> DecisionEndpoint: the decide function behind a loopback HTTP server (moto serves no Function URLs)

Every invocation runs in a fresh Python process (tests/support/lambda_process.py), so start and resume
have different process ids as on AWS; an exception comes back as ``{"errorType", "errorMessage"}`` with
the ``x-amz-function-error`` header, which is what Step Functions' Catch matches on.
"""

from __future__ import annotations

import base64
import contextlib
import email
import email.policy
import html
import io
import json
import logging
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit

import boto3  # type: ignore[import-untyped]
from moto.awslambda_simple.models import LambdaSimpleBackend
from moto.server import ThreadedMotoServer

from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.agent.scripted_model import SCRIPTED_MODEL_ID
from production_orchestrator.domain.errors import ResumeRefusedError
from production_orchestrator.domain.messages.outbox import OUTBOX_HEADER
from production_orchestrator.domain.scenarios import scenario
from tests.support.cdk_template import render, resources_of_type, state_machine_definition
from tests.support.moto_aws import SUBMITTERS, operator_arn

REGION = "us-east-1"
ACCOUNT = "123456789012"
# Who starts each execution (separation of duties is on in the stack: the requester may not approve).
REQUESTER = "ops@example.com"
ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS_DIR = ROOT / "functions"
CHILD = Path(__file__).resolve().parent / "lambda_process.py"
DECIDE_MODULE = "decide"
SEND_OUTBOX_MODULE = "send_outbox"
SUBMIT_MODULE = "submit"
# The strands-free asset's functions: their local processes refuse to import strands too.
REMIND_MODULE = "remind"
STRANDS_FREE_MODULES = frozenset({DECIDE_MODULE, SEND_OUTBOX_MODULE, SUBMIT_MODULE, REMIND_MODULE, "receive_email"})
# Who submits in the local runs: an operator's SSO role session (an e-mail, not an approver).
SUBMITTER = "olga@shop.example"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_REGION": REGION,
    "AWS_DEFAULT_REGION": REGION,
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "AWS_EC2_METADATA_DISABLED": "true",
}
INVOKE_TIMEOUT_SECONDS = 120
# The context the local runs synthesize with: the scripted model, one approver, a window long enough to
# decide in; the expiry run uses one short enough to wait out.
LOCAL_CONTEXT = {
    "provider": "deterministic",
    "modelId": SCRIPTED_MODEL_ID,
    "modelRegion": "",
    "approverEmails": "approver@example.com",
    "approvalWindow": "10m",
    "senderEmail": "orders@shop.example.com",
    "submitters": json.dumps(SUBMITTERS),
}
EXPIRING_CONTEXT = {**LOCAL_CONTEXT, "approvalWindow": "4s"}
_TERMINAL = {"SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"}


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Invocation:
    """One handler run in its own process."""

    function_name: str
    handler_module: str
    pid: int
    event: Any
    result: Any = None
    error: dict[str, str] | None = None
    logs: str = ""
    calls: list[list[Any]] = field(default_factory=list)  # [signing name, operation, partition keys]


@dataclass
class _Function:
    name: str
    arn: str
    handler: str
    environment: dict[str, str]

    @property
    def module(self) -> str:
        return self.handler.split(".")[-2]


class LambdaRouter:
    """Runs invocations of registered functions as subprocesses and keeps every invocation."""

    def __init__(self, endpoint: str) -> None:
        self._endpoint = endpoint
        self._functions: dict[str, _Function] = {}
        self._lock = threading.Lock()
        self.invocations: list[Invocation] = []
        self._faults: dict[str, list[str]] = {}  # function name -> crash points, one per coming invocation
        self._overrides: dict[str, list[dict[str, str]]] = {}  # function name -> environments, one per invocation

    def register(self, function: _Function) -> None:
        self._functions[function.name] = function

    def crash_next(self, function_name: str, *points: str) -> None:
        """The next invocations of ``function_name`` die by SIGKILL at ``points`` (faults.py), in order."""
        self._faults.setdefault(function_name, []).extend(points)

    def environment_next(self, function_name: str, environment: dict[str, str]) -> None:
        """The next invocation of ``function_name`` runs with ``environment`` over its configured one."""
        self._overrides.setdefault(function_name, []).append(environment)

    def invoke(self, function_name: str, event: Any, *, now: datetime | None = None) -> Invocation:
        """Run ``function_name``'s handler on ``event`` in a fresh interpreter (at ``now``, when given)."""
        name = function_name.split(":function:")[-1].split(":")[0]
        function = self._functions[name]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/tmp"),
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(FUNCTIONS_DIR),
            **CREDENTIALS,
            "AWS_ENDPOINT_URL": self._endpoint,
            "AWS_LAMBDA_FUNCTION_NAME": function.name,
            "PO_LOCAL_FUNCTION_ARN": function.arn,
            "POWERTOOLS_TRACE_DISABLED": "true",
            **function.environment,
        }
        if now is not None:
            env["PO_LOCAL_NOW"] = now.isoformat()
        with self._lock:
            pending = self._faults.get(name)
            if pending:
                env["PO_FAULT_KILL_AT"] = pending.pop(0)
            overrides = self._overrides.get(name)
            if overrides:
                env.update(overrides.pop(0))
        with tempfile.TemporaryDirectory(prefix="po-invoke-") as tmp:
            result_file = Path(tmp) / "result.json"
            args = [sys.executable, str(CHILD), function.handler, str(result_file)]
            if function.module in STRANDS_FREE_MODULES:
                args.append("no-strands")
            proc = subprocess.run(
                args,
                input=json.dumps(event),
                capture_output=True,
                text=True,
                env=env,
                cwd=tmp,
                timeout=INVOKE_TIMEOUT_SECONDS,
                check=False,
            )
            logs = proc.stdout + proc.stderr
            if not result_file.exists():
                outcome: dict[str, Any] = {
                    "pid": -1,
                    "error": {"errorType": "Runtime.ExitError", "errorMessage": f"exit {proc.returncode}"},
                }
            else:
                outcome = json.loads(result_file.read_text(encoding="utf-8"))
        invocation = Invocation(
            function_name=function.name,
            handler_module=function.module,
            pid=int(outcome["pid"]),
            event=event,
            result=outcome.get("result"),
            error=outcome.get("error"),
            logs=logs,
            calls=outcome.get("calls", []),
        )
        with self._lock:
            self.invocations.append(invocation)
        return invocation

    def moto_invoke(self, function_name: str, body: Any, response_headers: dict[str, str]) -> bytes:
        """The reply moto's Lambda invoke returns to Step Functions."""
        raw = body.decode() if isinstance(body, bytes) else (body or "{}")
        invocation = self.invoke(function_name, json.loads(raw))
        if invocation.error is not None:
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps(invocation.error).encode()
        return json.dumps(invocation.result).encode()


@contextmanager
def local_aws() -> Iterator[LocalAws]:
    """A moto server on 127.0.0.1 that executes state machines and routes Lambda invokes to our handlers."""
    port = free_port()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    saved = {key: os.environ.get(key) for key in ("MOTO_PORT", *CREDENTIALS)}
    # Moto's own clients (Step Functions calling Lambda, SNS...) find the server through MOTO_PORT.
    os.environ.update({"MOTO_PORT": str(port), **CREDENTIALS})
    original_invoke = LambdaSimpleBackend.invoke
    aws = LocalAws(f"http://127.0.0.1:{port}")

    def routed_invoke(
        backend: Any, function_name: str, qualifier: Any, body: Any, headers: Any, response_headers: Any
    ) -> bytes:
        return aws.router.moto_invoke(function_name, body, response_headers)

    LambdaSimpleBackend.invoke = routed_invoke  # type: ignore[method-assign,assignment]
    try:
        aws.configure()
        yield aws
    finally:
        LambdaSimpleBackend.invoke = original_invoke  # type: ignore[method-assign]
        aws.close()
        server.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class LocalAws:
    """Clients on the moto server and the router its Lambda invokes go to."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.router = LambdaRouter(endpoint)
        self.session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION)
        self._endpoints: list[DecisionEndpoint] = []

    def client(self, service: str) -> Any:
        """A boto3 client talking to the moto server."""
        return self.session.client(service, endpoint_url=self.endpoint)  # type: ignore[call-overload]

    def configure(self) -> None:
        """Turn on Step Functions execution and the Docker-free Lambda backend."""
        request = urllib.request.Request(
            f"{self.endpoint}/moto-api/config",
            data=json.dumps(
                {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}
            ).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()

    def deploy(self, template: Mapping[str, Any], tag: str | None = None, *, verify_sender: bool = True) -> Deployment:
        """Create the template's resources on the server (each deployment has its own)."""
        endpoint = DecisionEndpoint(self.router)
        self._endpoints.append(endpoint)
        return Deployment(self, template, tag or secrets.token_hex(4), endpoint, verify_sender=verify_sender)

    def close(self) -> None:
        for endpoint in self._endpoints:
            endpoint.close()


@dataclass
class HttpExchange:
    """One request to the decision endpoint and its response."""

    method: str
    url: str
    status: int
    body: str
    request_body: str = ""


class DecisionEndpoint:
    """The decide function behind a loopback HTTP server, as its Function URL would serve it."""

    def __init__(self, router: LambdaRouter) -> None:
        self.router = router
        self.function_name = ""
        self.exchanges: list[HttpExchange] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                endpoint._serve(self, "GET")

            def do_HEAD(self) -> None:
                endpoint._serve(self, "HEAD")

            def do_POST(self) -> None:
                endpoint._serve(self, "POST")

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the request line holds the link secret

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _serve(self, request: BaseHTTPRequestHandler, method: str) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else b""
        parts = urlsplit(request.path)
        event = {
            "version": "2.0",
            "routeKey": "$default",
            "rawPath": parts.path,
            "rawQueryString": parts.query,
            "headers": {k.lower(): v for k, v in request.headers.items()},
            "requestContext": {
                "accountId": "anonymous",
                "apiId": "local",
                "domainName": request.headers.get("Host", "127.0.0.1"),
                "http": {
                    "method": method,
                    "path": parts.path,
                    "protocol": "HTTP/1.1",
                    "sourceIp": "127.0.0.1",
                    "userAgent": request.headers.get("User-Agent", ""),
                },
                "requestId": secrets.token_hex(8),
                "routeKey": "$default",
                "stage": "$default",
                "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()),
                "timeEpoch": int(time.time() * 1000),
            },
            "body": base64.b64encode(body).decode(),
            "isBase64Encoded": True,
        }
        if parts.query:
            event["queryStringParameters"] = dict(parse_qsl(parts.query, keep_blank_values=True))
        invocation = self.router.invoke(self.function_name, event)
        if invocation.error is not None:
            status, headers, page = 502, {"Content-Type": "text/plain"}, "internal error"
        else:
            reply = invocation.result
            status, headers, page = int(reply["statusCode"]), dict(reply.get("headers") or {}), reply.get("body") or ""
        data = page.encode()
        request.send_response(status)
        for name, value in headers.items():
            request.send_header(name, value)
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        if method != "HEAD":
            request.wfile.write(data)
        self.exchanges.append(
            HttpExchange(method, f"{self.base_url.rstrip('/')}{request.path}", status, page, body.decode())
        )


@dataclass
class ApprovalMessage:
    """One SNS message the topic delivered (what an approver's e-mail would hold)."""

    subject: str
    body: str
    attributes: dict[str, Any]
    link: str


@dataclass
class Schedule:
    """One EventBridge Scheduler schedule as moto holds it."""

    name: str
    at: datetime
    detail: dict[str, Any]


@dataclass
class Page:
    """The decision endpoint's answer to one request."""

    status: int
    body: str


class Deployment:
    """One stack's resources on the moto server and the state machine rendered from its template."""

    def __init__(
        self,
        aws: LocalAws,
        template: Mapping[str, Any],
        tag: str,
        endpoint: DecisionEndpoint,
        *,
        verify_sender: bool = True,
    ) -> None:
        self.aws = aws
        self.verify_sender = verify_sender
        self.submit_function = ""
        self.template = template
        self.endpoint = endpoint
        self.messages: list[ApprovalMessage] = []
        self._delivered = 0
        self._names: dict[str, str] = {}  # logical id -> physical name / ARN
        self._function_arns: dict[str, str] = {}
        self._role_arns: dict[str, str] = {}
        self.dynamodb = aws.client("dynamodb")
        self.sfn = aws.client("stepfunctions")
        self.sqs = aws.client("sqs")
        self._create_state_store(tag)
        self._create_topic(tag)
        self._create_receipt_keys()
        self._create_mail(tag)
        self._create_schedule_groups(tag)
        role_arn = self._create_role(tag)
        # The submit function names the state machine, which names the functions: its ARN is known by name.
        (machine_id,) = resources_of_type(template, "AWS::StepFunctions::StateMachine")
        self._names[machine_id] = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:po-{tag}"
        self._create_functions(tag, role_arn)
        self._tag_table()
        definition = state_machine_definition(template, self.resolve)
        self.definition = definition
        self.state_machine_arn = self.sfn.create_state_machine(
            name=f"po-{tag}", definition=json.dumps(definition), roleArn=role_arn, type="STANDARD"
        )["stateMachineArn"]
        assert self.state_machine_arn == self._names[machine_id]
        # Which function each Task state invokes, read from the definition itself.
        self.state_of_function: dict[str, str] = {}
        for name, state in definition["States"].items():
            if state["Type"] == "Task":
                arn = state.get("Parameters", {}).get("FunctionName", state["Resource"])
                # A function two states invoke (run_agent: the first version and a revised one) is named by the first.
                self.state_of_function.setdefault(arn.split(":function:")[-1], name)

    # -- resources -------------------------------------------------------------------------------------

    def _create_state_store(self, tag: str) -> None:
        ((table_id, table),) = resources_of_type(self.template, "AWS::DynamoDB::Table").items()
        props = table["Properties"]
        self.table_name = f"po-{tag}"
        self.dynamodb.create_table(
            TableName=self.table_name,
            KeySchema=props["KeySchema"],
            AttributeDefinitions=props["AttributeDefinitions"],
            LocalSecondaryIndexes=props["LocalSecondaryIndexes"],
            BillingMode=props["BillingMode"],
        )
        ttl = props["TimeToLiveSpecification"]
        self.dynamodb.update_time_to_live(
            TableName=self.table_name,
            TimeToLiveSpecification={"Enabled": ttl["Enabled"], "AttributeName": ttl["AttributeName"]},
        )
        self._names[table_id] = self.table_name
        ((bucket_id, _),) = resources_of_type(self.template, "AWS::S3::Bucket").items()
        self.bucket_name = f"po-sessions-{tag}"
        self.aws.client("s3").create_bucket(Bucket=self.bucket_name)
        self._names[bucket_id] = self.bucket_name
        self.store = DynamoShopStore(self.dynamodb, self.table_name)

    def _create_topic(self, tag: str) -> None:
        sns = self.aws.client("sns")
        for index, topic_id in enumerate(resources_of_type(self.template, "AWS::SNS::Topic")):
            self._names[topic_id] = sns.create_topic(Name=f"po-{tag}-{index}")["TopicArn"]
        (function_env,) = {
            fn["Properties"]["Environment"]["Variables"]["PO_TOPIC_ARN"]["Ref"]
            for fn in resources_of_type(self.template, "AWS::Lambda::Function").values()
        }
        self.topic_arn = self._names[function_env]
        # Stands in for the approvers' inboxes: every message published to the approval topic.
        queue_url = self.sqs.create_queue(QueueName=f"po-{tag}-inbox")["QueueUrl"]
        queue_arn = self.sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        sns.subscribe(TopicArn=self.topic_arn, Protocol="sqs", Endpoint=queue_arn)
        self.inbox_url = queue_url

    def _create_receipt_keys(self) -> None:
        kms = self.aws.client("kms")
        for key_id, key in resources_of_type(self.template, "AWS::KMS::Key").items():
            props = key["Properties"]
            if props.get("KeySpec") == "HMAC_256":
                created = kms.create_key(KeySpec="HMAC_256", KeyUsage=props["KeyUsage"], Description="receipts")
                self._names[key_id] = created["KeyMetadata"]["KeyId"]

    def _create_mail(self, tag: str) -> None:
        """The stack's SES configuration set, and the sender identity verified (as the operator would)."""
        sesv2 = self.aws.client("sesv2")
        for index, config_id in enumerate(resources_of_type(self.template, "AWS::SES::ConfigurationSet")):
            name = f"po-{tag}-{index}"
            sesv2.create_configuration_set(ConfigurationSetName=name)
            self._names[config_id] = name
        senders = {
            fn["Properties"]["Environment"]["Variables"].get("PO_SENDER_EMAIL")
            for fn in resources_of_type(self.template, "AWS::Lambda::Function").values()
        } - {None}
        for sender in senders if self.verify_sender else ():
            sesv2.create_email_identity(EmailIdentity=sender)

    def _create_schedule_groups(self, tag: str) -> None:
        """The stack's EventBridge Scheduler group (reminders), and the ARN of every role the functions name."""
        scheduler = self.aws.client("scheduler")
        for index, group_id in enumerate(resources_of_type(self.template, "AWS::Scheduler::ScheduleGroup")):
            name = f"po-{tag}-{index}"
            scheduler.create_schedule_group(Name=name)
            self._names[group_id] = name
        for role_id in resources_of_type(self.template, "AWS::IAM::Role"):
            self._role_arns[role_id] = f"arn:aws:iam::{ACCOUNT}:role/po-{tag}-{role_id}"[:100]

    def _create_role(self, tag: str) -> str:
        trust = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": "*"}, "Action": "sts:AssumeRole"}],
        }
        return str(
            self.aws.client("iam").create_role(RoleName=f"po-{tag}", AssumeRolePolicyDocument=json.dumps(trust))[
                "Role"
            ]["Arn"]
        )

    def _create_functions(self, tag: str, role_arn: str) -> None:
        lam = self.aws.client("lambda")
        functions = resources_of_type(self.template, "AWS::Lambda::Function")
        for logical_id in functions:
            name = f"po-{tag}-{logical_id}"[:64]
            self._function_arns[logical_id] = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
        for url_id in resources_of_type(self.template, "AWS::Lambda::Url"):
            self._names[url_id] = self.endpoint.base_url
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("README.txt", "code runs locally through tests/support/lambda_process.py")
        for logical_id, fn in functions.items():
            props = fn["Properties"]
            name = self._function_arns[logical_id].split(":function:")[1]
            environment = {k: str(v) for k, v in render(props["Environment"]["Variables"], self.resolve).items()}
            arn = lam.create_function(
                FunctionName=name,
                Runtime=props["Runtime"],
                Role=role_arn,
                Handler=props["Handler"],
                Code={"ZipFile": archive.getvalue()},
                Timeout=props.get("Timeout", 30),
                MemorySize=props.get("MemorySize", 128),
                Environment={"Variables": environment},
            )["FunctionArn"]
            function = _Function(name=name, arn=arn, handler=props["Handler"], environment=environment)
            self.aws.router.register(function)
            if function.module == DECIDE_MODULE:
                self.endpoint.function_name = name
            if function.module == SUBMIT_MODULE:
                self.submit_function = name

    def _tag_table(self) -> None:
        """The table's tags as the template sets them, a function's name the template sets (the operator function's,
        which the table's tag names) replaced by the one this deployment gave it."""
        (table,) = resources_of_type(self.template, "AWS::DynamoDB::Table").values()
        named = {
            str(fn["Properties"]["FunctionName"]): self._function_arns[logical_id].split(":function:")[1]
            for logical_id, fn in resources_of_type(self.template, "AWS::Lambda::Function").items()
            if isinstance(fn["Properties"].get("FunctionName"), str)
        }
        tags = []
        for tag in table["Properties"].get("Tags", []):
            value = str(render(tag["Value"], self.resolve))
            tags.append({"Key": tag["Key"], "Value": named.get(value, value)})
        if tags:
            arn = self.dynamodb.describe_table(TableName=self.table_name)["Table"]["TableArn"]
            self.dynamodb.tag_resource(ResourceArn=arn, Tags=tags)

    def function_name(self, module: str) -> str:
        """The moto function name of handler module ``module`` in this deployment."""
        for logical_id, fn in resources_of_type(self.template, "AWS::Lambda::Function").items():
            if fn["Properties"]["Handler"].split(".")[-2] == module:
                return self._function_arns[logical_id].split(":function:")[1]
        raise KeyError(module)

    def resolve(self, logical_id: str, attribute: str | None) -> str:
        """The moto value of ``Ref``/``Fn::GetAtt`` for this deployment."""
        pseudo = {
            "AWS::Partition": "aws",
            "AWS::Region": REGION,
            "AWS::AccountId": ACCOUNT,
            "AWS::URLSuffix": "amazonaws.com",
        }
        if logical_id in pseudo:
            return pseudo[logical_id]
        if logical_id in self._function_arns and attribute == "Arn":
            return self._function_arns[logical_id]
        if logical_id in self._role_arns and attribute == "Arn":
            return self._role_arns[logical_id]
        if logical_id in self._names:
            return self._names[logical_id]
        raise KeyError(f"cannot resolve {logical_id}.{attribute} locally")

    # -- running -----------------------------------------------------------------------------------------

    def submit(self, request: str, session: str = SUBMITTER, **options: str) -> dict[str, Any]:
        """A SigV4-signed POST to the submit Function URL as ``session``: what Lambda hands the function after it
        verified the signature (moto serves no Function URLs). The reply: execution ARN, name, requested_by."""
        event = {
            "version": "2.0",
            "routeKey": "$default",
            "rawPath": "/",
            "rawQueryString": "",
            "headers": {"content-type": "application/json"},
            "requestContext": {
                "accountId": ACCOUNT,
                "authorizer": {
                    "iam": {
                        "accountId": ACCOUNT,
                        "callerId": f"AROALOCAL:{session}",
                        "userArn": operator_arn(session),
                        "userId": f"AROALOCAL:{session}",
                    }
                },
                "http": {"method": "POST", "path": "/", "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1"},
                "requestId": secrets.token_hex(8),
                "stage": "$default",
            },
            "body": base64.b64encode(json.dumps({**options, "request": request}).encode()).decode(),
            "isBase64Encoded": True,
        }
        invocation = self.aws.router.invoke(self.submit_function, event)
        if invocation.error is not None or invocation.result["statusCode"] != 202:
            raise AssertionError(f"submit failed: {invocation.error or invocation.result}")
        return dict(json.loads(invocation.result["body"]))

    def submit_scenario(self, name: str = "rush-order") -> dict[str, Any]:
        """Submit reference scenario ``name``'s e-mail on its own shop: imported first with the operator's
        credentials when the table holds none (no function may write the shop's state but the apply)."""
        from production_orchestrator.services.shop.importing import ImportShop, import_shop
        from tests.support.runtimes import runtime_of

        if self.store.load_state() is None:
            import_shop(runtime_of(self.store), ImportShop(scenario(name).state))
        return self.submit(scenario(name).customer_email, scenario=name)

    def start(self, execution_input: Mapping[str, Any] | None = None) -> str:
        """Start an execution by hand (``start-execution``, no submission behind it); returns its ARN."""
        return str(
            self.sfn.start_execution(
                stateMachineArn=self.state_machine_arn,
                # moto names an unnamed execution "None"; AWS would pick a UUID.
                name=f"run-{secrets.token_hex(6)}",
                input=json.dumps(dict(execution_input or {})),
            )["executionArn"]
        )

    def wait_for_message(self, timeout: float = 90) -> ApprovalMessage:
        """The next approval message published to the topic."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            batch = self.sqs.receive_message(QueueUrl=self.inbox_url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
            for raw in batch.get("Messages", []):
                envelope = json.loads(raw["Body"])
                body = envelope["Message"]
                link = next(
                    line.strip() for line in body.splitlines() if line.strip().startswith(self.endpoint.base_url)
                )
                self.messages.append(
                    ApprovalMessage(
                        subject=envelope.get("Subject", ""),
                        body=body,
                        attributes=envelope.get("MessageAttributes", {}),
                        link=link,
                    )
                )
                self.sqs.delete_message(QueueUrl=self.inbox_url, ReceiptHandle=raw["ReceiptHandle"])
            if len(self.messages) > self._delivered:
                self._delivered += 1
                return self.messages[self._delivered - 1]
        raise TimeoutError("no approval message was published")

    def wait_for_status(self, execution_arn: str, timeout: float = 120) -> str:
        """Poll until the execution ends; returns its status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = str(self.sfn.describe_execution(executionArn=execution_arn)["status"])
            if status in _TERMINAL:
                return status
            time.sleep(0.25)
        raise TimeoutError(f"execution still running after {timeout}s")

    def history(self, execution_arn: str) -> list[dict[str, Any]]:
        """Every history event of the execution, oldest first."""
        events: list[dict[str, Any]] = []
        params: dict[str, Any] = {"executionArn": execution_arn, "maxResults": 1000}
        while True:
            page = self.sfn.get_execution_history(**params)
            events.extend(page["events"])
            if not page.get("nextToken"):
                return events
            params["nextToken"] = page["nextToken"]

    def states(self, execution_arn: str) -> list[str]:
        """The names of the states entered, in order."""
        return [
            e["stateEnteredEventDetails"]["name"]
            for e in self.history(execution_arn)
            if e["type"].endswith("StateEntered")
        ]

    def task_token(self, execution_arn: str) -> str:
        """The task token Step Functions handed to the parked task (read from the execution history)."""
        for event in self.history(execution_arn):
            details = event.get("taskScheduledEventDetails")
            if details and "waitForTaskToken" in details.get("resource", ""):
                return str(json.loads(details["parameters"])["Payload"]["task_token"])
        raise LookupError("no waitForTaskToken task was scheduled")

    def pids_by_state(self) -> dict[str, int]:
        """State name -> process id of the (last) invocation of that state's function."""
        pids: dict[str, int] = {}
        for invocation in self.aws.router.invocations:
            state = self.state_of_function.get(invocation.function_name)
            if state is not None:
                pids[state] = invocation.pid
        return pids

    def schedules(self) -> list[Schedule]:
        """The reminder wake-ups waiting in the stack's schedule group, soonest first."""
        scheduler = self.aws.client("scheduler")
        found = []
        for group_id in resources_of_type(self.template, "AWS::Scheduler::ScheduleGroup"):
            group = self._names[group_id]
            for summary in scheduler.list_schedules(GroupName=group)["Schedules"]:
                detail = scheduler.get_schedule(GroupName=group, Name=summary["Name"])
                expression = detail["ScheduleExpression"]
                found.append(
                    Schedule(
                        name=detail["Name"],
                        at=datetime.fromisoformat(expression.removeprefix("at(").removesuffix(")")).replace(tzinfo=UTC),
                        detail=detail,
                    )
                )
        return sorted(found, key=lambda s: (s.at, s.name))

    def fire(self, schedule: Schedule, at: datetime | None = None) -> Invocation:
        """What EventBridge Scheduler does at the schedule's moment: invoke its target with its input (once
        more when a test re-runs it), the clock at ``at`` (default: the schedule's own moment)."""
        target = schedule.detail["Target"]
        invocation = self.aws.router.invoke(target["Arn"], json.loads(target["Input"]), now=at or schedule.at)
        if schedule.detail.get("ActionAfterCompletion") == "DELETE":  # as Scheduler does once it invoked
            scheduler = self.aws.client("scheduler")
            # Already gone when a test re-runs a schedule that fired before.
            with contextlib.suppress(scheduler.exceptions.ResourceNotFoundException):
                scheduler.delete_schedule(GroupName=schedule.detail["GroupName"], Name=schedule.name)
        return invocation

    def drain(self) -> list[ApprovalMessage]:
        """Every message published to the topic since the last read, without waiting."""
        before = len(self.messages)
        while True:
            batch = self.sqs.receive_message(QueueUrl=self.inbox_url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
            if not batch.get("Messages"):
                break
            for raw in batch["Messages"]:
                envelope = json.loads(raw["Body"])
                body = envelope["Message"]
                link = next(
                    (line.strip() for line in body.splitlines() if line.strip().startswith(self.endpoint.base_url)),
                    "",
                )
                self.messages.append(
                    ApprovalMessage(
                        subject=envelope.get("Subject", ""),
                        body=body,
                        attributes=envelope.get("MessageAttributes", {}),
                        link=link,
                    )
                )
                self.sqs.delete_message(QueueUrl=self.inbox_url, ReceiptHandle=raw["ReceiptHandle"])
        self._delivered = len(self.messages)
        return self.messages[before:]

    def invocations(self) -> list[Invocation]:
        """Every invocation of this deployment's functions (the decision endpoint's included)."""
        mine = {arn.split(":function:")[1] for arn in self._function_arns.values()}
        return [i for i in self.aws.router.invocations if i.function_name in mine]

    # -- the human ---------------------------------------------------------------------------------------

    def open(self, url: str, method: str = "GET", form: Mapping[str, str] | None = None) -> Page:
        """Request ``url`` from the decision endpoint as a browser would."""
        data = None if form is None else urlencode(dict(form)).encode()
        request = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with urllib.request.urlopen(request, timeout=INVOKE_TIMEOUT_SECONDS) as response:
                return Page(response.status, response.read().decode())
        except urllib.error.HTTPError as exc:
            return Page(exc.code, exc.read().decode())

    def decide(self, link: str, *, approve: bool, reason: str = "") -> tuple[Page, Page]:
        """GET the page, then POST the form it holds with the decision; returns both pages."""
        page = self.open(link)
        fields = hidden_fields(page.body)
        form = {**fields, "decision": "approve" if approve else "reject", "reason": reason}
        return page, self.open(link, "POST", form)


def hidden_fields(page: str) -> dict[str, str]:
    """The hidden inputs of the confirmation form."""
    return {
        name: html.unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page)
    }


def redact_link(link: str) -> str:
    """The link with its secret replaced (for anything printed or stored)."""
    return re.sub(r"([?&]s=)[^&]+", r"\1<redacted>", link)


@dataclass
class RunRecord:
    """Everything one execution produced that a token could leak into."""

    texts: list[str] = field(default_factory=list)

    def add(self, *texts: str) -> None:
        self.texts.extend(texts)

    def contains(self, needle: str) -> bool:
        """True if ``needle`` (or its URL- or JSON-escaped form) appears in any captured text."""
        forms = {needle, quote(needle, safe=""), quote_plus(needle), json.dumps(needle)[1:-1]}
        return any(form in text for text in self.texts for form in forms)


def captured_texts(deployment: Deployment) -> RunRecord:
    """Every log line, SNS message, URL and page of a deployment's runs."""
    record = RunRecord()
    for invocation in deployment.invocations():
        record.add(invocation.logs)
    for message in deployment.messages:
        record.add(message.subject, message.body, json.dumps(message.attributes), message.link)
    for exchange in deployment.endpoint.exchanges:
        record.add(exchange.url, exchange.body, exchange.request_body)
    return record


CASES = ("approve", "reject", "stale", "expire")


@dataclass
class WorkflowRun:
    """What one execution did, as the tests assert it and the evidence records it."""

    case: str
    execution_arn: str
    status: str
    states: list[str]
    lambda_pids: dict[str, int]
    decision_endpoint_pids: list[int]
    proposal_hash: str
    revision_before: int
    revision_after: int
    plan_applied_count: int
    task_token_leaked: bool
    redacted_link: str
    page_statuses: dict[str, int]
    error: str | None
    refusal: str | None  # the resume gate's message ("<CODE>: ..."), when it refused
    ses_outbox_keys: list[str] = field(default_factory=list)  # outbox key of each message SES accepted
    requested_by: str = ""  # who RunAgentUntilApproval recorded as the requester

    def evidence(self) -> dict[str, Any]:
        """The evidence report (no link secret, no task token)."""
        return {
            "case": self.case,
            "execution_arn": self.execution_arn,
            "status": self.status,
            "states": self.states,
            "lambda_pids": self.lambda_pids,
            "decision_endpoint_pids": self.decision_endpoint_pids,
            "proposal_hash": self.proposal_hash,
            "revision_before": self.revision_before,
            "revision_after": self.revision_after,
            "plan_applied_count": self.plan_applied_count,
            "task_token_leaked": self.task_token_leaked,
            "approval_link": self.redacted_link,
            "page_statuses": self.page_statuses,
            "error": self.error,
            "refusal": self.refusal,
            "requested_by": self.requested_by,
            "ses_messages_accepted": len(self.ses_outbox_keys),
            "ses_distinct_messages": len(set(self.ses_outbox_keys)),
        }


def ses_accepted() -> list[str]:
    """The outbox key (``X-Production-Orchestrator-Outbox``) of every message the in-process moto SES accepted."""
    from moto.ses.models import ses_backends

    keys = []
    for message in ses_backends[ACCOUNT][REGION].sent_messages:
        parsed = email.message_from_string(getattr(message, "raw_data", ""), policy=email.policy.default)
        keys.append(str(parsed.get(OUTBOX_HEADER, "")).strip())
    return keys


def _revision(store: DynamoShopStore) -> int:
    state = store.load_state()
    return 0 if state is None else state.revision


def make_stale(store: DynamoShopStore) -> None:
    """An out-of-band change to the shop while the workflow is parked that the plan cannot survive: a stock count
    finds none of the material its order needs (a count that found more would free stock and stale nothing)."""
    from production_orchestrator.domain.records import AuditEvent, utc_iso

    state = store.load_state()
    assert state is not None
    material, quantity = "THREAD-RED-40", 0  # the rush order's thread: the plan buys only what was missing
    assert state.material(material) is not None
    event = AuditEvent(
        event_type="inventory_set",
        at=utc_iso(datetime.now(UTC)),
        detail={"material_id": material, "quantity": quantity},
    )
    store.set_inventory(material, quantity, event)


def run_case(deployment: Deployment, case: str, *, say: Callable[[str], None] = lambda _: None) -> WorkflowRun:
    """Start one execution and play the human's part for ``case`` (one of :data:`CASES`)."""
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}")
    ses_mark = len(ses_accepted())
    # The reference scenario's shop and its customer's e-mail, planned on the scenario's day.
    submitted = deployment.submit_scenario("rush-order")
    execution_arn = str(submitted["execution_arn"])
    say(f"submitted by {submitted['requested_by']} (signed): execution {execution_arn}")
    message = deployment.wait_for_message()
    revision_before = _revision(deployment.store)
    link = message.link
    say(f"approval e-mail: {message.subject!r}")
    say(f"approval link: {redact_link(link)}")
    pages: dict[str, int] = {}
    if case == "stale":
        make_stale(deployment.store)
        say("while parked: a stock count found no THREAD-RED-40 (the plan no longer holds)")
    if case == "expire":
        status = deployment.wait_for_status(execution_arn)
        pages["GET after expiry"] = deployment.open(link).status
        say(f"GET after the window closed -> {pages['GET after expiry']} (the page says it expired)")
    elif case == "stale":
        # An approve of a plan the shop has moved past is refused on the page (nothing recorded, the workflow
        # keeps waiting); a reject cancels it: the workflow resumes, the agent is told, nothing changes.
        page, refused = deployment.decide(link, approve=True)
        pages["GET"], pages["POST approve"] = page.status, refused.status
        say(f"GET -> {page.status} (what changed); POST approve -> {refused.status} (refused: the shop changed)")
        _, cancelled = deployment.decide(link, approve=False, reason="local run: the shop moved on")
        pages["POST reject"] = cancelled.status
        say(f"POST reject -> {cancelled.status} (the stale plan is cancelled)")
        status = deployment.wait_for_status(execution_arn)
    else:
        page, result = deployment.decide(link, approve=case != "reject", reason=f"local run: {case}")
        pages["GET"], pages["POST"] = page.status, result.status
        say(f"GET -> {page.status} (the plan, nothing decided); POST {case} -> {result.status}")
        status = deployment.wait_for_status(execution_arn)
    states = deployment.states(execution_arn)
    error = refusal = None
    for event in deployment.history(execution_arn):
        if "executionFailedEventDetails" in event:
            error = event["executionFailedEventDetails"].get("error")
        # A Lambda task's failure carries the handler's {"errorType", "errorMessage"} as its cause.
        failed = event.get("lambdaFunctionFailedEventDetails") or event.get("taskFailedEventDetails")
        if failed and failed.get("error") == ResumeRefusedError.__name__ and failed.get("cause", "").startswith("{"):
            refusal = str(json.loads(failed["cause"]).get("errorMessage", ""))
    run_results = [i.result for i in deployment.invocations() if i.handler_module == "run_agent" and i.result]
    token = deployment.task_token(execution_arn)
    return WorkflowRun(
        case=case,
        execution_arn=execution_arn,
        status=status,
        states=states,
        lambda_pids=deployment.pids_by_state(),
        decision_endpoint_pids=[i.pid for i in deployment.invocations() if i.handler_module == DECIDE_MODULE],
        proposal_hash=str(run_results[-1]["proposal_hash"]) if run_results else "",
        revision_before=revision_before,
        revision_after=_revision(deployment.store),
        plan_applied_count=deployment.store.application_count(),
        task_token_leaked=captured_texts(deployment).contains(token),
        redacted_link=redact_link(link),
        page_statuses=pages,
        error=error,
        refusal=refusal,
        requested_by=str(run_results[-1].get("requested_by", "")) if run_results else "",
        ses_outbox_keys=[
            key for key in ses_accepted()[ses_mark:] if run_results and key.startswith(run_results[-1]["proposal_hash"])
        ],
    )
