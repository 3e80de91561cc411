"""The operator's audit key on AWS: the CLI's ``--table`` writes get their audit-chain MACs from the stack's
operator function (which holds the audit key's ``GenerateMac``; the account does not), by ``lambda:Invoke``.

    sign(link message)  -> invoke {message}          -> MAC (remembered with the link)
    sign(head message)  -> invoke {message, links}   -> MAC ("" when the head this process guessed moved)

What the function signs, and refuses: domain/approval/operator_signing.py. ``read_head`` is the function's
read of the stored chain head. The CLI finds the function by the table's tag (``tagged_operator_function``) and,
knowing none, whether the chain is keyed (``chain_keyed``): cli/operator_key.py.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...contracts import OPERATOR_FUNCTION_TAG
from ...domain.approval.audit_chain import _HEAD, _LINK
from ...domain.errors import AuditKeyCode, BackendError, UnkeyedWriteRefusedError, ValidationError
from .chained_table import head_of, stored_head
from .dynamo_table import key
from .table_schema import AUDIT_HEAD_SK, AUDIT_PK


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class LambdaAuditSigner:
    """A :class:`~production_orchestrator.domain.ports.MacKey` whose MACs come from the operator function."""

    def __init__(self, client: Any, function_name: str, key_id: str = "") -> None:
        self._client = client
        self._function = function_name
        self._key_id = key_id or function_name
        self._links: list[tuple[bytes, str]] = []

    @property
    def key_id(self) -> str:
        """The audit key the function MACs with (or the function, when not told)."""
        return self._key_id

    def sign(self, message: bytes) -> str:
        """The MAC the operator function gives ``message``; a refusal is a ValidationError, an AWS failure a
        BackendError."""
        if message.startswith(_LINK):
            mac = self._invoke({"message": _b64(message)})
            self._links.append((message, mac))
            return mac
        if message.startswith(_HEAD):
            links, self._links = self._links, []
            return self._invoke({"message": _b64(message), "links": [[_b64(m), mac] for m, mac in links]})
        raise ValidationError("the operator's signer MACs audit links and heads only")

    def verify(self, message: bytes, mac: str) -> bool:
        """Not the signer's: ``audit verify --audit-key`` verifies with KMS."""
        raise BackendError("the operator function only signs; verify with audit verify --audit-key")

    def _invoke(self, payload: dict[str, Any]) -> str:
        try:
            response = self._client.invoke(FunctionName=self._function, Payload=json.dumps(payload).encode())
        except (ClientError, BotoCoreError) as exc:
            # Raised before the write (the MACs go into it): nothing is written, and the operator is told the fix.
            raise UnkeyedWriteRefusedError(
                AuditKeyCode.OPERATOR_FUNCTION_UNREACHABLE,
                f"the operator function {self._function} could not be invoked ({exc}): allow lambda:InvokeFunction "
                "on the stack's OperatorFunctionName to whoever runs this, or name it with --operator-function; "
                "--unkeyed writes without a MAC, which a keyed `audit verify` then reports as the chain broken. "
                "Nothing was written.",
            ) from None
        body = json.loads(response["Payload"].read() or b"{}")
        if response.get("FunctionError") or not isinstance(body, dict):
            raise BackendError(f"the operator function {self._function} failed: {body}")
        if "refused" in body:
            raise ValidationError(f"the operator function refused to sign: {body['refused']}")
        return str(body["mac"])


def read_head(client: Any, table: str) -> tuple[int, str] | None:
    """The stored audit chain head (seq, hash), or None on a new table (a consistent read)."""
    return head_of(_head_item(client, table))


def chain_keyed(client: Any, table: str) -> bool:
    """Whether ``table``'s audit chain is keyed: its stored head carries a MAC (a new table's is not)."""
    head = stored_head(_head_item(client, table))
    return head is not None and bool(head[2])


def tagged_operator_function(client: Any, table: str) -> str:
    """The operator function the table's ``OPERATOR_FUNCTION_TAG`` names ("" when it has none); BackendError when
    the table or its tags cannot be read (DescribeTable for its ARN, ListTagsOfResource)."""
    try:
        arn = client.describe_table(TableName=table)["Table"]["TableArn"]
        found: dict[str, str] = {}
        token: str | None = None
        while True:
            page = client.list_tags_of_resource(ResourceArn=arn, **({"NextToken": token} if token else {}))
            found.update({t["Key"]: t["Value"] for t in page.get("Tags", [])})
            token = page.get("NextToken")
            if not token:
                return found.get(OPERATOR_FUNCTION_TAG, "")
    except (ClientError, BotoCoreError) as exc:
        raise BackendError(f"reading the tags of table {table} failed: {exc}") from None


def _head_item(client: Any, table: str) -> dict[str, Any] | None:
    try:
        item = client.get_item(TableName=table, Key=key(AUDIT_PK, AUDIT_HEAD_SK), ConsistentRead=True).get("Item")
    except (ClientError, BotoCoreError) as exc:
        raise BackendError(f"reading the audit head failed: {exc}") from None
    return item  # type: ignore[no-any-return]
