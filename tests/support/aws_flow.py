"""Drive the four Lambda handlers (and the expiry step) the way the state machine and a browser do.

Each call is one invocation with a realistic event built from tests/events/; between steps the composition
roots are dropped (``cold``), so resume re-reads everything from S3 and DynamoDB like a fresh process.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from production_orchestrator.domain.scenarios import scenario as find_scenario
from tests.support.moto_aws import (
    AwsWorld,
    LambdaContext,
    Link,
    cold_start,
    function_url_event,
    iam_caller,
    load_event,
    submit_event,
)


def _invoke(module: str, event: dict[str, Any], *, cold: bool = True) -> dict[str, Any]:
    import importlib

    if cold:
        cold_start()
    handler = importlib.import_module(f"production_orchestrator.handlers.{module}").handler
    result: dict[str, Any] = handler(event, LambdaContext(function_name=f"po-{module}"))
    return result


def fake_task_token() -> str:
    """Opaque and long like a real one (moto's are UUIDs); the log test searches for it verbatim."""
    return "AQB" + secrets.token_urlsafe(300)


@dataclass
class Flow:
    """One execution: the run output, the task token and the links the approvers received."""

    aws: AwsWorld
    run: dict[str, Any]
    task_token: str = ""
    approval_id: str = ""
    links: tuple[Link, ...] = ()

    @property
    def proposal_hash(self) -> str:
        return str(self.run["proposal_hash"])

    @property
    def checkpoint_id(self) -> str:
        return str(self.run["checkpoint_id"])

    def request_approval(self, task_token: str | None = None) -> dict[str, Any]:
        """``WaitForHumanDecision``: the notify Lambda with the token; collects the e-mailed links."""
        self.task_token = task_token or fake_task_token()
        event = load_event("request_approval", task_token=self.task_token, **self.run)
        event["requested_by"] = self.run.get("requested_by", "")  # the state machine passes it (not in the sample)
        result = _invoke("request_approval", event)
        self.approval_id = str(result["approval_id"])
        self.links = tuple(self.aws.links())
        return result

    def link(self, approver: str | None = None) -> Link:
        """The link one approver received (the first approver by default)."""
        return next(link for link in self.links if approver is None or link.approver == approver)

    def get(self, link: Link | None = None, method: str = "GET", **query: str) -> dict[str, Any]:
        """Open a link, as a browser or a mail scanner would."""
        chosen = link or self.link()
        params = {"a": chosen.approval_id, "s": chosen.secret, **query}
        return _invoke("decide", function_url_event(method, query=params))

    def post(
        self,
        decision: str = "approve",
        *,
        link: Link | None = None,
        reviewed_hash: str | None = None,
        reason: str | None = None,
        **overrides: str,
    ) -> dict[str, Any]:
        """Press a button on the confirmation page (a reject needs a reason: one is filled in)."""
        chosen = link or self.link()
        if reason is None:
            reason = "not this plan" if decision == "reject" else ""
        form = {
            "a": chosen.approval_id,
            "s": chosen.secret,
            "decision": decision,
            "reviewed_hash": self.proposal_hash if reviewed_hash is None else reviewed_hash,
            "reason": reason,
            **overrides,
        }
        return _invoke("decide", function_url_event("POST", form=form))

    def resume(self, **overrides: Any) -> dict[str, Any]:
        """``ResumeVerifiedDecision`` with the pointer ``SendTaskSuccess`` carried."""
        fields = {**self.run, "approval_id": self.approval_id, **overrides}
        return _invoke("resume_agent", load_event("resume_agent", **fields))

    def record_expiry(self) -> dict[str, Any]:
        """``DecisionExpired``: the wait timed out."""
        return _invoke("record_expiry", load_event("record_expiry", **self.run))


def submit(aws: AwsWorld, request: str, caller: dict[str, str] | None = None) -> dict[str, Any]:
    """A signed POST to the submit URL: the submission is recorded and the execution started (on moto)."""
    response = _invoke("submit", submit_event({"request": request}, caller or iam_caller()))
    assert response["statusCode"] == 202, response["body"]
    return dict(json.loads(response["body"]))


def run_agent_event(execution_name: str, execution_input: dict[str, Any]) -> dict[str, Any]:
    """``RunAgentUntilApproval``'s payload as the state machine builds it: the input and ``$$.Execution.Name``."""
    return {"input": execution_input, "execution_name": execution_name}


def import_scenario_shop(scenario: str = "rush-order") -> None:
    """The scenario's shop on the table, imported (its audit event keyed as the stack's are) unless one is there:
    the start function never writes the shop's state (infra/permissions.py)."""
    from production_orchestrator.handlers.root import runtime
    from production_orchestrator.services.shop.importing import ImportShop, import_shop

    cold_start()
    rt = runtime()
    if rt.store.load_state() is None:
        import_shop(rt, ImportShop(find_scenario(scenario).state))


def start(aws: AwsWorld, scenario: str = "rush-order", caller: dict[str, str] | None = None) -> Flow:
    """Submitted by ``caller`` (a signed request), then ``RunAgentUntilApproval`` for that execution, on the
    scenario's shop (imported first when the table holds none)."""
    import_scenario_shop(scenario)
    submitted = submit(aws, find_scenario(scenario).customer_email, caller)
    event = run_agent_event(submitted["execution_name"], {**load_event("run_agent"), "scenario": scenario})
    return Flow(aws=aws, run=_invoke("run_agent", event))


def approved_flow(aws: AwsWorld, decision: str = "approve") -> Flow:
    """Started, approval requested and decided through the page: ready to resume."""
    flow = start(aws)
    flow.request_approval()
    response = flow.post(decision)
    assert response["statusCode"] == 200, response["body"]
    return flow
