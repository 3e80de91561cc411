"""Names the runtime, the infrastructure and the tests share, defined once.

Environment variables the handlers read (the CDK stack sets exactly these), the metric namespace and
names, the outcome literals of the resume step, and the rule an approver address must meet. Pure: no
imports beyond the standard library, so ``infra/`` can read it at synth without the runtime's SDKs.
"""

from __future__ import annotations

import re
from typing import Final, Literal

# Environment variables (field name in handlers/settings.py -> variable).
ENV_TABLE_NAME: Final = "PO_TABLE_NAME"
ENV_SEPARATION_OF_DUTIES: Final = "PO_SEPARATION_OF_DUTIES"
ENV_QUORUM: Final = "PO_QUORUM"
ENV_QUORUM_ABOVE_QUANTITY: Final = "PO_QUORUM_ABOVE_QUANTITY"
ENV_MAX_VERSIONS: Final = "PO_MAX_VERSIONS"  # versions a plan may have (infra: the execution is sized for them)
ENV_RECEIPT_KEY_ID: Final = "PO_RECEIPT_KEY_ID"
ENV_AUDIT_KEY_ID: Final = "PO_AUDIT_KEY_ID"
ENV_OPERATOR_FUNCTION: Final = "PO_OPERATOR_FUNCTION"  # the CLI's --operator-function: MACs its --table shop writes
# The table's tag naming the stack's operator function, so `--table T` alone finds it (cli/operator_key.py).
OPERATOR_FUNCTION_TAG: Final = "production-orchestrator:operator-function"
ENV_SESSION_BUCKET: Final = "PO_SESSION_BUCKET"
ENV_SESSION_PREFIX: Final = "PO_SESSION_PREFIX"
ENV_TOPIC_ARN: Final = "PO_TOPIC_ARN"
ENV_OPERATOR_TOPIC_ARN: Final = "PO_OPERATOR_TOPIC_ARN"  # operator alerts (the alarm topic): RunAgentUntilApproval
ENV_PROVIDER: Final = "PO_PROVIDER"
ENV_MODEL_ID: Final = "PO_MODEL_ID"
ENV_MODEL_REGION: Final = "PO_MODEL_REGION"
ENV_MODEL_PROFILE: Final = "PO_MODEL_PROFILE"
ENV_MODEL_ENDPOINT: Final = "PO_MODEL_ENDPOINT"
ENV_APPROVAL_WINDOW: Final = "PO_APPROVAL_WINDOW"
ENV_LINK_BASE_URL: Final = "PO_LINK_BASE_URL"
ENV_APPROVERS: Final = "PO_APPROVERS"
ENV_SCENARIO: Final = "PO_SCENARIO"
ENV_DECISION_LEASE: Final = "PO_DECISION_LEASE"
# The outbox sender (SES) and the submit entry.
ENV_SENDER_EMAIL: Final = "PO_SENDER_EMAIL"
ENV_SES_CONFIGURATION_SET: Final = "PO_SES_CONFIGURATION_SET"
ENV_STATE_MACHINE_ARN: Final = "PO_STATE_MACHINE_ARN"
# Customer e-mails received by SES for this address start runs (set only when the stack receives e-mail).
ENV_INBOUND_ADDRESS: Final = "PO_INBOUND_ADDRESS"
# The submit entry's map of principal ARNs to people (JSON, see domain/identity.py).
ENV_SUBMITTERS: Final = "PO_SUBMITTERS"
# The planning solver's budget in work (branch-and-bound nodes per objective stage; 0: the greedy plan only).
ENV_SOLVER_NODES: Final = "PO_SOLVER_NODES"
# Reminders and escalation on AWS (handlers/remind.py): the points, when backups join and who they are, and
# the EventBridge Scheduler group and role the one-time wake-ups are created with.
ENV_REMIND_AT: Final = "PO_REMIND_AT"
ENV_ESCALATE_AFTER: Final = "PO_ESCALATE_AFTER"
ENV_BACKUP_APPROVERS: Final = "PO_BACKUP_APPROVERS"
ENV_REMINDER_GROUP: Final = "PO_REMINDER_GROUP"
ENV_REMINDER_ROLE_ARN: Final = "PO_REMINDER_ROLE_ARN"
ENV_SERVICE_NAME: Final = "POWERTOOLS_SERVICE_NAME"
ENV_METRICS_NAMESPACE: Final = "POWERTOOLS_METRICS_NAMESPACE"
# Local (CLI) settings.
ENV_DATA_DIR: Final = "PO_DATA_DIR"
# The rehearsal clock of every local command (the global --now sets it); the AWS runtime never reads it.
ENV_NOW: Final = "PO_NOW"
ENV_FAULT_KILL_AT: Final = "PO_FAULT_KILL_AT"
ENV_MAIL_FROM: Final = "PO_MAIL_FROM"
ENV_SMTP_USERNAME: Final = "PO_SMTP_USERNAME"
ENV_SMTP_PASSWORD: Final = "PO_SMTP_PASSWORD"

