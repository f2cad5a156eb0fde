"""The report's "Utility" chapter: what the release keeps, beside what it risks. Drawn from the JSON
report's ``utility`` list only (:mod:`privaudit.utility` computes it), so the HTML, PDF and notebook views
show the numbers of ``report.to_dict()``.

The chapter holds a sentence a privacy officer can read ("the release keeps 82 % of the original's
granularity; age lost most: ..."), the per-column figures as bars, a table of the figures over all
columns and one of the per-column figures; the headline sentence also stands in the summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from privaudit.common.extensions import registered
from privaudit.plugin import charts
from privaudit.plugin.chapter import Chapter, ChapterContent, ChapterInput, Chart, Link, Paragraph, Strong, Table
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import DataTable, Figure
from privaudit.plugin.text import fmt, share

#: Per-column measures in the order the headline prefers them.
HEADLINE = ("granularity", "quality_score", "non_uniform_entropy", "generalization_intensity", "suppressed_cells")


@dataclass
class UtilityView:
    sentence: str
    figure: Figure | None
    overall: DataTable
    per_column: DataTable | None


def labels() -> dict[str, str]:
    """How the report names each measure: the ``label`` of its registered record
    (:class:`privaudit.plugin.measure.Measure`), by name."""
    records: Mapping[str, object] = registered("measure")
    return {name: str(getattr(record, "label", name)) for name, record in records.items()}


def label(measure: str, names: Mapping[str, str] | None = None) -> str:
    names = labels() if names is None else names
    return names.get(measure, measure.replace("_", " "))


def _plain(measure: str, names: Mapping[str, str] | None = None) -> str:
    names = labels() if names is None else names
    return names.get(measure, measure).split(" (")[0]


def _raw(e: dict) -> str:
    return fmt(e["raw"], 4) if isinstance(e.get("raw"), (int, float)) else "—"


def headline(entries: list[dict]) -> str | None:
    """The sentence: the headline measure kept over all columns, and the column that lost most."""
    overall = {e["measure"]: e for e in entries if e["column"] is None and e["value"] is not None}
    names = labels()
    name = next((m for m in HEADLINE if m in overall), next(iter(overall), None))
    if name is None:
        return None
    text = f"The release keeps {share(overall[name]['value'])} of the original's {_plain(name, names)}"
    columns = [e for e in entries if e["measure"] == name and e["column"] is not None and e["value"] is not None]
    if len(columns) > 1:
        low = min(e["value"] for e in columns)
        worst = [e["column"] for e in columns if e["value"] <= low + 1e-12]
        if low < 1 and len(worst) < len(columns):
            lost = worst[0] if len(worst) == 1 else ", ".join(worst[:-1]) + " and " + worst[-1]
            if low <= 0:
                text += f"; {lost} kept none of it"
            else:
                text += f"; {lost} lost most: {'it keeps' if len(worst) == 1 else 'each keeps'} {share(low)}"
    others = [m for m in ("suppressed_cells", "non_uniform_entropy", "sse_sst") if m in overall and m != name]
    if others:
        text += " (" + "; ".join(f"{_plain(m, names)} {share(overall[m]['value'])}" for m in others) + ")"
    return text + "."


def utility_view(data: dict) -> UtilityView | None:
    """The chapter's content, or None when the report holds no utility figure."""
    entries = data.get("utility") or []
    if not entries:
        return None
    names = labels()
    sentence = headline(entries) or "No utility figure could be normalised for this release (see the reasons below)."
    rows = []
    for e in entries:
        if e["column"] is not None:
            continue
        d = e.get("details") or {}
        note = d.get("reason") or d.get("error") or ""
        rows.append([label(e["measure"], names), share(e["value"]) if e["value"] is not None else "—", _raw(e), note])
    overall = DataTable(
        ["measure", "kept", "raw figure", "note"],
        rows,
        caption="Over all columns",
        numeric=frozenset({1, 2}),
        note="“kept” is on ARX's quality scale: 100% nothing lost, 0% everything lost (ARX's own "
        "normalisation where ARX has the measure). The raw figure is the measure before it. "
        "Measures as ARX 3.9 (org.deidentifier.arx.aggregates.quality), sdcMicro (dUtility, "
        "summary.micro) and SDMetrics define them; those that compare records need the "
        "original table (--original).",
    )
    measures = list(dict.fromkeys(e["measure"] for e in entries if e["column"] is not None))
    columns = list(dict.fromkeys(e["column"] for e in entries if e["column"] is not None))
    per_column = None
    if measures:
        cell = {(e["measure"], e["column"]): e for e in entries if e["column"] is not None}
        table_rows = [
            [c]
            + [
                share(cell[(m, c)]["value"]) if (m, c) in cell and cell[(m, c)]["value"] is not None else "—"
                for m in measures
            ]
            for c in columns
        ]
        heads = ["squared error (attribute level)" if m == "sse_sst" else _plain(m, names) for m in measures]
        per_column = DataTable(
            ["column"] + heads,
            table_rows,
            caption="Per column (kept)",
            numeric=frozenset(range(1, len(measures) + 1)),
            kind="summary",
            widths=("28%",),
        )
    figure = None
    name = next(
        (
            m
            for m in HEADLINE
            if any(e["measure"] == m and e["column"] is not None and e["value"] is not None for e in entries)
        ),
        None,
    )
    if name is not None:
        bars = [e for e in entries if e["measure"] == name and e["column"] is not None and e["value"] is not None]
        figure = Figure(
            charts.share_bars_chart(
                [e["column"] for e in bars],
                [e["value"] for e in bars],
                [False] * len(bars),
                title=f"What each column keeps: {_plain(name, names)}",
                x_label=f"{label(name, names)} kept (100% = nothing lost)",
            ),
            f"Per column, the share of the original's {_plain(name, names)} the release keeps (ARX's quality scale).",
        )
    return UtilityView(sentence, figure, overall, per_column)


def build(report: ChapterInput) -> ChapterContent | None:
    """The chapter: the sentence, the per-column bars, the figures over all columns and per column; the
    sentence also stands under the summary of checks."""
    u = utility_view(dict(report.data))
    if u is None:
        return None
    blocks: list[Any] = [Paragraph((f"What the release keeps of the original, beside what it risks: {u.sentence}",))]
    if u.figure:
        blocks.append(Chart(u.figure))
    blocks.append(Table(u.overall))
    if u.per_column:
        blocks.append(Table(u.per_column, u.per_column.kind))
    summary = Paragraph(
        (Strong("Utility:"), f" {u.sentence} ", Link("The utility chapter", "utility"), " has every figure."),
        id="utility-headline",
    )
    return ChapterContent(blocks=tuple(blocks), headline=summary)


@hookimpl
def privaudit_report_chapters() -> list[Chapter]:
    return [Chapter("utility", "Utility", build, place="before_checks", rank=20)]


__all__ = ["UtilityView", "build", "headline", "label", "labels", "utility_view"]
