"""Names the infrastructure shares with the runtime: table keys, handler entry points, state names, env vars.

The table's key names belong to the DynamoDB adapter (``adapters/aws/table_schema.py``, which imports no
boto3); this module re-exports them so the stack and the adapter cannot drift apart.
"""

from __future__ import annotations

from typing import Final

from production_orchestrator import contracts
from production_orchestrator.adapters.aws.table_schema import (
    OPEN_RUNS_INDEX,
    OPEN_RUNS_PROJECTED,
    OPEN_UNTIL_ATTRIBUTE,
    PARTITION_KEY,
    SORT_KEY,
    TTL_ATTRIBUTE,
)

# One DynamoDB table for checkpoints, proposals, approvals, shop state and audit events.
TABLE_PARTITION_KEY: Final = PARTITION_KEY
TABLE_SORT_KEY: Final = SORT_KEY
TABLE_TTL_ATTRIBUTE: Final = TTL_ATTRIBUTE
TABLE_OPEN_RUNS_INDEX: Final = OPEN_RUNS_INDEX
TABLE_OPEN_UNTIL_ATTRIBUTE: Final = OPEN_UNTIL_ATTRIBUTE
TABLE_OPEN_RUNS_PROJECTED: Final = OPEN_RUNS_PROJECTED

# Lambda entry points (module.function inside the asset root ``functions/``).
HANDLER_PACKAGE: Final = "production_orchestrator"
RUN_AGENT_HANDLER: Final = "production_orchestrator.handlers.run_agent.handler"
REQUEST_APPROVAL_HANDLER: Final = "production_orchestrator.handlers.request_approval.handler"
DECIDE_HANDLER: Final = "production_orchestrator.handlers.decide.handler"
RESUME_AGENT_HANDLER: Final = "production_orchestrator.handlers.resume_agent.handler"
RECORD_EXPIRY_HANDLER: Final = "production_orchestrator.handlers.record_expiry.handler"
REPORT_PENDING_AGE_HANDLER: Final = "production_orchestrator.handlers.report_pending_age.handler"
SEND_OUTBOX_HANDLER: Final = "production_orchestrator.handlers.send_outbox.handler"
SUBMIT_HANDLER: Final = "production_orchestrator.handlers.submit.handler"
RECEIVE_EMAIL_HANDLER: Final = "production_orchestrator.handlers.receive_email.handler"
REMIND_HANDLER: Final = "production_orchestrator.handlers.remind.handler"
SIGN_OPERATOR_AUDIT_HANDLER: Final = "production_orchestrator.handlers.sign_operator_audit.handler"
RECEIPT_RULE_SET_HANDLER: Final = "production_orchestrator.handlers.receipt_rule_set.handler"

# State names an operator sees in the Step Functions console.
STATE_RUN_AGENT: Final = "RunAgentUntilApproval"
STATE_WAIT_FOR_DECISION: Final = "WaitForHumanDecision"
STATE_RESUME: Final = "ResumeVerifiedDecision"
STATE_OUTCOME: Final = "DecisionOutcome"
STATE_PLAN_APPLIED: Final = "PlanApplied"
STATE_PLAN_REJECTED: Final = "PlanRejected"
STATE_RESUME_REFUSED: Final = "ResumeRefused"
STATE_DECISION_EXPIRED: Final = "DecisionExpired"
STATE_APPROVAL_NOT_REQUESTED: Final = "ApprovalNotRequested"
STATE_SEND_MESSAGES: Final = "SendApprovedMessages"
STATE_MESSAGES_NOT_SENT: Final = "MessagesNotSent"
STATE_REQUESTER_UNVERIFIED: Final = "RequesterNotVerified"
STATE_NO_SHOP: Final = "NoShopToPlanOn"
STATE_REQUEST_NOT_PLANNED: Final = "RequestNotPlanned"
STATE_ARM_REMINDERS: Final = "ArmReminders"
STATE_DISARM_REMINDERS: Final = "DisarmReminders"
STATE_ALREADY_PENDING: Final = "RequestAlreadyWaiting"
STATE_DECISION_KIND: Final = "DecisionOrRevision"
STATE_REVISE: Final = "PlanRevisedVersion"
STATE_REVISION_NOT_PLANNED: Final = "RevisionNotPlanned"
STATE_READ_OUTCOME: Final = "RequestRead"
STATE_NEEDS_FACTS: Final = "RequestNeedsFacts"

