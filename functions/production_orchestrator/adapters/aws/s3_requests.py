"""Customer e-mails too large for an execution input, read from the session bucket by key.

Only keys under ``REQUEST_PREFIX`` are read (the start function's role may read nothing else there); the
object's size is checked before its body is read.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...contracts import MAX_REQUEST_BYTES, REQUEST_PREFIX
from ...domain.errors import BackendError, NotFoundError, ValidationError


def read_request(client: Any, bucket: str, key: str) -> str:
    """The text of ``s3://bucket/key`` (UTF-8, else Latin-1); ``NotFoundError`` when it is not there."""
    if not key.startswith(REQUEST_PREFIX) or ".." in key:
        raise ValidationError(f"a request object must be under {REQUEST_PREFIX}")
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
