"""The report section of suda2 checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.suda2`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.suda2 import NAME, Suda2Details, Suda2Params
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[Suda2Params, Suda2Details], audit: AuditResult) -> ReportSection:
    """The report section of a suda2 check: special uniques, DIS-SUDA table, contribution per variable."""

    d, p = check.details, check.params
    qi, n, special = list(d.qi), int(d.records), int(d.records_special_unique)
    know = rt.qi_phrase(qi)
    by_size = list(d.msus_by_size or [])
    smallest = next((i + 1 for i, c in enumerate(by_size) if c), None)
    if special:
        size = f"{smallest} value{'s' if smallest != 1 else ''}" if smallest else "a few values"
        summary = (
            f"{rt.people(special)} ({rt.percent(special, n)}) can be singled out by part of {know}: each is "
            f"the only one in the release with some combination of these values, the shortest such "
            f"combinations having {size}."
        )
    else:
        summary = (
            f"Nobody can be singled out by {know} or any part of them: every combination of these values is "
            f"shared by at least two records."
        )
    paragraphs = [
        f"SUDA scores each minimal sample unique by how few values it needs (weights {', '.join(rt.fmt(w) for w in d.weights)} "
        f"for sizes 1 to {len(d.weights)}); a record's score is the sum over its minimal sample uniques. The scores "
        f"sum to {rt.fmt(d.score_sum)}, the highest is {rt.fmt(d.score_max)}.",
        f"The DIS-SUDA score spreads Elliot's data intrusion simulation estimate (the chance that a unique match "
        f"is a correct match, for a sampling fraction of {rt.fmt(d.dis_fraction)}) over the special uniques by "
        f"their SUDA scores: the highest is {rt.fmt(d.dis_score_max, 3)}, the sum {rt.fmt(d.dis_score_sum, 4)}.",
    ]
    figures = _contribution_figures(d, special)
    table = rs.DataTable(
        ["DIS-SUDA score", "records"],
        [[a, rt.fmt(b)] for a, b in d.dis_score_table],
        caption="Records by DIS-SUDA score",
        numeric=frozenset({1}),
        kind="details",
    )
    size_rows = [[str(i + 1), rt.fmt(w), rt.fmt(c)] for i, (w, c) in enumerate(zip(d.weights, by_size, strict=False))]
    sizes = rs.DataTable(
        ["MSU size", "score of one", "MSUs found"],
        size_rows,
        caption="Minimal sample uniques by size",
        numeric=frozenset({0, 1, 2}),
        kind="details",
    )
    threshold = f"≤ {rt.share(p.max_share)}"
    if p.max_dis_score is not None:
        threshold += f", DIS ≤ {rt.fmt(p.max_dis_score)}"
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(check.value),
        threshold_text=threshold,
        paragraphs=paragraphs,
        facts=rt.facts(
            ("records", n),
            ("special uniques (score > 0)", f"{rt.fmt(special)} ({rt.percent(special, n)})"),
            ("unique on every quasi-identifier", d.sample_uniques),
            ("in pairs on every quasi-identifier", d.pairs),
            ("largest MSU size searched", d.max_size),
            ("records above the DIS-SUDA limit", d.records_above_dis_score),
        ),
        figures=figures,
        tables=[table, sizes],
        limitations="counts uniqueness in the sample: the DIS-SUDA estimate of population uniqueness rests on the "
        "given sampling fraction and on SUDA's heuristic calibration; it assumes the intruder knows the listed "
        "quasi-identifiers exactly and that missing values reveal nothing.",
    )


def _contribution_figures(d: Suda2Details, special: int) -> list[rs.Figure]:
    """The chart of each variable's share of the total SUDA score (sdcMicro's attribute contributions), when
    some record is a special unique."""
    from privaudit.plugin import charts

    figures = []
    contributions = d.contributions or {}
    if special and contributions:
        labels = list(contributions)
        shares = [min(max(float(contributions[c]) / 100.0, 0.0), 1.0) for c in labels]
        svg = charts.share_bars_chart(
            labels,
            shares,
            [False] * len(labels),
            title="Contribution of each variable",
            x_label="share of the total SUDA score",
        )
        figures.append(
            rs.Figure(
                svg,
                "Share of the total SUDA score coming from minimal sample uniques that "
                "contain each variable (sdcMicro's attribute contributions; a minimal sample "
                "unique of several variables counts for each, so shares add up to more than "
                "100%).",
            )
        )
    return figures


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