# Shared with the runtime, defined once in production_orchestrator/contracts.py.
OUTCOME_APPLIED: Final = contracts.OUTCOME_APPLIED
OUTCOME_REJECTED: Final = contracts.OUTCOME_REJECTED
OUTCOME_REFUSED: Final = contracts.OUTCOME_REFUSED
METRICS_NAMESPACE: Final = contracts.METRICS_NAMESPACE
METRIC_RESUME_REFUSED: Final = contracts.METRIC_WORKFLOW_RESUME_REFUSED
METRIC_DECISION_EXPIRED: Final = contracts.METRIC_WORKFLOW_DECISION_EXPIRED
METRIC_OLDEST_PENDING_APPROVAL_AGE: Final = contracts.METRIC_OLDEST_PENDING_APPROVAL_AGE
METRIC_MESSAGES_NOT_SENT: Final = contracts.METRIC_WORKFLOW_MESSAGES_NOT_SENT
ENV_TABLE_NAME: Final = contracts.ENV_TABLE_NAME
ENV_SESSION_BUCKET: Final = contracts.ENV_SESSION_BUCKET
ENV_SESSION_PREFIX: Final = contracts.ENV_SESSION_PREFIX
REQUEST_PREFIX: Final = contracts.REQUEST_PREFIX
INBOUND_PREFIX: Final = contracts.INBOUND_PREFIX
ENV_INBOUND_ADDRESS: Final = contracts.ENV_INBOUND_ADDRESS
ENV_TOPIC_ARN: Final = contracts.ENV_TOPIC_ARN
ENV_PROVIDER: Final = contracts.ENV_PROVIDER
ENV_MODEL_ID: Final = contracts.ENV_MODEL_ID
ENV_MODEL_REGION: Final = contracts.ENV_MODEL_REGION
ENV_MODEL_PROFILE: Final = contracts.ENV_MODEL_PROFILE
ENV_MODEL_ENDPOINT: Final = contracts.ENV_MODEL_ENDPOINT
ENV_APPROVAL_WINDOW: Final = contracts.ENV_APPROVAL_WINDOW
ENV_LINK_BASE_URL: Final = contracts.ENV_LINK_BASE_URL
ENV_APPROVERS: Final = contracts.ENV_APPROVERS
ENV_SCENARIO: Final = contracts.ENV_SCENARIO
ENV_SEPARATION_OF_DUTIES: Final = contracts.ENV_SEPARATION_OF_DUTIES
ENV_QUORUM: Final = contracts.ENV_QUORUM
ENV_MAX_VERSIONS: Final = contracts.ENV_MAX_VERSIONS
ENV_QUORUM_ABOVE_QUANTITY: Final = contracts.ENV_QUORUM_ABOVE_QUANTITY
ENV_RECEIPT_KEY_ID: Final = contracts.ENV_RECEIPT_KEY_ID
ENV_AUDIT_KEY_ID: Final = contracts.ENV_AUDIT_KEY_ID
ENV_DECISION_LEASE: Final = contracts.ENV_DECISION_LEASE
ENV_SERVICE_NAME: Final = contracts.ENV_SERVICE_NAME
ENV_METRICS_NAMESPACE: Final = contracts.ENV_METRICS_NAMESPACE
ENV_SENDER_EMAIL: Final = contracts.ENV_SENDER_EMAIL
ENV_SES_CONFIGURATION_SET: Final = contracts.ENV_SES_CONFIGURATION_SET
ENV_STATE_MACHINE_ARN: Final = contracts.ENV_STATE_MACHINE_ARN
ENV_OPERATOR_TOPIC_ARN: Final = contracts.ENV_OPERATOR_TOPIC_ARN
ENV_SUBMITTERS: Final = contracts.ENV_SUBMITTERS
ENV_REMIND_AT: Final = contracts.ENV_REMIND_AT
ENV_ESCALATE_AFTER: Final = contracts.ENV_ESCALATE_AFTER
ENV_BACKUP_APPROVERS: Final = contracts.ENV_BACKUP_APPROVERS
ENV_REMINDER_GROUP: Final = contracts.ENV_REMINDER_GROUP
ENV_REMINDER_ROLE_ARN: Final = contracts.ENV_REMINDER_ROLE_ARN
