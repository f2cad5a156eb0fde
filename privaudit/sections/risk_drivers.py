"""The report section of risk_drivers checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.risk_drivers`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.risk_drivers import NAME, RiskDriversDetails, RiskDriversParams
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[RiskDriversParams, RiskDriversDetails], audit: AuditResult) -> ReportSection:
    from privaudit.plugin import charts

    if check.status == "error":
        return rs.ReportSection(summary=check.message)
    d = check.details
    base = d.baseline
    drivers = d.drivers
    total = max(base.sample_uniques, 1)
    figures = [
        rs.Figure(
            charts.share_bars_chart(
                [x.column for x in drivers],
                [x.removed.drop_uniques / total for x in drivers],
                [False] * len(drivers),
                title="Sample uniques removed by dropping each quasi-identifier",
                x_label="share of the sample uniques that would no longer be unique",
            ),
            "For each quasi-identifier, the share of the release's sample uniques that stop being unique when it is "
            "left out of the release.",
        )
    ]
    generalized = [x for x in drivers if x.generalized is not None]
    if generalized:
        figures.append(
            rs.Figure(
                charts.share_bars_chart(
                    [x.column for x in generalized],
                    [x.generalized.drop_uniques / total for x in generalized],
                    [False] * len(generalized),
                    title="Sample uniques removed by generalizing each one level",
                    x_label="share of the sample uniques that would no longer be unique",
                ),
                "The same when the quasi-identifier is generalized one level up its hierarchy instead.",
            )
        )
    rows = [
        [
            x.column,
            rt.fmt(x.removed.drop_uniques),
            rt.share(x.removed.drop_risk),
            "—" if x.generalized is None else rt.fmt(x.generalized.drop_uniques),
            "—" if x.generalized is None else rt.share(x.generalized.drop_risk),
        ]
        for x in drivers
    ]
    table = rs.DataTable(
        [
            "quasi-identifier",
            "uniques removed (dropped)",
            "average risk drop (dropped)",
            "uniques removed (one level up)",
            "average risk drop (one level up)",
        ],
        rows,
        caption="What each quasi-identifier contributes to the risk",
        numeric=frozenset({1, 2, 3, 4}),
    )
    top = drivers[0].column if drivers else "—"
    summary = (
        f"Of the {rt.fmt(base.sample_uniques)} records alone in their group, most would stop being unique "
        f"by leaving out {top!r}; the table shows each quasi-identifier's share of the risk."
    )
    return rs.ReportSection(
        summary=summary,
        figures=figures,
        tables=[table],
        value_text=rt.fmt(check.value) if check.threshold is None else rt.share(check.value),
        threshold_text="informational" if check.threshold is None else f"≤ {rt.share(check.threshold)}",
        limitations="each quasi-identifier is changed alone; the effect of changing two at once is "
        "not the sum of their effects.",
    )


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
