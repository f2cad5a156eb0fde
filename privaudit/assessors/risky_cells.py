"""risky_cells: every combination of quasi-identifiers the policy's ``combinations`` rules name must be safe.

sdcMicro's ``riskyCells`` (``R/riskyCells.R``) and µ-ARGUS's unsafe combinations (manual 5.1, §5.3.2): for
each combination the rules give (:mod:`privaudit.core.combinations`: every combination up to a dimension,
of given sizes, from identification levels as µ-ARGUS forms them, or listed), the cells are the value
combinations of its columns that occur, and a cell of fewer than the combination's k records is risky.
value = the number of risky cells over all combinations (riskyCells' ``unsafe_cells`` summed); pass iff 0.
sdcMicro's ``threshold`` t is k - 1 here (riskyCells counts a cell unsafe when ``N <= threshold``).

Missing values as riskyCells counts them (data.table's ``by =``: NA a value of its own) under
``data.missing_qi: value``; under ``wildcard`` a missing value matches every value
(:mod:`privaudit.risk.combinations`). A check with an attacker scenario (``quasi_identifiers``) checks the
combinations within it.

details: ``combinations`` (how many were checked), ``failing_combinations``, ``risky_cells``,
``records_in_risky_cells`` (records in a risky cell of some combination), ``per_combination`` (columns, k,
cells, risky cells, their records, smallest cell; one entry per combination, at most the block's
``max_combinations``), ``worst_cells`` (the smallest risky cells over all combinations, at most
``report.max_classes``: the combination, its values, count and records; quasi-identifier values only, never
a sensitive column's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, ClassRule, Details, Measurement, Params
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only: numpy loads when a check runs
    import numpy as np


NAME = "risky_cells"


class RiskyCellsParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    max_risky_cells: int = Field(
        default=0, ge=0, description="Risky cells allowed over all combinations (0: every cell must be safe)."
    )


class CombinationResult(Details):
    columns: list[str]
    k: int
    cells: int
    risky_cells: int
    risky_records: int
    smallest_cell: int


class RiskyCell(Details):
    combination: list[str]
    values: dict[str, str]
    count: int = Field(description="Records the cell's values match (its size; under wildcard, with missing).")
    records: int = Field(description="Records holding exactly these values.")


class RiskyCellsDetails(Details):
    """What a risky_cells check's details hold."""

    combinations: int
    failing_combinations: int
    risky_cells: int
    records: int
    records_in_risky_cells: int
    missing_qi: Literal["value", "wildcard"]
    per_combination: list[CombinationResult]
    worst_cells: list[RiskyCell]
    combinations_outside_scenario: int = 0


def validate(params: RiskyCellsParams, policy) -> str | None:
    if not policy.combinations:
        return (
            "risky_cells needs the policy's 'combinations' block (rules naming the combinations of "
            "quasi-identifiers that must be safe: up_to, sizes, levels or columns, each with k)"
        )
    return None


def _combinations(ctx) -> tuple[list, int]:
    qi = set(ctx.policy.quasi_identifiers)
    every = list(ctx.policy.combinations or [])
    inside = [c for c in every if set(c.columns) <= qi]
    return inside, len(every) - len(inside)


def _codes(ctx):
    from privaudit.risk.combinations import class_codes

    return class_codes(ctx.summary, list(ctx.policy.quasi_identifiers))


def violations(ctx, params: RiskyCellsParams) -> np.ndarray:
    """Classes in a risky cell of some combination (for the remediators that steer classes)."""
    import numpy as np

    from privaudit.risk.combinations import combination_cells

    s = ctx.summary
    codes, wildcard = _codes(ctx), s.missing_qi == "wildcard"
    out = np.zeros(s.n_classes, dtype=bool)
    for combo in _combinations(ctx)[0]:
        out |= combination_cells(codes, np.asarray(s.sizes), combo.columns, combo.k, wildcard=wildcard, limit=0)[1]
    return out


def rule(params: RiskyCellsParams, policy) -> ClassRule:
    """Classes merging only merge cells (counts grow), so suppression may stop early; no class size is
    implied (every subset's cells can be safe while a full class is small)."""
    return ClassRule(monotone=True, combinations=True)


def run(ctx, params: RiskyCellsParams) -> Measurement:
    import numpy as np

    from privaudit.risk.combinations import combination_cells

    s = ctx.summary
    combos, outside = _combinations(ctx)
    codes, wildcard = _codes(ctx), s.missing_qi == "wildcard"
    limit = ctx.policy.report.max_classes
    sizes = np.asarray(s.sizes)
    in_risky = np.zeros(s.n_classes, dtype=bool)
    results, worst = [], []
    for index, combo in enumerate(combos):
        cells, risky = combination_cells(codes, sizes, combo.columns, combo.k, wildcard=wildcard, limit=limit)
        in_risky |= risky
        results.append(cells)
        worst += [(count, index, cid, records) for cid, count, records in cells.worst]
    worst.sort(key=lambda w: (w[0], w[1]))
    risky_cells = sum(r.risky_cells for r in results)
    failing = sum(1 for r in results if r.risky_cells)
    records_in = int(sizes[in_risky].sum())
    details = {
        "combinations": len(results),
        "failing_combinations": failing,
        "risky_cells": risky_cells,
        "records": s.n_records,
        "records_in_risky_cells": records_in,
        "missing_qi": s.missing_qi,
        "per_combination": [
            {
                "columns": list(r.columns),
                "k": r.k,
                "cells": r.cells,
                "risky_cells": r.risky_cells,
                "risky_records": r.risky_records,
                "smallest_cell": r.smallest,
            }
            for r in results
        ],
        "worst_cells": [
            {
                "combination": list(combos[i].columns),
                "values": s.describe([cid], limit_columns=list(combos[i].columns))[0]["values"],
                "count": count,
                "records": records,
            }
            for count, i, cid, records in worst[:limit]
        ],
        "combinations_outside_scenario": outside,
    }
    passed = risky_cells <= params.max_risky_cells
    if risky_cells:
        message = (
            f"{fmt(risky_cells)} risky cells (fewer records than their k) in {fmt(failing)} of "
            f"{fmt(len(results))} combinations of quasi-identifiers; {fmt(records_in)} records lie in one"
        )
    else:
        message = f"every cell of the {fmt(len(results))} combinations of quasi-identifiers reaches its k"
    return Measurement(risky_cells, params.max_risky_cells, passed, message, details)


ASSESSOR = Assessor(
    name=NAME,
    params=RiskyCellsParams,
    details=RiskyCellsDetails,
    run=run,
    title="Risky cells of combinations",
    protects="identity",
    measures="how many value combinations of the combinations of quasi-identifiers the policy names are held "
    "by fewer records than that combination's k; an intruder who knows only those values can narrow a person "
    "down to them",
    formula="for each combination C with its k: cells = distinct values of C; risky iff count < k; "
    "value = sum over C of risky cells; pass iff value <= max_risky_cells",
    reference="Hundepool et al., mu-ARGUS user's manual 5.1, sec. 5.3.2 (combinations, identification levels); "
    "sdcMicro riskyCells (R/riskyCells.R), Templ, Kowarik & Meindl, J. Stat. Softw. 67(4), 2015",
    validate_policy=validate,
    class_violations=violations,
    class_rule=rule,
    concurrent=True,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
