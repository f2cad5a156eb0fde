"""The report section of ``interval_disclosure`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.interval_disclosure` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.interval_disclosure import ASSESSOR, IntervalDisclosureDetails, IntervalDisclosureParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[IntervalDisclosureParams, IntervalDisclosureDetails], audit: AuditResult) -> ReportSection:
    """The report section of an interval_disclosure check: whose true values the intruder's interval
    catches, per attribute and on every attribute at once, as bars against max_rate."""
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
    figure = _bars(names, per, float(check.value), limit, misses)
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


def _bars(names: list[str], per: dict[str, float], value: float, limit: float, misses: int):
    """The share of records the interval catches per attribute (and, with several, on every one at once: the
    checked figure) as bars against max_rate."""
    from privaudit.plugin import charts
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt
    from privaudit.plugin.helpers import exceeds

    labels = list(names) + (["every attribute" if misses == 0 else f"all but ≤ {misses}"] if len(names) > 1 else [])
    shares = [per[a] for a in names] + ([value] if len(names) > 1 else [])
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
    return rs.Figure(
        svg,
        "Share of records whose original value lies inside the intruder's interval, per "
        "attribute"
        + (" and on every attribute at once (the checked figure)" if len(names) > 1 else "")
        + "; the dashed line marks max_rate.",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
