"""The report section of p_sensitive_k_anonymity checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.p_sensitive_k_anonymity`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.p_sensitive_k_anonymity import NAME, PSensitiveDetails, PSensitiveParams
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[PSensitiveParams, PSensitiveDetails], audit: AuditResult) -> ReportSection:
    """The report section of a p_sensitive_k_anonymity check: who is in too-small or too-uniform classes."""
    from privaudit.plugin import figures as rf

    d = check.details
    p, k, n, bad = check.params.p, check.params.k, audit.table.rows, d.records_failing
    columns = ", ".join(d.per_attribute)
    if bad:
        summary = (
            f"{rt.people(bad)} ({rt.percent(bad, n)}) {'is' if bad == 1 else 'are'} in groups smaller than "
            f"k = {k} or with fewer than p = {p} different values of {columns}: finding their group narrows "
            f"a sensitive value down to fewer than {p} possibilities, or the person to fewer than {k} records."
        )
    else:
        summary = (
            f"Every group has at least k = {k} records and p = {p} different values of {columns}: finding a "
            f"person's group leaves at least {p} possibilities for each sensitive value."
        )
    return rs.ReportSection(
        summary=summary,
        value_text=f"p = {rt.fmt(check.value)}, k = {rt.fmt(d.smallest_class)}",
        threshold_text=f"p ≥ {p}, k ≥ {k}",
        facts=rt.facts(
            ("classes", d.classes),
            ("smallest class", d.smallest_class),
            *[(f"fewest distinct values of {c}", v) for c, v in d.per_attribute.items()],
            ("classes failing", d.classes_failing),
            ("records in those classes", f"{rt.fmt(bad)} ({rt.percent(bad, n)})"),
        ),
        tables=[
            x
            for x in [
                rf.worst_classes_table(
                    check, audit, [("distinct_values", "distinct values")], failing=d.classes_failing
                )
            ]
            if x
        ],
        limitations="p different values can still be skewed (one value in almost every record) or mean nearly "
        "the same thing; it does not bound how likely each value is.",
    )


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
