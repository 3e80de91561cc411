"""Local stand-ins for the workflow: each resume (and each "propose again") runs in a fresh process.

In AWS, ``SendTaskSuccess`` wakes the state machine, which invokes the resume Lambda. Locally the decision
endpoint calls :class:`SubprocessResume`, which runs ``python -m production_orchestrator resume
--approval ...`` as a new process and waits for it, so the page can say how it ended and ``status`` shows
the outcome. Nothing here passes a secret: the approval id and checkpoint id are enough, because the
decision is read back from the store.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..domain.errors import ValidationError
from ..services.deciding.review import LinkView

_LOG = logging.getLogger(__name__)
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # functions/: where production_orchestrator lives
_TIMEOUT_SECONDS = 600


def _run(args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(_PACKAGE_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "production_orchestrator", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=_TIMEOUT_SECONDS,
        check=False,
    )


def _values(stdout: str) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in stdout.splitlines() if "=" in line)
    return {k: v for k, v in pairs if k.isupper()}


class SubprocessResume:
    """A :class:`WorkflowCallback` that resumes the decided approval in a fresh process."""

    def __init__(self, data_dir: Path, provider_args: Sequence[str] = ()) -> None:
        self._data_dir = data_dir
        self._provider_args = tuple(provider_args)

    def send_success(self, task_token: str, output: dict[str, Any]) -> None:
        """Run the resume for ``output``'s checkpoint and approval; its outcome lands in the store."""
        checkpoint_id, approval_id = str(output["checkpoint_id"]), str(output["approval_id"])
        where = ("--data-dir", str(self._data_dir), "--checkpoint", checkpoint_id, "--approval", approval_id)
        args = ("resume-approval", *where)
        done = _run((*args, *self._provider_args))
        values = _values(done.stdout)
        _LOG.info(
            "resume process finished checkpoint_id=%s approval_id=%s exit=%s decision=%s refused=%s",
            checkpoint_id,
            approval_id,
            done.returncode,
            values.get("DECISION", ""),
            values.get("REFUSED", ""),
        )
        if done.returncode not in (0, 3):
            # The CLI's own error line (ids and codes, never a secret: none is passed to it).
            _LOG.warning("resume process failed: %s", (done.stderr.strip().splitlines() or ["?"])[-1][:300])


class SubprocessRepropose:
    """Runs ``repropose`` in a fresh process: the agent plans again on the current shop."""

    def __init__(self, data_dir: Path, provider_args: Sequence[str] = ()) -> None:
        self._data_dir = data_dir
        self._provider_args = tuple(provider_args)

    def __call__(self, view: LinkView) -> str:
        """The new proposal hash (the approvers' links now open it)."""
        args = ("repropose", "--data-dir", str(self._data_dir), "--approval", view.approval.approval_id)
        done = _run((*args, *self._provider_args))
        values = _values(done.stdout)
        _LOG.info("repropose process finished approval_id=%s exit=%s", view.approval.approval_id, done.returncode)
        if done.returncode != 0 or "PROPOSAL_HASH" not in values:
            # The CLI's own error line (ids and states, never a secret: none is passed to it).
            why = (done.stderr.strip().splitlines() or ["?"])[-1].removeprefix("error: ")[:300]
            raise ValidationError(f"the plan was not proposed again: {why}")
        return values["PROPOSAL_HASH"]


class SubprocessRevise:
    """Runs ``revise`` in a fresh process, as the link's holder, with the "Change the plan" form's guidance."""

    def __init__(self, data_dir: Path, provider_args: Sequence[str] = ()) -> None:
        self._data_dir = data_dir
        self._provider_args = tuple(provider_args)

    def __call__(self, view: LinkView, guidance: Mapping[str, str]) -> tuple[str, int]:
        """The new version's proposal hash and number (the approvers' links now open it)."""
        # Each value is its own argv item, joined to its flag: a value that starts with '-' (a note "--urgent")
        # stays a value, never a flag of the process that plans the revision.
        args = ["revise", "--data-dir", str(self._data_dir), "--checkpoint", view.checkpoint.checkpoint_id]
        args.append(f"--approver={view.approver}")
        for name in ("keep", "overtime"):
            args += [f"--{name}={item}" for item in (o.strip() for o in guidance.get(name, "").split(",")) if item]
        args += [f"--{name}={guidance[name]}" for name in ("quantity", "due", "product", "note") if guidance.get(name)]
        done = _run((*args, *self._provider_args))
        values = _values(done.stdout)
        _LOG.info("revise process finished approval_id=%s exit=%s", view.approval.approval_id, done.returncode)
        if done.returncode != 0 or "PROPOSAL_HASH" not in values:
            why = (done.stderr.strip().splitlines() or ["?"])[-1].removeprefix("error: ").removeprefix("refused: ")
            code = values.get("REFUSED", "")
            raise ValidationError(f"the plan was not changed: {code + ': ' if code else ''}{why[:300]}")
        return values["PROPOSAL_HASH"], int(values.get("VERSION", "2"))


class SubprocessCompleteHeld:
    """Runs ``request complete`` in a fresh process for the held-request page's form: the CLI's own path."""

    def __init__(self, data_dir: Path, provider_args: Sequence[str] = ()) -> None:
        self._data_dir = data_dir
        self._provider_args = tuple(provider_args)

    def __call__(self, facts: Any) -> str:
        """The checkpoint of the run the facts started (``facts``: approval_web.held_page.CompleteHeld)."""
        # Each value is its own argv item, joined to its flag: a value that starts with '-' stays a value.
        given = [
            f"--{name}={value}"
            for name in ("product", "quantity", "due", "customer")
            if (value := getattr(facts, name))
        ]
        args = ("request", "complete", "--data-dir", str(self._data_dir), facts.held_id, *given)
        done = _run((*args, *self._provider_args))
        values = _values(done.stdout)
        _LOG.info("request complete process finished held_id=%s exit=%s", facts.held_id, done.returncode)
        if done.returncode != 0 or "CHECKPOINT_ID" not in values:
            lines = done.stderr.strip().splitlines() or ["?"]
            why = next((line for line in lines if line.startswith("error:")), lines[-1]).removeprefix("error: ")
            raise ValidationError(f"the request was not planned: {why[:300]}")
        return values["CHECKPOINT_ID"]
