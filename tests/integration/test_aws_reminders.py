"""Reminders and escalation on AWS, the reminder handler against a moto server (DynamoDB, SNS, EventBridge
Scheduler) with the handlers' clock injected: nothing waits.

arm -> one schedule per point (at(), the function itself as target, the scheduler role, deleted after it ran)
a schedule's input at its moment -> each asked approver who has not voted: a new link by SNS (the old one
stops working), audited, once (retried wake-ups, re-run schedules, a dead sender's claim); after the decision
or the window: nothing. Escalation: the backups join once, audited, each with their own link.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.domain.approval.reminders import ReminderSchedule
from production_orchestrator.domain.errors import ReminderHeldError, ValidationError
from production_orchestrator.domain.records import parse_utc
from tests.support.aws_flow import Flow, start
from tests.support.moto_aws import ACCOUNT, APPROVERS, REGION, AwsWorld, Clock, LambdaContext, cold_start, iam_caller
from tests.support.runtimes import runtime_of

ANA, BEN = APPROVERS
CY = "cy@example.com"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/po-reminder-scheduler"
FUNCTION_ARN = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:po-remind"


@pytest.fixture
def world(aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> Iterator[AwsWorld]:
    """The test's world with a schedule group and the reminder function's settings (default points)."""
    scheduler = aws.session.client("scheduler")
    group = f"{aws.table}-wakes"
    scheduler.create_schedule_group(Name=group)
    monkeypatch.setenv("PO_REMINDER_GROUP", group)
    monkeypatch.setenv("PO_REMINDER_ROLE_ARN", ROLE_ARN)
    aws.group = group  # type: ignore[attr-defined]
    yield aws


def _remind(event: dict[str, Any]) -> dict[str, Any]:
    """One invocation, a cold start, as the function (a qualified ARN, as Lambda may report it)."""
    from production_orchestrator.handlers import remind

    cold_start()
    context = LambdaContext(function_name="po-remind", invoked_function_arn=f"{FUNCTION_ARN}:$LATEST")
    result: dict[str, Any] = remind.handler(event, context)
    return result


def _schedules(world: AwsWorld) -> dict[str, dict[str, Any]]:
    scheduler = world.session.client("scheduler")
    group = world.group  # type: ignore[attr-defined]
    return {
        s["Name"]: scheduler.get_schedule(GroupName=group, Name=s["Name"])
        for s in scheduler.list_schedules(GroupName=group)["Schedules"]
    }


def _requested(world: AwsWorld, clock: Clock) -> Flow:
    flow = start(world)
    flow.request_approval()
    return flow


def _record(world: AwsWorld, flow: Flow) -> Any:
    import boto3

    record = DynamoApprovalStore(boto3.Session().client("dynamodb"), world.table).get_approval(flow.approval_id)
    assert record is not None
    return record


def _wake(flow: Flow, point: str) -> dict[str, Any]:
    return _remind({"action": "wake", "checkpoint_id": flow.checkpoint_id, "point": point})


def _at(clock: Clock, moment: datetime) -> None:
    clock.now = moment


def _halfway(world: AwsWorld, flow: Flow) -> datetime:
    record = _record(world, flow)
    moment = ReminderSchedule.moment("halfway", record.created_at, record.expires_at)
    assert moment is not None
    return moment


def _audited(world: AwsWorld, kind: str) -> list[dict[str, Any]]:
    import boto3

    store = DynamoShopStore(boto3.Session().client("dynamodb"), world.table)
    return [dict(e.detail) for e in store.audit_events() if e.event_type == kind]


def test_arming_creates_one_once_only_schedule_per_point_inside_the_window(world: AwsWorld, clock: Clock) -> None:
    flow = _requested(world, clock)
    armed = _remind({"action": "arm", "checkpoint_id": flow.checkpoint_id, "expires_at": flow.run["expires_at"]})
    schedules = _schedules(world)
    assert set(schedules) == set(armed["armed"]) == {f"{flow.checkpoint_id}-r0", f"{flow.checkpoint_id}-r1"}
    expires = parse_utc(flow.run["expires_at"])
    for name, point in ((f"{flow.checkpoint_id}-r0", "halfway"), (f"{flow.checkpoint_id}-r1", "24h")):
        detail = schedules[name]
        assert json.loads(detail["Target"]["Input"]) == {
            "action": "wake",
            "checkpoint_id": flow.checkpoint_id,
            "point": point,
        }
        assert detail["Target"]["Arn"] == FUNCTION_ARN  # the function itself, unqualified
        assert detail["Target"]["RoleArn"] == ROLE_ARN
        assert detail["ActionAfterCompletion"] == "DELETE" and detail["FlexibleTimeWindow"] == {"Mode": "OFF"}
        at = parse_utc(armed["armed"][name])
        assert detail["ScheduleExpression"] == f"at({at.strftime('%Y-%m-%dT%H:%M:%S')})"
        assert clock.now < at < expires
    # A retried ArmReminders finds them armed and creates nothing more.
    again = _remind({"action": "arm", "checkpoint_id": flow.checkpoint_id, "expires_at": flow.run["expires_at"]})
    assert again["armed"] == armed["armed"] and _schedules(world).keys() == schedules.keys()


def test_a_reminder_carries_a_new_link_by_sns_and_the_first_link_stops_working(world: AwsWorld, clock: Clock) -> None:
    flow = _requested(world, clock)
    _at(clock, _halfway(world, flow))
    result = _wake(flow, "halfway")
    assert result["status"] == "done"
    assert sorted((r["point"], r["approver"]) for r in result["reminded"]) == [("halfway", ANA), ("halfway", BEN)]
    reminders = {link.approver: link for link in world.links()}
    assert set(reminders) == {ANA, BEN}  # each through their own filtered subscription
    for approver, link in reminders.items():
        first = flow.link(approver)
        assert link.subject.startswith("Reminder: Approve plan for order RUSH-200?")
        assert "the link in the earlier message no longer works" in link.body and "3 days 12 hours left" in link.body
        assert link.secret != first.secret and link.approval_id == flow.approval_id
        assert flow.get(link)["statusCode"] == 200 and approver in flow.get(link)["body"]
        assert flow.get(first)["statusCode"] == 404  # the neutral page
    assert len(_audited(world, "approval_relinked")) == 2 and len(_audited(world, "approval_reminded")) == 2
    assert all(link.secret not in str(world.snapshot()) for link in reminders.values())
    # The reminder's link decides, through the same page and rule as the first: halfway through the window the
    # plan's day (the scenario's 2026-08-12) has passed, so an approve is refused as stale by time (409, nothing
    # recorded) and a reject, always possible while the approval is open, decides.
    assert flow.post("approve", link=reminders[BEN])["statusCode"] == 409
    assert _record(world, flow).status != "decided"
    assert flow.post("reject", link=reminders[BEN], reason="too late")["statusCode"] == 200
    assert _record(world, flow).status == "rejected" and _record(world, flow).decided_by == BEN


def test_a_retried_wake_or_a_rerun_schedule_sends_each_reminder_once(world: AwsWorld, clock: Clock) -> None:
    flow = _requested(world, clock)
    _at(clock, _halfway(world, flow))
    assert len(_wake(flow, "halfway")["reminded"]) == 2
    assert len(world.links()) == 2
    before = world.snapshot()
    for later in (timedelta(0), timedelta(minutes=5), timedelta(hours=3)):
        _at(clock, _halfway(world, flow) + later)
        assert _wake(flow, "halfway")["reminded"] == []
    assert world.links() == [] and world.snapshot() == before
    # The next point is its own reminder, once.
    _at(clock, parse_utc(flow.run["expires_at"]) - timedelta(hours=24))
    assert sorted(r["approver"] for r in _wake(flow, "24h")["reminded"]) == [ANA, BEN]
    assert _wake(flow, "24h")["reminded"] == [] and len(world.links()) == 2


def test_a_reminder_held_by_a_dead_sender_fails_the_wake_until_the_lease_ends(world: AwsWorld, clock: Clock) -> None:
    import boto3

    flow = _requested(world, clock)
    _at(clock, _halfway(world, flow))
    store = DynamoApprovalStore(boto3.Session().client("dynamodb"), world.table)
    # A wake-up that claimed Ana's reminder and died before sending it.
    store.record_reminder_claim(flow.approval_id, f"halfway|{ANA}", "dead", now=clock.now, lease=timedelta(minutes=2))
    with pytest.raises(ReminderHeldError):
        _wake(flow, "halfway")  # Lambda retries it: Ben's went out, Ana's is held
    assert [link.approver for link in world.links()] == [BEN]
    clock.advance(timedelta(minutes=1))
    with pytest.raises(ReminderHeldError):
        _wake(flow, "halfway")  # the first retry: still held, nothing sent
    assert world.links() == []
    clock.advance(timedelta(minutes=2))
    assert [r["approver"] for r in _wake(flow, "halfway")["reminded"]] == [ANA]  # the second retry takes it over
    assert [link.approver for link in world.links()] == [ANA]
    assert _wake(flow, "halfway")["reminded"] == [] and world.links() == []


@pytest.mark.parametrize("ending", ["approve", "reject", "expired"])
def test_nothing_is_sent_once_the_approval_is_decided_or_expired(world: AwsWorld, clock: Clock, ending: str) -> None:
    flow = _requested(world, clock)
    if ending == "expired":
        _at(clock, parse_utc(flow.run["expires_at"]))
    else:
        assert flow.post(ending)["statusCode"] == 200
        _at(clock, _halfway(world, flow))
    world.links()
    before = world.snapshot()
    for point in ("halfway", "24h"):
        assert _wake(flow, point)["status"] == "closed"
    assert world.links() == [] and world.snapshot() == before and _schedules(world) == {}


def test_who_already_voted_is_not_reminded(world: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PO_QUORUM_ABOVE_QUANTITY", "0")  # rush-order procures: two approvals needed
    flow = _requested(world, clock)
    assert flow.post("approve", link=flow.link(ANA))["statusCode"] == 200
    _at(clock, _halfway(world, flow))
    assert [r["approver"] for r in _wake(flow, "halfway")["reminded"]] == [BEN]
    assert [link.approver for link in world.links()] == [BEN]


def test_an_early_wake_is_armed_again_at_the_approvals_own_moment(world: AwsWorld, clock: Clock) -> None:
    flow = _requested(world, clock)
    moment = _halfway(world, flow)
    _at(clock, moment - timedelta(seconds=30))  # armed before the approval was written: 30 s early for it
    before = world.snapshot()
    result = _wake(flow, "halfway")
    assert result["status"] == "early" and result["reminded"] == []
    assert world.links() == [] and world.snapshot() == before
    again = _schedules(world)[f"{flow.checkpoint_id}-r0-again"]
    assert parse_utc(result["rearmed_at"]) >= moment
    assert json.loads(again["Target"]["Input"])["point"] == "halfway"
    _at(clock, parse_utc(result["rearmed_at"]))
    assert len(_wake(flow, "halfway")["reminded"]) == 2
    assert _remind({"action": "disarm", "checkpoint_id": flow.checkpoint_id})["disarmed"] == 1
    assert _schedules(world) == {}


def test_escalation_adds_the_backups_once_audited_each_with_their_own_link(
    world: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PO_ESCALATE_AFTER", "1d")
    monkeypatch.setenv("PO_BACKUP_APPROVERS", " Cy@Example.com ")
    url = world.sqs.create_queue(QueueName=f"{world.table}-cy")["QueueUrl"]
    arn = world.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    world.sns.subscribe(
        TopicArn=world.topic_arn,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"FilterPolicy": json.dumps({"approver": [CY]})},
    )
    world.queues[CY] = url
    flow = _requested(world, clock)
    armed = _remind({"action": "arm", "checkpoint_id": flow.checkpoint_id, "expires_at": flow.run["expires_at"]})
    assert f"{flow.checkpoint_id}-esc" in armed["armed"]
    before = _record(world, flow)
    _at(clock, parse_utc(before.created_at) + timedelta(days=1))
    result = _wake(flow, "escalate")
    assert result["escalated"] == [CY] and result["links_sent"] == [CY]
    after = _record(world, flow)
    assert after.policy.approvers == (ANA, BEN, CY)
    assert (after.required, after.policy.requester, after.policy.separation_of_duties) == (
        before.required,
        before.policy.requester,
        before.policy.separation_of_duties,
    )
    (link,) = world.links()
    assert link.approver == CY and flow.get(link)["statusCode"] == 200
    (event,) = _audited(world, "approval_escalated")
    assert event["added"] == [CY] and event["asked"] == [ANA, BEN, CY]
    clock.advance(timedelta(hours=1))
    again = _wake(flow, "escalate")
    assert again["escalated"] == [] and again["links_sent"] == [] and world.links() == []
    # The backup is reminded like the others at the next point.
    _at(clock, parse_utc(flow.run["expires_at"]) - timedelta(hours=24))
    assert sorted(r["approver"] for r in _wake(flow, "24h")["reminded"]) == [ANA, BEN, CY]


@pytest.mark.parametrize(
    "event",
    [
        {"action": "wake", "point": "halfway"},
        {"action": "wake", "checkpoint_id": "ckpt-" + "0" * 32, "point": "soon"},
        {"action": "wake", "checkpoint_id": "ckpt-" + "0" * 32, "point": "halfway,24h"},
        {"action": "arm", "checkpoint_id": "ckpt-" + "0" * 32, "expires_at": "tomorrow"},
        {"action": "snooze", "checkpoint_id": "ckpt-" + "0" * 32},
    ],
)
def test_a_malformed_event_is_refused_with_nothing_written(
    world: AwsWorld, clock: Clock, event: dict[str, Any]
) -> None:
    flow = _requested(world, clock)
    world.links()
    before = world.snapshot()
    _at(clock, _halfway(world, flow))
    with pytest.raises(ValidationError):
        _remind(event)
    assert world.snapshot() == before and world.links() == [] and _schedules(world) == {}


def test_disarm_deletes_the_wake_ups_that_have_not_fired(world: AwsWorld, clock: Clock) -> None:
    flow = _requested(world, clock)
    _remind({"action": "arm", "checkpoint_id": flow.checkpoint_id, "expires_at": flow.run["expires_at"]})
    assert len(_schedules(world)) == 2
    assert _remind({"action": "disarm", "checkpoint_id": flow.checkpoint_id})["disarmed"] == 2
    assert _schedules(world) == {}
    assert _remind({"action": "disarm", "checkpoint_id": flow.checkpoint_id})["disarmed"] == 0


def test_two_wake_ups_at_once_send_each_reminder_once(world: AwsWorld, clock: Clock) -> None:
    """Scheduler delivering one schedule twice at the same moment: the claims serialize the two (DynamoDB
    conditional writes); whichever holds a reminder sends it, the other sends nothing for it."""
    import threading

    import boto3

    from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore as Shop
    from production_orchestrator.adapters.aws.scheduler import SchedulerWakes
    from production_orchestrator.adapters.aws.sns_notifier import SnsApprovalNotifier
    from production_orchestrator.services.asking.reminder_wakes import Wake, wake

    flow = _requested(world, clock)
    moment = _halfway(world, flow)
    start = threading.Barrier(2)
    outcomes: list[object] = []

    def one() -> None:
        session = boto3.Session()
        dynamodb = session.client("dynamodb")
        start.wait()
        try:
            rt = runtime_of(
                Shop(dynamodb, world.table),
                DynamoApprovalStore(dynamodb, world.table),
                notifier=SnsApprovalNotifier(session.client("sns"), world.topic_arn),
                wakes=SchedulerWakes(
                    session.client("scheduler"), group="unused", target_arn=FUNCTION_ARN, role_arn=ROLE_ARN
                ),
                clock=lambda: moment,
            )
            done = wake(rt, Wake(ReminderSchedule(), flow.checkpoint_id, "halfway", "https://approve.example.com/"))
            outcomes.append(done.reminded)
        except Exception as exc:  # reported below: a thread must not die silently
            outcomes.append(exc)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(isinstance(o, (list, ReminderHeldError)) for o in outcomes) and len(outcomes) == 2, outcomes
    sent = sorted(link.approver for link in world.links())
    assert sent == [ANA, BEN]  # each once, whoever sent it (a wake that found one held fails after its own)
    assert sorted(e["approver"] for e in _audited(world, "approval_reminded")) == [ANA, BEN]
    assert all(mark.sent_at for mark in _record(world, flow).reminders)


def test_the_runs_requester_is_never_added_as_its_backup_on_aws(
    world: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dan submitted the run (signed in as DAN@Example.com) and is a backup: escalation adds Cy only, Dan gets no
    link, neither by SNS nor in the record, and the audit event names Cy alone."""
    dan = "dan@example.com"
    monkeypatch.setenv("PO_ESCALATE_AFTER", "1d")
    monkeypatch.setenv("PO_BACKUP_APPROVERS", f" Dan@Example.COM ,{CY}")
    for person in (CY, dan):
        url = world.sqs.create_queue(QueueName=f"{world.table}-{person.split('@')[0]}")["QueueUrl"]
        arn = world.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        world.sns.subscribe(
            TopicArn=world.topic_arn,
            Protocol="sqs",
            Endpoint=arn,
            Attributes={"FilterPolicy": json.dumps({"approver": [person]})},
        )
        world.queues[person] = url
    flow = start(world, caller=iam_caller("DAN@Example.com"))
    assert flow.run["requested_by"] == dan
    flow.request_approval()
    _remind({"action": "arm", "checkpoint_id": flow.checkpoint_id, "expires_at": flow.run["expires_at"]})
    before = _record(world, flow)
    assert before.policy.requester == dan
    _at(clock, parse_utc(before.created_at) + timedelta(days=1))
    result = _wake(flow, "escalate")
    assert result["escalated"] == [CY] and result["links_sent"] == [CY]
    after = _record(world, flow)
    assert after.policy.approvers == (ANA, BEN, CY) and after.link_of(dan) is None
    assert [link.approver for link in world.links()] == [CY]
    (event,) = _audited(world, "approval_escalated")
    assert event["added"] == [CY] and dan not in event["asked"]
    # A later reminder pass does not add him either.
    _at(clock, parse_utc(flow.run["expires_at"]) - timedelta(hours=24))
    assert sorted(r["approver"] for r in _wake(flow, "24h")["reminded"]) == [ANA, BEN, CY]
    assert _record(world, flow).link_of(dan) is None
