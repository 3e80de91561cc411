"""Imports one handler from a built Lambda asset, as the Lambda runtime would, and reports what it found.

    python3.12 -S -I asset_probe.py ASSET_DIR HANDLER   (environment: the function's, from the template)

-S: no site-packages; -I: no PYTHON* variables, no script directory on sys.path: the asset directory is the
only place a third-party module can come from. Then the composition root is built (boto3 clients, the
stores, for the agent handlers the model binding: no network) and, where that needs no AWS call, the
handler is invoked with a malformed event, so the event models and page code load too. Prints one JSON
object; exits 0 when the probe ran (the test judges what it reports).
"""

from __future__ import annotations

import importlib
import json
import sys
import sysconfig
import time
from typing import Any

_STDLIB = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}


class _Context:
    function_name = "probe"
    function_version = "$LATEST"
    memory_limit_in_mb = 256
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:probe"
    aws_request_id = "00000000-0000-0000-0000-000000000000"
    log_group_name = "/aws/lambda/probe"
    log_stream_name = "probe"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


# What each handler is given to prove its event models and page code load without calling AWS.
_MALFORMED_EVENTS: dict[str, Any] = {
    "decide": {"requestContext": {"http": {"method": "GET"}}},  # no link: the neutral page, nothing read
    "request_approval": {},
    "resume_agent": {},
    "record_expiry": {},
    "send_outbox": {},
    "submit": {"requestContext": {"http": {"method": "GET"}}},  # not a POST: 405, nothing read
    "receive_email": {"Records": []},  # no SES record: refused (EVENT_INVALID), nothing read
    "remind": {"action": "wake"},  # no checkpoint: refused before anything is read
}


def _outside(asset: str) -> list[str]:
    """Modules loaded from neither the asset nor the standard library."""
    found = []
    for name, module in list(sys.modules.items()):
        if name in ("__main__", "__mp_main__"):  # this probe
            continue
        path = getattr(module, "__file__", None)
        if path and not path.startswith(asset) and not any(path.startswith(p) for p in _STDLIB):
            found.append(f"{name}: {path}")
    return sorted(found)


def main(asset: str, handler_path: str) -> dict[str, Any]:
    sys.path.insert(0, asset)
    module_name, function_name = handler_path.rsplit(".", 1)
    report: dict[str, Any] = {"python": f"{sys.version_info[0]}.{sys.version_info[1]}", "sys_path": sys.path}
    began = time.perf_counter()
    try:
        handler = getattr(importlib.import_module(module_name), function_name)
    except Exception as exc:  # what the runtime would report as Runtime.ImportModuleError
        report["import_error"] = f"{type(exc).__name__}: {exc}"
        return report
    report["import_s"] = time.perf_counter() - began
    module = sys.modules[module_name]
    root = importlib.import_module("production_orchestrator.handlers.root")
    try:
        root.core()
        if hasattr(module, "root"):
            module.root()
        if module_name.rsplit(".", 1)[-1] in ("run_agent", "resume_agent"):
            root.agent_root()
        report["root"] = "built"
    except Exception as exc:
        report["root_error"] = f"{type(exc).__name__}: {exc}"
    short = module_name.rsplit(".", 1)[-1]
    if short in _MALFORMED_EVENTS:
        try:
            result = handler(_MALFORMED_EVENTS[short], _Context())
            report["invoked"] = {"status": result.get("statusCode")} if isinstance(result, dict) else str(result)
        except Exception as exc:
            report["invoked"] = {"raised": type(exc).__name__}
    report["strands_loaded"] = any(name.split(".")[0] == "strands" for name in sys.modules)
    report["outside_asset"] = _outside(asset)
    return report


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
