"""cli/operator_key.py with a fake DynamoDB client: what decides when the table's tags cannot be read (an operator
without ``dynamodb:ListTagsOfResource``), and that it says so. The moto tests run the rest through the CLI."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from botocore.exceptions import ClientError

from production_orchestrator.cli.operator_key import write_signer
from production_orchestrator.contracts import OPERATOR_FUNCTION_TAG
from production_orchestrator.domain.errors import AuditKeyCode, UnkeyedWriteRefusedError

ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/T"


class FakeDynamo:
    """DescribeTable, ListTagsOfResource (paged, or denied) and the audit head's GetItem."""

    def __init__(self, *, head_mac: str | None, tags: list[list[dict[str, str]]] | None) -> None:
        self.head_mac, self.pages = head_mac, tags

    def describe_table(self, TableName: str) -> dict[str, Any]:
        return {"Table": {"TableArn": ARN}}

    def list_tags_of_resource(self, ResourceArn: str, NextToken: str = "0") -> dict[str, Any]:
        if self.pages is None:
            raise ClientError({"Error": {"Code": "AccessDeniedException", "Message": "no"}}, "ListTagsOfResource")
        index = int(NextToken)
        more = {"NextToken": str(index + 1)} if index + 1 < len(self.pages) else {}
        return {"Tags": self.pages[index], **more}

    def get_item(self, **_: Any) -> dict[str, Any]:
        if self.head_mac is None:
            return {}
        item = {"seq": {"N": "3"}, "hash": {"S": "h"}}
        return {"Item": {**item, "mac": {"S": self.head_mac}} if self.head_mac else item}


def test_the_tag_is_found_on_a_later_page() -> None:
    pages = [[{"Key": "project", "Value": "production-orchestrator"}], [{"Key": OPERATOR_FUNCTION_TAG, "Value": "F"}]]
    assert write_signer(argparse.Namespace(), "T", FakeDynamo(head_mac="m", tags=pages)) == "F"


def test_tags_that_cannot_be_read_on_a_keyed_chain_refuse_and_say_why() -> None:
    with pytest.raises(UnkeyedWriteRefusedError) as refused:
        write_signer(argparse.Namespace(), "T", FakeDynamo(head_mac="m", tags=None))
    assert refused.value.code is AuditKeyCode.NO_OPERATOR_FUNCTION
    assert "AccessDeniedException" in str(refused.value) and "Nothing was written" in str(refused.value)


@pytest.mark.parametrize("head_mac", [None, ""], ids=["empty chain", "unkeyed chain"])
def test_tags_that_cannot_be_read_on_an_unkeyed_chain_warn_and_say_why(
    head_mac: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert write_signer(argparse.Namespace(), "T", FakeDynamo(head_mac=head_mac, tags=None)) == ""
    warning = capsys.readouterr().err
    assert warning.startswith("warning: no --operator-function") and "AccessDeniedException" in warning
