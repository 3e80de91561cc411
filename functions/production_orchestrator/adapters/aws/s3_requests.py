"""Customer e-mails in the session bucket, read by key: ones too large for an execution input (under
``REQUEST_PREFIX``) and the ones SES received and stored (under ``INBOUND_PREFIX``).

Only keys under the prefix asked for are read (each reading function's role may read nothing else there);
the object's size is checked before its body is read.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...contracts import INBOUND_PREFIX, MAX_REQUEST_BYTES, REQUEST_PREFIX
from ...domain.errors import BackendError, NotFoundError, ValidationError


def read_request(client: Any, bucket: str, key: str) -> str:
    """The text of ``s3://bucket/key`` (UTF-8, else Latin-1); ``NotFoundError`` when it is not there."""
    return _read_text(client, bucket, key, REQUEST_PREFIX)


def read_received(client: Any, bucket: str, message_id: str) -> str:
    """The raw message SES stored as ``inbound/<message_id>``; ``NotFoundError`` when it is not (yet) there,
    ``ValidationError`` when it is larger than a request object may be."""
    return _read_text(client, bucket, INBOUND_PREFIX + message_id, INBOUND_PREFIX)


def _read_text(client: Any, bucket: str, key: str, prefix: str) -> str:
    if not key.startswith(prefix) or ".." in key:
        raise ValidationError(f"a request object must be under {prefix}")
    try:
        answer = client.get_object(Bucket=bucket, Key=key)
        if int(answer.get("ContentLength", 0)) > MAX_REQUEST_BYTES:
            raise ValidationError(f"the request object is larger than {MAX_REQUEST_BYTES} bytes")
        data = answer["Body"].read(MAX_REQUEST_BYTES + 1)
    except ClientError as exc:
        code = str(exc.response.get("Error", {}).get("Code", ""))
        if code in ("NoSuchKey", "404", "NotFound"):
            raise NotFoundError(f"no request object {key} in the session bucket") from None
        raise BackendError(f"s3 GetObject of the request failed: {code or 'unknown error'}") from None
    except BotoCoreError as exc:
        raise BackendError(f"s3 GetObject of the request failed: {type(exc).__name__}") from None
    if len(data) > MAX_REQUEST_BYTES:
        raise ValidationError(f"the request object is larger than {MAX_REQUEST_BYTES} bytes")
    try:
        return str(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return str(data.decode("latin-1"))
