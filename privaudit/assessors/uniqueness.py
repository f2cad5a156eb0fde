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

import numpy as np
import pandas as pd
from pydantic import Field, model_validator

from privaudit.common.numbers import fmt
from privaudit.core.summary import column_codes, pack_keys
from privaudit.io.data import load_table
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params, SampleCriterion
from privaudit.plugin.details import Histogram, WorstClass
from privaudit.plugin.helpers import value_histogram
from privaudit.plugin.hookspecs import hookimpl
from privaudit.risk.individual_risk import individual_risk, individual_risk_exact

if TYPE_CHECKING:  # pragma: no cover - types only: the report's modules load when a report is drawn
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


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


def report_section(check: CheckEntry[UniquenessParams, UniquenessDetails], audit: AuditResult) -> ReportSection:
    """The report section of a uniqueness check: sample uniques, record-risk chart, unique classes."""
    from privaudit.plugin import binning as rb
    from privaudit.plugin import figures as rf
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d, p = check.details, check.params
    know = rt.qi_phrase(check.quasi_identifiers or audit.policy.quasi_identifiers)
    u, n, above = d.sample_uniques, d.records, d.records_above_risk_threshold
    if u:
        summary = (
            f"{rt.people(u)} ({rt.percent(u, n)}) {'is the only one' if u == 1 else 'are each the only one'} "
            f"in the release with {know}: anyone who knows these values can find their record."
        )
    else:
        summary = (
            f"Nobody is the only one in the release with {know}; the highest chance of picking the right "
            f"record is {rt.fmt(d.max_risk, 3)}."
        )
    paragraphs = [
        f"An intruder who knows {know} and picks one of the matching records is right with probability "
        f"1/f_k: {rt.fmt(d.average_risk, 3)} on average; {rt.people(above)} "
        f"({rt.percent(above, n)}) have a risk above {rt.fmt(d.risk_threshold)}."
    ]
    pop = d.population_uniqueness
    tables = []
    if pop and pop.dankar is not None:
        n_pop = pop.population_size
        how = {"census": "the release is the whole population", "none": "no record is unique in the release"}.get(
            pop.model,
            f"{pop.model.capitalize() if pop.model != 'snb' else 'SNB'} model, chosen by Dankar et al.'s rule",
        )
        estimate = f" (about {rt.fmt(round(pop.dankar * n_pop))} of {rt.fmt(n_pop)})" if n_pop else ""
        paragraphs.append(
            f"In the population this release was sampled from ({rt.fmt(n_pop)} people, sampling fraction "
            f"{rt.fmt(pop.sampling_fraction, 3)}), an estimated {rt.share(pop.dankar)} of the "
            f"people{estimate} are the only one with {know} ({how}): matching such a person's record "
            f"identifies them for certain."
        )
        names = {
            "pitman": "Pitman",
            "zayatz": "Zayatz",
            "snb": "SNB (shifted negative binomial)",
            "dankar": "Dankar et al.'s rule",
        }
        rows = []
        for key, name in names.items():
            v = getattr(pop, key)
            note = ""
            if key == "pitman" and not pop.pitman_converged:
                note = "did not converge"
            elif key == "snb":
                note = f"{('corrected' if pop.snb_equations is None else pop.snb_equations)} equations"
            elif key == "dankar":
                note = "chose " + {
                    "pitman": "Pitman",
                    "zayatz": "Zayatz",
                    "snb": "SNB",
                    "census": "the sample (f = 1)",
                    "none": "none (no sample uniques)",
                }.get(pop.model, str(pop.model))
            rows.append(
                [
                    name,
                    rt.share(v) if v is not None else "no estimate",
                    rt.fmt(round(v * n_pop)) if v is not None and n_pop else rt.MISSING,
                    note,
                ]
            )
        tables.append(
            rs.DataTable(
                ["model", "population uniques (share)", "people (estimate)", "note"],
                rows,
                caption="Estimated population uniqueness",
                numeric=frozenset({1, 2}),
                note="Shares of the population's people who are unique on the quasi-identifiers. "
                "Dankar et al.'s rule: Pitman when the sampling fraction is at most 0.1 (Zayatz "
                "if Pitman does not converge), else the smaller of Zayatz and SNB.",
            )
        )
    if d.expected_reidentifications is not None:
        weight = d.weight_column
        basis = (
            f"with population class sizes F_k estimated from the sampling weights in {weight}"
            if weight
            else "with no sampling weights, taking each class's population size F_k as its size in the release"
        )
        paragraphs.append(
            f"If an intruder tries to re-identify every record, about "
            f"{rt.fmt(d.expected_reidentifications, 4)} of them are expected to be right "
            f"({rt.share(d.global_risk)} of the records; sdcMicro's individual risk, {basis})."
        )
    if d.population_records is not None:
        paragraphs.append(
            f"Against the population table ({rt.fmt(d.population_records)} records), "
            f"{rt.share(d.pu_given_su)} of the sample-unique records are unique in the population "
            f"too (P(PU|SU)); {rt.fmt(d.sample_uniques_absent_from_population)} are not in it."
        )
    figure = rf.value_histogram_figure(
        d.risk_histogram.model_dump(),
        d.risk_threshold,
        "above",
        "Record re-identification risk",
        "re-identification risk 1/f_k",
        f"risk threshold {rt.fmt(d.risk_threshold)}",
        y_label="records",
        failing=rb.reciprocal_bins_failing(d.risk_histogram.edges, d.risk_threshold),
        caption="Records by their chance of being picked out: 1 / size of their group (1 alone, 0.5 in a pair …).",
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(check.value),
        threshold_text=f"≤ {rt.share(p.max_share)}",
        paragraphs=paragraphs,
        facts=rt.facts(
            ("records", n),
            ("sample-unique records", u),
            ("average risk", d.average_risk),
            ("highest risk", d.max_risk),
            ("expected re-identifications", d.expected_reidentifications),
            ("global risk", rt.share(d.global_risk) if d.global_risk is not None else None),
            ("weight column", d.weight_column),
            ("P(PU | SU)", d.pu_given_su),
            ("estimated population uniques", rt.share(pop.dankar) if pop and pop.dankar is not None else None),
        ),
        figures=[figure] if figure else [],
        tables=tables
        + [t for t in [rf.worst_classes_table(check, audit, failing=u, what="classes of a single record")] if t],
        limitations="counts uniqueness in the sample only: a record unique here may have look-alikes in the "
        "population (and the reverse); the 1/f_k risk assumes the intruder knows the person is in the release.",
    )


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
    name="uniqueness",
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
    report_section=report_section,
    concurrent=True,
    sample_criterion=sample_criterion,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
