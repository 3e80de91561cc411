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
approvalWindow      24h                           how long a plan waits for a human (90s, 30m, 24h, 7d);
                                                  each version of a plan gets a window of its own
maxVersions         5                             versions a request's plan may have, the first and its
                                                  revisions (PO_MAX_VERSIONS, 1-20; 1: no revisions); a
                                                  revision of the last is refused (VERSION_LIMIT)
linkBaseUrl         (the decision Function URL)   base of approval links, e.g. a custom domain
scenario            rush-order                    reference scenario the start function seeds
sessionPrefix       sessions/                     S3 key prefix of agent sessions
logRetentionDays    30                            retention of every log group
architecture        arm64                         Lambda architecture (arm64 | x86_64)
separationOfDuties  true                          who started a run may not approve it (true | false)
quorum              2                             approvals a large plan needs (PO_QUORUM, 1-20)
quorumAboveQuantity (none: never)                 plans procuring more than this need the quorum
                                                  (PO_QUORUM_ABOVE_QUANTITY); others need one approval
decideReservedConcurrency none                    concurrent executions reserved for (and capping) the
                                                  public decision URL (needs an account quota of 100 + it)
decisionLease       10m                           how long a resume holds the decision claim
                                                  (PO_DECISION_LEASE); the workflow retries a crashed
                                                  resume after it
senderEmail         (none)                        verified SES identity the approved plans' messages come
                                                  from; unset: they stay queued and MessagesNotSent alarms
sesConfigurationSet (one the stack creates)       an existing SES configuration set to send through
inboundAddress      (none: no e-mail intake)      an address on an SES-verified receiving domain: e-mails
                                                  SES receives for it (SPF, DKIM, DMARC passed) start runs
messages            on                            send approved plans' messages (needs senderEmail when
                                                  approverEmails is set); ``off``: they stay in the outbox
submitters          (none: nobody may submit)     JSON object: principal ARN -> the approver address it is
                                                  (who may ``submit``); an Identity Center role ->
                                                  ``identity-center`` (usernames are addresses) or
                                                  {"<username>": "<address>"}. Under separationOfDuties a
                                                  bare name (no address) is refused
remindAt            halfway,24h                   when approvers who have not voted are reminded (each
                                                  once): halfway, a share (25%) or a time before the end
                                                  (24h); ``off``: none. The default keeps the points that
                                                  fall inside the window; a point given that never comes
                                                  is refused
escalateAfter       (none: no escalation)         after this long open, backupApprovers join the approval
                                                  (shorter than approvalWindow; needs backupApprovers)
backupApprovers     (none)                        comma-separated addresses added (once, audited) at
                                                  escalateAfter; subscribed to approval mail
shopName            (none: the one shop)          names this shop's stack ProductionOrchestrator-<shopName>
                                                  (lower-case letters, digits, '-'; at most 20), so several
                                                  shops deploy side by side; tags every resource shop=<name>
bundling            on                            off: synthesize the template without building the Lambda
                                                  assets (the CLI refuses -c aws:cdk:bundling-stacks=[])
==================  ============================  =====================================================

One execution carries every version of a request's plan, so its timeout is :func:`execution_seconds`:
``maxVersions`` windows, a :data:`REVISION_GRACE_SECONDS` for each revision's agent run, and
:data:`EXECUTION_GRACE_SECONDS`. It must fit in one year, the longest a Standard execution may run; a window
and a version count that do not are refused at synth.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from constructs import Node

from production_orchestrator.contracts import METRICS_NAMESPACE, is_approver_email
from production_orchestrator.domain.approval.claims import DEFAULT_LEASE
from production_orchestrator.domain.approval.policy import MAX_APPROVERS
from production_orchestrator.domain.approval.reminders import DEFAULT_POINTS, ReminderSchedule, parse_points
from production_orchestrator.domain.durations import parse_duration
from production_orchestrator.domain.errors import ConfigurationError, ValidationError
from production_orchestrator.domain.identity import (
    IDENTITY_CENTER,
    Submitter,
    mapped_addresses,
    normalize_identity,
    parse_submitter_map,
    submitters_env,
    unaddressed_people,
)
from production_orchestrator.domain.limits import DEFAULT_MAX_VERSIONS, MAX_VERSIONS
from production_orchestrator.domain.records import ProviderBinding, parse_utc, utc_iso
from production_orchestrator.domain.scenarios import SCENARIOS

