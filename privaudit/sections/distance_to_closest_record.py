"""The report section of ``distance_to_closest_record`` checks (:mod:`privaudit.assessors.distance_to_closest_record` computes, this module
presents): drawn from the check's typed entry, registered through ``privaudit_report_sections``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.distance_to_closest_record import ASSESSOR, SyntheticDistanceDetails, SyntheticDistanceParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


# ------------------------------------------------------------------------------------------ report
def draw(check: CheckEntry[SyntheticDistanceParams, SyntheticDistanceDetails], audit: AuditResult) -> ReportSection:
    """The section of a distance_to_closest_record check: the sentence, a histogram of distances to the closest
    training record (synthetic and holdout), and the quantile table."""
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d = check.details
    n = int(d.n_synthetic)
    copies = rt.share(d.exact_copies_share)
    columns = len(d.columns)
    control = d.n_control is not None
    if control:
        lo, hi = d.closer_interval
        summary = (
            f"{rt.share(d.share_closer_to_training)} of the {rt.fmt(n)} synthetic records lie closer to a "
            f"record of the training data than to any record of the holdout, against "
            f"{rt.share(d.expected_closer)} expected of records that copy nobody ({d.confidence:.0%} "
            f"interval {rt.share(lo)}–{rt.share(hi)}); {copies} are exact copies of a training record on "
            f"the {columns} compared columns (holdout records: {rt.share(d.holdout_exact_share)})."
        )
        value_text = rt.share(d.share_closer_to_training)
        threshold_text = f"interval ≤ {rt.share(d.closer_limit)}, copies ≤ {rt.share(d.exact_copies_limit)}"
    else:
        median = (d.dcr_quantiles["synthetic_to_training"] or {}).get("p50")
        summary = (
            f"{copies} of the {rt.fmt(n)} synthetic records are exact copies of a training record on the "
            f"{columns} compared columns; the median distance to the closest training record is "
            f"{rt.fmt(median, 3)}. Whether synthetic records are closer to the training records than fresh "
            "records would be needs a holdout table (--control FILE)."
        )
        value_text = copies
        threshold_text = f"copies ≤ {rt.share(d.exact_copies_limit)}"
    paragraphs = [
        "Distance: Gower, the mean over the compared columns of |a − b| / range of the training column (capped at "
        "1) for numeric ones, the rank difference over the scale for ordinal ones and 0/1 for nominal ones; a "
        "missing value matches a missing value and differs from any other. Exact nearest neighbours.",
    ]
    if control:
        paragraphs.append(
            f"A generator that does not copy its training records places a synthetic record nearest to a training "
            f"record as often as the training records' share of training and holdout together "
            f"({rt.share(d.expected_closer)}); ties count by the share of training records among the nearest. "
            f"The check fails when even the lower end of the interval exceeds {rt.share(d.closer_limit)}."
        )
    for reason in d.failed or []:
        paragraphs.append(f"Fails: {reason}.")
    figures, tables = _histograms(d), [_quantile_table(d, control)]
    p5 = d.holdout_p5
    facts = rt.facts(
        ("synthetic records", n),
        ("training records", d.n_training),
        ("holdout records", d.n_control),
        ("compared columns", ", ".join(d.columns)),
        ("exact copies", f"{rt.fmt(d.exact_copies)} ({copies})"),
        ("holdout's 5th percentile of DCR", None if p5 is None else rt.fmt(p5, 3)),
        ("below it", None if p5 is None else rt.share(d.share_below_holdout_p5)),
        ("ties (as near to training as to holdout)", d.closer_ties),
        ("one-sided p-value", None if d.closer_p_value is None else f"{d.closer_p_value:.3g}"),
    )
    return rs.ReportSection(
        summary=summary,
        value_text=value_text,
        threshold_text=threshold_text,
        paragraphs=paragraphs,
        facts=facts,
        figures=figures,
        tables=tables,
        limitations="distances see only the compared columns and one way of weighing them: a generator can leak a "
        "person's rare combination of a few values without its record being closest on the whole; passing is no "
        "proof against membership or attribute inference, nor a differential-privacy guarantee.",
    )


def _histograms(d: SyntheticDistanceDetails) -> list:
    """The histograms of distances to the closest training record: the synthetic records', and the holdout's
    when there is one; bars at or below the holdout's 5th percentile fail."""
    from privaudit.plugin import charts
    from privaudit.plugin import sections as rs

    figures = []
    hist = d.dcr_histogram
    edges = hist.edges
    p5 = d.holdout_p5
    if len(edges) > 1:
        for who, label in (("synthetic", "synthetic records"), ("holdout", "holdout records")):
            counts = getattr(hist, who)
            if counts is None:
                continue
            failing = [p5 is not None and who == "synthetic" and float(b) <= p5 + 1e-15 for b in edges[1:]]
            svg = charts.histogram_chart(
                edges,
                counts,
                title=f"Distance of the {label} to the closest training record",
                x_label="Gower distance to the closest training record",
                y_label="records",
                threshold=p5,
                threshold_label="holdout 5th percentile" if p5 is not None else "",
                failing=failing,
                extra_bars=[("copies", float(getattr(hist, f"{who}_copies") or 0), who == "synthetic")],
                legend=("below the holdout's 5th percentile", "farther") if any(failing) else None,
            )
            caption = (
                f"Distances to the closest training record of the {label}; the bar 'copies' counts records at "
                "distance 0 (equal on every compared column)"
            )
            caption += "; the dashed line marks the holdout's 5th percentile." if p5 is not None else "."
            figures.append(rs.Figure(svg, caption))
    return figures


def _quantile_table(d: SyntheticDistanceDetails, control: bool):
    """The quantiles of DCR (synthetic and, with a holdout, holdout records) and of NNDR."""
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    rows = []
    q_syn = d.dcr_quantiles.get("synthetic_to_training") or {}
    for key in q_syn:
        row = [key.replace("p", "") + "%", rt.fmt(q_syn.get(key), 3)]
        if control:
            row += [
                rt.fmt((d.dcr_quantiles.get("holdout_to_training") or {}).get(key), 3),
                rt.fmt((d.dcr_quantiles.get("synthetic_to_holdout") or {}).get(key), 3),
            ]
        row.append(rt.fmt((d.nndr_quantiles.get("synthetic") or {}).get(key), 3))
        if control:
            row.append(rt.fmt((d.nndr_quantiles.get("holdout") or {}).get(key), 3))
        rows.append(row)
    head = ["quantile", "DCR synthetic → training"]
    if control:
        head += ["DCR holdout → training", "DCR synthetic → holdout"]
    head.append("NNDR synthetic")
    if control:
        head.append("NNDR holdout")
    return rs.DataTable(
        head,
        rows,
        caption="Quantiles of the distance to the closest record (DCR) and of the "
        "nearest-neighbour distance ratio (NNDR)",
        numeric=frozenset(range(1, len(head))),
        kind="details",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
