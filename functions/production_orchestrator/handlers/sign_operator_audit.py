"""The operator function: MACs the audit links and heads of the operator's own ``--table`` writes (invoked by the
CLI's AWS runtime, adapters/aws/operator_signer.py), since only the stack's functions hold the audit key's
``GenerateMac``. What it signs and refuses: domain/approval/operator_signing.py.

    {"message": b64}                      -> {"mac": ...}        a link of an operator event
    {"message": b64, "links": [[b64, mac]]} -> {"mac": ...|""}   the head closing them, after the stored head
    anything else                         -> {"refused": "..."}  (logged, nothing signed)
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from .observability import logger
from .root import core, runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext


@logger.inject_lambda_context(log_event=False, clear_state=True)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """One signing request; the message content is never logged (only what was refused and why)."""
    from ..adapters.aws.operator_signer import read_head
    from ..domain.approval.operator_signing import SigningRequest, operator_mac
    from ..domain.errors import ValidationError

    rt = runtime()
    try:
        if rt.audit_key is None:
            raise ValidationError("this function has no audit key")
        request = SigningRequest(
            message=base64.b64decode(str(event["message"]), validate=True),
            links=tuple((base64.b64decode(str(m), validate=True), str(mac)) for m, mac in event.get("links") or []),
        )
        shared = core()
        head = read_head(shared.client("dynamodb"), str(shared.settings.table_name)) if request.links else None
        mac = operator_mac(request, rt.audit_key, head)
    except (ValidationError, KeyError, TypeError, ValueError, binascii.Error) as exc:
        logger.warning("operator signing refused", extra={"reason": str(exc)[:200]})
        return {"refused": str(exc)[:200]}
    logger.info("operator audit signed", extra={"kind": "head" if request.links else "link", "stale": mac == ""})
    return {"mac": mac}