# Equal to production_orchestrator.agent.providers.DEFAULT_MODELS["bedrock"] (a test holds them together);
# not imported from there because that module imports strands, which synth does not need.
DEFAULT_BEDROCK_MODEL_ID = "us.amazon.nova-pro-v1:0"
# The execution outlives the approval window by the agent runs (minutes each, with retries, and the resume
# retried once after the decision lease) and a margin, so a timed-out decision always reaches
# DecisionExpired, and a late decision its outcome, before the execution itself times out.
EXECUTION_GRACE_SECONDS = 2 * 3600
# Each revision plans the next version before it parks: the agent run (retried once, throttles retried) and the
# reminder states, with a margin (approval_workflow.py checks the run's worst case fits).
REVISION_GRACE_SECONDS = 3600
# A Standard execution runs at most one year.
MAX_EXECUTION_SECONDS = 365 * 86400
MAX_APPROVAL_WINDOW_SECONDS = MAX_EXECUTION_SECONDS - EXECUTION_GRACE_SECONDS  # with maxVersions 1


def execution_seconds(window_seconds: int, versions: int) -> int:
    """The state machine's timeout: room for ``versions`` versions, each a full window after its revision (a
    revision may be asked in the last second of the previous window), then the final resume."""
    return versions * window_seconds + (versions - 1) * REVISION_GRACE_SECONDS + EXECUTION_GRACE_SECONDS


DEFAULTS: dict[str, Any] = {
    "approverEmails": "",
    "operatorEmail": "",
    "provider": "bedrock",
    "modelId": DEFAULT_BEDROCK_MODEL_ID,
    "modelRegion": "us-east-1",
    "approvalWindow": "24h",
    "maxVersions": DEFAULT_MAX_VERSIONS,
    "linkBaseUrl": "",
    "scenario": "rush-order",
    "sessionPrefix": "sessions/",
    "logRetentionDays": 30,
    "architecture": "arm64",
    "separationOfDuties": True,
    "quorum": 2,
    "quorumAboveQuantity": "",
    # None by default: Lambda keeps 100 of the account's concurrency unreserved, and new accounts often have a
    # quota of 10, where any reservation fails the first deploy.
    "decideReservedConcurrency": "none",
    "decisionLease": f"{int(DEFAULT_LEASE.total_seconds() // 60)}m",
    "senderEmail": "",
    "sesConfigurationSet": "",
    "inboundAddress": "",
    "messages": "on",
    "submitters": "",
    "remindAt": ",".join(DEFAULT_POINTS),
    "escalateAfter": "",
    "backupApprovers": "",
    "shopName": "",
}
MAX_REMINDER_POINTS = 10
DEPLOYABLE_PROVIDERS = ("bedrock", "deterministic")
ARCHITECTURES = ("arm64", "x86_64")
# A modelId given as an ARN: arn:aws:bedrock:REGION:ACCOUNT:inference-profile/us.amazon.nova-pro-v1:0,
# …:application-inference-profile/a1b2c3, or arn:aws:bedrock:REGION::foundation-model/amazon.nova-pro-v1:0.
MODEL_ARN = re.compile(
    r"^arn:aws[a-z-]*:bedrock:[a-z0-9-]+:(\d{12})?:"
    r"(?P<kind>foundation-model|inference-profile|application-inference-profile)/(?P<name>[A-Za-z0-9.:_-]{1,128})\Z"
)
_PREFIX = re.compile(r"^[a-z0-9][a-z0-9/_-]{0,60}/\Z")
_CONFIGURATION_SET = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
# A shop's name goes into the stack's name and so into every physical name derived from it (a log group, a
# rule name, a function name under 64 characters): short, lower case, DNS-like.
_SHOP_NAME = re.compile(r"^[a-z][a-z0-9-]{0,19}\Z")
DEFAULT_SHOP = "default"


