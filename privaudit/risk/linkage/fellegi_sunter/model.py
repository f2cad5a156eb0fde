"""What Fellegi–Sunter linkage is asked (how each column is compared) and what it answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class ComparisonSpec:
    """How one intruder column is compared.

    ``kind="categorical"``: levels exact / disagree.  ``kind="numeric"``:
    levels exact, then one per absolute tolerance (strictly increasing,
    positive), then disagree.  Non-numeric values in a numeric column count
    as missing; a missing value on either side gives a neutral (weight 0)
    comparison.
    """

    name: str
    kind: Literal["numeric", "categorical"]
    tolerances: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in ("numeric", "categorical"):
            raise ValueError(f"kind must be 'numeric' or 'categorical', got {self.kind!r}")
        tol = tuple(float(t) for t in self.tolerances)
        object.__setattr__(self, "tolerances", tol)
        if tol and self.kind != "numeric":
            raise ValueError("tolerances only apply to numeric comparisons")
        if any(t <= 0 for t in tol) or any(b <= a for a, b in zip(tol, tol[1:], strict=False)):
            raise ValueError("tolerances must be positive and strictly increasing")

    @property
    def n_levels(self) -> int:
        return len(self.tolerances) + 2

    @property
    def level_labels(self) -> tuple[str, ...]:
        return ("exact", *(f"<={t:g}" for t in self.tolerances), "disagree")


@dataclass(frozen=True)
class AttributeParameters:
    """Estimated ``m``/``u`` of one attribute, per level, and the weights ``log2(m/u)``."""

    name: str
    levels: tuple[str, ...]
    m: tuple[float, ...]
    u: tuple[float, ...]
    weights: tuple[float, ...]


@dataclass(frozen=True)
class Thresholds:
    """FS thresholds on the total weight and the model-estimated error rates they achieve."""

    lower: float
    upper: float
    false_match_rate: float
    false_non_match_rate: float


@dataclass(frozen=True)
class EstimationResult:
    """Outcome of linkage with one way of estimating ``m``/``u``.

    ``value`` is the risk: share of intruder records whose top link is above
    ``thresholds.upper`` and is correct (ties credited ``1/t``).
    ``lambda_`` is the match prior among candidate pairs (fitted by EM, or the
    true share for labels); ``expected_lambda = n_intruder / n_pairs``.
    """

    estimation: Literal["labels", "em"]
    value: float
    top1_correct: float
    unique_top1_correct: float
    top_link_precision: float
    pair_precision: float
    n_links: int
    n_clerical: int
    thresholds: Thresholds
    attributes: tuple[AttributeParameters, ...]
    lambda_: float
    expected_lambda: float
    iterations: int | None = None
    converged: bool | None = None
    rule_lambdas: tuple[float, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProbabilisticLinkageResult:
    """All estimations run; ``value`` is the worst (highest) risk among them."""

    value: float
    worst: str
    estimations: tuple[EstimationResult, ...]
    n_intruder: int
    n_released: int
    n_candidate_pairs: int
    pair_recall: float
    blocking: tuple[tuple[str, ...], ...]
    comparisons: tuple[ComparisonSpec, ...]
    warnings: tuple[str, ...] = field(default=())

    def get(self, estimation: str) -> EstimationResult:
        for e in self.estimations:
            if e.estimation == estimation:
                return e
        raise KeyError(estimation)
