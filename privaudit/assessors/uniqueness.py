"""uniqueness: how many records are unique on their quasi-identifiers, and their re-identification risk.

value = share of records that are sample-unique (f_k = 1); pass iff value <= ``max_share``. With
``population_model`` (dankar, pitman, zayatz, snb; needs ``population_size`` or ``sampling_fraction``) value is
that model's estimated share of population uniques instead, as ARX's ``PopulationUniqueness`` gates.
details: ``sample_uniques`` (count), record-level risk 1/f_k (``average_risk``, ``max_risk``,
``records_above_risk_threshold``), and with ``population: FILE`` (same QI columns, a table of the whole
population) ``pu_given_su`` = #{classes unique in sample and population} / #{classes unique in sample}
(Torra's definition).

With ``sampling_fraction`` or ``population_size`` (the release is a sample of a population of that
size) the share of population-unique records is estimated with the Pitman, Zayatz and SNB models and
Dankar's decision rule (as ARX does; see :mod:`privaudit.risk.population`): details
``population_uniqueness {pitman, zayatz, snb, dankar, model, pitman_converged}``. The SNB equations
follow the model's definition by default (``snb: corrected``); ``snb: arx`` reproduces ARX's figures.
Individual risk (sdcMicro's Benedetti–Franconi approximation, with F_k the sum of the ``weight``-role
column over the class, or f_k without one): ``expected_reidentifications``, ``global_risk``;
``individual_risk: exact`` uses the exact series (sdcMicro ``indivRisk(method = "exact")``) and ``qual``
multiplies the risks as sdcMicro's ``qual`` does.

With a column of role ``household_id`` (several records per household or person): ``household``
{``households``, ``expected_reidentifications``, ``global_risk`` (sdcMicro's hier_risk_ER / hier_risk: a
household is re-identified when one member is, 1 - prod(1 - r_i)), ``max_household_risk``,
``household_k`` (fewest distinct households in a class: k-anonymity counted in entities)} and per record
``household_risk:<id>`` in ``--records`` (:mod:`privaudit.risk.household`; in-process engine).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field, model_validator

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params, SampleCriterion
from privaudit.plugin.details import Histogram, WorstClass
from privaudit.plugin.helpers import value_histogram
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import numpy as np
    import pandas as pd


NAME = "uniqueness"


class UniquenessParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    max_share: float = Field(default=0.0, ge=0, le=1, description="Largest allowed share of sample uniques.")
    risk_threshold: float = Field(default=0.2, gt=0, le=1, description="Record risk (1/f_k) counted as high.")
    population: str | None = Field(default=None, description="CSV/Parquet of the population (same QIs).")
    sampling_fraction: float | None = Field(default=None, gt=0, le=1, description="Release size / population size.")
    population_size: int | None = Field(default=None, ge=1, description="Size of the population sampled.")
    snb: Literal["corrected", "arx"] = Field(default="corrected", description="SNB model equations.")
    population_model: Literal["dankar", "pitman", "zayatz", "snb"] | None = Field(
        default=None,
        description="Gate on population uniqueness instead (ARX's PopulationUniqueness): value = this "
        "model's estimated share of population uniques; needs population_size or sampling_fraction.",
    )
    individual_risk: Literal["approx", "exact"] = Field(
        default="approx",
        description="Benedetti-Franconi individual risk: sdcMicro's approximation (its default in "
        "measure_risk) or the exact series (indivRisk(method = 'exact')).",
    )
    qual: float = Field(
        default=1.0,
        gt=0,
        description="sdcMicro's qual factor: the individual risks are multiplied "
        "by it (a correction for the quality of the population estimate).",
    )

    @model_validator(mode="after")
    def _one_population_figure(self) -> UniquenessParams:
        if self.sampling_fraction is not None and self.population_size is not None:
            raise ValueError("give sampling_fraction or population_size, not both")
        if self.population_model is not None and self.sampling_fraction is None and self.population_size is None:
            raise ValueError(
                f"population_model {self.population_model!r} needs the population's size: give "
                "population_size or sampling_fraction"
            )
        return self


class PopulationUniqueness(Details):
    pitman: float | None
    zayatz: float | None
    snb: float | None
    dankar: float | None
    model: str
    pitman_converged: bool
    sampling_fraction: float
    population_size: int | float
    snb_equations: Literal["corrected", "arx"]


class HouseholdRisk(Details):
    column: str
    households: int
    expected_reidentifications: float
    global_risk: float
    max_household_risk: float
    household_k: int | None = None


class UniquenessDetails(Details):
    """What a uniqueness check's details hold (population, weight and household figures when the policy or
    the check gives them)."""

    records: int
    sample_uniques: int
    average_risk: float
    max_risk: float
    risk_threshold: float
    records_above_risk_threshold: int
    share_above_risk_threshold: float
    risk_histogram: Histogram
    population_uniqueness: PopulationUniqueness | None = None
    weight_column: str | None = None
    individual_risk_method: Literal["approx", "exact"]
    qual: float
    expected_reidentifications: float
    global_risk: float
    household: HouseholdRisk | None = None
    pu_given_su: float | None = None
    population_records: int | None = None
    sample_uniques_absent_from_population: int | None = None
    worst_classes: list[WorstClass]


def validate(params: UniquenessParams, policy) -> str | None:
    if not policy.quasi_identifiers:
        return "uniqueness needs at least one column with role quasi_identifier (with none it would pass vacuously)"
    if params.population is not None:
        policy.resolve_path(params.population, "population")
    return None


def population_unique_given_sample_unique(
    unique_keys: pd.DataFrame, population: pd.DataFrame, qi: list[str]
) -> tuple[float, int]:
    """P(PU | SU): share of the sample-unique keys (one row each) that are also unique in the population;
    also how many of them the population lacks."""
    import numpy as np
    import pandas as pd

    from privaudit.core.summary import column_codes, pack_keys

    sample = unique_keys
    both = pd.concat([sample[qi].astype("string"), population[qi].astype("string")], ignore_index=True)
    key = pack_keys([column_codes(both[c]) for c in qi], len(both))
    ks, kp = key[: len(sample)], key[len(sample) :]
    uniq, counts = np.unique(kp, return_counts=True)
    su_keys = ks
    if len(su_keys) == 0:
        return 0.0, 0
    pop_count = np.zeros(len(su_keys), dtype=np.int64)
    if len(uniq):
        pos = np.minimum(np.searchsorted(uniq, su_keys), len(uniq) - 1)
        pop_count = np.where(uniq[pos] == su_keys, counts[pos], 0)
    return float((pop_count == 1).mean()), int((pop_count == 0).sum())


def _household(ctx, column: str, class_risk: np.ndarray) -> tuple[dict, dict]:
    """Household risk (:mod:`privaudit.risk.household`) from the per-class record risks; needs the records."""
    import numpy as np

    from privaudit.core.errors import DataError
    from privaudit.risk.household import household_risk

    if ctx.table is None:  # bad input for this engine: one line, exit 2, as refuse_unrunnable's
        raise DataError(
            f"check uniqueness: household risk (column {column!r}, role household_id) needs the records: "
            "use --engine in-process (the chunked, DuckDB and Spark engines summarise classes only)"
        )
    ids = ctx.table[column]
    missing = ids.isna()
    if missing.any():
        first = int(np.flatnonzero(missing.to_numpy())[0])
        raise DataError(
            f"column {column!r} (household_id): row {first + 1} has no household id; every record needs one"
        )
    s = ctx.summary
    h = household_risk(ids, np.asarray(class_risk)[s.class_of], s.class_of)
    details = {
        "column": column,
        "households": h.households,
        "expected_reidentifications": h.expected_reidentifications,
        "global_risk": h.global_risk,
        "max_household_risk": h.max_household_risk,
        "household_k": h.household_k,
    }
    return details, {"household_risk": h.record_risk}


def run(ctx, params: UniquenessParams) -> Measurement:
    import numpy as np

    from privaudit.io.data import load_table
    from privaudit.risk.individual_risk import individual_risk, individual_risk_exact

    s = ctx.summary
    class_fk = s.class_fk
    risk = 1.0 / class_fk  # record-level risk, the same for every record of a class
    uniques = int(s.sizes[class_fk == 1].sum())
    value = uniques / s.n_records
    above = int(s.sizes[risk > params.risk_threshold].sum())
    details = {
        "records": s.n_records,
        "sample_uniques": uniques,
        "average_risk": float((s.sizes * risk).sum() / s.n_records),
        "max_risk": float(risk.max()),
        "risk_threshold": params.risk_threshold,
        "records_above_risk_threshold": above,
        "share_above_risk_threshold": above / s.n_records,
        "risk_histogram": value_histogram(risk, bins=20, lo=0.0, hi=1.0, weights=s.sizes),
    }
    if params.sampling_fraction is not None or params.population_size is not None:
        if params.population_size is not None and params.population_size < s.n_records:
            raise ValueError(f"population_size {params.population_size} is smaller than the release ({s.n_records})")
        # imported on use: the population models need scipy.special, slow to import at every CLI start-up
        from privaudit.risk.population import population_uniqueness

        est = population_uniqueness(
            s.sizes,
            sampling_fraction=params.sampling_fraction,
            population_size=params.population_size,
            snb_variant=params.snb,
        )
        details["population_uniqueness"] = {
            "pitman": est.pitman,
            "zayatz": est.zayatz,
            "snb": est.snb,
            "dankar": est.dankar,
            "model": est.dankar_model,
            "pitman_converged": est.pitman_converged,
            "sampling_fraction": est.sampling_fraction,
            "population_size": est.population_size,
            "snb_equations": params.snb,
        }
    weights = ctx.policy.columns_with("weight")
    if weights:
        Fk = s.weight_sums  # F_k per class: the weights of the records its records match
        estimate = individual_risk_exact if params.individual_risk == "exact" else individual_risk
        record_risk = estimate(s.class_fk, Fk)  # per class; every record of a class shares it
        details["weight_column"] = weights[0]
    else:
        record_risk = risk  # F_k = f_k: the individual risk is exactly 1/f_k (riskmodels.individual_risk)
    record_risk = np.asarray(record_risk, dtype=float) * params.qual
    details["individual_risk_method"], details["qual"] = params.individual_risk, params.qual
    expected = float((record_risk * s.sizes).sum())
    details["expected_reidentifications"] = expected
    details["global_risk"] = expected / s.n_records
    per_record = {}
    households = ctx.policy.columns_with("household_id")
    if households:
        details["household"], per_record = _household(ctx, households[0], record_risk)
    if params.population is not None:
        path = ctx.policy.resolve_path(params.population, "population")
        qi = ctx.policy.quasi_identifiers
        population = load_table(path, ctx.policy, what="population table", required=qi).frame
        unique_classes = np.flatnonzero(s.class_fk == 1)
        pu, absent = population_unique_given_sample_unique(s.representatives(unique_classes, qi), population, qi)
        details["pu_given_su"] = pu
        details["population_records"] = len(population)
        details["sample_uniques_absent_from_population"] = absent
    details["worst_classes"] = ctx.worst_classes(class_fk, failing=class_fk == 1)
    message = (
        f"{fmt(uniques)} of {fmt(s.n_records)} records ({value:.2%}) are unique on their "
        f"quasi-identifiers; average re-identification risk {details['average_risk']:.4f}"
    )
    if params.population_model is not None:  # ARX's PopulationUniqueness: the model's share is the gated value
        value = float(details["population_uniqueness"][params.population_model])
        message = f"estimated population uniqueness ({params.population_model}) {value:.4%}; " + message
    return Measurement(value, params.max_share, value <= params.max_share, message, details, per_record=per_record)


def sample_criterion(params: UniquenessParams, n_records: int) -> SampleCriterion | None:
    """ARX's ``SampleUniqueness(max_share)``: the share of records in classes of size 1; with
    ``population_model`` ARX's ``PopulationUniqueness(max_share, model, N)``: the model's (Pitman, Zayatz, SNB
    or Dankar's choice) estimated share of population uniques, the retained records a sample of the policy's
    population size N (``population_size``, or n / ``sampling_fraction``). None with a population table."""
    from privaudit.risk.sample_criteria import population, share_below

    if params.population is not None:
        return None
    if params.population_model is not None:
        size = params.population_size or int(round(n_records / params.sampling_fraction))
        return SampleCriterion(
            f"PopulationUniqueness({params.max_share:g}, {params.population_model.upper()}, N = {size})",
            population(params.population_model, size, float(params.max_share), params.snb),
            monotone=False,
        )
    return SampleCriterion(f"SampleUniqueness({params.max_share:g})", share_below(2, float(params.max_share)))


ASSESSOR = Assessor(
    name=NAME,
    params=UniquenessParams,
    details=UniquenessDetails,
    run=run,
    title="Uniqueness and re-identification risk",
    protects="identity",
    measures="how many people are the only one in the release with their combination of quasi-identifier "
    "values, and the chance (1/f_k) that an intruder who knows those values picks the right record",
    formula="value = #{records with f_k = 1} / n; record risk = 1/f_k; P(PU|SU) = #{classes unique in sample "
    "and population} / #{classes unique in sample}",
    reference="Torra, Data Privacy: Foundations, New Developments and the Big Data Challenge (Springer, 2017), "
    "ch. 5; Dankar et al., BMC Med. Inform. Decis. Mak. 12:66 (2012)",
    validate_policy=validate,
    concurrent=True,
    sample_criterion=sample_criterion,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
