"""What each Lambda may do, derived from what its handler calls (one place to read, and to update).

The e2e workflow test records every AWS call each handler makes on moto and checks it against the role
the template gives that function; the template test asserts each role's exact action set from here.

Table reads and writes are scoped by partition key (``dynamodb:LeadingKeys``), and every item type has a
partition key of its own (adapters/aws/table_schema.py), so a grant names item types: IAM cannot scope by
sort key, and a role granted a partition may write every item in it. Writes, by item type:

    shop state    STATE            the apply (resume_agent); the operator's shop commands (their own credentials)
    checkpoints   CHECKPOINT       run_agent
    decisions     DECISION         resume_agent (the claim, and its outcome)
    applications  APPLICATION      resume_agent
    outbox        OUTBOX           resume_agent creates (with the apply), send_outbox moves (compare-and-set)
    approvals     APPROVAL#<id>    request_approval creates; decide, record_expiry, remind, request_approval
                                   update (UpdateItem conditioned on the item existing: never creating one);
                                   a revision asked on the page is decide's update, its answer (the link to
                                   the next version's approval) request_approval's
    pointers      APPROVAL_OF      request_approval
    audit chain   AUDIT            every function that records a change: events created only if absent, the
                                   head replaced only while it is the one linked to (chained_table.py)
    proposals, request keys, held requests   run_agent;  snapshots  run_agent, resume_agent
    submissions   SUBMISSION#      submit, receive_email

So ``decide``, the internet-facing function, may update an approval (its vote) and append to the audit chain,
and write no other item type. DynamoDB transactions are authorized per item as the underlying
PutItem/UpdateItem, so a role that writes only through ``TransactWriteItems`` needs PutItem, and no action
named after the transaction exists. No role may delete an item (TTL removes old approvals).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from production_orchestrator.adapters.aws.table_schema import (
    APPLICATION_PK,
    APPROVAL_OF_PK,
    APPROVAL_PK_PREFIX,
    AUDIT_PK,
    CHECKPOINT_PK,
    DECISION_PK,
    HELD_PK,
    OUTBOX_PK,
    PROPOSAL_PK_PREFIX,
    RUN_MESSAGE_PK_PREFIX,
    RUN_REQUEST_PK_PREFIX,
    SNAPSHOT_PK_PREFIX,
    STATE_PK,
    SUBMISSION_PK_PREFIX,
)

# Partition-key patterns (IAM StringLike) of the item types.
STATE: Final = STATE_PK
CHECKPOINTS: Final = CHECKPOINT_PK
DECISIONS: Final = DECISION_PK
APPLICATIONS: Final = APPLICATION_PK
OUTBOX: Final = OUTBOX_PK
APPROVAL_POINTERS: Final = APPROVAL_OF_PK
PROPOSALS: Final = f"{PROPOSAL_PK_PREFIX}*"
SNAPSHOTS: Final = f"{SNAPSHOT_PK_PREFIX}*"
APPROVALS: Final = f"{APPROVAL_PK_PREFIX}*"
SUBMISSIONS: Final = f"{SUBMISSION_PK_PREFIX}*"
AUDIT: Final = AUDIT_PK
RUN_REQUESTS: Final = f"{RUN_REQUEST_PK_PREFIX}*"
RUN_MESSAGES: Final = f"{RUN_MESSAGE_PK_PREFIX}*"
HELD: Final = HELD_PK
# Every item type, by name (the docs and the tests that try each role on each type read this).
ITEM_TYPES: Final[Mapping[str, str]] = {
    "shop state": STATE,
    "checkpoint": CHECKPOINTS,
    "decision": DECISIONS,
    "application": APPLICATIONS,
    "outbox message": OUTBOX,
    "approval pointer": APPROVAL_POINTERS,
    "approval": APPROVALS,
    "audit chain": AUDIT,
    "proposal": PROPOSALS,
    "state snapshot": SNAPSHOTS,
    "submission": SUBMISSIONS,
    "request key": RUN_REQUESTS,
    "Message-ID pointer": RUN_MESSAGES,
    "held request": HELD,
}

TableAccess = Mapping[str, tuple[str, ...]]  # dynamodb action -> partition-key patterns it may touch
# Reading a checkpoint reads, in the same BatchGetItem, its decision, the shop and the audit chain head.
CHECKPOINT_BATCH: Final = (CHECKPOINTS, DECISIONS, STATE, AUDIT)

# handler module -> table access. Updated together with the code: the e2e test fails on a call not here.
TABLE_ACCESS: Final[Mapping[str, TableAccess]] = {
    # start: intake, proposal, snapshot, checkpoint, audit events (a large shop's state is read from its snapshot
    # chunks); the same request is started once: its request key (RUNREQ#, RUNMSG#) is written in the
    # checkpoint's transaction and read back by the next start of it, and a request held for a person (a
    # possible duplicate, one that needs facts) is created or closed in HELD. It never writes the shop: a
    # reference scenario's shop is imported by the operator, not seeded here.
    "run_agent": {
        # reads: each open run's checkpoint (holding.py) and, for PlanRevisedVersion, the revised version's (with
        # the items read beside it); the approval holding the ask by GetItem. No write beyond the ones below.
        "dynamodb:BatchGetItem": CHECKPOINT_BATCH,
        "dynamodb:GetItem": (STATE, APPLICATIONS, PROPOSALS, SNAPSHOTS, SUBMISSIONS, APPROVALS, AUDIT, HELD),
        "dynamodb:PutItem": (CHECKPOINTS, PROPOSALS, SNAPSHOTS, AUDIT, RUN_REQUESTS, RUN_MESSAGES, HELD),
        # a request started again: its earlier runs (by request key and Message-ID) and their approvals' status;
        # the open runs whose plans hold capacity are listed from the open-runs index (OPEN_RUNS_ACCESS), then
        # each read (services/runs/holding.py)
        "dynamodb:Query": (APPROVAL_POINTERS, RUN_REQUESTS, RUN_MESSAGES, HELD),
    },
    # reads the checkpoint (one BatchGetItem with the items read next) and proposal; finds the approval a
    # retry already created (its pointers, the record itself), else creates the approval and its pointer;
    # records each link as sent on the approval
    "request_approval": {
        "dynamodb:BatchGetItem": CHECKPOINT_BATCH,
        "dynamodb:GetItem": (PROPOSALS, APPROVALS, AUDIT),
        "dynamodb:Query": (APPROVAL_POINTERS,),
        "dynamodb:PutItem": (APPROVALS, APPROVAL_POINTERS, AUDIT),
        "dynamodb:UpdateItem": (APPROVALS,),
    },
    # the public endpoint: reads what the page shows; records a vote on the approval item (an update of an
    # existing item) and its audit event; writes no other item type. The decision is claimed by resume_agent.
    "decide": {
        "dynamodb:BatchGetItem": CHECKPOINT_BATCH,
        "dynamodb:GetItem": (STATE, DECISIONS, PROPOSALS, APPROVALS, SNAPSHOTS, AUDIT),
        # a stale plan's page reads the snapshot it was proposed on, kept in chunks under its digest
        "dynamodb:Query": (SNAPSHOTS,),
        "dynamodb:UpdateItem": (APPROVALS,),
        "dynamodb:PutItem": (AUDIT,),
    },
    # verify, claim, apply, complete; reads the approval, never changes it; a large shop's state is read from
    # (and, when a plan applies, written to) its snapshot chunks
    "resume_agent": {
        "dynamodb:BatchGetItem": CHECKPOINT_BATCH,
        "dynamodb:GetItem": (STATE, DECISIONS, APPLICATIONS, PROPOSALS, APPROVALS, SNAPSHOTS, AUDIT),
        "dynamodb:PutItem": (STATE, DECISIONS, APPLICATIONS, OUTBOX, SNAPSHOTS, AUDIT),
    },
    # pending -> expired, with an audit event; reports the unchanged shop
    "record_expiry": {
        "dynamodb:GetItem": (STATE, DECISIONS, APPROVALS, AUDIT),
        "dynamodb:Query": (APPROVAL_POINTERS, APPLICATIONS),
        "dynamodb:UpdateItem": (APPROVALS,),
        "dynamodb:PutItem": (AUDIT,),
    },
    # sends an applied plan's queued messages: reads its outbox items, the approved proposal each must match and
    # the audit trail each one's status must agree with, claims and marks each (with an audit event) in
    # conditional writes of the existing items
    "send_outbox": {
        "dynamodb:GetItem": (APPLICATIONS, PROPOSALS, AUDIT),
        "dynamodb:PutItem": (OUTBOX, AUDIT),
        "dynamodb:Query": (OUTBOX, AUDIT),
    },
    # the authenticated entry: creates the submission record of the execution it starts, once
    "submit": {
        "dynamodb:PutItem": (SUBMISSIONS,),
    },
    # customer e-mails received by SES: creates the submission of the execution it starts, once; a retried
    # delivery reads the record it wrote
    "receive_email": {
        "dynamodb:PutItem": (SUBMISSIONS,),
        "dynamodb:GetItem": (SUBMISSIONS,),
    },
    # the operator function: reads the audit chain head to sign only its successors
    "sign_operator_audit": {
        "dynamodb:GetItem": (AUDIT,),
    },
    # reads only: the open checkpoints (OPEN_RUNS_ACCESS), their approvals' pointers and the approvals
    "report_pending_age": {
        "dynamodb:GetItem": (APPROVALS,),
        "dynamodb:Query": (APPROVAL_POINTERS,),
    },
    # a reminder wake-up: finds the checkpoint's approval (its pointers, the record), reads the checkpoint, its
    # proposal and the shop (its time zone; a large shop's state from its snapshot chunks), changes the approval
    # (claim, relink, escalation, mark) and appends audit events
    "remind": {
        "dynamodb:BatchGetItem": CHECKPOINT_BATCH,
        "dynamodb:GetItem": (STATE, PROPOSALS, APPROVALS, SNAPSHOTS, AUDIT),
        "dynamodb:Query": (APPROVAL_POINTERS, SNAPSHOTS),
        "dynamodb:UpdateItem": (APPROVALS,),
        "dynamodb:PutItem": (AUDIT,),
    },
}

# handler module -> partitions it may Query in the open-runs index (table_schema.OPEN_RUNS_INDEX), a resource of
# its own: a start reads the open runs to plan around what they hold (services/runs/holding.py), the pending-age
# gauge their approvals. No role Queries the whole CHECKPOINT partition of the table.
OPEN_RUNS_ACCESS: Final[Mapping[str, tuple[str, ...]]] = {
    "run_agent": (CHECKPOINTS,),
    "report_pending_age": (CHECKPOINTS,),
}

# Agent sessions (S3SessionManager): HeadObject is authorized as GetObject, ListObjectsV2 as ListBucket. A
# start writes a new session and never lists; a resume restores (lists the messages) and appends.
SESSION_ACCESS: Final[Mapping[str, tuple[str, ...]]] = {
    "run_agent": ("s3:GetObject", "s3:PutObject"),
    "resume_agent": ("s3:GetObject", "s3:PutObject", "s3:ListBucket"),
}
# Strands' BedrockModel with streaming on (ModelSettings.streaming, a test holds them together) calls
# ConverseStream, which is authorized as InvokeModelWithResponseStream.
MODEL_ACTIONS: Final = ("bedrock:InvokeModelWithResponseStream",)
MODEL_USERS: Final = ("run_agent", "resume_agent")
RECEIPT_KEY_ACTIONS: Final[Mapping[str, tuple[str, ...]]] = {
    "decide": ("kms:GenerateMac",),
    "resume_agent": ("kms:VerifyMac",),
}
# The audit chain's links and head are MACed with their own key by every function that appends an event; none
# of them verifies (that is the operator's audit verify --table).
AUDIT_KEY_ACTIONS: Final[Mapping[str, tuple[str, ...]]] = {
    module: ("kms:GenerateMac",)
    for module in (
        "run_agent",
        "request_approval",
        "decide",
        "resume_agent",
        "record_expiry",
        "send_outbox",
        # MACs the operator's own shop writes (domain/approval/operator_signing.py), for the CLI's --table
        "sign_operator_audit",
    )
}
# decide wakes the workflow once a decision is recorded; it never reports a failure.
TASK_RESPONSE_ACTIONS: Final = ("states:SendTaskSuccess",)
PUBLISHERS: Final[Mapping[str, tuple[str, ...]]] = {"request_approval": ("sns:Publish",)}
