"""uniqueness: how many records are unique on their quasi-identifiers, and their re-identification risk.

value = share of records that are sample-unique (f_k = 1); pass iff value <= ``max_share``.
details: ``sample_uniques`` (count), record-level risk 1/f_k (``average_risk``, ``max_risk``,
``records_above_risk_threshold``), and with ``population: FILE`` (same QI columns, a table of the whole
population) ``pu_given_su`` = #{classes unique in sample and population} / #{classes unique in sample}
(Torra's definition).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pydantic import Field

from ..assessor import Assessor, Measurement, Params
from ..data import load_table
from ..hookspecs import hookimpl
from ..summary import column_codes, pack_keys
from ._common import fmt, value_histogram


class UniquenessParams(Params):
    max_share: float = Field(default=0.0, ge=0, le=1, description="Largest allowed share of sample uniques.")
    risk_threshold: float = Field(default=0.2, gt=0, le=1, description="Record risk (1/f_k) counted as high.")
    population: str | None = Field(default=None, description="CSV/Parquet of the population (same QIs).")


def validate(params: UniquenessParams, policy) -> str | None:
    if params.population is not None:
        policy.resolve_path(params.population, "population")
    return None


def population_unique_given_sample_unique(sample: pd.DataFrame, population: pd.DataFrame, qi: list[str],
                                          sample_unique: np.ndarray) -> tuple[float, int]:
    """P(PU | SU): share of sample-unique keys that are also unique in the population."""
    both = pd.concat([sample[qi].astype("string"), population[qi].astype("string")], ignore_index=True)
    key = pack_keys([column_codes(both[c]) for c in qi], len(both))
    ks, kp = key[: len(sample)], key[len(sample):]
    uniq, counts = np.unique(kp, return_counts=True)
    su_keys = ks[sample_unique]
    if len(su_keys) == 0:
        return 0.0, 0
    pop_count = np.zeros(len(su_keys), dtype=np.int64)
    if len(uniq):
        pos = np.minimum(np.searchsorted(uniq, su_keys), len(uniq) - 1)
        pop_count = np.where(uniq[pos] == su_keys, counts[pos], 0)
    return float((pop_count == 1).mean()), int((pop_count == 0).sum())


def run(ctx, params: UniquenessParams) -> Measurement:
    s = ctx.summary
    fk = s.record_size
    risk = 1.0 / fk
    uniques = int((fk == 1).sum())
    value = uniques / s.n_records
    details = {
        "records": s.n_records,
        "sample_uniques": uniques,
        "average_risk": float(risk.mean()),
        "max_risk": float(risk.max()),
        "risk_threshold": params.risk_threshold,
        "records_above_risk_threshold": int((risk > params.risk_threshold).sum()),
        "share_above_risk_threshold": float((risk > params.risk_threshold).mean()),
        "risk_histogram": value_histogram(risk, bins=20, lo=0.0, hi=1.0),
    }
    if params.population is not None:
        path = ctx.policy.resolve_path(params.population, "population")
        qi = ctx.policy.quasi_identifiers
        population = load_table(path, ctx.policy, what="population table", required=qi).frame
        pu, absent = population_unique_given_sample_unique(ctx.table, population, qi, fk == 1)
        details["pu_given_su"] = pu
        details["population_records"] = len(population)
        details["sample_uniques_absent_from_population"] = absent
    class_fk = s.class_record_size
    details["worst_classes"] = ctx.worst_classes(class_fk, failing=class_fk == 1)
    message = (f"{fmt(uniques)} of {fmt(s.n_records)} records ({value:.2%}) are unique on their "
               f"quasi-identifiers; average re-identification risk {details['average_risk']:.4f}")
    return Measurement(value, params.max_share, value <= params.max_share, message, details)


ASSESSOR = Assessor(
    name="uniqueness",
    params=UniquenessParams,
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
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]


@hookimpl
def privaudit_report_section(check, audit):
    """The report section of a uniqueness check: sample uniques, record-risk chart, unique classes."""
    if check["assessor"] != ASSESSOR.name:
        return None
    from ..report import sections as rs

    d, p = check["details"], check["params"]
    know = rs.qi_phrase(audit.policy.quasi_identifiers)
    u, n, above = d["sample_uniques"], d["records"], d["records_above_risk_threshold"]
    if u:
        summary = (f"{rs.people(u)} ({rs.percent(u, n)}) {'is the only one' if u == 1 else 'are each the only one'} "
                   f"in the release with {know}: anyone who knows these values can find their record.")
    else:
        summary = (f"Nobody is the only one in the release with {know}; the highest chance of picking the right "
                   f"record is {rs.fmt(d['max_risk'], 3)}.")
    paragraphs = [f"An intruder who knows {know} and picks one of the matching records is right with probability "
                  f"1/f_k: {rs.fmt(d['average_risk'], 3)} on average; {rs.people(above)} "
                  f"({rs.percent(above, n)}) have a risk above {rs.fmt(d['risk_threshold'])}."]
    if "pu_given_su" in d:
        paragraphs.append(f"Against the population table ({rs.fmt(d['population_records'])} records), "
                          f"{rs.share(d['pu_given_su'])} of the sample-unique records are unique in the population "
                          f"too (P(PU|SU)); {rs.fmt(d['sample_uniques_absent_from_population'])} are not in it.")
    figure = rs.value_histogram_figure(
        d["risk_histogram"], d["risk_threshold"], "above", "Record re-identification risk",
        "re-identification risk 1/f_k", f"risk threshold {rs.fmt(d['risk_threshold'])}", y_label="records",
        caption="Records by their chance of being picked out (1 / size of their group).")
    return rs.ReportSection(
        summary=summary, value_text=rs.share(check["value"]), threshold_text=f"≤ {rs.share(p['max_share'])}",
        paragraphs=paragraphs,
        facts=rs.facts(("records", n), ("sample-unique records", u), ("average risk", d["average_risk"]),
                       ("highest risk", d["max_risk"]), ("P(PU | SU)", d.get("pu_given_su"))),
        figures=[figure] if figure else [],
        tables=[t for t in [rs.worst_classes_table(check, audit, failing=u, what="classes of a single record")] if t],
        limitations="counts uniqueness in the sample only: a record unique here may have look-alikes in the "
        "population (and the reverse); the 1/f_k risk assumes the intruder knows the person is in the release.",
    )