def parse_shop_name(value: Any) -> str:
    """``shopName`` (empty or None: :data:`DEFAULT_SHOP`, the stack keeps its unsuffixed name); invalid raises."""
    text = "" if value is None else str(value).strip()
    if not text or text == DEFAULT_SHOP:
        return DEFAULT_SHOP
    if not _SHOP_NAME.match(text) or text.endswith("-") or "--" in text:
        raise ConfigurationError(
            f"shopName {text!r} must be 1-20 lower-case letters, digits or single '-', starting with a letter"
        )
    return text


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
    decide_reserved_concurrency: int | None = None
    max_versions: int = DEFAULT_MAX_VERSIONS
    decision_lease: str = "10m"
    decision_lease_seconds: int = int(DEFAULT_LEASE.total_seconds())
    sender_email: str = ""
    ses_configuration_set: str = ""
    inbound_address: str = ""
    messages: bool = True
    submitters: tuple[tuple[str, Submitter], ...] = ()
    # Reminders and escalation (infra/constructs/reminders.py): the points that come inside the window, and
    # when the backups join (None: never) and who they are.
    remind_at: tuple[str, ...] = ()
    escalate_after: str = ""
    backup_approvers: tuple[str, ...] = ()
    shop_name: str = DEFAULT_SHOP

    @property
    def metrics_namespace(self) -> str:
        """The CloudWatch namespace of this shop's metrics: a shop's alarms must not fire on another shop's
        refusals (``ProductionOrchestrator`` for the default shop, ``ProductionOrchestrator/<shop>`` else)."""
        return METRICS_NAMESPACE if self.shop_name == DEFAULT_SHOP else f"{METRICS_NAMESPACE}/{self.shop_name}"

    @property
    def execution_timeout_seconds(self) -> int:
        """The state machine's timeout: every version this stack allows, each with its full window."""
        return execution_seconds(self.approval_timeout_seconds, self.max_versions)

    @property
    def reminders_on(self) -> bool:
        """True when anything is to be reminded or escalated: the reminder function and its states exist."""
        return bool(self.remind_at) or bool(self.backup_approvers)

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
            _check_model_arn(binding.model_id, binding.region)
            lease = parse_duration(str(raw["decisionLease"]))
        except (ValueError, ValidationError) as exc:
            raise ConfigurationError(f"invalid model, approval window or decision lease setting: {exc}") from None
        versions = _integer("maxVersions", raw["maxVersions"], 1, MAX_VERSIONS)
        _check_execution_fits(str(raw["approvalWindow"]), int(window.total_seconds()), versions)
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
        messages = _switch("messages", raw["messages"])
        _check_sender(emails, messages, sender)
        separation = _flag("separationOfDuties", raw["separationOfDuties"])
        submitters = parse_submitters(raw["submitters"])
        _check_reachable(emails, submitters, separation, quorum if above is not None else 1)
        return cls(
            approver_emails=emails,
            operator_email=operator,
            binding=binding,
            approval_window=str(raw["approvalWindow"]),
            approval_timeout_seconds=int(window.total_seconds()),
            max_versions=versions,
            link_base_url=link,
            scenario=scenario,
            session_prefix=prefix,
            log_retention_days=int(raw["logRetentionDays"]),
            architecture=architecture,
            separation_of_duties=separation,
            quorum=quorum,
            quorum_above_quantity=above,
            decide_reserved_concurrency=_reservation(raw["decideReservedConcurrency"]),
            decision_lease=str(raw["decisionLease"]),
            decision_lease_seconds=int(lease.total_seconds()),
            sender_email=sender,
            ses_configuration_set=configuration_set,
            inbound_address=inbound,
            messages=messages,
            submitters=tuple(sorted(submitters.items())),
            shop_name=parse_shop_name(raw["shopName"]),
            **_reminder_settings(raw, window.total_seconds(), emails),
        )

    @property
    def submitters_json(self) -> str:
        """The submitter mapping as the submit function reads it (``PO_SUBMITTERS``)."""
        return submitters_env(dict(self.submitters))


