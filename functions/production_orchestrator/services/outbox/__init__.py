"""Outbox: every message the shop sends, queued in the same write as the change that asks for it, delivered once.

deliver         the one pipeline: hand each queued message, of any kind, to a transport under a lease and mark it
                sent (or failed, or void, with why); a row the audit trail contradicts is refused, never sent
plan_kind       the plan kinds' rule: a message is the approved plan's draft, or it is refused
approval_kind   the approval kinds' rule: a request's or reminder's link rebuilt from the key at send; void once
                its approval closed or its link was replaced
requeue         a person queues failed messages again (``outbox retry``), each with an audit event

apply | approval change (queues) -> deliver (plan_kind | approval_kind) -> sent | failed | void
                                    failed -> requeue -> deliver
"""
