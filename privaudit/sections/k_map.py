"""The report section of ``k_map`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.k_map` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.k_map import ASSESSOR, KMapDetails, KMapParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[KMapParams, KMapDetails], audit: AuditResult) -> ReportSection:
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt
    from privaudit.plugin.figures import worst_classes_table

    if check.status == "error":
        return rs.ReportSection(summary=check.message)
    d = check.details
    if d.population == "file":
        summary = (
            f"Every group of the release matches at least {rt.fmt(check.value)} people of the population "
            f"(k-map asks for {d.k}); {rt.fmt(d.classes_failing)} groups match fewer."
        )
    else:
        summary = (
            f"The population is estimated from a sampling fraction of {rt.share(d.sampling_fraction)}: a "
            f"group of at least {d.derived_k} records in the release matches at least {d.k} people of "
            f"the population with probability {rt.share(1 - d.type1_error)} ({d.estimator.replace('_', ' ')} "
            f"estimate); the smallest group has {rt.fmt(check.value)} records."
        )
    table = worst_classes_table(
        check,
        audit,
        figures=[("matches", "matches")],
        failing=d.classes_failing,
        what="groups matching fewer than required",
    )
    tables = [table] if table is not None else []
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(check.value),
        threshold_text=f"≥ {rt.fmt(d.threshold_used)}",
        tables=tables,
        limitations="k-map counts matches on the quasi-identifiers in the population; it says "
        "nothing about what the matched records reveal.",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
