"""Agent sessions on the local disk through Strands' own ``FileSessionManager``.

Strands is imported when a session is opened or read, not with this module: every CLI command builds the
local runtime, and most of them (show, status, outbox, shop, ...) never touch a session.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...domain.approval.verification import SessionFacts
from ...domain.records import AGENT_ID_PATTERN, SESSION_ID_PATTERN, require_id
from ..session_facts import facts_from

if TYPE_CHECKING:
    from strands.session.file_session_manager import FileSessionManager


@cache
def _read_only_class() -> type[Any]:
    """Strands' file repository without the constructor that creates a missing session."""
    from strands.session.file_session_manager import FileSessionManager

    class ReadOnlyFileSessions(FileSessionManager):
        def __init__(self, storage_dir: str) -> None:
            self.storage_dir = storage_dir

    return ReadOnlyFileSessions


class FileSessionStore:
    """Sessions under ``<data dir>/sessions`` in Strands' file layout."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory

    def session_manager(self, session_id: str) -> FileSessionManager:
        """A new session manager for ``session_id`` (one per Agent)."""
        from strands.session.file_session_manager import FileSessionManager

        require_id(session_id, SESSION_ID_PATTERN, "session id")
        return FileSessionManager(session_id=session_id, storage_dir=str(self._directory))

    def read_facts(self, session_id: str, agent_id: str) -> SessionFacts:
        """What the stored session holds, read through Strands' repository without writing."""
        require_id(session_id, SESSION_ID_PATTERN, "session id")
        require_id(agent_id, AGENT_ID_PATTERN, "agent id")
        reader = _read_only_class()(str(self._directory))
        return facts_from(reader, session_id, agent_id)
