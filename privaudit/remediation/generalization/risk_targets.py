"""Risk-based targets of generalization, as ARX 3.9's risk-based privacy models (``org.deidentifier.arx.criteria``).

A check that bounds a figure of the whole release, not of each class, is a *sample-based* criterion in ARX
(``SampleBasedCriterion``): it is evaluated on the distribution of class sizes of a transformation, and with a
suppression limit ARX's ``RiskBasedCriterion.enforce`` suppresses whole classes, smallest first
(``HashGroupifyDistribution``: classes sorted by size, then by their information loss under the metric, then
by their first record), finding by binary search the fewest such classes whose suppression fulfils the
criterion; the transformation is anonymous when that takes at most the limit. Suppressed records, and records
generalized to the root on every QI, are left out of the distribution, as ARX leaves them out.

The policy's checks that map onto those models (:func:`risk_targets`):

* ``reidentification_risk``, prosecutor model (the journalist and marketer models without a population table
  or weights are the prosecutor's): ``measure: average`` is ARX's ``AverageReidentificationRisk(max_risk)``:
  ``1 / average class size <= max_risk``; ``measure: highest`` every retained class of at least
  ``ceil(1 / max_risk)`` records; ``measure: records_at_risk`` ARX's records-at-risk bound: the share of
  records in classes of fewer than ``1 / risk_threshold`` records at most ``max_risk``;
* ``uniqueness`` is ARX's ``SampleUniqueness(max_share)``: the share of records in classes of size 1; with
  ``population_model`` ARX's ``PopulationUniqueness(max_share, model, N)``: the model's (Pitman, Zayatz, SNB or
  Dankar's choice) estimated share of population uniques, the retained records a sample of the policy's
  population size N (``population_size``, or n / ``sampling_fraction``);
* ``k_map`` with ``population_size`` or ``sampling_fraction`` is ARX's ``KMap`` with a cell-size estimator:
  the derived k' (:func:`privaudit.risk.kmap.derived_k`) on the release's own class sizes, every retained
  class of at least k' records.

Checks with a population table or weights compare the release with another table whose classes change with
the transformation; they are not targets here (the generalizer says it cannot steer them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np



@dataclass(frozen=True)
class RiskTarget:
    """One sample-based criterion: ``fulfilled(sizes)`` over the sizes of the retained classes."""

    check_id: str
    model: str  # ARX's model, for the report
    fulfilled: Callable[[np.ndarray], bool]
    monotone: bool = True  # holds on every coarser node when it holds on a node (without suppression)


def _average(bound: float) -> Callable[[np.ndarray], bool]:
    def ok(sizes: np.ndarray) -> bool:  # ARX AverageReidentificationRisk.isFulfilled
        return sizes.size == 0 or len(sizes) / float(sizes.sum()) <= bound + 1e-12
    return ok


def _smallest(size: int) -> Callable[[np.ndarray], bool]:
    return lambda sizes: sizes.size == 0 or int(sizes.min()) >= size


def _share_below(size: float, bound: float) -> Callable[[np.ndarray], bool]:
    def ok(sizes: np.ndarray) -> bool:
        if sizes.size == 0:
            return True
        return float(sizes[sizes < size].sum()) / float(sizes.sum()) <= bound + 1e-12
    return ok


def _population(model: str, population_size: int, bound: float, snb: str) -> Callable[[np.ndarray], bool]:
    """ARX's ``PopulationUniqueness.isFulfilled``: the model's share of population uniques (over the retained
    classes, as a sample of ``population_size``) in (0, bound], or 0 with no sample unique."""
    from privaudit.risk.population import population_uniqueness

    def ok(sizes: np.ndarray) -> bool:
        if sizes.size == 0:
            return True
        try:
            est = population_uniqueness(sizes, population_size=max(population_size, int(sizes.sum())),
                                        snb_variant=snb)
            share = float(getattr(est, model))
        except (ArithmeticError, ValueError):  # a model without an estimate for this histogram: not fulfilled
            share = float("nan")
        if share > 0 and share <= bound + 1e-15:
            return True
        return share == 0 and not (sizes == 1).any()
    return ok


def size_threshold(risk: float) -> int:
    """ARX's ``ParameterTranslation.getSizeThreshold``: the smallest class size whose risk 1/size is at most
    ``risk``."""
    return int(math.ceil(1.0 / risk - 1e-9))


def risk_targets(policy, n_records: int) -> tuple[list[RiskTarget], list[str]]:
    """The policy's error checks that are sample-based criteria, and the ids of those that cannot be targets
    (a population table or weights)."""
    targets: list[RiskTarget] = []
    other: list[str] = []
    for check in policy.checks:
        if check.severity != "error":
            continue
        name, p = check.assessor.name, check.params
        if name == "reidentification_risk":
            if p.population is not None or p.use_weights:
                other.append(check.id)
            elif p.measure == "average":
                targets.append(RiskTarget(check.id, f"AverageReidentificationRisk({p.max_risk:g})",
                                          _average(float(p.max_risk))))
            elif p.measure == "highest":
                targets.append(RiskTarget(check.id, f"highest risk {p.max_risk:g}",
                                          _smallest(size_threshold(float(p.max_risk)))))
            else:
                targets.append(RiskTarget(check.id, f"records at risk {p.max_risk:g} (threshold "
                                          f"{p.risk_threshold:g})",
                                          _share_below(1.0 / float(p.risk_threshold), float(p.max_risk))))
        elif name == "uniqueness":
            if p.population is not None:
                other.append(check.id)
            elif p.population_model is not None:
                size = p.population_size or int(round(n_records / p.sampling_fraction))
                targets.append(RiskTarget(check.id, f"PopulationUniqueness({p.max_share:g}, {p.population_model.upper()}, "
                                          f"N = {size})", _population(p.population_model, size, float(p.max_share),
                                                                      p.snb), monotone=False))
            else:
                targets.append(RiskTarget(check.id, f"SampleUniqueness({p.max_share:g})",
                                          _share_below(2, float(p.max_share))))
        elif name == "k_map":
            if p.population is not None:
                other.append(check.id)
                continue
            from privaudit.risk.kmap import derived_k
            from privaudit.risk.population import sampling_fraction_from_population_size

            fraction = p.sampling_fraction or sampling_fraction_from_population_size(n_records, p.population_size)
            d = derived_k(p.k, fraction, p.significance, p.estimator, n_records)
            targets.append(RiskTarget(check.id, f"KMap({p.k}, derived k' = {d.k})", _smallest(int(d.k))))
    return targets, other


def enforce(sizes: np.ndarray, order: np.ndarray, targets: list[RiskTarget], budget: int) -> tuple[bool, int]:
    """ARX's ``RiskBasedCriterion.enforce`` for every target: the fewest classes, taken in ``order`` (smallest
    first), whose suppression fulfils every target with at most ``budget`` records suppressed. Returns
    (fulfilled, number of classes of ``order`` to suppress). Fulfilment is monotone in the number suppressed
    for ARX's models only approximately; like ARX, a binary search over prefixes is used."""
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
