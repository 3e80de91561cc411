"""Agent sessions on the local disk through Strands' own ``FileSessionManager``."""

from __future__ import annotations

from pathlib import Path

from strands.session.file_session_manager import FileSessionManager

from ...domain.approval.verification import SessionFacts
from ...domain.records import AGENT_ID_PATTERN, SESSION_ID_PATTERN, require_id
from ..session_facts import facts_from


class _ReadOnlyFileSessions(FileSessionManager):
    """Strands' file repository without the constructor that creates a missing session."""

    def __init__(self, storage_dir: str) -> None:
        self.storage_dir = storage_dir


class FileSessionStore:
    """Sessions under ``<data dir>/sessions`` in Strands' file layout."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory

    def session_manager(self, session_id: str) -> FileSessionManager:
        """A new session manager for ``session_id`` (one per Agent)."""
        require_id(session_id, SESSION_ID_PATTERN, "session id")
        return FileSessionManager(session_id=session_id, storage_dir=str(self._directory))

    def read_facts(self, session_id: str, agent_id: str) -> SessionFacts:
        """What the stored session holds, read through Strands' repository without writing."""
        require_id(session_id, SESSION_ID_PATTERN, "session id")
        require_id(agent_id, AGENT_ID_PATTERN, "agent id")
        reader = _ReadOnlyFileSessions(str(self._directory))
        return facts_from(reader, session_id, agent_id)
