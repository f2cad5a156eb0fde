"""The report section of ``membership_inference`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.membership_inference` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.membership_inference import ASSESSOR, ATTACK_NAMES, MembershipParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section
from privaudit.sections.membership import membership_section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.assessors.membership_inference import Details
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[MembershipParams, Details], audit: AuditResult) -> ReportSection:
    """TPR at low FPR, AUC and the log-log ROC curve of each attack (:mod:`privaudit.sections.membership`)."""
    return membership_section(check, ATTACK_NAMES)


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
