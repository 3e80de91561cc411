"""Outbox: the messages an approved plan drafted, queued in the same write as the apply, delivered once.

deliver   hand each queued message to a transport under a lease and mark it sent (or failed, with why)
requeue   a person queues failed messages again (``outbox retry``), each with an audit event

apply (queues) -> deliver -> sent | failed -> requeue -> deliver
"""
