"""Sample-based criteria on the sizes of a release's classes, as ARX 3.9's risk-based privacy models
(``org.deidentifier.arx.criteria``) evaluate them: each builder returns ``fulfilled(sizes) -> bool`` over the
sizes of the classes a transformation keeps (suppressed records, and records generalized to the root on every
quasi-identifier, left out, as ARX leaves them out). Assessors declare them as their
:class:`~privaudit.plugin.assessor.SampleCriterion`; the generalizer enforces them
(:mod:`privaudit.remediation.generalization.risk_targets`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np


def average(bound: float) -> Callable[[np.ndarray], bool]:
    """ARX's ``AverageReidentificationRisk.isFulfilled``: 1 / average class size (classes over records) at most
    ``bound``."""

    def ok(sizes: np.ndarray) -> bool:  # ARX AverageReidentificationRisk.isFulfilled
        return sizes.size == 0 or len(sizes) / float(sizes.sum()) <= bound + 1e-12

    return ok


def smallest(size: int) -> Callable[[np.ndarray], bool]:
    """Every retained class of at least ``size`` records (ARX's highest-risk bound, ``KMap`` with a derived k')."""
    return lambda sizes: sizes.size == 0 or int(sizes.min()) >= size


def share_below(size: float, bound: float) -> Callable[[np.ndarray], bool]:
    """The share of records in classes of fewer than ``size`` records at most ``bound`` (ARX's records-at-risk
    bound; ``SampleUniqueness(bound)`` with ``size`` 2)."""

    def ok(sizes: np.ndarray) -> bool:
        if sizes.size == 0:
            return True
        return float(sizes[sizes < size].sum()) / float(sizes.sum()) <= bound + 1e-12

    return ok


def population(model: str, population_size: int, bound: float, snb: str) -> Callable[[np.ndarray], bool]:
    """ARX's ``PopulationUniqueness.isFulfilled``: the model's share of population uniques (over the retained
    classes, as a sample of ``population_size``) in (0, bound], or 0 with no sample unique."""
    from privaudit.risk.population import population_uniqueness

    def ok(sizes: np.ndarray) -> bool:
        if sizes.size == 0:
            return True
        try:
            est = population_uniqueness(sizes, population_size=max(population_size, int(sizes.sum())), snb_variant=snb)
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
