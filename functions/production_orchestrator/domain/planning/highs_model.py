"""One HiGHS instance of the planning model (:mod:`.mip`), solved one objective stage at a time.

    full      every rule
    relaxed   without the minimum-part rows: far quicker to solve (its binaries are what makes a first plan
              hard to find for HiGHS), and its optimum is a lower bound of the full model's
    near      every rule, with the orders outside a chosen few held where they are
    repair    every rule, with every part the relaxed plan holds at its minimum or more kept at it or above
              (its short parts may grow to the minimum, go, or move): the relaxed plan made whole

Each stage's solve is bounded in branch-and-bound nodes (work, never time), with one thread and a fixed
seed, so the same model gives the same answer on any machine and under any load. HiGHS is imported only
here, when a plan is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

from .mip import Build, columns_of, model_inf, tidy

SEED = 7
# The share of the node budget each objective stage gets: the tie-breaks (orders moved and finish day, then
# moved work's days) get a fraction, so breaking ties never costs more than deciding lateness and moves.
STAGE_SHARES = ((1, 1), (1, 1), (1, 4))
# Past this many rows a node of the moved-work stages costs more than the budget was set for (a 5-machine shop with
# 141 orders: 6,000 rows, 32 s of CPU for that stage's 200 nodes), so their nodes shrink in proportion; lateness,
# what a plan is judged by first, keeps its whole budget. Rows are counted, never time, so the plan stays the same
# on any machine (bench: horizon-l-0 63 s -> 24 s, every figure of evidence/bench_planner.json unchanged).
TIE_BREAK_ROWS = 1500


def cost(stage: dict[int, float], values: list[float]) -> float:
    """What ``values`` cost in one objective stage."""
    return sum(coef * values[col] for col, coef in stage.items())


class StageSolver:
    """HiGHS holding ``build``'s model (``relaxed``: without the minimum-part rows) and the bound of every
    stage decided so far."""

    def __init__(
        self, build: Build, nodes: int, relaxed: bool = False, bounds: Sequence[tuple[int, float]] = ()
    ) -> None:
        import highspy

        self.build, self.nodes = build, nodes
        highs = highspy.Highs()
        for option, value in (
            ("output_flag", False),
            ("threads", 1),
            ("random_seed", SEED),
            ("mip_max_nodes", nodes),
            ("mip_rel_gap", 0.0),
            ("mip_abs_gap", 0.5),
            ("presolve", "on"),
        ):
            highs.setOptionValue(option, value)
        model = build.model
        n = len(model.lower)
        highs.addVars(n, model.lower, model.upper)
        ints = [i for i in range(n) if model.integer[i]]
        highs.changeColsIntegrality(len(ints), ints, [highspy.HighsVarType.kInteger] * len(ints))
        rows = [r for i, r in enumerate(model.rows) if not (relaxed and i in model.part_rows)]
        highs.addRows(
            len(rows),
            [lb for lb, _, _ in rows],
            [ub for _, ub, _ in rows],
            sum(len(coefs) for _, _, coefs in rows),
            list(accumulate((len(coefs) for _, _, coefs in rows[:-1]), initial=0)),
            [col for _, _, coefs in rows for col in coefs],
            [coef for _, _, coefs in rows for coef in coefs.values()],
        )
        self.highs = highs
        for index, level in bounds:
            self.bound(index, level)

    def bound(self, index: int, level: float) -> None:
        """Stage ``index`` costs at most ``level`` from now on (it is decided)."""
        stage = self.build.stages[index]
        self.highs.addRow(-model_inf(), level + 0.5, len(stage), list(stage), list(stage.values()))

    def hold(self, held: list[float], free: set[str]) -> None:
        """Every movable order outside ``free`` where ``held`` has it; those in ``free`` may move."""
        model = self.build.model
        for order_id in self.build.placed:
            cols = columns_of(self.build, order_id)
            if order_id in free:
                lower, upper = [model.lower[c] for c in cols], [model.upper[c] for c in cols]
            else:
                lower = upper = [float(held[c]) for c in cols]
            self.highs.changeColsBounds(len(cols), cols, lower, upper)

    def require(self, columns: list[int]) -> None:
        """The binary ``columns`` are 1 from now on (the repair model's parts that stay at their least)."""
        self.highs.changeColsBounds(len(columns), columns, [1.0] * len(columns), [1.0] * len(columns))

    def run(self, index: int, start: list[float] | None) -> tuple[list[float] | None, bool]:
        """Minimize stage ``index`` from ``start``: the best solution found in budget (None: none) and whether
        it is proven optimal."""
        import highspy

        share = STAGE_SHARES[index]
        stage, n = self.build.stages[index], len(self.build.model.lower)
        nodes = self.nodes * share[0] // share[1]
        if index > 0:
            nodes = min(nodes, nodes * TIE_BREAK_ROWS // max(1, self.highs.getNumRow()))
        self.highs.setOptionValue("mip_max_nodes", max(1, nodes))
        self.highs.changeColsCost(n, list(range(n)), [stage.get(i, 0.0) for i in range(n)])
        if start is not None:
            given = highspy.HighsSolution()
            given.col_value = start
            given.value_valid = True
            self.highs.setSolution(given)
        self.highs.run()
        if self.highs.getInfo().primal_solution_status != 2:  # no feasible point found in budget
            return None, False
        integer = self.build.model.integer
        values = [round(v) if integer[i] else v for i, v in enumerate(self.highs.getSolution().col_value)]
        return tidy(self.build, values), self.highs.getModelStatus() == highspy.HighsModelStatus.kOptimal
