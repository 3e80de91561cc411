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
senderEmail         (none)                        verified SES identity the approved plans' messages come
                                                  from; unset: they stay queued and MessagesNotSent alarms
sesConfigurationSet (one the stack creates)       an existing SES configuration set to send through
==================  ============================  =====================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from constructs import Node

from production_orchestrator.contracts import is_approver_email
from production_orchestrator.domain.durations import parse_duration
from production_orchestrator.domain.errors import ConfigurationError, ValidationError
from production_orchestrator.domain.records import ProviderBinding
from production_orchestrator.domain.scenarios import SCENARIOS

# Equal to production_orchestrator.agent.providers.DEFAULT_MODELS["bedrock"] (a test holds them together);
# not imported from there because that module imports strands, which synth does not need.
DEFAULT_BEDROCK_MODEL_ID = "us.amazon.nova-pro-v1:0"
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
    "senderEmail": "",
    "sesConfigurationSet": "",
}
DEPLOYABLE_PROVIDERS = ("bedrock", "deterministic")
ARCHITECTURES = ("arm64", "x86_64")
_PREFIX = re.compile(r"^[a-z0-9][a-z0-9/_-]{0,60}/$")
_CONFIGURATION_SET = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


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
    sender_email: str = ""
    ses_configuration_set: str = ""

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
        except (ValueError, ValidationError) as exc:
            raise ConfigurationError(f"invalid model or approval window setting: {exc}") from None
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
        sender = str(raw["senderEmail"]).strip()
        if sender and not is_approver_email(sender):
            raise ConfigurationError(f"senderEmail {sender!r} is not an e-mail address")
        configuration_set = str(raw["sesConfigurationSet"]).strip()
        if configuration_set and not _CONFIGURATION_SET.match(configuration_set):
            raise ConfigurationError("sesConfigurationSet must be 1-64 letters, digits, '-' or '_'")
        architecture = str(raw["architecture"])
        if architecture not in ARCHITECTURES:
            raise ConfigurationError(f"architecture must be one of {ARCHITECTURES}")
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
            sender_email=sender,
            ses_configuration_set=configuration_set,
        )


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
