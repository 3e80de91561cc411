"""Import: a shop file's state in place of the data dir's (or table's) shop: a change, never a silent replacement.

read the current shop -> same content (revision aside): nothing to do
-> the diff (orders, machines, materials, products: added, removed, changed)
-> guarded: an order placed by an applied plan would be removed or rescheduled, a purchase an applied plan
   committed would be dropped (a file without its procurement section), or a pending plan would be made
   stale -> IMPORT_CONFLICT listing them, nothing written (unless ``replace``)
-> one conditional write (conditioned on the revision and digest just read) with its audit event; the
   revision moves up by one (or to the file's, when higher: revisions never go back)
"""

from __future__ import annotations

from dataclasses import dataclass

from ...domain.errors import ShopChangeCode, ShopChangeRefusedError
from ...domain.planning.proposal import ProposalContent, load_proposal
from ...domain.records import Checkpoint, audit_event
from ...domain.shop.diff import ShopDiff, purchase, shop_diff
from ...domain.shop.model import ShopState, runs
from ..runtime import Runtime
from .life import made_stale, pending_checkpoints


def applied_plans(rt: Runtime) -> list[tuple[str, ProposalContent]]:
    """Every applied plan, oldest first, with its proposal hash."""
    store = rt.store
    found = []
    for event in store.audit_events():
        if event.event_type != "plan_applied" or not event.proposal_hash:
            continue
        data = store.get_proposal(event.proposal_hash)
        if data is not None:
            found.append((event.proposal_hash, load_proposal(data, event.proposal_hash)))
    return found


def placed_by_plans(rt: Runtime) -> dict[str, str]:
    """Each order an applied plan scheduled or moved, with the proposal hash of the last plan that did."""
    placed: dict[str, str] = {}
    for proposal_hash, proposal in applied_plans(rt):
        for order_id in (proposal.target_order.id, *(c.order_id for c in proposal.schedule_changes)):
            placed[order_id] = proposal_hash
    return placed


def committed_by_plans(rt: Runtime, before: ShopState, after: ShopState) -> list[str]:
    """Procurement lines an applied plan committed that ``after`` drops (a file that leaves them out, or the
    whole ``procurement`` section), each as a sentence. A line a delivery reduced is still the plan's."""
    bought = {
        (a.material_id, a.needed_by, a.supplier_email): (proposal_hash, a.quantity)
        for proposal_hash, proposal in applied_plans(rt)
        for a in proposal.procurement_actions
    }
    kept = list(after.procurement)
    found = []
    for task in before.procurement:
        if task in kept:
            kept.remove(task)
            continue
        plan = bought.get((task.material, task.needed_by, task.supplier_email))
        if plan is not None and task.quantity <= plan[1]:
            found.append(f"purchase {purchase(task)} (committed by the applied plan {plan[0][:12]}) would be dropped")
    return found


def plan_conflicts(rt: Runtime, before: ShopState, after: ShopState) -> list[str]:
    """Orders placed by an applied plan that ``after`` removes or reschedules, and purchases an applied plan
    committed that it drops, each as a sentence."""
    found = []
    for order_id, proposal_hash in sorted(placed_by_plans(rt).items()):
        was = before.order(order_id)
        if was is None:
            continue  # completed or cancelled since, or moved out by an earlier import
        now = after.order(order_id)
        plan = f"placed by the applied plan {proposal_hash[:12]}"
        if now is None:
            closed = after.closed_order(order_id)
            verb = f"marked {closed.status}" if closed else "removed"
            found.append(f"order {order_id} ({plan}) would be {verb}")
        elif now.schedule != was.schedule:
            found.append(
                f"order {order_id} ({plan}) would be rescheduled: {runs(was.schedule)} -> {runs(now.schedule)}"
            )
    return found + committed_by_plans(rt, before, after)


@dataclass(frozen=True)
class ImportPlan:
    """What an import would do, judged on the shop as read (``dry-run`` prints it; import writes it)."""

    current: ShopState | None
    state: ShopState
    diff: ShopDiff | None
    conflicts: tuple[str, ...]
    stale: tuple[Checkpoint, ...]

    @property
    def changed(self) -> bool:
        """False when the shop already is exactly the file's."""
        return self.current is None or self.diff is None or not self.diff.is_empty()

    def problems(self) -> list[str]:
        """Why this import needs ``--replace``: plan-placed orders it moves, and pending plans it stales."""
        out = list(self.conflicts)
        out += [f"pending plan {c.checkpoint_id} (order {c.target_order_id}) would become stale" for c in self.stale]
        return out


def plan_import(rt: Runtime, state: ShopState) -> ImportPlan:
    """What importing ``state`` would change, which orders of applied plans and which pending plans it touches."""
    current = rt.store.load_state()
    if current is None:
        return ImportPlan(current=None, state=state, diff=None, conflicts=(), stale=())
    same = state.model_copy(update={"revision": current.revision})
    if same.digest() == current.digest():
        return ImportPlan(current=current, state=current, diff=shop_diff(current, same), conflicts=(), stale=())
    state = state.model_copy(update={"revision": max(state.revision, current.revision + 1)})
    return ImportPlan(
        current=current,
        state=state,
        diff=shop_diff(current, state),
        conflicts=tuple(plan_conflicts(rt, current, state)),
        stale=tuple(made_stale(rt, current, state)),
    )


@dataclass(frozen=True)
class ImportResult:
    """What an import did: the shop now stored, whether it replaced one, and which plans it made stale."""

    state: ShopState
    created: bool
    changed: bool
    stale_checkpoints: tuple[str, ...]
    diff: ShopDiff | None = None


def pending_on(rt: Runtime, digest: str) -> list[Checkpoint]:
    """Checkpoints still waiting for a decision (unexpired, unclaimed) that were proposed on ``digest``."""
    return [c for c in pending_checkpoints(rt) if c.domain_digest == digest]


@dataclass(frozen=True)
class ImportShop:
    """The shop ``state`` (a shop file's) in place of the stored one; ``replace``: even when it moves what
    applied or pending plans rely on."""

    state: ShopState
    replace: bool = False


def import_shop(rt: Runtime, cmd: ImportShop) -> ImportResult:
    """Create or change the shop to ``state``; ``IMPORT_CONFLICT`` (nothing written) when it would move an order
    an applied plan placed or make a pending plan stale, unless ``replace``."""
    now = rt.clock()
    plan = plan_import(rt, cmd.state)
    if not plan.changed:
        return ImportResult(state=plan.state, created=False, changed=False, stale_checkpoints=(), diff=plan.diff)
    problems = plan.problems()
    if problems and not cmd.replace:
        listed = "\n".join(f"  {p}" for p in problems)
        raise ShopChangeRefusedError(
            ShopChangeCode.IMPORT_CONFLICT,
            f"this import would change what applied or pending plans rely on:\n{listed}\n"
            "nothing was imported; decide the pending plans first, or import with --replace to change it anyway",
        )
    current = plan.current
    stale = [c.checkpoint_id for c in plan.stale]
    event = audit_event(
        "shop_imported",
        now,
        shop=plan.state.name,
        revision=plan.state.revision,
        digest=plan.state.digest(),
        replaced_digest=current.digest() if current else "",
        stale_checkpoints=stale,
        replaced_plan_orders=list(plan.conflicts),
        diff=plan.diff.to_json() if plan.diff else {},
    )
    rt.store.replace_shop(plan.state, None if current is None else (current.revision, current.digest()), event)
    return ImportResult(
        state=plan.state,
        created=current is None,
        changed=True,
        stale_checkpoints=tuple(stale),
        diff=plan.diff,
    )
