"""The report section of ``composition`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.composition` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.composition import ASSESSOR, CompositionDetails, CompositionParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[CompositionParams, CompositionDetails], audit: AuditResult) -> ReportSection:
    """The section of a composition check: who loses diversity across the releases, the worst combinations."""
    from privaudit.plugin import figures as rf
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d = check.details
    col, l = d.sensitive, rt.fmt(d.l)
    if d.people_below_l:
        summary = (
            f"{rt.fmt(d.people_below_l)} of the {rt.people(d.people_linked)} in two or more releases "
            f"({rt.percent(d.people_below_l, d.people_linked)}) keep fewer than l = {l} possible {col} values "
            f"once an intruder intersects their classes across the releases"
            + (
                f"; for {rt.people(d.people_disclosed)} a single value is left: it is disclosed."
                if d.people_disclosed
                else "."
            )
        )
    else:
        summary = (
            f"Every one of the {rt.people(d.people_linked)} in two or more releases keeps at least "
            f"l = {l} possible {col} values after intersecting their classes across the releases."
        )
    table = rf.worst_classes_table(
        check,
        audit,
        [("people", "people"), ("remaining", "values left")],
        failing=None,
        what="combinations of classes leaving fewer than l values (each shown by its class in the "
        "first release it is in)",
        sensitive=True,
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(check.value) if check.value is not None else None,
        threshold_text=f"share ≤ {rt.share(check.threshold)}",
        facts=rt.facts(
            ("sensitive column", col),
            ("l", f"{l} ({d.l_from})"),
            ("linking", d.linking),
            ("releases", d.releases),
            ("people in two or more releases", d.people_linked),
            (
                "fewer than l values left",
                f"{rt.fmt(d.people_below_l)} ({rt.percent(d.people_below_l, d.people_linked)})",
            ),
            (
                "one value left (disclosed)",
                f"{rt.fmt(d.people_disclosed)} ({rt.percent(d.people_disclosed, d.people_linked)})",
            ),
            ("no common value", d.people_no_value),
        ),
        tables=[t for t in [table] if t],
        limitations="assumes the intruder knows who is in which release and their quasi-identifiers; it does not "
        "weigh how likely each remaining value is (a skewed intersection leaks more than its count says).",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
