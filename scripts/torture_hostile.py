"""Hostile input, property-based (hypothesis): nothing unhandled, a clear error, nothing written.

Targets: CLI arguments (``main()`` in process), checkpoint fields, decision objects (and the resume's
approver and reason), every Lambda handler's event, and approval-page POST bodies.
"""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError as PydanticValidationError

from production_orchestrator.domain.approval.verification import ResumeRequest
from production_orchestrator.domain.errors import OrchestratorError, ResumeRefusedError
from production_orchestrator.domain.records import Decision
from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
HEX64 = st.from_regex(r"[0-9a-f]{64}", fullmatch=True)
TEXT = st.text(max_size=60)


def _settings(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )


class _Tally:
    """Counts examples per target; a failing example is recorded, not raised (hypothesis would stop)."""

    def __init__(self, family: Any) -> None:
        self.family = family

    def run(self, label: str, body: Callable[[], tuple[bool, str]]) -> None:
        try:
            ok, why = body()
        except Exception as exc:  # an unhandled exception is exactly what this family hunts
            ok, why = False, f"unhandled {type(exc).__name__}: {str(exc)[:200]}"
        self.family.check(label, ok, why)


def hostile(endpoint: str, patch: pytest.MonkeyPatch, tmp: Path, examples: int, family_cls: Any) -> Any:
    from scripts.torture_world import World, do_start, snapshot

    fam = family_cls("hostile")
    tally = _Tally(fam)
    counts: dict[str, int] = {}

    def counted(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    # -- CLI arguments, in process ----------------------------------------------------------------------
    world = World("sqlite", data_dir=tmp / "hostile-cli")
    ids = do_start(world)
    data_dir = str(world.data_dir)
    cid = st.one_of(st.just(ids["checkpoint_id"]), st.from_regex(r"ckpt-[0-9a-f]{32}", fullmatch=True), TEXT)
    flag_values = st.one_of(TEXT, HEX64, st.sampled_from(["approve", "reject", "bedrock", "ollama", "-1", "", "1s"]))
    resume_argv = st.builds(
        lambda c, d, h, extra: [
            "resume",
            "--data-dir",
            data_dir,
            "--checkpoint",
            c,
            "--decision",
            d,
            "--reviewed-hash",
            h,
            *extra,
        ],
        cid,
        st.sampled_from(["approve", "reject", "maybe", ""]),
        HEX64.filter(lambda h: h != ids["proposal_hash"]) | TEXT,
        st.lists(
            st.tuples(
                st.sampled_from(
                    [
                        "--reason",
                        "--approver",
                        "--lease",
                        "--provider",
                        "--model",
                        "--interrupt-id",
                        "--session-id",
                        "--region",
                    ]
                ),
                flag_values,
            ),
            max_size=3,
        ).map(lambda pairs: [x for pair in pairs for x in pair]),
    )
    other_argv = st.one_of(
        st.builds(lambda c: ["show", "--data-dir", data_dir, "--checkpoint", c], cid),
        st.just(["status", "--data-dir", data_dir]),
        st.just(["shop", "--data-dir", data_dir, "show"]),
        st.lists(TEXT, max_size=6),
        st.builds(lambda rest: ["resume", "--data-dir", data_dir, *rest], st.lists(TEXT, max_size=6)),
    )

    @_settings(examples)
    @given(st.one_of(resume_argv, other_argv))
    def cli(argv: list[str]) -> None:
        counted("cli_arguments")
        from production_orchestrator.cli import main

        def body() -> tuple[bool, str]:
            before = snapshot(world)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(argv)
                except SystemExit as exc:
                    code = int(exc.code or 0)
            unchanged = snapshot(world) == before
            clear = code in (0, 2, 3) and "Traceback" not in err.getvalue() and "internal error" not in err.getvalue()
            said = err.getvalue().strip() or out.getvalue().strip()
            return clear and unchanged and (
                code == 0 or bool(said)
            ), f"argv={argv!r} exit={code} unchanged={unchanged} err={err.getvalue()[:200]!r}"

        tally.run("cli", body)

    cli()

    # -- checkpoint fields ----------------------------------------------------------------------------------
    db = Path(data_dir) / "shop.sqlite3"
    original = world.runtime().store.get_checkpoint(ids["checkpoint_id"]) or ""
    fields = sorted(json.loads(original))

    @_settings(examples)
    @given(st.sampled_from(fields), JSON)
    def checkpoint_field(name: str, value: Any) -> None:
        counted("checkpoint_fields")
        data = json.loads(original)
        if data[name] == value:
            return
        data[name] = value

        def body() -> tuple[bool, str]:
            _set_checkpoint(db, json.dumps(data))
            try:
                before = snapshot(world)
                request = ResumeRequest(
                    checkpoint_id=ids["checkpoint_id"], approved=True, reviewed_hash=ids["proposal_hash"]
                )
                try:
                    resume_direct(world.runtime(), ResumeDirect(request, _binding(), approver="h", reason=""))
                    return False, f"{name}={value!r} resumed"
                except (ResumeRefusedError, OrchestratorError, ValueError) as refused:
                    return snapshot(world) == before, f"{name}={value!r}: {refused}"
            finally:
                _set_checkpoint(db, original)

        tally.run("checkpoint", body)

    checkpoint_field()

    # -- decision objects ----------------------------------------------------------------------------------
    decision_fields = (
        st.fixed_dictionaries(
            {},
            optional={
                "approved": JSON | st.booleans(),
                "reviewed_hash": HEX64 | JSON,
                "approver": TEXT | JSON,
                "reason": st.text(max_size=3000) | JSON,
                "decided_at": st.sampled_from(["2026-08-12T09:00:00Z", "2026-08-12T09:00:00", "yesterday"]) | JSON,
            },
        )
        | JSON
    )

    @_settings(examples)
    @given(decision_fields)
    def decision_object(raw: Any) -> None:
        counted("decision_objects")

        def body() -> tuple[bool, str]:
            try:
                parsed = Decision.model_validate(raw)
            except PydanticValidationError:
                return True, ""
            return Decision.model_validate(parsed.as_response()) == parsed, f"{raw!r} does not round-trip"

        tally.run("decision", body)

    decision_object()

    @_settings(examples)
    @given(st.booleans(), HEX64 | TEXT, st.text(max_size=300), st.text(max_size=3000))
    def resume_decision(approved: bool, reviewed: str, approver: str, reason: str) -> None:
        counted("resume_decisions")
        if reviewed == ids["proposal_hash"]:
            return

        def body() -> tuple[bool, str]:
            before = snapshot(world)
            request = ResumeRequest(checkpoint_id=ids["checkpoint_id"], approved=approved, reviewed_hash=reviewed)
            try:
                resume_direct(world.runtime(), ResumeDirect(request, _binding(), approver=approver, reason=reason))
                return False, "resumed on a hash nobody reviewed"
            except (ResumeRefusedError, OrchestratorError, ValueError):
                return snapshot(world) == before, "wrote something"

        tally.run("resume-decision", body)

    resume_decision()

    # -- Lambda handler events and approval POST bodies, on the moto server -----------------------------------
    _aws_targets(endpoint, patch, examples, tally, counted)
    fam.detail = {"examples_per_target": examples, "examples": counts}
    return fam


def _set_checkpoint(db: Path, raw: str) -> None:
    con = sqlite3.connect(db)
    con.execute("UPDATE checkpoints SET raw = ?", (raw,))
    con.commit()
    con.close()


def _binding() -> Any:
    from production_orchestrator.agent.providers import build_binding

    return build_binding("deterministic")


def _aws_targets(
    endpoint: str, patch: pytest.MonkeyPatch, examples: int, tally: _Tally, counted: Callable[[str], None]
) -> None:
    import importlib

    from tests.support.aws_flow import start
    from tests.support.moto_aws import LambdaContext, aws_world, cold_start, function_url_event

    from production_orchestrator.handlers import events

    models = {
        "run_agent": events.RunAgentEvent,
        "request_approval": events.RequestApprovalEvent,
        "resume_agent": events.ResumeEvent,
        "record_expiry": events.RecordExpiryEvent,
        "send_outbox": events.SendOutboxEvent,
    }
    with pytest.MonkeyPatch.context() as mp, aws_world(endpoint, mp) as aws:
        flow = start(aws)
        flow.request_approval()
        link = flow.link()

        @_settings(examples)
        @given(st.sampled_from(sorted(models)), JSON)
        def handler_event(name: str, event: Any) -> None:
            counted("handler_events")
            try:
                models[name].model_validate(event)
                return  # a valid event is not hostile input
            except PydanticValidationError:
                pass
            module = importlib.import_module(f"production_orchestrator.handlers.{name}")

            def body() -> tuple[bool, str]:
                before = aws.snapshot()
                cold_start()
                try:
                    module.handler(event, LambdaContext())
                    return False, f"{name} accepted {event!r}"
                except OrchestratorError:
                    return aws.snapshot() == before, f"{name} wrote on {event!r}"

            tally.run(f"handler {name}", body)

        handler_event()

        form_values = st.one_of(TEXT, st.just(link.approval_id), st.just(link.secret[:-1] + "A"), HEX64)
        forms = st.dictionaries(
            st.sampled_from(["a", "s", "decision", "reviewed_hash", "reason"]) | st.text(max_size=8),
            form_values,
            max_size=6,
        )

        @_settings(examples)
        @given(forms, st.sampled_from(["POST", "GET", "HEAD", "PUT", "DELETE"]), st.booleans())
        def approval_post(form: dict[str, str], method: str, base64_body: bool) -> None:
            counted("approval_posts")
            if form.get("s") == link.secret:
                return

            def body() -> tuple[bool, str]:
                from production_orchestrator.handlers import decide

                before = aws.snapshot()
                cold_start()
                response = decide.handler(
                    function_url_event(method, form=form, base64_body=base64_body), LambdaContext()
                )
                status = int(response["statusCode"])
                return status < 500 and aws.snapshot() == before, f"{method} {form!r} -> {status}"

            tally.run("approval-post", body)

        approval_post()

        @_settings(examples)
        @given(JSON)
        def raw_url_event(event: Any) -> None:
            counted("decide_raw_events")

            def body() -> tuple[bool, str]:
                from production_orchestrator.handlers import decide

                before = aws.snapshot()
                cold_start()
                try:
                    response = decide.handler(event, LambdaContext())
                except OrchestratorError:
                    return aws.snapshot() == before, "wrote"
                ok = isinstance(response, dict) and int(response.get("statusCode", 500)) < 500
                return ok and aws.snapshot() == before, f"{event!r} -> {response!r}"[:300]

            tally.run("decide-raw-event", body)

        raw_url_event()
