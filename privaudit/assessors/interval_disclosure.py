"""interval_disclosure: how often an intruder's interval around a released value holds the original.

Needs the original table (``--original``). value = share of records disclosed on every listed attribute
(sdcMicro's convention; see :mod:`privaudit.risk.interval` for the rank and sd intervals);
pass iff value <= ``max_rate``. details: ``per_attribute`` shares, ``disclosed_records``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl
from privaudit.risk.interval import interval_disclosure

if TYPE_CHECKING:  # pragma: no cover - types only: the report's modules load when a report is drawn
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


class IntervalDisclosureParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    attributes: list[str] | None = Field(
        default=None, description="Numeric columns (default: every numeric quasi-identifier and sensitive column)."
    )
    method: Literal["rank", "sd"] = "rank"
    p: float = Field(default=10.0, gt=0, le=100, description="Interval width parameter, in percent.")
    sd_of: Literal["original", "released"] = "original"
    max_misses: int = Field(default=0, ge=0, description="Attributes a record may miss and still count.")
    max_rate: float = Field(default=0.0, ge=0, le=1, description="Largest allowed share of disclosed records.")


class IntervalDisclosureDetails(Details):
    """What an interval_disclosure check's details hold (``half_width_ranks`` for the rank method)."""

    attributes: list[str]
    method: Literal["rank", "sd"]
    p: float
    sd_of: Literal["original", "released"] | None
    records: int
    disclosed_records: int
    per_attribute: dict[str, float]
    half_width_ranks: dict[str, int] | None = None


def attributes_of(params: IntervalDisclosureParams, policy) -> list[str]:
    if params.attributes:
        return list(params.attributes)
    return [
        c
        for c, spec in policy.columns.items()
        if spec.type == "numeric" and spec.role in ("quasi_identifier", "sensitive")
    ]


def validate(params: IntervalDisclosureParams, policy) -> str | None:
    names = attributes_of(params, policy)
    if not names:
        return "attributes: the policy has no numeric quasi-identifier or sensitive column"
    for name in names:
        spec = policy.columns.get(name)
        if spec is None:
            return f"attributes: {name!r} is not a column of the policy"
        if spec.type != "numeric":
            return f"attributes: column {name!r} is {spec.type}, not numeric"
    return None


def run(ctx, params: IntervalDisclosureParams) -> Measurement:
    names = attributes_of(params, ctx.policy)
    result = interval_disclosure(
        ctx.original,
        ctx.table,
        names,
        method=params.method,
        p=params.p,
        sd_of=params.sd_of,
        max_misses=params.max_misses,
    )
    disclosed = int(result.record_disclosed.sum())
    details = {
        "attributes": names,
        "method": params.method,
        "p": params.p,
        "sd_of": params.sd_of if params.method == "sd" else None,
        "records": result.n_records,
        "disclosed_records": disclosed,
        "per_attribute": result.per_attribute,
    }
    if result.half_width_ranks:
        details["half_width_ranks"] = result.half_width_ranks
    message = (
        f"{fmt(disclosed)} of {fmt(result.n_records)} records ({result.value:.2%}) have every original "
        f"value of {', '.join(names)} inside the intruder's {params.method} interval (p={params.p:g}%)"
    )
    return Measurement(result.value, params.max_rate, result.value <= params.max_rate, message, details)


