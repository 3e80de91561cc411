"""What a strands-free handler's cold start imports: boto3 and the logger, not the event models (pydantic), the
stores or the lifecycle steps, which load with the first event that needs them. Checked in a fresh
interpreter by module names, not by timing (``make bench`` measures the seconds on the built assets)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_PROBE = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(sys.modules)))
"""
# Deferred to the first event: pydantic (the event models, the settings) and everything above the handler.
DEFERRED = ("pydantic", "production_orchestrator.handlers.events", "production_orchestrator.services", "strands")


@pytest.mark.parametrize("handler", ["decide", "submit", "send_outbox", "receive_email", "remind"])
def test_a_strands_free_handler_imports_no_models_or_steps_at_cold_start(handler: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, f"production_orchestrator.handlers.{handler}"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "functions")},
        check=True,
        timeout=120,
    )
    loaded = json.loads(done.stdout)
    early = sorted(m for m in loaded if any(m == d or m.startswith(f"{d}.") for d in DEFERRED))
    assert early == [], f"{handler} loads at import: {early[:8]}"
    assert "boto3" in loaded
