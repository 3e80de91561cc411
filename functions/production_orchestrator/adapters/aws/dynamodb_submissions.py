"""DynamoDB implementation of :class:`SubmissionStore`: ``SUBMISSION#<execution name> / SUBMISSION``.

Created once (``attribute_not_exists``) by the submit step before the execution starts; read by
``RunAgentUntilApproval`` with a consistent read. Nothing updates or deletes it.
"""

from __future__ import annotations

from typing import Any

from ...domain.errors import IntegrityError
from ...domain.intake.submissions import Submission, is_submission_name
from .dynamo_table import ConditionFailed, DynamoTable, key, s
from .table_schema import PARTITION_KEY, SUBMISSION_PK_PREFIX, SUBMISSION_SK


class DynamoSubmissionStore:
    """Submission records in the shop's table."""

    def __init__(self, client: Any, table_name: str) -> None:
        self._table = DynamoTable(client, table_name)

    def put_submission(self, submission: Submission) -> None:
        """Create the record; an existing execution name is an ``IntegrityError`` (nothing overwritten)."""
        item = {
            **key(SUBMISSION_PK_PREFIX + submission.execution_name, SUBMISSION_SK),
            "record": s(submission.model_dump_json()),
        }
        try:
            self._table.put(item, condition=f"attribute_not_exists({PARTITION_KEY})")
        except ConditionFailed:
            raise IntegrityError(f"submission {submission.execution_name} exists already") from None

    def get_submission(self, execution_name: str) -> Submission | None:
        """The record of ``execution_name``, or None (also for a name submit could not have chosen)."""
        if not is_submission_name(execution_name):
            return None
        item = self._table.get(SUBMISSION_PK_PREFIX + execution_name, SUBMISSION_SK)
        return None if item is None else Submission.model_validate_json(item["record"]["S"])
