"""Stack outputs under fixed names (``StateMachineArn``, ``TableName``...), so the deploy guide's commands and an
operator's scripts can read them with ``--query "Stacks[0].Outputs"`` whatever construct defines them."""

from __future__ import annotations

from aws_cdk import CfnOutput
from constructs import Construct


def output(scope: Construct, name: str, value: str, description: str) -> CfnOutput:
    """An output whose logical id (the name ``cdk deploy`` prints) is ``name``."""
    out = CfnOutput(scope, name, value=value, description=description)
    out.override_logical_id(name)
    return out
