"""The operator function on the synthesized template: the table's tag names it, so the CLI finds it from
``--table`` alone; its name is set (a reference in the table's tag would make a dependency cycle) and derives
from the stack's, one per shop; no role may retag the table; the operators' permissions are stack outputs."""

from __future__ import annotations

from typing import Any

from infra.application import stack_id_for
from production_orchestrator.contracts import OPERATOR_FUNCTION_TAG
from tests.support.cdk_template import function_ids, resources_of_type, synthesize


def _table(template: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    ((table_id, table),) = resources_of_type(template, "AWS::DynamoDB::Table").items()
    return table_id, table


def _tag(template: dict[str, Any]) -> Any:
    tags = {t["Key"]: t["Value"] for t in _table(template)[1]["Properties"]["Tags"]}
    return tags[OPERATOR_FUNCTION_TAG]


def test_the_tables_tag_names_the_operator_function_of_its_own_stack() -> None:
    for shop, context in (("default", {}), ("harbour", {"shopName": "harbour"})):
        template = synthesize(context)
        operator = template["Resources"][function_ids(template)["sign_operator_audit"]]["Properties"]
        assert _tag(template) == operator["FunctionName"] == f"{stack_id_for(shop)}-operator-audit"
        assert len(operator["FunctionName"]) <= 64
        # A literal on both sides: the table depends on nothing (the functions depend on it).
        assert "DependsOn" not in _table(template)[1] and isinstance(_tag(template), str)
    assert _tag(synthesize({})) != _tag(synthesize({"shopName": "harbour"}))


def test_no_role_may_tag_or_untag_the_table() -> None:
    """The tag points the operators' MAC requests at a function: only whoever deploys the stack may change it."""
    template = synthesize({})
    for policy in resources_of_type(template, "AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            assert not [a for a in actions if a.startswith("dynamodb:") and "Tag" in a], statement
            assert "dynamodb:*" not in actions and "*" not in actions


def test_the_operators_permissions_name_stack_outputs() -> None:
    template = synthesize({})
    table_id, _ = _table(template)
    outputs = template["Outputs"]
    assert outputs["TableArn"]["Value"] == {"Fn::GetAtt": [table_id, "Arn"]}
    operator = function_ids(template)["sign_operator_audit"]
    assert outputs["OperatorFunctionArn"]["Value"] == {"Fn::GetAtt": [operator, "Arn"]}
    assert outputs["OperatorFunctionName"]["Value"] == {"Ref": operator}
