"""Risk-based targets of generalization, as ARX 3.9's risk-based privacy models (``org.deidentifier.arx.criteria``).

A check that bounds a figure of the whole release, not of each class, is a *sample-based* criterion in ARX
(``SampleBasedCriterion``): it is evaluated on the distribution of class sizes of a transformation, and with a
suppression limit ARX's ``RiskBasedCriterion.enforce`` suppresses whole classes, smallest first
(``HashGroupifyDistribution``: classes sorted by size, then by their information loss under the metric, then
by their first record), finding by binary search the fewest such classes whose suppression fulfils the
criterion; the transformation is anonymous when that takes at most the limit. Suppressed records, and records
generalized to the root on every QI, are left out of the distribution, as ARX leaves them out.

The policy's checks that map onto those models are those whose assessor declares a
:class:`~privaudit.plugin.assessor.SampleCriterion` (``Assessor.sample_criterion``; the built-in ones: the
re-identification risk on the release's own classes, sample and population uniqueness, k-map with an
estimated population; the criteria themselves are in :mod:`privaudit.risk.sample_criteria`). Checks whose
parameters compare the release with another table (a population table, weights) declare none for those
parameters: that table's classes change with the transformation, so they are not targets here (the
generalizer says it cannot steer them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RiskTarget:
    """One sample-based criterion: ``fulfilled(sizes)`` over the sizes of the retained classes."""

    check_id: str
    model: str  # ARX's model, for the report
    fulfilled: Callable[[np.ndarray], bool]
    monotone: bool = True  # holds on every coarser node when it holds on a node (without suppression)


def risk_targets(policy, n_records: int) -> tuple[list[RiskTarget], list[str]]:
    """The policy's error checks that are sample-based criteria (their assessor's declared
    ``sample_criterion``), and the ids of those that cannot be targets (a population table or weights)."""
    targets: list[RiskTarget] = []
    other: list[str] = []
    for check in policy.checks:
        declared = check.assessor.sample_criterion
        if check.severity != "error" or declared is None:
            continue
        criterion = declared(check.params, n_records)
        if criterion is None:
            other.append(check.id)
        else:
            targets.append(RiskTarget(check.id, criterion.model, criterion.fulfilled, criterion.monotone))
    return targets, other


def enforce(sizes: np.ndarray, order: np.ndarray, targets: list[RiskTarget], budget: int) -> tuple[bool, int]:
    """ARX's ``RiskBasedCriterion.enforce`` for every target: the fewest classes, taken in ``order`` (smallest
    first), whose suppression fulfils every target with at most ``budget`` records suppressed. Returns
    (fulfilled, number of classes of ``order`` to suppress). Fulfilment is monotone in the number suppressed
    for ARX's models only approximately; like ARX, a binary search over prefixes is used.

    Unlike ARX, the search covers only the prefixes within the budget. ARX's
    ``HashGroupifyDistribution.suppressWhileNotFulfilledBinary`` first suppresses half of all classes and aborts
    when a probe past the budget is not fulfilled; for a model that is not monotone in suppression (Pitman's:
    its solver may find no admissible root once most sample uniques are gone) that rejects a node whose
    suppression within the budget meets the bound by ARX's own estimate (tests/test_pitman_arx_optimum.py)."""

    def ok(m: int) -> bool:
        rest = sizes[order[m:]]
        return all(t.fulfilled(rest) for t in targets)

    if ok(0):
        return True, 0
    cumulative = np.cumsum(sizes[order])
    most = int(np.searchsorted(cumulative, budget, side="right"))  # prefixes within the budget
    lo, hi, best = 1, most, None
    while lo <= hi:
        mid = (lo + hi) // 2
        if ok(mid):
            best, hi = mid, mid - 1
        else:
            lo = mid + 1
    return (best is not None), (best if best is not None else most)
