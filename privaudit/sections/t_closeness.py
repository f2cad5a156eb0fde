"""The report section of t_closeness checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.t_closeness`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.t_closeness import NAME, TClosenessDetails, TClosenessParams
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[TClosenessParams, TClosenessDetails], audit: AuditResult) -> ReportSection:
    """The report section of a t_closeness check: who is in too-distant classes, EMD chart, worst classes."""
    from privaudit.plugin import figures as rf

    d = check.details
    col, t, n = check.params.sensitive, check.params.t, audit.table.rows
    failing = d.records_failing
    if failing:
        summary = (
            f"{rt.people(failing)} ({rt.percent(failing, n)}) {'is' if failing == 1 else 'are'} in groups whose "
            f"{col} distribution is further than t = {rt.fmt(t)} from the whole table's: finding their group "
            f"tells an intruder noticeably more about their {col} than the table as a whole does."
        )
    else:
        summary = (
            f"In every group the {col} distribution is within t = {rt.fmt(t)} of the whole table's: finding a "
            f"person's group tells an intruder little more about their {col} than the table as a whole."
        )
    figure = rf.value_histogram_figure(
        d.per_class_histogram.model_dump(),
        t,
        "above",
        f"Distance of each class's {col} from the table",
        f"earth mover's distance ({d.distance} ground distance)",
        f"t = {rt.fmt(t)}",
        caption=f"Classes by the distance between their {col} values and the whole table's; the dashed line marks t.",
        failing_total=d.classes_failing,
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(check.value),
        threshold_text=f"t ≤ {rt.fmt(t)}",
        facts=rt.facts(
            ("ground distance", d.distance),
            ("classes", d.classes),
            ("classes further than t", d.classes_failing),
            ("records in those classes", f"{rt.fmt(failing)} ({rt.percent(failing, n)})"),
            ("classes without a value", d.classes_without_values),
        ),
        figures=[figure] if figure else [],
        tables=[
            x
            for x in [
                rf.worst_classes_table(
                    check,
                    audit,
                    [("emd", "EMD")],
                    failing=d.classes_failing,
                    what=f"classes further than t = {rt.fmt(t)}",
                    sensitive=True,
                )
            ]
            if x
        ],
        limitations="bounds what a group adds to the whole table's distribution, not what that distribution itself "
        "reveals; it does not stop re-identification on its own, and a coarse ground distance can hide semantically "
        "close values.",
    )


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