def _reminder_settings(raw: dict[str, Any], window_seconds: float, approvers: tuple[str, ...]) -> dict[str, Any]:
    """``remindAt``, ``escalateAfter`` and ``backupApprovers``, each mistake refused in one line."""
    points = _reminder_points(str(raw["remindAt"]).strip(), window_seconds, str(raw["approvalWindow"]))
    delay_text = str(raw["escalateAfter"]).strip()
    backups = _email_list(raw["backupApprovers"], key="backupApprovers")
    if bool(delay_text) != bool(backups):
        raise ConfigurationError("escalateAfter and backupApprovers go together: set both, or neither")
    if delay_text:
        try:
            delay = parse_duration(delay_text)
        except ValidationError as exc:
            raise ConfigurationError(f"escalateAfter: {exc}") from None
        if delay.total_seconds() >= window_seconds:
            raise ConfigurationError(
                f"escalateAfter {delay_text} is not shorter than the {raw['approvalWindow']} approvalWindow: the "
                "backups would join an expired approval"
            )
    folded = [normalize_identity(b) for b in backups]
    asked = {normalize_identity(a) for a in approvers}
    for backup in folded:
        if backup in asked:
            raise ConfigurationError(f"backupApprovers entry {backup} is already in approverEmails")
        if folded.count(backup) > 1:
            raise ConfigurationError(f"backupApprovers names {backup} twice")
    if len(asked) + len(folded) > MAX_APPROVERS:
        raise ConfigurationError(
            f"approverEmails and backupApprovers name {len(asked) + len(folded)} people; at most {MAX_APPROVERS}"
        )
    return {"remind_at": points, "escalate_after": delay_text, "backup_approvers": tuple(folded)}


def _reminder_points(text: str, window_seconds: float, window: str) -> tuple[str, ...]:
    """The reminder points that come inside the window (``off``: none). A point given that never comes is
    refused; the default's points that do not fit (24h in a 24h window) are left out."""
    if text.lower() == "off":
        return ()
    try:
        points = parse_points(text)
    except ValidationError as exc:
        raise ConfigurationError(f"remindAt: {exc} (or off)") from None
    if len(points) > MAX_REMINDER_POINTS:
        raise ConfigurationError(f"remindAt names {len(points)} points; at most {MAX_REMINDER_POINTS}")
    start = "2026-01-01T00:00:00Z"
    end = utc_iso(parse_utc(start) + timedelta(seconds=window_seconds))
    outside = [p for p in points if ReminderSchedule.moment(p, start, end) is None]
    if outside and text != DEFAULTS["remindAt"]:
        raise ConfigurationError(
            f"remindAt point {outside[0]} never comes in a {window} approvalWindow (a time before the end must be "
            "shorter than the window)"
        )
    return tuple(p for p in points if p not in outside)


def _check_execution_fits(window: str, window_seconds: int, versions: int) -> None:
    """One execution carries every version: ``versions`` windows and their revisions must fit in a year."""
    needed = execution_seconds(window_seconds, versions)
    if needed <= MAX_EXECUTION_SECONDS:
        return
    longest = (MAX_EXECUTION_SECONDS - execution_seconds(0, versions)) // versions
    revisions = (versions - 1) * REVISION_GRACE_SECONDS // 3600
    raise ConfigurationError(
        f"approvalWindow {window} is too long for maxVersions {versions}: one execution carries every version of a "
        f"plan ({versions} window(s), {revisions}h for the revisions, {EXECUTION_GRACE_SECONDS // 3600}h after: "
        f"{needed}s) and a Standard execution may run one year at most ({MAX_EXECUTION_SECONDS}s). Shorten the "
        f"window (at most {_days(longest)} for {versions} versions) or lower maxVersions (1: no revisions, a "
        f"window of up to {MAX_APPROVAL_WINDOW_SECONDS}s, e.g. 364d)"
    )


def _days(seconds: int) -> str:
    return f"{seconds // 86400}d" if seconds >= 86400 else f"{max(seconds, 0)}s"


def _check_model_arn(model_id: str, region: str) -> None:
    """A modelId given as an ARN must be a Bedrock model or inference-profile ARN in ``modelRegion`` (the
    runtime calls that region's endpoint with it)."""
    if not model_id.startswith("arn:"):
        return
    match = MODEL_ARN.match(model_id)
    if match is None:
        raise ConfigurationError(f"modelId {model_id!r} is not a Bedrock model or inference-profile ARN")
    arn_region = model_id.split(":")[3]
    if arn_region != region:
        raise ConfigurationError(f"modelId names region {arn_region} but modelRegion is {region}: make them the same")


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


