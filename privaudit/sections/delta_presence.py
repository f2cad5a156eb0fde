"""The report section of ``delta_presence`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.delta_presence` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.delta_presence import ASSESSOR, DeltaPresenceDetails, DeltaPresenceParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[DeltaPresenceParams, DeltaPresenceDetails], audit: AuditResult) -> ReportSection:
    from privaudit.plugin import charts
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    if check.status == "error":
        return rs.ReportSection(summary=check.message)
    d, p = check.details, check.params
    summary = (
        f"Knowing that a person belongs to the population, an intruder can tell they are in the release with "
        f"probability at most {rt.share(d.delta_max_measured)} (the policy allows "
        f"{rt.share(p.delta_max)}); {rt.fmt(d.classes_above)} of {rt.fmt(d.population_classes)} "
        "population groups exceed it."
    )
    edges = [i / 10 for i in range(11)]
    figure = rs.Figure(
        charts.histogram_chart(
            edges,
            d.histogram,
            title="δ of the population groups",
            x_label="δ = share of the group in the release",
            y_label="population groups",
            threshold=float(p.delta_max),
            threshold_label="δ_max",
            failing=[e > float(p.delta_max) for e in edges[1:]],
        ),
        "Population groups by the share of their people who are in the release; bars right of δ_max fail.",
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(check.value),
        threshold_text=f"{rt.share(p.delta_min)} ≤ δ ≤ {rt.share(p.delta_max)}",
        figures=[figure],
        limitations="δ-presence hides membership in the release; it does not stop "
        "re-identification of a person known to be in it (see k-anonymity).",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