def report_section(
    check: CheckEntry[IntervalDisclosureParams, IntervalDisclosureDetails], audit: AuditResult
) -> ReportSection:
    """The report section of an interval_disclosure check: whose true values the intruder's interval
    catches, per attribute and on every attribute at once, as bars against max_rate."""
    from privaudit.plugin import charts
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d, p = check.details, check.params
    names, n, disclosed = list(d.attributes), int(d.records), int(d.disclosed_records)
    per, limit, misses = d.per_attribute, float(p.max_rate), int(p.max_misses or 0)
    widths = d.half_width_ranks or {}
    if d.method == "rank":
        how = f"an interval spanning p = {rt.fmt(d.p)}% of the records' ranks around the released value"
        if widths:
            h = sorted(set(widths.values()))
            how += f" (±{rt.fmt(h[0])} ranks)" if len(h) == 1 else f" (±{rt.fmt(h[0])}–{rt.fmt(h[-1])} ranks)"
    else:
        how = f"the released value ± p = {rt.fmt(d.p)}% of the standard deviation of the {d.sd_of or 'original'} column"

    counts = {a: int(round(per[a] * n)) for a in names}
    if len(names) == 1:
        a = names[0]
        summary = (
            f"The true {a} of {rt.people(counts[a])} ({rt.percent(counts[a], n)}) lies within the intruder's "
            f"interval around its released value ({how}): for them the perturbation does not hide it."
        )
    else:
        listed = ", ".join(names[:-1]) + f" and {names[-1]}"
        every = "each of their true" if misses == 0 else f"all but at most {misses} of their true"
        summary = (
            f"For {rt.people(disclosed)} ({rt.percent(disclosed, n)}), {every} {listed} lies within the "
            f"intruder's interval around its released value ({how}): for them the perturbation hides little."
        )
    paragraphs = []
    if len(names) > 1:
        parts = [f"the true {a} of {rt.fmt(counts[a])} ({rt.share(per[a])})" for a in names]
        paragraphs.append(f"Attribute by attribute, the interval catches {', '.join(parts[:-1])} and {parts[-1]}.")
    paragraphs.append(
        f"The check allows at most {rt.share(limit)} of the records to be disclosed"
        f"{' on every attribute' if len(names) > 1 else ''}; it measured {rt.share(check.value)}. "
        f"An intruder who knows the masking method can draw this interval around every released "
        f"value."
    )
    labels = list(names) + (["every attribute" if misses == 0 else f"all but ≤ {misses}"] if len(names) > 1 else [])
    shares = [per[a] for a in names] + ([float(check.value)] if len(names) > 1 else [])
    bad = [exceeds(s, limit) for s in shares]
    svg = charts.share_bars_chart(
        labels,
        shares,
        bad,
        title="Records whose true value the interval catches",
        x_label="share of records disclosed",
        limit=limit,
        limit_label=f"max_rate = {rt.share(limit)}",
        legend=("above max_rate", "within max_rate") if any(bad) else None,
    )
    figure = rs.Figure(
        svg,
        "Share of records whose original value lies inside the intruder's interval, per "
        "attribute"
        + (" and on every attribute at once (the checked figure)" if len(names) > 1 else "")
        + "; the dashed line marks max_rate.",
    )
    rows = [[a, rt.fmt(counts[a]), rt.share(per[a])] + ([rt.fmt(widths.get(a))] if widths else []) for a in names]
    table = rs.DataTable(
        ["attribute", "records disclosed", "share"] + (["interval half-width (ranks)"] if widths else []),
        rows,
        caption="Disclosure per attribute",
        numeric=frozenset(range(1, 4 if widths else 3)),
        kind="details",
        widths=("34%",),
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(check.value),
        threshold_text=f"≤ {rt.share(limit)}",
        paragraphs=paragraphs,
        facts=rt.facts(
            ("method", f"{d.method} interval, p = {rt.fmt(d.p)}%"),
            ("standard deviation of", d.sd_of),
            ("records", n),
            (
                "records disclosed on every attribute" if len(names) > 1 else "records disclosed",
                f"{rt.fmt(disclosed)} ({rt.percent(disclosed, n)})",
            ),
            ("attributes a record may miss", misses if misses else None),
        ),
        figures=[figure],
        tables=[table],
        limitations="compares each record with its own original only: it does not say whether an intruder can "
        "find the record (identity disclosure), and a wider interval or knowledge of the masking parameters can "
        "disclose more than the chosen p shows.",
    )


ASSESSOR = Assessor(
    name="interval_disclosure",
    params=IntervalDisclosureParams,
    details=IntervalDisclosureDetails,
    run=run,
    title="Interval disclosure",
    protects="attribute",
    measures="how often a narrow interval around a released number (income, age ...) contains the person's "
    "true value, so that an intruder learns it closely enough even though it was perturbed",
    formula="rank: the interval spans p·n/100 ranks around the released value's rank; sd: |V(x) − V'(x)| ≤ "
    "p·sd/100; value = share of records disclosed on every attribute; pass iff value ≤ max_rate",
    reference="Domingo-Ferrer & Torra, A quantitative comparison of disclosure control methods for microdata "
    "(2001); sdcMicro dRisk",
    needs=frozenset({"original", "table"}),
    validate_policy=validate,
    report_section=report_section,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
