"""What each Lambda may do, derived from what its handler calls (one place to read, and to update).

The e2e workflow test records every AWS call each handler makes on moto and checks it against the role
the template gives that function; the template test asserts each role's exact action set from here.

Table writes and reads are scoped by partition key (``dynamodb:LeadingKeys``): the approval items
(``APPROVAL#<id>``), proposals and state snapshots each live in their own partitions, the shop's lists
(state, checkpoints, decisions, applications, the outbox) in ``SHOP``, the audit chain in ``AUDIT``. IAM
cannot scope a write by sort key, so a partition is the unit of trust: ``decide``, the internet-facing
function, writes only the approval it was linked to (its vote) and the audit chain, never ``SHOP``.
DynamoDB transactions are authorized per item as the underlying PutItem/UpdateItem, so a role that writes
only through ``TransactWriteItems`` needs PutItem, and no action named after the transaction exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from production_orchestrator.adapters.aws.table_schema import (
    APPROVAL_PK_PREFIX,
    AUDIT_PK,
    HELD_PK,
    PROPOSAL_PK_PREFIX,
    RUN_MESSAGE_PK_PREFIX,
    RUN_REQUEST_PK_PREFIX,
    SHOP_PK,
    SNAPSHOT_PK_PREFIX,
    SUBMISSION_PK_PREFIX,
)

# Partition-key patterns (IAM StringLike) of the item families.
SHOP: Final = SHOP_PK
PROPOSALS: Final = f"{PROPOSAL_PK_PREFIX}*"
SNAPSHOTS: Final = f"{SNAPSHOT_PK_PREFIX}*"
APPROVALS: Final = f"{APPROVAL_PK_PREFIX}*"
SUBMISSIONS: Final = f"{SUBMISSION_PK_PREFIX}*"
AUDIT: Final = AUDIT_PK
RUN_REQUESTS: Final = f"{RUN_REQUEST_PK_PREFIX}*"
RUN_MESSAGES: Final = f"{RUN_MESSAGE_PK_PREFIX}*"
HELD: Final = HELD_PK

TableAccess = Mapping[str, tuple[str, ...]]  # dynamodb action -> partition-key patterns it may touch

# handler module -> table access. Updated together with the code: the e2e test fails on a call not here.
TABLE_ACCESS: Final[Mapping[str, TableAccess]] = {
    # start: seed, intake, proposal, snapshot, checkpoint, audit events (a large shop's state is read from
    # its snapshot chunks); the same request is started once: its request key (RUNREQ#, RUNMSG#) is written in
    # the checkpoint's transaction and read back by the next start of it, and a request held for a person (a
    # possible duplicate, one that needs facts) is created or closed in HELD
    "run_agent": {
        "dynamodb:GetItem": (SHOP, PROPOSALS, SNAPSHOTS, SUBMISSIONS, APPROVALS, AUDIT, HELD),
        "dynamodb:PutItem": (SHOP, PROPOSALS, SNAPSHOTS, AUDIT, RUN_REQUESTS, RUN_MESSAGES, HELD),
        # a request started again: its earlier runs (by request key and Message-ID) and their approvals' status
        "dynamodb:Query": (SHOP, RUN_REQUESTS, RUN_MESSAGES, HELD),
    },
    # reads the checkpoint (one BatchGetItem with the items read next) and proposal; finds the approval a
    # retry already created (its pointers in SHOP, the record itself), else creates the approval and its
    # pointer; records each link as sent on the approval
    "request_approval": {
        "dynamodb:BatchGetItem": (SHOP, AUDIT),
        "dynamodb:GetItem": (PROPOSALS, APPROVALS, AUDIT),
        "dynamodb:Query": (SHOP,),
        "dynamodb:PutItem": (SHOP, APPROVALS, AUDIT),
        "dynamodb:UpdateItem": (APPROVALS,),
    },
    # the public endpoint: reads what the page shows; records a vote on the approval item and its audit
    # event (AUDIT); writes nothing in SHOP (state, checkpoints, decisions, applications, outbox), and
    # cannot create approvals, proposals or snapshots. The decision itself is claimed by resume_agent.
    "decide": {
        "dynamodb:BatchGetItem": (SHOP, AUDIT),
        "dynamodb:GetItem": (SHOP, PROPOSALS, APPROVALS, SNAPSHOTS, AUDIT),
        # a stale plan's page reads the snapshot it was proposed on, kept in chunks under its digest
        "dynamodb:Query": (SNAPSHOTS,),
        "dynamodb:UpdateItem": (APPROVALS,),
        "dynamodb:PutItem": (AUDIT,),
    },
    # verify, claim, apply, complete; reads the approval, never changes it; a large shop's state is read from
    # (and, when a plan applies, written to) its snapshot chunks
    "resume_agent": {
        "dynamodb:BatchGetItem": (SHOP, AUDIT),
        "dynamodb:GetItem": (SHOP, PROPOSALS, APPROVALS, SNAPSHOTS, AUDIT),
        "dynamodb:PutItem": (SHOP, SNAPSHOTS, AUDIT),
    },
    # pending -> expired, with an audit event
    "record_expiry": {
        "dynamodb:GetItem": (SHOP, APPROVALS, AUDIT),
        "dynamodb:Query": (SHOP,),
        "dynamodb:UpdateItem": (APPROVALS,),
        "dynamodb:PutItem": (SHOP, AUDIT),
    },
    # sends an applied plan's queued messages: reads its outbox items, the approved proposal each must match and
    # the audit trail each one's status must agree with, claims and marks each (with an audit event) in
    # conditional writes
    "send_outbox": {
        "dynamodb:GetItem": (SHOP, PROPOSALS, AUDIT),
        "dynamodb:PutItem": (SHOP, AUDIT),
        "dynamodb:Query": (SHOP, AUDIT),
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
    # reads only
    "report_pending_age": {
        "dynamodb:GetItem": (APPROVALS,),
        "dynamodb:Query": (SHOP,),
    },
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
