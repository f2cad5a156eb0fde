"""The report section of ``m_invariance`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.m_invariance` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.m_invariance import ASSESSOR, MInvarianceDetails, MInvarianceParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[MInvarianceParams, MInvarianceDetails], audit: AuditResult) -> ReportSection:
    """The section of an m_invariance check: m-uniqueness per release, people whose signature changed."""
    from privaudit.plugin import figures as rf
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d = check.details
    col, m = d.sensitive, d.m
    broken = [r for r in d.per_release if r.records_not_m_unique]
    parts = []
    if d.people_changed:
        parts.append(
            f"{rt.fmt(d.people_changed)} of the {rt.people(d.people_linked)} in two or more releases "
            f"({rt.percent(d.people_changed, d.people_linked)}) fall in groups with different sets of {col} "
            "values from one release to another: intersecting them narrows their value down"
        )
    if broken:
        parts.append(
            f"{len(broken)} of {len(d.per_release)} releases {'is' if len(broken) == 1 else 'are'} not {m}-unique (a group smaller than {m} or "
            f"repeating a {col} value)"
        )
    summary = (
        ("; ".join(parts) + ".")
        if parts
        else (
            f"The series is {m}-invariant: every release is {m}-unique and each of the {rt.people(d.people_linked)} in "
            f"two or more releases has the same set of {col} values in their group every time."
        )
    )
    releases = rs.DataTable(
        ["release", "classes", "not m-unique", "records in them"],
        [
            [r.path, rt.fmt(r.classes), rt.fmt(r.classes_not_m_unique), rt.fmt(r.records_not_m_unique)]
            for r in d.per_release
        ],
        caption=f"m-uniqueness of each release (m = {m})",
        numeric=frozenset({1, 2, 3}),
    )
    table = rf.worst_classes_table(
        check,
        audit,
        [("people", "people")],
        failing=None,
        what="combinations of groups whose signature changed (each shown by its class in the first release it is in)",
    )
    return rs.ReportSection(
        summary=summary,
        threshold_text="0",
        facts=rt.facts(
            ("sensitive column", col),
            ("m", m),
            ("linking", d.linking),
            ("people in two or more releases", d.people_linked),
            ("signature changed", d.people_changed),
        ),
        tables=[t for t in [releases, table] if t],
        limitations="m-invariance protects the sensitive values of people who stay in the series; it says nothing "
        "about re-identification, nor about a skewed signature (several similar values).",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
