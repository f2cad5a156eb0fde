"""The report section of utility checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.utility`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.utility import NAME, Details, UtilityParams
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[UtilityParams, Details], audit: AuditResult) -> ReportSection:
    d = check.details
    where = f" in {d.column}" if d.column else ""
    value = check.value
    summary = (
        f"The release keeps {rt.share(value)} of the original's {d.measure.replace('_', ' ')}{where}; "
        f"the policy asks for at least {rt.share(check.threshold)}."
        if value is not None
        else f"The {d.measure.replace('_', ' ')}{where} could not be measured: {check.message}"
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(value) if value is not None else None,
        threshold_text=f"≥ {rt.share(check.threshold)}",
        facts=rt.facts(("measure", d.measure), ("column", d.column or "all quasi-identifiers"), ("raw figure", d.raw)),
        limitations="a utility figure says how much of the original's detail the release keeps, not whether "
        "the release is fit for a particular analysis.",
    )


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
