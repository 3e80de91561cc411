"""Durable state: the S3 bucket for agent sessions and the one DynamoDB table for everything else."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct

from ..constants import TABLE_PARTITION_KEY, TABLE_SORT_KEY, TABLE_TTL_ATTRIBUTE
from ..nag import acknowledge
from ..settings import Settings

# Table actions the adapters use: conditional puts/updates, transactions for the atomic apply.
TABLE_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:Query",
    "dynamodb:ConditionCheckItem",
    "dynamodb:BatchGetItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:DescribeTable",
)
SESSION_OBJECT_ACTIONS = ("s3:GetObject", "s3:PutObject", "s3:DeleteObject")


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
            removal_policy=RemovalPolicy.RETAIN,
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
            removal_policy=RemovalPolicy.RETAIN,
        )

    def grant_table(self, grantee: iam.IGrantable, actions: tuple[str, ...] = TABLE_ACTIONS) -> None:
        """Read and conditionally write items (``actions``, by default the adapters' set); never administration."""
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(actions=list(actions), resources=[self.table.table_arn])
        )

    def grant_sessions(self, grantee: iam.IGrantable) -> None:
        """Read and write session objects under the session prefix only."""
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(
                actions=list(SESSION_OBJECT_ACTIONS),
                resources=[self.session_bucket.arn_for_objects(f"{self.session_prefix}*")],
            )
        )
        bucket_id = Stack.of(self).get_logical_id(self.session_bucket.node.default_child)  # type: ignore[arg-type]
        principal = grantee.grant_principal
        if isinstance(principal, Construct):
            acknowledge(
                principal,
                f"AwsSolutions-IAM5[Resource::<{bucket_id}.Arn>/{self.session_prefix}*]",
                "Session object keys are chosen per run (one prefix per session id); the grant is limited "
                "to the session prefix of this one bucket.",
            )
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["s3:ListBucket"],
                resources=[self.session_bucket.bucket_arn],
                conditions={"StringLike": {"s3:prefix": [f"{self.session_prefix}*"]}},
            )
        )
