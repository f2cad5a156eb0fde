"""The report section of model_risk checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.model_risk`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.model_risk import NAME, ModelRiskDetails, ModelRiskParams
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[ModelRiskParams, ModelRiskDetails], audit: AuditResult) -> ReportSection:
    if check.status == "error":
        return rs.ReportSection(summary=check.message)
    d, p = check.details, check.params
    summary = (
        f"A log-linear model of {rt.qi_phrase(d.variables)} estimates τ1 = {rt.fmt(d.tau1, 4)} (sample "
        f"uniques that are also unique in the population) and τ2 = {rt.fmt(d.tau2, 4)} (expected correct "
        f"matches of sample uniques), per non-empty cell; the policy limits {p.measure} to "
        f"{rt.fmt(p.max_risk, 4)}."
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(check.value, 4),
        threshold_text=f"{p.measure} ≤ {rt.fmt(p.max_risk, 4)}",
        facts=rt.facts(
            ("method", d.method),
            ("non-empty cells", d.cells),
            ("sample-unique cells", d.sample_unique_cells),
            ("cells of the full grid", d.grid_cells),
            ("sampling weights", d.weight_column or "none (1 per record)"),
        ),
        limitations="the model has main effects only; interactions between the key variables are not modelled, "
        "so risks in cells that such interactions make rare are understated.",
    )


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
