"""shop import: create or change the shop in one conditional write; what applied or pending plans rely on is
guarded (IMPORT_CONFLICT, nothing written) unless replace; the revision moves on every change."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import (
    RefusalCode,
    ResumeRefusedError,
    ShopChangeCode,
    ShopChangeRefusedError,
    StaleStateError,
)
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.services.shop.importing import ImportShop, import_shop, pending_on, plan_import
from tests.support.memory_world import MemoryWorld

RUSH = SCENARIOS["rush-order"].state


def test_an_empty_store_gets_the_shop(world: MemoryWorld) -> None:
    result = import_shop(world.ports(), ImportShop(RUSH))
    assert (result.created, result.changed, result.stale_checkpoints) == (True, True, ())
    assert world.store.load_state() == RUSH
    assert [e.event_type for e in world.store.audit_events()] == ["shop_imported"]


def test_the_same_shop_again_changes_nothing(world: MemoryWorld) -> None:
    import_shop(world.ports(), ImportShop(RUSH))
    before = world.snapshot()
    result = import_shop(world.ports(), ImportShop(RUSH.model_copy(update={"revision": 1})))
    assert (result.created, result.changed) == (False, False)
    assert world.snapshot() == before


def test_replacing_the_shop_names_the_plans_it_made_stale_and_their_resume_is_refused(world: MemoryWorld) -> None:
    started = world.start()
    proposed_on = started.checkpoint.domain_digest
    assert [c.checkpoint_id for c in pending_on(world.ports(), proposed_on)] == [started.checkpoint.checkpoint_id]
    assert import_shop(world.ports(), ImportShop(RUSH.with_inventory("THREAD-RED-40", 5000))).stale_checkpoints == ()
    recount = RUSH.with_inventory("THREAD-RED-40", 0)  # more stock stales nothing; none leaves the plan short
    before = world.snapshot()
    with pytest.raises(ShopChangeRefusedError) as guarded:
        import_shop(world.ports(), ImportShop(recount))
    assert guarded.value.code is ShopChangeCode.IMPORT_CONFLICT
    assert started.checkpoint.checkpoint_id in str(guarded.value)
    assert world.snapshot() == before  # refused: nothing written
    result = import_shop(world.ports(), ImportShop(recount, replace=True))
    assert result.stale_checkpoints == (started.checkpoint.checkpoint_id,)
    assert world.store.load_state().model_copy(update={"revision": 1}) == recount  # type: ignore[union-attr]
    with pytest.raises(ResumeRefusedError) as refused:
        world.resume(started, True)
    assert refused.value.code is RefusalCode.STALE_DOMAIN_STATE


def test_reimporting_the_original_file_after_a_plan_applied_is_refused_then_moves_the_revision_on(
    world: MemoryWorld,
) -> None:
    started = world.start()
    assert world.resume(started, True).revision == 2
    plan = plan_import(world.ports(), RUSH)
    # The applied plan placed RUSH-200 and moved STANDARD-100: the original file would undo both.
    assert plan.diff is not None and plan.diff.orders.removed == ("RUSH-200",)
    assert [p.split(" (")[0] for p in plan.conflicts] == [
        "order RUSH-200",
        "order STANDARD-100",
        "purchase 600 THREAD-RED-40 needed by 2026-08-12 from orders@threadworks-supply.example",  # and its purchase
    ]
    before = world.snapshot()
    with pytest.raises(ShopChangeRefusedError) as guarded:
        import_shop(world.ports(), ImportShop(RUSH))
    assert guarded.value.code is ShopChangeCode.IMPORT_CONFLICT and "would be removed" in str(guarded.value)
    assert world.snapshot() == before
    result = import_shop(world.ports(), ImportShop(RUSH, replace=True))
    assert result.state.revision == 3 and world.store.load_state().revision == 3  # type: ignore[union-attr]
    assert world.store.audit_events()[-1].detail["replaced_plan_orders"] == list(plan.conflicts)


def test_every_change_moves_the_revision_and_the_diff_names_what_changed(world: MemoryWorld) -> None:
    import_shop(world.ports(), ImportShop(RUSH))
    recount = RUSH.with_inventory("THREAD-RED-40", 5000)
    result = import_shop(world.ports(), ImportShop(recount))
    assert result.state.revision == 2 and result.diff is not None
    assert result.diff.materials.changed == ("THREAD-RED-40",) and result.diff.lines() == [
        "materials changed (1): THREAD-RED-40"
    ]


def test_a_shop_that_moved_meanwhile_is_not_overwritten(world: MemoryWorld) -> None:
    import_shop(world.ports(), ImportShop(RUSH))
    with pytest.raises(StaleStateError):
        world.store.replace_shop(RUSH.with_inventory("THREAD-RED-40", 1), (1, "0" * 64), world.store.audit_events()[0])
    assert world.store.load_state() == RUSH


def test_a_file_without_procurement_never_drops_what_an_applied_plan_bought(world: MemoryWorld) -> None:
    started = world.start()
    assert world.resume(started, True).outcome == "applied"
    shop = world.store.load_state()
    assert shop is not None and len(shop.procurement) == 1
    erp_export = shop.model_copy(update={"procurement": ()})  # an ERP file with no procurement section
    plan = plan_import(world.ports(), erp_export)
    bought = "600 THREAD-RED-40 needed by 2026-08-12 from orders@threadworks-supply.example"
    assert plan.diff is not None and f"procurement lines removed (1): {bought}" in plan.diff.lines()
    assert plan.diff.to_json()["procurement"] == {"added": [], "removed": [bought]}
    [problem] = plan.problems()
    assert problem.startswith(f"purchase {bought} (committed by the applied plan ") and "would be dropped" in problem
    before = world.snapshot()
    with pytest.raises(ShopChangeRefusedError) as guarded:
        import_shop(world.ports(), ImportShop(erp_export))
    assert guarded.value.code is ShopChangeCode.IMPORT_CONFLICT and bought in str(guarded.value)
    assert world.snapshot() == before  # refused: nothing written
    result = import_shop(world.ports(), ImportShop(erp_export, replace=True))
    assert result.state.procurement == ()
    assert world.store.audit_events()[-1].detail["replaced_plan_orders"] == [problem]


def test_a_file_that_keeps_the_purchase_imports_without_replace(world: MemoryWorld) -> None:
    started = world.start()
    world.resume(started, True)
    shop = world.store.load_state()
    assert shop is not None
    recount = shop.with_inventory("THREAD-BLUE-40", 1999)
    assert plan_import(world.ports(), recount).problems() == []
    assert import_shop(world.ports(), ImportShop(recount)).changed
