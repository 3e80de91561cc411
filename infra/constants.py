"""Names the infrastructure shares with the runtime: table keys, handler entry points, state names, env vars.

The table's key names belong to the DynamoDB adapter (``adapters/aws/table_schema.py``, which imports no
boto3); this module re-exports them so the stack and the adapter cannot drift apart.
"""

from __future__ import annotations

from typing import Final

from production_orchestrator.adapters.aws.table_schema import PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE

# One DynamoDB table for checkpoints, proposals, approvals, shop state and audit events.
TABLE_PARTITION_KEY: Final = PARTITION_KEY
TABLE_SORT_KEY: Final = SORT_KEY
TABLE_TTL_ATTRIBUTE: Final = TTL_ATTRIBUTE

# Lambda entry points (module.function inside the asset root ``functions/``).
HANDLER_PACKAGE: Final = "production_orchestrator"
RUN_AGENT_HANDLER: Final = "production_orchestrator.handlers.run_agent.handler"
REQUEST_APPROVAL_HANDLER: Final = "production_orchestrator.handlers.request_approval.handler"
DECIDE_HANDLER: Final = "production_orchestrator.handlers.decide.handler"
RESUME_AGENT_HANDLER: Final = "production_orchestrator.handlers.resume_agent.handler"
RECORD_EXPIRY_HANDLER: Final = "production_orchestrator.handlers.record_expiry.handler"
REPORT_PENDING_AGE_HANDLER: Final = "production_orchestrator.handlers.report_pending_age.handler"

# State names an operator sees in the Step Functions console.
STATE_RUN_AGENT: Final = "RunAgentUntilApproval"
STATE_WAIT_FOR_DECISION: Final = "WaitForHumanDecision"
STATE_RESUME: Final = "ResumeVerifiedDecision"
STATE_OUTCOME: Final = "DecisionOutcome"
STATE_PLAN_APPLIED: Final = "PlanApplied"
STATE_PLAN_REJECTED: Final = "PlanRejected"
STATE_RESUME_REFUSED: Final = "ResumeRefused"
STATE_DECISION_EXPIRED: Final = "DecisionExpired"

# Values of the resume handler's ``outcome`` field.
OUTCOME_APPLIED: Final = "applied"
OUTCOME_REJECTED: Final = "rejected"
OUTCOME_REFUSED: Final = "refused"

# Custom metrics (namespace shared with Powertools Metrics through POWERTOOLS_METRICS_NAMESPACE).
METRICS_NAMESPACE: Final = "ProductionOrchestrator"
# Counted from the workflow's own log (every path, whatever the handler published); named apart from the
# handlers' Powertools metrics of the same facts (ResumeRefused, DecisionExpired).
METRIC_RESUME_REFUSED: Final = "WorkflowResumeRefused"
METRIC_DECISION_EXPIRED: Final = "WorkflowDecisionExpired"
METRIC_OLDEST_PENDING_APPROVAL_AGE: Final = "OldestPendingApprovalAgeSeconds"

# Environment variables the handlers read.
ENV_TABLE_NAME: Final = "PO_TABLE_NAME"
ENV_SESSION_BUCKET: Final = "PO_SESSION_BUCKET"
ENV_SESSION_PREFIX: Final = "PO_SESSION_PREFIX"
ENV_TOPIC_ARN: Final = "PO_TOPIC_ARN"
ENV_PROVIDER: Final = "PO_PROVIDER"
ENV_MODEL_ID: Final = "PO_MODEL_ID"
ENV_MODEL_REGION: Final = "PO_MODEL_REGION"
ENV_MODEL_PROFILE: Final = "PO_MODEL_PROFILE"
ENV_MODEL_ENDPOINT: Final = "PO_MODEL_ENDPOINT"
ENV_APPROVAL_WINDOW: Final = "PO_APPROVAL_WINDOW"
ENV_LINK_BASE_URL: Final = "PO_LINK_BASE_URL"
ENV_APPROVERS: Final = "PO_APPROVERS"
ENV_SCENARIO: Final = "PO_SCENARIO"
ENV_SEPARATION_OF_DUTIES: Final = "PO_SEPARATION_OF_DUTIES"
ENV_RECEIPT_KEY_ID: Final = "PO_RECEIPT_KEY_ID"
ENV_SERVICE_NAME: Final = "POWERTOOLS_SERVICE_NAME"
ENV_METRICS_NAMESPACE: Final = "POWERTOOLS_METRICS_NAMESPACE"
