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

# Items the shop's lists are read from share one partition; items addressed only by id get their own.
SHOP_PK = "SHOP"
STATE_SK = "STATE"
CHECKPOINT_SK_PREFIX = "CHECKPOINT#"
DECISION_SK_PREFIX = "DECISION#"
APPLICATION_SK_PREFIX = "APPLICATION#"
# The request key of each run (domain/intake/request_key.py), in partitions of their own so the duplicate
# check reads one request's runs: RUNREQ#<request hash> / GEN#<generation, 6 digits> is the one conditional write two
# identical starts race on; RUNMSG#<sender's Message-ID key> / RUN#<checkpoint id> finds a reused Message-ID.
RUN_REQUEST_PK_PREFIX = "RUNREQ#"
RUN_MESSAGE_PK_PREFIX = "RUNMSG#"
# Requests held for a person (a possible duplicate): HELD / HELD#<held id>, one partition so they list in one read.
HELD_PK = "HELD"
HELD_SK_PREFIX = "HELD#"
# The audit chain has its own partition, so a role that appends audit events but must not change the shop
# (the public decision endpoint) is granted writes on AUDIT and none on SHOP (dynamodb:LeadingKeys).
AUDIT_PK = "AUDIT"
AUDIT_SK_PREFIX = "AUDIT#"
AUDIT_HEAD_SK = "AUDIT_HEAD"  # the chain head: seq and hash of the last audit event (not under AUDIT#)
OUTBOX_SK_PREFIX = "OUTBOX#"  # OUTBOX#<proposal hash>#<index>: one drafted message of an applied plan
SUBMISSION_PK_PREFIX = "SUBMISSION#"  # SUBMISSION#<execution name>: who submitted a run (verified caller)
SUBMISSION_SK = "SUBMISSION"
APPROVAL_OF_SK_PREFIX = "APPROVAL_OF#"  # pointer: checkpoint -> approval id (no secrets)
PROPOSAL_PK_PREFIX = "PROPOSAL#"
PROPOSAL_SK = "PROPOSAL"
SNAPSHOT_PK_PREFIX = "SNAPSHOT#"  # the canonical shop state a plan was proposed on, by digest
SNAPSHOT_SK = "SNAPSHOT"  # one-item snapshots written before states were chunked (still read)
SNAPSHOT_CHUNK_SK_PREFIX = "CHUNK#"  # a state's canonical bytes in pieces (adapters/aws/dynamo_blobs.py)
APPROVAL_PK_PREFIX = "APPROVAL#"
APPROVAL_SK = "APPROVAL"

# Approval items (task token, secret hashes) are deleted by TTL this long after their window closes.
APPROVAL_RETENTION_SECONDS = 30 * 86400
# DynamoDB rejects items over 400 KB; refuse far earlier with a clear error instead.
MAX_ITEM_BYTES = 256 * 1024
