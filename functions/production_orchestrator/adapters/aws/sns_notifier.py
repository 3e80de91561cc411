"""Approval messages through one SNS topic, one message per approver.

Each message carries an ``approver`` message attribute; every e-mail subscription has a filter policy on
it, so an approver receives only the message holding their own link.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...domain.errors import BackendError
from ...domain.ports import ApprovalMessage

APPROVER_ATTRIBUTE = "approver"
_SUBJECT_LIMIT = 100


class SnsApprovalNotifier:
    """Publishes approval messages to ``topic_arn``."""

    def __init__(self, client: Any, topic_arn: str) -> None:
        self._client = client
        self._topic_arn = topic_arn

    def notify(self, message: ApprovalMessage) -> None:
        """Publish one message for one approver."""
        subject = " ".join(message.subject.split())[:_SUBJECT_LIMIT]
        try:
            self._client.publish(
                TopicArn=self._topic_arn,
                Subject=subject,
                Message=message.body,
                MessageAttributes={APPROVER_ATTRIBUTE: {"DataType": "String", "StringValue": message.approver}},
            )
        except (ClientError, BotoCoreError) as exc:
            code = exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else type(exc).__name__
            # The message body holds a link secret: never put the request or its body in the error.
            raise BackendError(f"sns publish for approval {message.approval_id} failed: {code}") from None
