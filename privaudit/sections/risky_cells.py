"""The report section of ``risky_cells`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.risky_cells` computes, this module presents.

Both tables are capped at ``report.max_classes`` rows with an "and N more" note, so no list runs past a
page; the cells show quasi-identifier values only (never a sensitive column's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.risky_cells import ASSESSOR, RiskyCellsDetails, RiskyCellsParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, DataTable, ReportSection


def _more(shown: int, total: int, what: str) -> str:
    return f"and {total - shown:,} more {what}" if total > shown else ""


def _combination_table(d: RiskyCellsDetails, cap: int) -> DataTable:
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    ranked = sorted(d.per_combination, key=lambda c: (-c.risky_cells, c.smallest_cell))[:cap]
    rows = [
        [" × ".join(c.columns), rt.fmt(c.k), rt.fmt(c.cells), rt.fmt(c.risky_cells), rt.fmt(c.risky_records),
         rt.fmt(c.smallest_cell)]
        for c in ranked
    ]  # fmt: skip
    return rs.DataTable(
        ["combination", "k", "cells", "risky cells", "records in them", "smallest cell"],
        rows,
        caption="Combinations, most risky cells first",
        note=_more(len(rows), d.combinations, "combinations"),
        numeric=frozenset(range(1, 6)),
        kind="details",
        widths=("40%",),
    )


def _cells_table(d: RiskyCellsDetails, cap: int) -> DataTable | None:
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    if not d.worst_cells:
        return None
    shown = d.worst_cells[:cap]
    rows = [
        ["; ".join(f"{c}: {rt.printable(v)}" for c, v in cell.values.items()), rt.fmt(cell.count),
         rt.fmt(cell.records)]
        for cell in shown
    ]  # fmt: skip
    return rs.DataTable(
        ["values of the combination", "count", "records"],
        rows,
        caption="Smallest risky cells",
        note=_more(len(rows), d.risky_cells, "risky cells"),
        numeric=frozenset({1, 2}),
        kind="classes",
        widths=("60%",),
    )


def draw(check: CheckEntry[RiskyCellsParams, RiskyCellsDetails], audit: AuditResult) -> ReportSection:
    """The report section of a risky_cells check: how many cells of the named combinations are risky, the
    combinations with most of them, and the smallest cells."""
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d = check.details
    cap = int(audit.policy.report.max_classes)
    if d.risky_cells:
        summary = (
            f"{rt.fmt(d.risky_cells)} value combinations in {rt.fmt(d.failing_combinations)} of the "
            f"{rt.fmt(d.combinations)} combinations of quasi-identifiers the policy names are held by fewer "
            f"records than their k: {rt.people(d.records_in_risky_cells)} "
            f"({rt.percent(d.records_in_risky_cells, d.records)}) can be narrowed down by an intruder who knows "
            "only those few values."
        )
    else:
        summary = (
            f"Every value combination of the {rt.fmt(d.combinations)} combinations of quasi-identifiers the "
            "policy names is held by at least its k records."
        )
    paragraphs = [
        "Missing values are "
        + (
            "wildcards: a cell counts every record its values match (data.missing_qi: wildcard)."
            if d.missing_qi == "wildcard"
            else "a value of their own, as sdcMicro's riskyCells counts them."
        )
    ]
    if d.combinations_outside_scenario:
        paragraphs.append(
            f"{rt.fmt(d.combinations_outside_scenario)} combinations name a column outside this check's "
            "quasi-identifiers and were left out."
        )
    tables = [t for t in (_combination_table(d, cap), _cells_table(d, cap)) if t is not None]
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(check.value),
        threshold_text=f"≤ {rt.fmt(check.params.max_risky_cells)} risky cells",
        paragraphs=paragraphs,
        facts=rt.facts(
            ("combinations checked", d.combinations),
            ("combinations with a risky cell", d.failing_combinations),
            ("risky cells", d.risky_cells),
            (
                "records in a risky cell",
                f"{rt.fmt(d.records_in_risky_cells)} ({rt.percent(d.records_in_risky_cells, d.records)})",
            ),
        ),
        tables=tables,
        limitations="checks only the combinations the policy names; a combination left out may still single "
        "people out, and sensitive values are not protected.",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
