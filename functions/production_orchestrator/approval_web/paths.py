"""Where the local pages answer: constants only, so the CLI's parser shows them without importing the pages."""

from __future__ import annotations

LOOPBACK = "127.0.0.1"
APPROVE_PATH = "/approve"
HELD_PATH = "/requests"  # the operator's held requests (held_page.py), on loopback only
SCHEDULE_PATH = "/schedule"  # the whole shop's schedule (schedule_page.py), on loopback only
