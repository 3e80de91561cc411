"""The CLI's composition root: one data dir holds one shop, its approvals, sessions, receipt key and logs."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..adapters.local.file_sessions import FileSessionStore
from ..adapters.local.mac_key import KEY_FILE, FileMacKey
from ..adapters.local.sqlite_approvals import SqliteApprovalStore
from ..adapters.local.sqlite_store import SqliteShopStore
from ..domain.errors import ValidationError
from ..lifecycle.runtime import Runtime

DB_NAME = "shop.sqlite3"
SESSIONS_DIR = "sessions"
REFUSALS_LOG = "refusals.jsonl"
DEFAULT_LINK_BASE = "http://127.0.0.1:8765/approve"


def utc_now() -> datetime:
    """The wall clock, in UTC."""
    return datetime.now(UTC)


def local_runtime(data_dir: Path, *, create: bool) -> Runtime:
    """Adapters for ``data_dir``. Only ``start`` may create it; every other command needs a shop."""
    db = data_dir / DB_NAME
    if create:
        try:
            data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise ValidationError(f"cannot create data dir {data_dir}: {exc.strerror}") from None
    elif not db.is_file():
        raise ValidationError(f"no shop in data dir {data_dir} (run start first, or pass --data-dir)")
    if not os.access(data_dir, os.R_OK | os.W_OK | os.X_OK):
        raise ValidationError(f"data dir {data_dir} is not readable and writable")
    key = local_mac_key(data_dir)
    try:
        store = SqliteShopStore(db, audit_key=key)
        approvals = SqliteApprovalStore(db)
    except Exception as exc:  # sqlite3.DatabaseError on a file that is not a database
        raise ValidationError(f"data dir {data_dir} does not hold a readable shop: {exc}") from None
    return Runtime(
        store=store,
        sessions=FileSessionStore(data_dir / SESSIONS_DIR),
        clock=utc_now,
        pid=os.getpid(),
        approvals=approvals,
        receipt_key=key,
    )


def log_refusal(data_dir: Path, entry: dict[str, Any]) -> None:
    """Append one refusal to ``refusals.jsonl``: outside the shop's store, which a refusal never touches."""
    if not data_dir.is_dir():
        return
    with (data_dir / REFUSALS_LOG).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, sort_keys=True) + "\n")


def local_approvals(data_dir: Path) -> SqliteApprovalStore:
    """The approval records of ``data_dir`` (same database as the shop)."""
    return SqliteApprovalStore(data_dir / DB_NAME)


def local_mac_key(data_dir: Path) -> FileMacKey:
    """The receipt key of ``data_dir``, created (0600) on first use: it MACs decision receipts and the links of
    the audit chain."""
    return FileMacKey(data_dir / KEY_FILE)
