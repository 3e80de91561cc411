"""The single DynamoDB table's key schema and item keys, shared by the adapter and the CDK stack.

Imports nothing from boto3 or CDK, so infrastructure code can take the names from here. See
docs/dynamodb-design.md for why the items are laid out this way.
"""

from __future__ import annotations

PARTITION_KEY = "pk"
PARTITION_KEY_TYPE = "S"
SORT_KEY = "sk"
SORT_KEY_TYPE = "S"
TTL_ATTRIBUTE = "ttl"  # number, epoch seconds; only approval items carry it
BILLING_MODE = "PAY_PER_REQUEST"
# The open-runs index: a Local Secondary Index (pk, open_until) that only checkpoint items carry the attribute of
# (a sparse index), so ``open_checkpoints(now)`` reads the runs whose window has not passed, not every run stored.
OPEN_RUNS_INDEX = "open-runs"
OPEN_UNTIL_ATTRIBUTE = "open_until"  # number, epoch seconds: the checkpoint's expires_at
OPEN_UNTIL_TYPE = "N"
OPEN_RUNS_PROJECTED = ("raw", "recorded_ns")  # what the open-runs reader needs besides the keys

# One item type per partition key, because IAM sees only the partition key (``dynamodb:LeadingKeys``): a role
# is granted the partitions of the item types it owns and nothing else (infra/permissions.py). A list (the
# checkpoints oldest first, the applications, one plan's outbox, the audit trail) is one Query of its type's
# partition; an item addressed only by id gets a partition of its own (PROPOSAL#<hash>, APPROVAL#<id>, ...).
STATE_PK = "STATE"  # the shop's state: written by the apply and the operator's shop commands only
STATE_SK = "STATE"
CHECKPOINT_PK = "CHECKPOINT"  # CHECKPOINT / CHECKPOINT#<checkpoint id>: written by a start only
CHECKPOINT_SK_PREFIX = "CHECKPOINT#"
DECISION_PK = "DECISION"  # DECISION / DECISION#<checkpoint id>: the resume's claim of a checkpoint
DECISION_SK_PREFIX = "DECISION#"
APPLICATION_PK = "APPLICATION"  # APPLICATION / APPLICATION#<proposal hash>: a plan applied, by the apply only
APPLICATION_SK_PREFIX = "APPLICATION#"
OUTBOX_PK = "OUTBOX"  # OUTBOX / OUTBOX#<proposal hash>#<index>: one drafted message of an applied plan
OUTBOX_SK_PREFIX = "OUTBOX#"
APPROVAL_OF_PK = "APPROVAL_OF"  # APPROVAL_OF / APPROVAL_OF#<checkpoint id>#<approval id>: pointer, no secrets
APPROVAL_OF_SK_PREFIX = "APPROVAL_OF#"
# The request key of each run (domain/intake/request_key.py), in partitions of their own so the duplicate
# check reads one request's runs: RUNREQ#<request hash> / GEN#<generation, 6 digits> is the one conditional write two
# identical starts race on; RUNMSG#<sender's Message-ID key> / RUN#<checkpoint id> finds a reused Message-ID.
RUN_REQUEST_PK_PREFIX = "RUNREQ#"
RUN_MESSAGE_PK_PREFIX = "RUNMSG#"
# Requests held for a person (a possible duplicate): HELD / HELD#<held id>, one partition so they list in one read.
HELD_PK = "HELD"
HELD_SK_PREFIX = "HELD#"
# The audit chain: events (created only if absent, never overwritten) and the head (replaced only while it is
# the one linked to), appended to by every role that records a change and by none that may not.
AUDIT_PK = "AUDIT"
AUDIT_SK_PREFIX = "AUDIT#"
AUDIT_HEAD_SK = "AUDIT_HEAD"  # the chain head: seq and hash of the last audit event (not under AUDIT#)
SUBMISSION_PK_PREFIX = "SUBMISSION#"  # SUBMISSION#<execution name>: who submitted a run (verified caller)
SUBMISSION_SK = "SUBMISSION"
PROPOSAL_PK_PREFIX = "PROPOSAL#"
PROPOSAL_SK = "PROPOSAL"
SNAPSHOT_PK_PREFIX = "SNAPSHOT#"  # the canonical shop state a plan was proposed on, by digest
SNAPSHOT_SK = "SNAPSHOT"  # one-item snapshots written before states were chunked (still read)
SNAPSHOT_CHUNK_SK_PREFIX = "CHUNK#"  # a state's canonical bytes in pieces (adapters/aws/dynamo_blobs.py)
APPROVAL_PK_PREFIX = "APPROVAL#"
APPROVAL_SK = "APPROVAL"

Key = tuple[str, str]


def state_key() -> Key:
    """(pk, sk) of the shop's state."""
    return STATE_PK, STATE_SK


def checkpoint_key(checkpoint_id: str) -> Key:
    """(pk, sk) of a checkpoint."""
    return CHECKPOINT_PK, CHECKPOINT_SK_PREFIX + checkpoint_id


def decision_key(checkpoint_id: str) -> Key:
    """(pk, sk) of the decision claimed for a checkpoint."""
    return DECISION_PK, DECISION_SK_PREFIX + checkpoint_id


def application_key(proposal_hash: str) -> Key:
    """(pk, sk) of the record that a proposal applied."""
    return APPLICATION_PK, APPLICATION_SK_PREFIX + proposal_hash


def outbox_key(message_key: str) -> Key:
    """(pk, sk) of one outbox message (``<proposal hash>#<index>``)."""
    return OUTBOX_PK, OUTBOX_SK_PREFIX + message_key


def approval_of_key(checkpoint_id: str, approval_id: str) -> Key:
    """(pk, sk) of the pointer from a checkpoint to one of its approvals."""
    return APPROVAL_OF_PK, f"{APPROVAL_OF_SK_PREFIX}{checkpoint_id}#{approval_id}"


# Approval items (task token, secret hashes) are deleted by TTL this long after their window closes.
APPROVAL_RETENTION_SECONDS = 30 * 86400
# DynamoDB rejects items over 400 KB; refuse far earlier with a clear error instead.
MAX_ITEM_BYTES = 256 * 1024
