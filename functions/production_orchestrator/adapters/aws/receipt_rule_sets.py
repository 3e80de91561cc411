"""The region's one active SES receipt rule set, shared by every shop that receives e-mail there.

SES allows one active receipt rule set per account and region, and refuses to delete the active one. So a shop's
stack never owns a rule set: it adds its rule to the active set, and

    ensure()   a set is active: use it (another shop's, or the operator's own); none is: create
               ``production-orchestrator-inbound`` (or reuse it) and make it active        -> the set's name
    release()  after CloudFormation deleted this shop's rule: the set is ours and holds no rule any more ->
               deactivate it, then delete it; anything else (another shop's rules, the operator's set) stays

Called by the stack's custom resource (handlers/receipt_rule_set.py) on create/update and on delete.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from botocore.exceptions import ClientError  # type: ignore[import-untyped]

SHARED_RULE_SET: Final = "production-orchestrator-inbound"
log = logging.getLogger(__name__)


class SharedReceiptRuleSet:
    """The active receipt rule set through the SES (v1) API; ``ses`` is a boto3 ``ses`` client."""

    def __init__(self, ses: Any, name: str = SHARED_RULE_SET) -> None:
        self._ses = ses
        self.name = name

    def active(self) -> str | None:
        """The name of the active rule set, or None."""
        metadata = self._ses.describe_active_receipt_rule_set().get("Metadata") or {}
        return metadata.get("Name") or None

    def ensure(self) -> str:
        """The rule set a shop's rule goes into: the active one, else ours, created and activated."""
        active = self.active()
        if active:
            return str(active)
        try:
            self._ses.create_receipt_rule_set(RuleSetName=self.name)
        except ClientError as exc:
            # Another shop's stack (deploying at the same time) or an earlier attempt created it.
            if exc.response["Error"]["Code"] != "AlreadyExists":
                raise
        self._ses.set_active_receipt_rule_set(RuleSetName=self.name)
        log.info("receipt rule set activated", extra={"rule_set": self.name})
        return self.name

    def release(self, used: str) -> bool:
        """After a shop's rule in ``used`` was deleted: deactivate and delete ``used`` when it is ours and empty.
        True when it was removed."""
        if used != self.name:
            return False  # the operator's own set: never ours to deactivate
        try:
            rules = self._ses.describe_receipt_rule_set(RuleSetName=used).get("Rules") or []
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "RuleSetDoesNotExist":
                return False
            raise
        if rules:
            return False  # another shop still receives through it
        if self.active() == used:
            # No RuleSetName: no set is active (SES refuses to delete the active set).
            self._ses.set_active_receipt_rule_set()
        self._ses.delete_receipt_rule_set(RuleSetName=used)
        log.info("receipt rule set deactivated and deleted", extra={"rule_set": used})
        return True
