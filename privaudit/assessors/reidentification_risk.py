"""reidentification_risk: ARX's three attacker models (prosecutor, journalist, marketer) on the class summary.

Figures (:mod:`privaudit.risk.attacker_models`; El Emam 2013; ARX ``RiskModelSampleSummary``): for each
model the highest, lowest and average (success-rate) risk and the share of records whose risk exceeds
``risk_threshold``; the marketer model has a success rate only. The journalist and marketer models compare
the release with a population: ``population: FILE`` (a table containing the release, with the
quasi-identifier columns; F_k counted per class), or ``use_weights: true`` (F_k estimated by the sum of the
weight column over the class, at least f_k); without either F_k = f_k, as ARX does without a population
table, and the three models agree.

Parameters: ``model`` (prosecutor, default; journalist; marketer), ``measure`` (average, default; highest;
records_at_risk; the marketer model has only average), ``max_risk`` (required), ``risk_threshold``
(default 0.2, a record-risk threshold often used for public releases; ARX takes it as an argument).
value = the chosen model's chosen measure; pass iff value <= ``max_risk``. details: ``prosecutor``,
``journalist``, ``marketer`` (every figure of every model), ``population`` ("file", "weights" or "release").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field, model_validator

from privaudit.core.errors import DataError
from privaudit.plugin.assessor import Assessor, ContextThreshold, Details, Measurement, Params, SampleCriterion
from privaudit.plugin.helpers import exceeds, population_classes
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import numpy as np


NAME = "reidentification_risk"


class ReidentificationRiskParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    model: Literal["prosecutor", "journalist", "marketer"] = "prosecutor"
    measure: Literal["average", "highest", "records_at_risk"] = "average"
    max_risk: float = Field(ge=0, le=1, description="Largest allowed value of the chosen measure.")
    risk_threshold: float = Field(default=0.2, gt=0, le=1, description="Record risk above which a record is at risk.")
    population: str | None = Field(
        default=None, description="CSV/Parquet of a population containing the release (same quasi-identifier columns)."
    )
    use_weights: bool = Field(default=False, description="Estimate F_k by the class's sum of weights.")

    @model_validator(mode="after")
    def _consistent(self) -> ReidentificationRiskParams:
        if self.model == "marketer" and self.measure != "average":
            raise ValueError("the marketer model has only the average (success rate) measure")
        if self.population is not None and self.use_weights:
            raise ValueError("give population or use_weights, not both")
        return self


class AttackerRisk(Details):
    highest: float
    lowest: float
    average: float
    records_at_risk: float


class MarketerRisk(Details):
    average: float


class ReidentificationRiskDetails(Details):
    """What a reidentification_risk check's details hold: the three attacker models side by side."""

    threshold: float
    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer: MarketerRisk
    population: str
    classes: int
    records: int


def validate(params: ReidentificationRiskParams, policy) -> str | None:
    if params.population is not None:
        if not policy.resolve_path(params.population, "population").exists():
            return f"population: file {params.population!r} not found (paths are relative to the policy)"
    if params.use_weights and not policy.columns_with("weight"):
        return "use_weights: the policy has no column with role 'weight'"
    return None


def population_sizes(ctx, params: ReidentificationRiskParams) -> tuple[np.ndarray | None, str]:
    """F_k per class of ``ctx.summary`` and where it came from."""
    import numpy as np

    s = ctx.summary
    if params.use_weights:
        return np.maximum(np.asarray(s.weight_sums, dtype=float), s.sizes), "weights"
    if params.population is None:
        return None, "release"
    big_f, _, _, path = population_classes(ctx, params.population)
    if np.isnan(big_f).any() or (big_f < s.sizes).any():
        lacking = int(np.count_nonzero(np.isnan(big_f) | (big_f < s.sizes)))
        raise DataError(
            f"{path}: the population table does not contain the release ({lacking} classes of the "
            "release have fewer records in it)"
        )
    return big_f, "file"


def run(ctx, params: ReidentificationRiskParams) -> Measurement:
    from privaudit.risk.attacker_models import attacker_risks

    s = ctx.summary
    big_f, source = population_sizes(ctx, params)
    risks = attacker_risks(s.sizes, big_f, params.risk_threshold)
    details = {**risks.to_dict(), "population": source, "classes": int(s.n_classes), "records": int(s.n_records)}
    value = details[params.model][params.measure]
    passed = not exceeds(value, params.max_risk)
    message = (
        f"{params.model} risk, {params.measure.replace('_', ' ')}: {value:.4g} (max_risk {params.max_risk:g}); "
        f"prosecutor highest {risks.prosecutor.highest:.3g}, average {risks.prosecutor.average:.3g}, "
        f"{risks.prosecutor.records_at_risk:.2%} of records above {params.risk_threshold:g}"
    )
    return Measurement(value, params.max_risk, passed, message, details)


def sample_criterion(params: ReidentificationRiskParams, n_records: int) -> SampleCriterion | None:
    """ARX's models of the chosen measure on the release's own classes (the journalist and marketer models
    without a population table or weights are the prosecutor's): ``measure: average`` is
    ``AverageReidentificationRisk(max_risk)``, 1 / average class size <= max_risk; ``measure: highest`` every
    retained class of at least ``ceil(1 / max_risk)`` records; ``measure: records_at_risk`` ARX's
    records-at-risk bound, the share of records in classes of fewer than ``1 / risk_threshold`` records at most
    ``max_risk``. None with a population table or weights."""
    from privaudit.risk.sample_criteria import average, share_below, size_threshold, smallest

    if params.population is not None or params.use_weights:
        return None
    if params.measure == "average":
        return SampleCriterion(
            f"AverageReidentificationRisk({params.max_risk:g})",
            average(float(params.max_risk)),
            average_risk=float(params.max_risk) if params.model == "prosecutor" else None,
        )
    if params.measure == "highest":
        return SampleCriterion(f"highest risk {params.max_risk:g}", smallest(size_threshold(float(params.max_risk))))
    return SampleCriterion(
        f"records at risk {params.max_risk:g} (threshold {params.risk_threshold:g})",
        share_below(1.0 / float(params.risk_threshold), float(params.max_risk)),
    )


ASSESSOR = Assessor(
    name=NAME,
    params=ReidentificationRiskParams,
    details=ReidentificationRiskDetails,
    run=run,
    title="Re-identification risk (prosecutor, journalist, marketer)",
    protects="identity",
    measures="the chance that an intruder re-identifies a record under ARX's three attacker models",
    formula="prosecutor: risk 1/f_k, success rate c/n; journalist: risk 1/F_k, success rate max(c/ΣF_k, "
    "Σ(f_k/F_k)/n); marketer: Σ(f_k/F_k)/n; records at risk: share of records with risk > threshold",
    reference="K. El Emam, Guide to the De-Identification of Personal Health Information, CRC 2013, ch. 16-18; "
    "ARX 3.9 RiskModelSampleSummary (Prasser et al.)",
    validate_policy=validate,
    concurrent=True,
    sample_criterion=sample_criterion,
    context_threshold=ContextThreshold("max_risk", "measure", {"maximum": "highest", "average": "average"}),
    standards=frozenset({"wp29:singling_out", "ico:singling_out"}),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
