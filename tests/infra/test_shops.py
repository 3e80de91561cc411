"""Several shops in one account and region: ``shopName`` gives each stack its own name, and every physical name
derives from it; every resource is tagged with the project and the shop."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.application import build_app, stack_id_for
from infra.settings import DEFAULT_SHOP, parse_shop_name
from production_orchestrator.domain.errors import ConfigurationError
from tests.support.cdk_template import synthesize

MAIL = {"approverEmails": "ana@x.example,ben@x.example", "senderEmail": "orders@x.example"}
# The properties that set a physical name (account- and region-wide); a resource without one gets a name
# CloudFormation generates from the stack's name, which differs per shop.
NAME_PROPERTIES = {
    "TableName",
    "BucketName",
    "FunctionName",
    "TopicName",
    "LogGroupName",
    "RoleName",
    "AlarmName",
    "DashboardName",
    "StateMachineName",
    "QueueName",
    "AliasName",
    "RuleSetName",
    "ManagedPolicyName",
    "ConfigurationSetName",
    "ScheduleGroupName",
    "GroupName",
    "Name",
}
# Names every shop shares on purpose: the AWS-owned SNS key alias.
SHARED_ON_PURPOSE = {'"alias/aws/sns"'}


def physical_names(template: dict[str, Any], stack_name: str) -> set[str]:
    """Each resource's explicit physical name (its name properties, and a rule's name inside its rule set),
    with the stack's name put in for ``AWS::StackName``."""
    names: set[str] = set()
    for resource in template["Resources"].values():
        properties = resource.get("Properties", {})
        for key in NAME_PROPERTIES & set(properties):
            value = properties[key]
            if resource["Type"] == "AWS::IAM::Policy" or _reference(value):
                continue  # a policy's name is per role; a reference names another resource's generated name
            names.add(json.dumps(properties[key], sort_keys=True).replace('{"Ref": "AWS::StackName"}', stack_name))
        rule = properties.get("Rule", {})
        if resource["Type"] == "AWS::SES::ReceiptRule":
            names.add(f"rule {rule.get('Name')}")
    return names - SHARED_ON_PURPOSE


def _reference(value: Any) -> bool:
    return isinstance(value, dict) and (
        "Fn::GetAtt" in value or ("Ref" in value and not str(value["Ref"]).startswith("AWS::"))
    )


def test_the_default_shop_keeps_the_stack_name() -> None:
    assert stack_id_for(DEFAULT_SHOP) == "ProductionOrchestrator"
    assert stack_id_for("harbour") == "ProductionOrchestrator-harbour"
    assert parse_shop_name("") == parse_shop_name(None) == DEFAULT_SHOP


@pytest.mark.parametrize("name", ["Harbour", "1shop", "a" * 21, "a--b", "shop-", "sh op", "shop_1"])
def test_a_shop_name_that_cannot_name_resources_is_refused(name: str) -> None:
    with pytest.raises(ConfigurationError, match="shopName"):
        build_app(context={"aws:cdk:bundling-stacks": [], "shopName": name})


def test_two_shops_synthesize_side_by_side_with_no_physical_name_in_common() -> None:
    inbound = {"inboundAddress": "orders@in.harbour.example"}
    one = synthesize({**MAIL, **inbound, "shopName": "harbour"})
    two = synthesize({**MAIL, "inboundAddress": "orders@in.kessler.example", "shopName": "kessler"})
    names_one = physical_names(one, stack_id_for("harbour"))
    names_two = physical_names(two, stack_id_for("kessler"))
    assert names_one and names_two
    assert names_one & names_two == set()
    # The stack's own name is in every derived name (log groups, the rule), so they cannot collide.
    assert any("ProductionOrchestrator-harbour" in json.dumps(v) for v in one["Resources"].values())


def test_every_resource_that_takes_tags_carries_project_and_shop() -> None:
    template = synthesize({**MAIL, "shopName": "harbour", "inboundAddress": "orders@in.harbour.example"})
    tagged = 0
    for logical_id, resource in template["Resources"].items():
        tags = resource.get("Properties", {}).get("Tags")
        if tags is None:
            continue
        tagged += 1
        pairs = (
            {t["Key"]: t["Value"] for t in tags} if isinstance(tags, list) else dict(tags)
        )  # some resource types take a map
        assert pairs.get("project") == "production-orchestrator", logical_id
        assert pairs.get("shop") == "harbour", logical_id
    assert tagged >= 20
    for kind in ("AWS::DynamoDB::Table", "AWS::S3::Bucket", "AWS::Lambda::Function", "AWS::SNS::Topic"):
        resources = [r for r in template["Resources"].values() if r["Type"] == kind]
        assert resources and all("Tags" in r["Properties"] for r in resources), kind


def test_each_shops_alarms_watch_only_its_own_metrics() -> None:
    """The workflow metrics (refusals, expiries) carry no dimension: a namespace per shop keeps one shop's
    refusal from firing the other's alarm."""

    def namespaces(template: dict[str, Any]) -> set[str]:
        found = {
            r["Properties"]["Namespace"]
            for r in template["Resources"].values()
            if r["Type"] == "AWS::CloudWatch::Alarm" and "Namespace" in r["Properties"]
        }
        found |= {
            t["MetricNamespace"]
            for r in template["Resources"].values()
            if r["Type"] == "AWS::Logs::MetricFilter"
            for t in r["Properties"]["MetricTransformations"]
        }
        return {n for n in found if not n.startswith("AWS/")}

    one = namespaces(synthesize({**MAIL, "shopName": "harbour"}))
    two = namespaces(synthesize({**MAIL, "shopName": "kessler"}))
    assert one == {"ProductionOrchestrator/harbour"} and two == {"ProductionOrchestrator/kessler"}
    assert namespaces(synthesize(MAIL)) == {"ProductionOrchestrator"}
