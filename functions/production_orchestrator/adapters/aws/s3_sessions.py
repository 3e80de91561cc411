"""Agent sessions in S3 through Strands' own ``S3SessionManager``.

Keys: ``<prefix>/session_<session id>/agents/agent_<agent id>/...`` (Strands' layout). Session and agent
ids are validated against our patterns before they become keys.
"""

from __future__ import annotations

import re
from typing import Any

from strands.session.s3_session_manager import S3SessionManager

from ...domain.approval.verification import SessionFacts
from ...domain.errors import ConfigurationError
from ...domain.records import AGENT_ID_PATTERN, SESSION_ID_PATTERN, require_id
from ..session_facts import facts_from

_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\Z")
_PREFIX = re.compile(r"^[A-Za-z0-9_./-]{0,200}\Z")


class _ReadOnlyS3Sessions(S3SessionManager):
    """Strands' S3 repository without the constructor that creates a missing session."""

    def __init__(self, bucket: str, prefix: str, client: Any) -> None:
        self.bucket = bucket
        self.prefix = prefix
        self.client = client


class S3SessionStore:
    """Sessions under ``s3://<bucket>/<prefix>`` in Strands' S3 layout."""

    def __init__(self, bucket: str, prefix: str, boto_session: Any) -> None:
        if not _BUCKET.match(bucket):
            raise ConfigurationError(f"session bucket {bucket!r} is not a valid S3 bucket name")
        if not _PREFIX.match(prefix) or ".." in prefix.split("/"):
            raise ConfigurationError(f"session prefix {prefix!r} may hold only letters, digits and _ . / -")
        self._bucket = bucket
        self._prefix = prefix
        self._boto_session = boto_session
        self._reader = _ReadOnlyS3Sessions(bucket, prefix, boto_session.client("s3"))

    def session_manager(self, session_id: str) -> S3SessionManager:
        """A new session manager for ``session_id`` (one per Agent)."""
        require_id(session_id, SESSION_ID_PATTERN, "session id")
        return S3SessionManager(
            session_id=session_id, bucket=self._bucket, prefix=self._prefix, boto_session=self._boto_session
        )

    def read_facts(self, session_id: str, agent_id: str) -> SessionFacts:
        """What the stored session holds, read through Strands' repository without writing."""
        require_id(session_id, SESSION_ID_PATTERN, "session id")
        require_id(agent_id, AGENT_ID_PATTERN, "agent id")
        return facts_from(self._reader, session_id, agent_id)
