"""The report section of ``k_anonymity`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.k_anonymity` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.k_anonymity import ASSESSOR, KAnonymityDetails, KAnonymityParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[KAnonymityParams, KAnonymityDetails], audit: AuditResult) -> ReportSection:
    """The report section of a k_anonymity check: who can be singled out, class-size chart, worst classes."""
    from privaudit.plugin import figures as rf
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d, k, value = check.details, check.params.k, check.value
    know = rt.qi_phrase(check.quasi_identifiers or audit.policy.quasi_identifiers)
    below, alone = d.records_below_k, d.sample_uniques
    if alone:
        summary = (
            f"{rt.people(alone)} {'is' if alone == 1 else 'are'} alone in their group: anyone who knows "
            f"{know} can find their record."
        )
    elif below:
        summary = (
            f"{rt.people(below)} {'is' if below == 1 else 'are'} in groups of fewer than k = {k}: anyone "
            f"who knows {know} can narrow them down to {rt.fmt(value)} records."
        )
    else:
        summary = (
            f"Everyone hides in a group of at least {rt.fmt(value)} records sharing {know}: an intruder "
            f"who knows these values cannot narrow a person down further (k = {k})."
        )
    if alone and below > alone:
        summary += f" In all, {rt.people(below)} ({rt.percent(below, d.records)}) are in groups smaller than k = {k}."
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(value),
        threshold_text=f"k ≥ {k}",
        facts=rt.facts(
            ("classes (groups of look-alikes)", d.classes),
            ("records", d.records),
            ("records in classes smaller than k", f"{rt.fmt(below)} ({rt.percent(below, d.records)})"),
            ("classes smaller than k", d.classes_below_k),
            ("records alone in their class", alone),
        ),
        figures=[f for f in [rf.size_histogram_figure(d.class_size_histogram, k, "Class sizes")] if f],
        tables=[
            t
            for t in [
                rf.worst_classes_table(check, audit, failing=d.classes_below_k, what=f"classes smaller than k = {k}")
            ]
            if t
        ],
        limitations="does not protect sensitive values: if everyone in a group shares the same diagnosis, "
        "finding the group reveals it (homogeneity attack), and an intruder's background knowledge can rule "
        "values out; columns not declared as quasi-identifiers are assumed unknown to the intruder.",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
