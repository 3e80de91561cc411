"""``production-orchestrator submit --request PATH (--stack NAME | --url URL)``: hand a customer request to the
deployed stack, signed with the caller's own AWS credentials (SigV4, service ``lambda``).

    request file -> POST {"request": ...} to the stack's SubmitUrl (AWS_IAM) -> the submit function records
    the caller Lambda verified as the requester and starts the execution -> EXECUTION_ARN=, CONSOLE_URL=

Credentials come from the default chain (or ``--profile``); nothing about who you are is sent in the body.
Exit codes: 0 started, 2 bad input, or the stack refused the call (e.g. 403: no lambda:InvokeFunctionUrl).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from ...domain.errors import ValidationError
from ..parser import GROUP_OPERATIONS, command

SUBMIT_URL_OUTPUT = "SubmitUrl"  # the stack output infra/constructs/request_entry.py writes
_FUNCTION_URL_REGION = re.compile(r"^https://[a-z0-9]+\.lambda-url\.(?P<region>[a-z0-9-]+)\.on\.aws/?\Z")
_LOCAL_URL = re.compile(r"^http://127\.0\.0\.1:\d+/?\Z")
EXIT_OK, EXIT_USAGE = 0, 2

GROUP = GROUP_OPERATIONS


def register(subparsers: Any) -> None:
    """``submit``."""
    submit = command(
        subparsers,
        "submit",
        summary="start a run on the deployed stack for a customer's e-mail",
        description="Send a customer's e-mail to the deployed stack's submit endpoint, signed with your AWS "
        "credentials (SigV4). The run records you, the authenticated caller, as its requester; prints the "
        "execution ARN and its console link.",
        examples=["submit --request customer.eml --stack ProductionOrchestrator"],
        handler=run,
    )
    submit.add_argument("--request", required=True, type=Path, metavar="PATH", help="the customer's e-mail (text)")
    target = submit.add_mutually_exclusive_group(required=True)
    target.add_argument("--stack", metavar="NAME", help="the deployed stack (its SubmitUrl output)")
    target.add_argument("--url", metavar="URL", help="the submit Function URL itself")
    submit.add_argument(
        "--region", default=None, help="the stack's region (default: $AWS_REGION, else your AWS configuration)"
    )
    submit.add_argument("--profile", default=None, help="AWS profile to sign with (default: the credential chain)")
    submit.add_argument(
        "--as-of", default=None, type=_day, metavar="YYYY-MM-DD", help="the planning day (default: today in the shop)"
    )


def _day(value: str) -> str:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise argparse.ArgumentTypeError(f"{value!r} is not a day like 2026-08-12")
    return value


def _body(text: str, as_of: str | None) -> dict[str, str]:
    """What is POSTed: the e-mail, and the planning day when given; never who is asking (AWS says that)."""
    return {"request": text} if as_of is None else {"request": text, "as_of": as_of}


def read_request(path: Path) -> str:
    """The request file's text; ``ValidationError`` when it is missing, not UTF-8, empty or too long."""
    from ...domain.intake.submissions import MAX_REQUEST_CHARS

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError(f"cannot read --request {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not text.strip():
        raise ValidationError(f"--request {path} is empty")
    if len(text) > MAX_REQUEST_CHARS:
        raise ValidationError(f"--request {path} is longer than {MAX_REQUEST_CHARS} characters")
    return text


def _session(args: argparse.Namespace) -> Any:
    import boto3  # type: ignore[import-untyped]
    from botocore.exceptions import ProfileNotFound  # type: ignore[import-untyped]

    from ..aws import aws_region  # --region, else $AWS_REGION (boto3 reads only AWS_DEFAULT_REGION), as --table does

    try:
        return boto3.Session(profile_name=args.profile, region_name=aws_region(args) or None)
    except ProfileNotFound:
        raise ValidationError(f"no AWS profile named {args.profile!r}") from None


def stack_submit_url(session: Any, stack: str) -> str:
    """The ``SubmitUrl`` output of ``stack``."""
    from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

    try:
        stacks = session.client("cloudformation").describe_stacks(StackName=stack)["Stacks"]
    except ClientError as exc:
        raise ValidationError(f"cannot read stack {stack!r}: {exc.response.get('Error', {}).get('Code', '')}") from None
    except BotoCoreError as exc:
        raise ValidationError(f"cannot read stack {stack!r}: {type(exc).__name__}") from None
    outputs = {o["OutputKey"]: o["OutputValue"] for s in stacks for o in s.get("Outputs", [])}
    if SUBMIT_URL_OUTPUT not in outputs:
        raise ValidationError(f"stack {stack!r} has no {SUBMIT_URL_OUTPUT} output (deploy this version first)")
    return str(outputs[SUBMIT_URL_OUTPUT])


def url_region(url: str, fallback: str | None) -> str:
    """The region a Function URL lives in (from its host), else ``fallback``; ``ValidationError`` for other URLs."""
    match = _FUNCTION_URL_REGION.fullmatch(url)
    if match:
        return match.group("region")
    if _LOCAL_URL.fullmatch(url) and fallback:
        return fallback
    raise ValidationError(f"{url!r} is not a Lambda Function URL (https://<id>.lambda-url.<region>.on.aws/)")


def signed_post(url: str, body: bytes, credentials: Any, region: str) -> tuple[int, dict[str, Any]]:
    """POST ``body`` signed with SigV4 for the ``lambda`` service; the status and the JSON reply."""
    import urllib.error
    import urllib.request

    from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
    from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]

    request = AWSRequest(method="POST", url=url, data=body, headers={"Content-Type": "application/json"})
    SigV4Auth(credentials, "lambda", region).add_auth(request)
    prepared = request.prepare()
    http = urllib.request.Request(prepared.url, data=body, headers=dict(prepared.headers.items()), method="POST")
    try:
        with urllib.request.urlopen(http, timeout=30) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except OSError as exc:
        raise ValidationError(f"cannot reach {url}: {exc}") from None
    try:
        reply = json.loads(raw or b"{}")
    except ValueError:
        reply = {"message": raw[:200].decode("utf-8", "replace")}
    return status, reply if isinstance(reply, dict) else {"message": str(reply)}


def console_url(execution_arn: str, region: str) -> str:
    """The Step Functions console page of the execution."""
    return f"https://{region}.console.aws.amazon.com/states/home?region={region}#/v2/executions/details/{execution_arn}"


def run(args: argparse.Namespace) -> int:
    """Sign and send the request; print the execution ARN and its console link."""
    text = read_request(args.request)
    session = _session(args)
    url = args.url or stack_submit_url(session, args.stack)
    region = url_region(url, session.region_name)
    credentials = session.get_credentials()
    if credentials is None:
        raise ValidationError("no AWS credentials found to sign with (configure them, or pass --profile)")
    status, reply = signed_post(
        url, json.dumps(_body(text, args.as_of)).encode(), credentials.get_frozen_credentials(), region
    )
    if status != 202 or "execution_arn" not in reply:
        detail = reply.get("error") or reply.get("message") or reply.get("Message") or "no detail"
        hint = " (does your identity have lambda:InvokeFunctionUrl on the submit function?)" if status == 403 else ""
        print(f"error: the stack refused the request ({status}): {detail}{hint}", file=sys.stderr)
        return EXIT_USAGE
    print(f"EXECUTION_ARN={reply['execution_arn']}")
    print(f"EXECUTION_NAME={reply.get('execution_name', '')}")
    print(f"REQUESTED_BY={reply.get('requested_by', '')}")
    print(f"CONSOLE_URL={console_url(reply['execution_arn'], region)}")
    return EXIT_OK
