"""The report's "Series" chapter: after ``audit NEW --previous OLD ...``, which releases were compared, how
their records were linked, and for each check that intersects the releases (its details hold
``series_steps``) a chart of how many people are left with fewer than l sensitive values as each release is
added. Built from the JSON report only (``series`` and the checks' details)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from privaudit.plugin import charts
from privaudit.plugin.chapter import Chapter, ChapterContent, ChapterInput, Chart, Link, Paragraph, Table
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import DataTable, Figure
from privaudit.plugin.text import fmt

LINKING = {
    "record_id": "by the record id column {key}: a person is the same record id in every release",
    "quasi_identifiers": "through the original table: each person's true quasi-identifiers, generalized through "
    "the hierarchies as an intruder would, find the classes that could hold them in each release{aligned}",
}


@dataclass
class SeriesView:
    linking: str
    table: DataTable
    figures: list[Figure] = field(default_factory=list)
    anchors: list[tuple[str, str]] = field(default_factory=list)  # (check id, section anchor)


def series_view(data: dict, views: list[Any]) -> SeriesView | None:
    """The chapter's content, or None when the audit composed no releases."""
    series = data.get("series")
    if not isinstance(series, dict):
        return None
    key = series.get("key")
    linking = LINKING.get(series.get("linking"), str(series.get("linking"))).format(
        key=f"“{key}”",
        aligned=f" (the original joined to each release by “{key}”)"
        if key
        else " (the original and each release hold the same people in the same order)",
    )
    releases = series.get("releases") or []
    rows = [
        [
            ("audited: " if i == 0 else "previous: ") + PurePath(str(r.get("path"))).name,
            fmt(r.get("rows")),
            fmt(r.get("classes")),
            fmt(r.get("people")),
            fmt(r.get("not_found")),
        ]
        for i, r in enumerate(releases)
    ]
    table = DataTable(
        ["release", "records", "classes", "people in it", "not found by the intruder"],
        rows,
        caption=f"The {len(releases)} releases compared, in the order they are intersected",
        numeric=frozenset({1, 2, 3, 4}),
    )
    anchors = {v.check["id"]: v.anchor for v in views}
    figures, linked = [], []
    for c in data["checks"]:
        details = c.get("details") if isinstance(c.get("details"), dict) else {}
        steps = details.get("series_steps")
        if c.get("status") == "error" or not isinstance(steps, list) or not steps:
            continue
        labels = [str(i + 1) for i in range(len(steps))]
        counts = [float(s.get("below_l", 0)) for s in steps]
        what = f"{details.get('sensitive', 'sensitive')} values"
        svg = charts.category_chart(
            labels,
            counts,
            [n > 0 for n in counts],
            title=f"People left with fewer than l = {fmt(details.get('l'))} {what}",
            x_label="releases intersected",
            y_label="people",
            log_y=False,
        )
        order = "; ".join(
            f"{i + 1}: {'' if i == 0 else '+ '}{PurePath(str(s.get('release'))).name}"
            f" ({fmt(s.get('below_l'))}, {fmt(s.get('disclosed'))} down to one value)"
            for i, s in enumerate(steps)
        )
        figures.append(
            Figure(
                svg,
                caption=f"Check {c['id']}: people left with fewer than l values as each release "
                f"is added to the intersection, the audited release first ({order}).",
            )
        )
        if c["id"] in anchors:
            linked.append((c["id"], anchors[c["id"]]))
    return SeriesView(linking, table, figures, linked)


def build(report: ChapterInput) -> ChapterContent | None:
    """The chapter: how people were linked, the releases compared, a figure per check that intersects them."""
    v = series_view(dict(report.data), list(report.checks))
    if v is None:
        return None
    blocks: list[Any] = [
        Paragraph(
            (
                "This release was audited together with earlier releases of the same population: an intruder who "
                "knows that a person is in several of them can intersect the sensitive values of the groups the "
                f"person falls in. People were linked {v.linking}.",
            )
        ),
        Table(v.table),
        *(Chart(f) for f in v.figures),
    ]
    if v.anchors:
        links: list[Any] = ["The figures of each check are in its section: "]
        for i, (check, anchor) in enumerate(v.anchors):
            links += [", "] if i else []
            links.append(Link(check, anchor))
        blocks.append(Paragraph((*links, ".")))
    return ChapterContent(blocks=tuple(blocks))


@hookimpl
def privaudit_report_chapters() -> list[Chapter]:
    return [Chapter("series", "Series", build, place="before_checks", rank=30)]
