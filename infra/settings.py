"""Deployment settings read from CDK context, each with a documented default.

Pass values with ``npx cdk deploy -c key=value`` or put them under ``context`` in ``cdk.json``:

==================  ============================  =====================================================
context key         default                       meaning
==================  ============================  =====================================================
approverEmails      (none)                        comma-separated addresses subscribed to approval mail
operatorEmail       (none)                        address subscribed to the alarm topic
provider            bedrock                       model provider (bedrock | deterministic)
modelId             us.amazon.nova-pro-v1:0       model or inference-profile id; IAM is scoped to it
modelRegion         us-east-1                     region of the Bedrock endpoint
approvalWindow      24h                           how long a plan waits for a human (90s, 30m, 24h, 7d)
linkBaseUrl         (the decision Function URL)   base of approval links, e.g. a custom domain
scenario            rush-order                    reference scenario the start function seeds
sessionPrefix       sessions/                     S3 key prefix of agent sessions
logRetentionDays    30                            retention of every log group
architecture        arm64                         Lambda architecture (arm64 | x86_64)
separationOfDuties  true                          who started a run may not approve it (true | false)
quorum              2                             approvals a large plan needs (PO_QUORUM, 1-20)
quorumAboveQuantity (none: never)                 plans procuring more than this need the quorum
                                                  (PO_QUORUM_ABOVE_QUANTITY); others need one approval
decideReservedConcurrency 10                      concurrent executions reserved for (and capping) the
                                                  public decision URL; ``none``: no reservation
decisionLease       10m                           how long a resume holds the decision claim
                                                  (PO_DECISION_LEASE); the workflow retries a crashed
                                                  resume after it
senderEmail         (none)                        verified SES identity the approved plans' messages come
                                                  from; unset: they stay queued and MessagesNotSent alarms
sesConfigurationSet (one the stack creates)       an existing SES configuration set to send through
inboundAddress      (none: no e-mail intake)      an address on an SES-verified receiving domain: e-mails
                                                  SES receives for it (SPF, DKIM, DMARC passed) start runs
==================  ============================  =====================================================

The approval window plus :data:`EXECUTION_GRACE_SECONDS` must fit in one year, the longest a Standard
execution may run; a longer window is refused at synth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from constructs import Node

from production_orchestrator.contracts import is_approver_email
from production_orchestrator.domain.approval.claims import DEFAULT_LEASE
from production_orchestrator.domain.durations import parse_duration
from production_orchestrator.domain.errors import ConfigurationError, ValidationError
from production_orchestrator.domain.records import ProviderBinding
from production_orchestrator.domain.scenarios import SCENARIOS

# Equal to production_orchestrator.agent.providers.DEFAULT_MODELS["bedrock"] (a test holds them together);
# not imported from there because that module imports strands, which synth does not need.
DEFAULT_BEDROCK_MODEL_ID = "us.amazon.nova-pro-v1:0"
# The execution outlives the approval window by the agent runs (minutes each, with retries, and the resume
# retried once after the decision lease) and a margin, so a timed-out decision always reaches
# DecisionExpired, and a late decision its outcome, before the execution itself times out.
EXECUTION_GRACE_SECONDS = 2 * 3600
# A Standard execution runs at most one year.
MAX_EXECUTION_SECONDS = 365 * 86400
MAX_APPROVAL_WINDOW_SECONDS = MAX_EXECUTION_SECONDS - EXECUTION_GRACE_SECONDS
DEFAULTS: dict[str, Any] = {
    "approverEmails": "",
    "operatorEmail": "",
    "provider": "bedrock",
    "modelId": DEFAULT_BEDROCK_MODEL_ID,
    "modelRegion": "us-east-1",
    "approvalWindow": "24h",
    "linkBaseUrl": "",
    "scenario": "rush-order",
    "sessionPrefix": "sessions/",
    "logRetentionDays": 30,
    "architecture": "arm64",
    "separationOfDuties": True,
    "quorum": 2,
    "quorumAboveQuantity": "",
    "decideReservedConcurrency": 10,
    "decisionLease": f"{int(DEFAULT_LEASE.total_seconds() // 60)}m",
    "senderEmail": "",
    "sesConfigurationSet": "",
    "inboundAddress": "",
}
DEPLOYABLE_PROVIDERS = ("bedrock", "deterministic")
ARCHITECTURES = ("arm64", "x86_64")
_PREFIX = re.compile(r"^[a-z0-9][a-z0-9/_-]{0,60}/\Z")
_CONFIGURATION_SET = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")


@dataclass(frozen=True)
class Settings:
    """Validated deployment settings; build with :meth:`from_context`."""

    approver_emails: tuple[str, ...]
    operator_email: str
    binding: ProviderBinding
    approval_window: str
    approval_timeout_seconds: int
    link_base_url: str
    scenario: str
    session_prefix: str
    log_retention_days: int
    architecture: str
    separation_of_duties: bool = True
    quorum: int = 2
    quorum_above_quantity: int | None = None
    decide_reserved_concurrency: int | None = 10
    decision_lease: str = "10m"
    decision_lease_seconds: int = int(DEFAULT_LEASE.total_seconds())
    sender_email: str = ""
    ses_configuration_set: str = ""
    inbound_address: str = ""

    @classmethod
    def from_context(cls, node: Node) -> Settings:
        """Read every setting from CDK context, falling back to :data:`DEFAULTS`; invalid values raise."""

        def get(key: str) -> Any:
            value = node.try_get_context(key)
            return DEFAULTS[key] if value is None else value

        return cls.parse({key: get(key) for key in DEFAULTS})

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Settings:
        """Validate raw context values (strings from ``-c``, or JSON values from ``cdk.json``)."""
        provider = str(raw["provider"])
        if provider not in DEPLOYABLE_PROVIDERS:
            raise ConfigurationError(f"provider {provider!r} cannot be deployed (use {DEPLOYABLE_PROVIDERS})")
        try:
            binding = ProviderBinding(
                provider=provider,  # type: ignore[arg-type]
                model_id=str(raw["modelId"]),
                region=str(raw["modelRegion"]),
            )
            window = parse_duration(str(raw["approvalWindow"]))
            lease = parse_duration(str(raw["decisionLease"]))
        except (ValueError, ValidationError) as exc:
            raise ConfigurationError(f"invalid model, approval window or decision lease setting: {exc}") from None
        if window.total_seconds() > MAX_APPROVAL_WINDOW_SECONDS:
            raise ConfigurationError(
                f"approvalWindow {raw['approvalWindow']} is too long: the execution runs the window plus "
                f"{EXECUTION_GRACE_SECONDS // 3600}h and a Standard execution may run one year at most "
                f"(the longest window is {MAX_APPROVAL_WINDOW_SECONDS}s, e.g. 364d)"
            )
        emails = _email_list(raw["approverEmails"])
        operator = str(raw["operatorEmail"]).strip()
        if operator and not is_approver_email(operator):
            raise ConfigurationError(f"operatorEmail {operator!r} is not an e-mail address")
        link = str(raw["linkBaseUrl"]).strip()
        if link and not link.startswith("https://"):
            raise ConfigurationError("linkBaseUrl must start with https://")
        scenario = str(raw["scenario"])
        if scenario not in SCENARIOS:
            raise ConfigurationError(f"unknown scenario {scenario!r} (known: {', '.join(sorted(SCENARIOS))})")
        prefix = str(raw["sessionPrefix"])
        if not _PREFIX.match(prefix):
            raise ConfigurationError("sessionPrefix must look like 'sessions/' (lower case, ending in '/')")
        sender, configuration_set, inbound = _mail_settings(raw)
        architecture = str(raw["architecture"])
        if architecture not in ARCHITECTURES:
            raise ConfigurationError(f"architecture must be one of {ARCHITECTURES}")
        quorum = _integer("quorum", raw["quorum"], 1, 20)
        above = (
            None
            if str(raw["quorumAboveQuantity"]).strip() == ""
            else _integer("quorumAboveQuantity", raw["quorumAboveQuantity"], 0, 10**9)
        )
        if above is not None and emails and quorum > len(emails):
            raise ConfigurationError(f"quorum {quorum} can never be reached by {len(emails)} approver(s)")
        return cls(
            approver_emails=emails,
            operator_email=operator,
            binding=binding,
            approval_window=str(raw["approvalWindow"]),
            approval_timeout_seconds=int(window.total_seconds()),
            link_base_url=link,
            scenario=scenario,
            session_prefix=prefix,
            log_retention_days=int(raw["logRetentionDays"]),
            architecture=architecture,
            separation_of_duties=_flag("separationOfDuties", raw["separationOfDuties"]),
            quorum=quorum,
            quorum_above_quantity=above,
            decide_reserved_concurrency=_reservation(raw["decideReservedConcurrency"]),
            decision_lease=str(raw["decisionLease"]),
            decision_lease_seconds=int(lease.total_seconds()),
            sender_email=sender,
            ses_configuration_set=configuration_set,
            inbound_address=inbound,
        )


def _mail_settings(raw: dict[str, Any]) -> tuple[str, str, str]:
    """The verified SES sender identity, the configuration set and the inbound address (each may be empty)."""
    sender = str(raw["senderEmail"]).strip()
    if sender and not is_approver_email(sender):
        raise ConfigurationError(f"senderEmail {sender!r} is not an e-mail address")
    configuration_set = str(raw["sesConfigurationSet"]).strip()
    if configuration_set and not _CONFIGURATION_SET.match(configuration_set):
        raise ConfigurationError("sesConfigurationSet must be 1-64 letters, digits, '-' or '_'")
    inbound = str(raw["inboundAddress"]).strip().lower()
    if inbound and not is_approver_email(inbound):
        raise ConfigurationError(f"inboundAddress {inbound!r} is not an e-mail address")
    return sender, configuration_set, inbound


def _reservation(value: Any) -> int | None:
    # "none" leaves the function in the unreserved pool: accounts whose concurrency quota is below the
    # 100 unreserved executions Lambda insists on cannot reserve any.
    if str(value).strip().lower() == "none":
        return None
    return _integer("decideReservedConcurrency", value, 1, 1000)


def _integer(key: str, value: Any, low: int, high: int) -> int:
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or not low <= int(text) <= high:
        raise ConfigurationError(f"{key} must be a whole number from {low} to {high}")
    return int(text)


def _flag(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise ConfigurationError(f"{key} must be true or false")
    return text == "true"


def _email_list(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else str(value).split(",")
    emails = tuple(str(item).strip() for item in items if str(item).strip())
    for email in emails:
        if not is_approver_email(email):
            raise ConfigurationError(f"approverEmails entry {email!r} is not an e-mail address")
    return emails
