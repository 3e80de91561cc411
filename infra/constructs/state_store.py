"""Durable state: the S3 bucket for agent sessions and the one DynamoDB table for everything else."""

from __future__ import annotations

from collections import defaultdict
from typing import Final

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct

from ..constants import (
    INBOUND_PREFIX,
    REQUEST_PREFIX,
    TABLE_OPEN_RUNS_INDEX,
    TABLE_OPEN_RUNS_PROJECTED,
    TABLE_OPEN_UNTIL_ATTRIBUTE,
    TABLE_PARTITION_KEY,
    TABLE_SORT_KEY,
    TABLE_TTL_ATTRIBUTE,
)
from ..nag import acknowledge
from ..outputs import output
from ..permissions import TableAccess
from ..settings import Settings

# Kept when the stack is deleted or the resource replaced (evidence), but removed when the first create fails:
# plain RETAIN would leave a table, a bucket and keys behind after every failed first deploy, and the next
# attempt would collide with nothing but cost (table, bucket) or $1 a month per key.
KEEP: Final = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE


class StateStore(Construct):
    """Session bucket (encrypted, versioned, private, TLS only, lifecycle) and table (PITR, TTL)."""

    def __init__(self, scope: Construct, construct_id: str, *, settings: Settings) -> None:
        super().__init__(scope, construct_id)
        self.session_prefix = settings.session_prefix
        self.session_bucket = s3.Bucket(
            self,
            "SessionBucket",
            encryption=s3.BucketEncryption.S3_MANAGED,
            versioned=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            enforce_ssl=True,
            removal_policy=KEEP,
            lifecycle_rules=[
                s3.LifecycleRule(
                    id="expire-old-sessions",
                    prefix=settings.session_prefix,
                    # A session is evidence until its approval is decided or expired (at most a year).
                    expiration=Duration.days(400),
                    noncurrent_version_expiration=Duration.days(30),
                    abort_incomplete_multipart_upload_after=Duration.days(1),
                )
            ],
        )
        acknowledge(
            self.session_bucket,
            "AwsSolutions-S1",
            "Only the agent functions' roles can read or write this bucket; their access is traced "
            "by CloudTrail and X-Ray. A server-access-log bucket would add cost without an audit gain.",
        )
        self.table = dynamodb.Table(
            self,
            "Table",
            partition_key=dynamodb.Attribute(name=TABLE_PARTITION_KEY, type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name=TABLE_SORT_KEY, type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            time_to_live_attribute=TABLE_TTL_ATTRIBUTE,
            deletion_protection=True,
            removal_policy=KEEP,
        )
        # The open runs (checkpoints by the epoch second their window closes), so a start, a status or a shop
        # command reads the runs that may still be open, not every run ever stored. A local index can only be
        # created with the table: there is no deployment yet (docs/dynamodb-design.md).
        self.table.add_local_secondary_index(
            index_name=TABLE_OPEN_RUNS_INDEX,
            sort_key=dynamodb.Attribute(name=TABLE_OPEN_UNTIL_ATTRIBUTE, type=dynamodb.AttributeType.NUMBER),
            projection_type=dynamodb.ProjectionType.INCLUDE,
            non_key_attributes=list(TABLE_OPEN_RUNS_PROJECTED),
        )
        output(self, "TableName", self.table.table_name, "the state table (retained)")
        output(
            self,
            "TableArn",
            self.table.table_arn,
            "the resource of the operators' DescribeTable and ListTagsOfResource (deploy guide, step 6)",
        )
        output(
            self,
            "SessionBucketName",
            self.session_bucket.bucket_name,
            "agent sessions (retained, versioned)",
        )

    def grant_table(self, grantee: iam.IGrantable, access: TableAccess) -> None:
        """``access`` on the table's items: each action only on its partition-key patterns
        (``dynamodb:LeadingKeys``); never table administration."""
        by_patterns: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for action, patterns in access.items():
            by_patterns[tuple(sorted(patterns))].append(action)
        for patterns, actions in sorted(by_patterns.items()):
            grantee.grant_principal.add_to_principal_policy(
                iam.PolicyStatement(
                    actions=sorted(actions),
                    resources=[self.table.table_arn],
                    conditions={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": list(patterns)}},
                )
            )

    def grant_open_runs(self, grantee: iam.IGrantable, patterns: tuple[str, ...]) -> None:
        """``dynamodb:Query`` on the open-runs index, of the partitions ``patterns`` only."""
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["dynamodb:Query"],
                resources=[f"{self.table.table_arn}/index/{TABLE_OPEN_RUNS_INDEX}"],
                conditions={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": list(patterns)}},
            )
        )

    def _grant_prefix(self, grantee: iam.IGrantable, actions: list[str], prefix: str, reason: str) -> None:
        """Object ``actions`` on keys under ``prefix`` of the session bucket, acknowledged for cdk-nag."""
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(actions=actions, resources=[self.session_bucket.arn_for_objects(f"{prefix}*")])
        )
        bucket_id = Stack.of(self).get_logical_id(self.session_bucket.node.default_child)  # type: ignore[arg-type]
        principal = grantee.grant_principal
        if isinstance(principal, Construct):
            acknowledge(principal, f"AwsSolutions-IAM5[Resource::<{bucket_id}.Arn>/{prefix}*]", reason)

    def grant_requests(self, grantee: iam.IGrantable) -> None:
        """Read customer e-mails that executions name by key (too large for the input), under their prefix only."""
        self._grant_prefix(
            grantee,
            ["s3:GetObject"],
            REQUEST_PREFIX,
            "The operator names each request object per execution; reading is limited to the request "
            "prefix of this one bucket.",
        )

    def grant_received_mail(self, grantee: iam.IGrantable) -> None:
        """Read the e-mails SES stored, under their prefix only."""
        self._grant_prefix(
            grantee,
            ["s3:GetObject"],
            INBOUND_PREFIX,
            "SES names each stored e-mail by its message id; reading is limited to the inbound prefix of this "
            "one bucket.",
        )

    def grant_sessions(self, grantee: iam.IGrantable, actions: tuple[str, ...]) -> None:
        """Session object ``actions`` under the session prefix only (``s3:ListBucket``: listing it)."""
        self._grant_prefix(
            grantee,
            sorted(a for a in actions if a != "s3:ListBucket"),
            self.session_prefix,
            "Session object keys are chosen per run (one prefix per session id); the grant is limited "
            "to the session prefix of this one bucket.",
        )
        if "s3:ListBucket" not in actions:
            return
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["s3:ListBucket"],
                resources=[self.session_bucket.bucket_arn],
                conditions={"StringLike": {"s3:prefix": [f"{self.session_prefix}*"]}},
            )
        )
