"""The report section of reidentification_risk checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.reidentification_risk`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.reidentification_risk import NAME, ReidentificationRiskDetails, ReidentificationRiskParams
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(
    check: CheckEntry[ReidentificationRiskParams, ReidentificationRiskDetails], audit: AuditResult
) -> ReportSection:
    """The report section: the three models side by side."""

    if check.status == "error":
        return rs.ReportSection(summary=check.message)
    d, p = check.details, check.params
    source = {
        "file": "a population table",
        "weights": "the sampling weights",
        "release": "the release itself (no population given: journalist and marketer equal prosecutor)",
    }[d.population]
    summary = (
        f"Under the {p.model} model the {p.measure.replace('_', ' ')} re-identification risk is "
        f"{rt.share(check.value)} (the policy allows {rt.share(p.max_risk)})."
    )
    rows = [
        [
            model,
            rt.share(getattr(d, model).highest),
            rt.share(getattr(d, model).average),
            rt.share(getattr(d, model).records_at_risk),
        ]
        for model in ("prosecutor", "journalist")
    ]
    rows.append(["marketer", "—", rt.share(d.marketer.average), "—"])
    table = rs.DataTable(
        [
            "attacker model",
            "highest risk",
            "average risk (success rate)",
            f"records with risk > {rt.share(d.threshold)}",
        ],
        rows,
        caption="Re-identification risk under the three attacker models",
        numeric=frozenset({1, 2, 3}),
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(check.value),
        threshold_text=f"≤ {rt.share(p.max_risk)}",
        paragraphs=[
            "The prosecutor knows their target is in the release; the journalist targets someone of the "
            "population; the marketer tries to re-identify as many people as possible. Population class "
            f"sizes come from {source}."
        ],
        tables=[table],
        limitations="the models count exact matches on the quasi-identifiers; an intruder with other knowledge "
        "or approximate matching is not modelled.",
    )


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
