"""Operator alerts through the stack's alarm topic (the one its CloudWatch alarms publish to)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...domain.alerts import OperatorNotice
from ...domain.errors import BackendError

_SUBJECT_LIMIT = 100  # SNS refuses a longer e-mail subject


class SnsOperatorAlerts:
    """Publishes operator notices to ``topic_arn``."""

    def __init__(self, client: Any, topic_arn: str) -> None:
        self._client = client
        self._topic_arn = topic_arn

    def alert(self, notice: OperatorNotice) -> None:
        """Publish ``notice``; ``BackendError`` (naming only the SDK's error code) when SNS refuses it."""
        subject = " ".join(notice.subject.split())[:_SUBJECT_LIMIT]
        try:
            self._client.publish(TopicArn=self._topic_arn, Subject=subject, Message=notice.body)
        except (ClientError, BotoCoreError) as exc:
            code = exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else type(exc).__name__
            raise BackendError(f"sns publish of an operator alert failed: {code}") from None