# A request too large for the execution input (256 KB) is put in the session bucket under this prefix, and
# the input names its key; the start function may read objects under it and nowhere else.
REQUEST_PREFIX: Final = "requests/"
MAX_REQUEST_BYTES: Final = 10 * 1024 * 1024
# SES stores each received e-mail under this prefix (the object key is the SES message id); only the
# receiving function may read there.
INBOUND_PREFIX: Final = "inbound/"

# Metrics: one namespace; handler metrics (Powertools) and the workflow's log-derived ones.
METRICS_NAMESPACE: Final = "ProductionOrchestrator"
METRIC_PROPOSAL_CREATED: Final = "ProposalCreated"
METRIC_REQUEST_NEEDS_FACTS: Final = "RequestNeedsFacts"
METRIC_DECISION_RECORDED: Final = "DecisionRecorded"
METRIC_PLAN_APPLIED: Final = "PlanApplied"
METRIC_RESUME_REFUSED: Final = "ResumeRefused"
METRIC_DECISION_EXPIRED: Final = "DecisionExpired"
METRIC_OLDEST_PENDING_APPROVAL_AGE: Final = "OldestPendingApprovalAgeSeconds"
# E-mails received by SES: runs started, and refusals (with the refusal code as a dimension).
METRIC_INBOUND_SUBMITTED: Final = "InboundRunStarted"
METRIC_INBOUND_REFUSED: Final = "InboundRefused"
# Counted from the workflow's own log (every path, whatever the handler published); named apart from the
# handlers' metrics of the same facts.
METRIC_WORKFLOW_RESUME_REFUSED: Final = "WorkflowResumeRefused"
METRIC_WORKFLOW_DECISION_EXPIRED: Final = "WorkflowDecisionExpired"
METRIC_WORKFLOW_MESSAGES_NOT_SENT: Final = "WorkflowMessagesNotSent"

# The resume step's ``outcome`` (the state machine routes on these).
# RunAgentUntilApproval's outcome when the request waits as needs facts (RequestRead chooses on it).
RUN_OUTCOME_NEEDS_FACTS: Final = "needs_facts"
OUTCOME_APPLIED: Final = "applied"
OUTCOME_REJECTED: Final = "rejected"
OUTCOME_REFUSED: Final = "refused"
OUTCOME_EXPIRED: Final = "expired"
Outcome = Literal["applied", "rejected", "refused"]

# An approver address, as the stack accepts it at synth and the handlers at cold start.
APPROVER_EMAIL: Final = re.compile(r"^[^@\s,]{1,64}@[A-Za-z0-9.-]{1,255}\.[A-Za-z]{2,}\Z")


def is_approver_email(value: str) -> bool:
    """True when ``value`` is an address approval links may be mailed to."""
    return APPROVER_EMAIL.fullmatch(value) is not None