def parse_submitters(value: Any) -> dict[str, Submitter]:
    """``submitters``: a JSON object (``-c 'submitters={"arn:…:role/Ops": "ana@example.com"}'``, or an object in
    cdk.json) from principal ARNs to people; invalid entries raise. See domain/identity.py for what matches."""
    if isinstance(value, str):
        if not value.strip():
            return {}
        try:
            value = json.loads(value)
        except ValueError:
            raise ConfigurationError('submitters must be a JSON object: {"<principal ARN>": "<person>"}') from None
    if not isinstance(value, dict):
        raise ConfigurationError('submitters must be a JSON object: {"<principal ARN>": "<person>"}')
    try:
        return parse_submitter_map(value)
    except ValueError as exc:
        raise ConfigurationError(f"submitters: {exc}") from None


def _check_sender(approvers: tuple[str, ...], messages: bool, sender: str) -> None:
    """A stack whose plans can be approved and whose messages are on must have a sender to send them from."""
    if approvers and messages and not sender:
        raise ConfigurationError(
            "approverEmails is set and messages are on, but senderEmail is not: approved plans' messages could "
            "never be sent; set -c senderEmail=<a verified SES identity> or -c messages=off"
        )


def _check_reachable(
    approvers: tuple[str, ...], submitters: dict[str, Submitter], separation: bool, required: int
) -> None:
    """Under separation of duties, every submitter names the approver address it is (a bare name is refused: synth
    could not tell it from an approver), and a run submitted by an approver needs ``required`` approvals from the
    others. Who signs in through a role mapped to ``identity-center`` synth cannot see: each session is made the
    address its username is at run start (or refused there), and separation of duties holds on that address; so
    any approver may be the requester, and a quorum must be reachable by the other approvers."""
    if not separation:
        return
    names = unaddressed_people(submitters)
    if names:
        raise ConfigurationError(
            f"submitters maps a principal to {names[0]!r}, which is no e-mail address: under separationOfDuties each "
            "submitter must be the approver address it is (an address of its own for a bot), so that who submits "
            "is never the one who approves; or -c separationOfDuties=false"
        )
    if not approvers:
        return
    folded = {normalize_identity(a) for a in approvers}
    # A role mapped to identity-center makes any username a requester, so any approver may submit through it: a
    # quorum the shop set must stay reachable by the others. (Without one, a lone approver whose own run nobody
    # else may approve is refused at its run start, before the agent runs: the policy's problems.)
    open_roles = sorted(arn for arn, person in submitters.items() if person == IDENTITY_CENTER)
    if open_roles and required > 1 and len(folded) - 1 < required:
        raise ConfigurationError(
            f"submitters maps {open_roles[0]} to identity-center, so any approver may submit runs through it but, "
            f"under separationOfDuties, not approve them, and the other {len(folded) - 1} approver(s) cannot give "
            f"the {required} approvals a large plan needs: add an approver, lower the quorum, map the role's "
            "usernames to the addresses they are, or -c separationOfDuties=false"
        )
    submitting_approvers = sorted(mapped_addresses(submitters) & folded)
    if submitting_approvers and len(folded) - 1 < required:
        raise ConfigurationError(
            f"{submitting_approvers[0]} may submit runs but, under separationOfDuties, not approve them, and the "
            f"other {len(folded) - 1} approver(s) cannot give the {required} approval(s) a plan needs: add an "
            "approver, or (a one-owner shop) -c separationOfDuties=false"
        )


def _switch(key: str, value: Any) -> bool:
    text = str(value).strip().lower()
    if text not in ("on", "off"):
        raise ConfigurationError(f"{key} must be on or off")
    return text == "on"


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


def _email_list(value: Any, key: str = "approverEmails") -> tuple[str, ...]:
    items = value if isinstance(value, list) else str(value).split(",")
    emails = tuple(str(item).strip() for item in items if str(item).strip())
    for email in emails:
        if not is_approver_email(email):
            raise ConfigurationError(f"{key} entry {email!r} is not an e-mail address")
    return emails
