"""runtime: what the agent-running steps run on; its lease is the lease every claim it makes carries."""

from __future__ import annotations

from datetime import timedelta

from production_orchestrator.domain.approval.claims import DEFAULT_LEASE
from production_orchestrator.domain.approval.verification import ResumeRequest
from production_orchestrator.domain.records import parse_utc
from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct
from tests.support.memory_world import MemoryWorld


def test_the_runtime_lease_is_the_claims_lease(world: MemoryWorld) -> None:
    assert world.runtime().lease == DEFAULT_LEASE
    for lease in (timedelta(seconds=90), DEFAULT_LEASE):
        started = world.start()
        rt = world.runtime(lease=lease)
        cp = started.checkpoint
        request = ResumeRequest(cp.checkpoint_id, False, cp.proposal_hash)
        done = resume_direct(rt, ResumeDirect(request, world.binding, approver="ana", reason="not now"))
        record = world.store.get_decision(cp.checkpoint_id)
        assert record is not None and record.resume_pid == rt.pid == done.resume_pid
        assert parse_utc(record.lease_expires_at) - parse_utc(record.claimed_at) == lease
