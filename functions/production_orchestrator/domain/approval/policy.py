"""Who may decide on a run: the approval policy stored in each approval record, and the one form
identities are compared in (:func:`identity`). The rule that reads it is :mod:`.authority`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from ..errors import ValidationError
from ..identity import normalize_identity
from ..limits import DEFAULT_MAX_VERSIONS, MAX_VERSIONS

if TYPE_CHECKING:
    pass

MAX_APPROVERS = 20
IDENTITY_MIN, IDENTITY_MAX = 3, 120
REQUESTER_MAX = 600  # an authenticated AWS caller is named by its ARN
Via = Literal["link", "cli", "workflow"]


def identity(value: str) -> str:
    """The one comparable form of a person: surrounding space stripped, case-folded (``ANA@X.com`` is ana)."""
    return normalize_identity(value) if isinstance(value, str) else ""


class ApprovalPolicy(BaseModel):
    """Who may decide on a run, fixed when the approval is requested and stored in the approval record.

    ``quorum`` approvals (distinct, eligible) are needed when the plan procures more than ``quorum_above``
    units in total; otherwise one. ``restricted`` is False only for a local run started without an approver
    list: its operator may then decide at the CLI under any name (still never approving their own plan
    under separation of duties). ``max_versions``: how many versions the request's plan may have (a revision of
    the last is refused); None in records made before the bound existed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built when first used

    approvers: tuple[str, ...] = Field(min_length=1, max_length=MAX_APPROVERS)
    requester: str = Field(default="", max_length=REQUESTER_MAX)
    separation_of_duties: bool = False
    quorum: int = Field(default=1, ge=1, le=MAX_APPROVERS)
    quorum_above: int | None = Field(default=None, ge=0)
    restricted: bool = True
    # Left out when unset, so a record written before the bound existed keeps its stored text (DynamoDB compares it).
    max_versions: int | None = Field(default=None, ge=1, le=MAX_VERSIONS, exclude_if=lambda v: v is None)

    @field_validator("approvers", mode="before")
    @classmethod
    def _approvers(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.split(",")
        if not isinstance(value, Iterable):
            return value
        names = [identity(str(name)) for name in value]
        for name in names:
            if not IDENTITY_MIN <= len(name) <= IDENTITY_MAX or any(c.isspace() or c == "," for c in name):
                raise ValueError(
                    f"approver {name!r} is not a name or e-mail of {IDENTITY_MIN} to {IDENTITY_MAX} characters "
                    "without spaces"
                )
        return tuple(dict.fromkeys(name for name in names if name))

    @field_validator("requester", mode="before")
    @classmethod
    def _requester(cls, value: object) -> object:
        return identity(value) if isinstance(value, str) else value

    def eligible(self) -> tuple[str, ...]:
        """The listed approvers who may approve (the requester is not one under separation of duties)."""
        return tuple(a for a in self.approvers if not (self.separation_of_duties and a == self.requester))

    def problems(self) -> list[str]:
        """Why this policy can never be satisfied (empty when it can). Checked before the agent runs."""
        found: list[str] = []
        if self.separation_of_duties and not self.requester:
            found.append("separation of duties is on but nobody is named as the requester")
        eligible = self.eligible()
        if not eligible and self.restricted:
            found.append(f"nobody may approve: the only approver, {self.requester}, is the requester")
        if self.quorum_above is not None and self.quorum > 1:
            if not self.restricted:
                found.append("a quorum needs a named approver list")
            elif self.quorum > len(eligible):
                found.append(
                    f"a plan above {self.quorum_above} units needs {self.quorum} approvals but only "
                    f"{len(eligible)} approver(s) may approve"
                    + (
                        " (the requester may not)"
                        if self.separation_of_duties and self.requester in self.approvers
                        else ""
                    )
                )
        return found

    def is_last_version(self, version: int) -> bool:
        """True when version ``version`` of the plan is the last the request may have: it cannot be revised."""
        return self.max_versions is not None and version >= self.max_versions

    def limited_to(self, versions: int) -> ApprovalPolicy:
        """This policy with its plan allowed ``versions`` versions (1 to :data:`MAX_VERSIONS`; else ValidationError)."""
        if not 1 <= versions <= MAX_VERSIONS:
            raise ValidationError(f"a plan may have 1 to {MAX_VERSIONS} versions, not {versions}")
        return self.model_copy(update={"max_versions": versions})

    def required_for(self, procured: int) -> int:
        """How many distinct approvals a plan procuring ``procured`` units needs."""
        if self.quorum_above is None or procured <= self.quorum_above:
            return 1
        return self.quorum

    def refusal_for(self, who: str, approved: bool, allowed: frozenset[str] | None = None) -> str | None:
        """Why ``who`` may not make this decision (None when they may). ``allowed``: the deployment's list now."""
        person = identity(who)
        if self.restricted and person not in self.approvers:
            return f"{person or 'nobody'} is not an approver of this plan"
        if allowed is not None and person not in allowed:
            return f"{person} is no longer on the configured approver list"
        if approved and self.separation_of_duties and person == self.requester:
            return f"{person} requested this plan and may not approve it (separation of duties); they may reject it"
        return None


def build_policy(
    *,
    approvers: Sequence[str],
    requester: str,
    separation_of_duties: bool,
    quorum: int,
    quorum_above: int | None,
    restricted: bool = True,
) -> ApprovalPolicy:
    """The policy these settings describe, if it is well formed and can be satisfied; else ``ValidationError``.
    Its plan may have :data:`DEFAULT_MAX_VERSIONS` versions (another bound: :meth:`ApprovalPolicy.limited_to`)."""
    try:
        policy = ApprovalPolicy(
            approvers=tuple(approvers),
            requester=requester,
            separation_of_duties=separation_of_duties,
            quorum=quorum,
            quorum_above=quorum_above,
            restricted=restricted,
            max_versions=DEFAULT_MAX_VERSIONS,
        )
    except PydanticValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'policy'}: {e['msg']}" for e in exc.errors())
        raise ValidationError(f"invalid approval policy: {problems}") from None
    return checked_policy(policy)


def checked_policy(policy: ApprovalPolicy) -> ApprovalPolicy:
    """``policy`` if it can ever be satisfied; else ``ValidationError`` naming why (checked before any agent
    runs, so a run nobody may approve costs no model call and leaves nothing behind)."""
    problems = policy.problems()
    if problems:
        raise ValidationError("the approval policy cannot be satisfied: " + "; ".join(problems))
    return policy
