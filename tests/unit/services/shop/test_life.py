"""The operator's changes as lifecycle steps on the fakes: one audited write each, a refusal writes nothing,
a concurrent change is judged again, the plans made stale are named."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import (
    RefusalCode,
    ResumeRefusedError,
    ShopChangeCode,
    ShopChangeRefusedError,
)
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.domain.shop.model import ShopState
from production_orchestrator.services.shop import life as shop_life
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.support.memory_world import MemoryWorld

RUSH = SCENARIOS["rush-order"].state


def test_each_change_is_one_write_with_its_audit_event(world: MemoryWorld) -> None:
    import_shop(world.ports(), ImportShop(RUSH))
    steps = [
        (
            "material_received",
            lambda: shop_life.receive(world.ports(), shop_life.Receive("THREAD-RED-40", 100, "note 1")),
        ),
        ("order_progressed", lambda: shop_life.progress(world.ports(), shop_life.Progress("STANDARD-100", 60))),
        ("order_completed", lambda: shop_life.complete(world.ports(), shop_life.Complete("STANDARD-100"))),
    ]
    for revision, (event_type, step) in enumerate(steps, start=2):
        applied = step()
        stored = world.store.load_state()
        assert stored == applied.change.state and stored is not None and stored.revision == revision
        last = world.store.audit_events()[-1]
        assert last.event_type == event_type and last.detail["digest"] == stored.digest()
    assert len(world.store.audit_events()) == 1 + len(steps)


@pytest.mark.parametrize(
    ("step", "code"),
    [
        (
            lambda w: shop_life.receive(w.ports(), shop_life.Receive("THREAD-PINK-40", 5, "")),
            ShopChangeCode.UNKNOWN_MATERIAL,
        ),
        (
            lambda w: shop_life.receive(w.ports(), shop_life.Receive("THREAD-RED-40", 0, "")),
            ShopChangeCode.INVALID_QUANTITY,
        ),
        (lambda w: shop_life.complete(w.ports(), shop_life.Complete("NOPE")), ShopChangeCode.UNKNOWN_ORDER),
        (lambda w: shop_life.cancel(w.ports(), shop_life.Cancel("STANDARD-100", "")), ShopChangeCode.INVALID_TEXT),
        (
            lambda w: shop_life.progress(w.ports(), shop_life.Progress("STANDARD-100", 9999)),
            ShopChangeCode.PROGRESS_TOO_LARGE,
        ),
    ],
)
def test_a_refused_change_writes_nothing(world: MemoryWorld, step: object, code: ShopChangeCode) -> None:
    import_shop(world.ports(), ImportShop(RUSH))
    before = world.snapshot()
    with pytest.raises(ShopChangeRefusedError) as refused:
        step(world)  # type: ignore[operator]
    assert refused.value.code is code
    assert world.snapshot() == before


def test_no_shop_is_refused(world: MemoryWorld) -> None:
    with pytest.raises(ShopChangeRefusedError) as refused:
        shop_life.receive(world.ports(), shop_life.Receive("THREAD-RED-40", 5, ""))
    assert refused.value.code is ShopChangeCode.NO_SHOP


def test_a_change_that_lost_a_race_is_judged_again_on_the_new_shop(world: MemoryWorld) -> None:
    import_shop(world.ports(), ImportShop(RUSH))
    real = world.store.replace_shop
    raced = []

    def racing(state: ShopState, expected: tuple[int, str] | None, event: object) -> None:
        if not raced:  # another operator cancels STANDARD-100 between our read and our write
            raced.append(1)
            shop_life.cancel(world.ports(), shop_life.Cancel("STANDARD-100", "withdrawn"))
        real(state, expected, event)  # type: ignore[arg-type]

    world.store.replace_shop = racing  # type: ignore[method-assign]
    with pytest.raises(ShopChangeRefusedError) as refused:
        shop_life.complete(world.ports(), shop_life.Complete("STANDARD-100"))
    assert refused.value.code is ShopChangeCode.ORDER_CLOSED  # judged again: it was cancelled meanwhile
    closed = world.store.load_state().closed_order("STANDARD-100")  # type: ignore[union-attr]
    assert closed is not None and closed.status == "cancelled"


def test_a_change_names_the_pending_plans_it_made_stale_and_their_resume_is_refused(world: MemoryWorld) -> None:
    started = world.start()
    # A delivery only frees stock: no plan goes stale. Cancelling the order the plan moves is a real conflict.
    assert shop_life.receive(world.ports(), shop_life.Receive("THREAD-RED-40", 600, "")).stale_checkpoints == ()
    applied = shop_life.cancel(world.ports(), shop_life.Cancel("STANDARD-100", "cafe closed"))
    assert applied.stale_checkpoints == (started.checkpoint.checkpoint_id,)
    with pytest.raises(ResumeRefusedError) as refused:
        world.resume(started, True)
    assert refused.value.code is RefusalCode.STALE_DOMAIN_STATE
    assert "order STANDARD-100 was cancelled on" in str(refused.value)
    # A rejection is always accepted, and the next change stales nothing more.
    world.resume(started, False)
    assert shop_life.receive(world.ports(), shop_life.Receive("THREAD-RED-40", 1, "")).stale_checkpoints == ()


def test_shortages_already_in_the_shop_name_the_orders_that_need_them() -> None:
    short = RUSH.with_inventory("THREAD-BLUE-40", 50)  # STANDARD-100 needs 200 on 2026-08-12
    [line] = shop_life.existing_shortages(short, "2026-08-12")
    assert (line.material, line.quantity, line.needed_by, line.orders) == (
        "THREAD-BLUE-40",
        150,
        "2026-08-12",
        ("STANDARD-100",),
    )
    # An order that started before the planning day already took its material: no shortage is left then.
    assert shop_life.existing_shortages(short, "2026-08-13") == []
    assert shop_life.existing_shortages(RUSH, "2026-08-12") == []
