"""The report section of ``empirical_epsilon`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.empirical_epsilon` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.empirical_epsilon import ASSESSOR, EpsilonParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section
from privaudit.sections.membership import epsilon_section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.assessors.empirical_epsilon import Details
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[EpsilonParams, Details], audit: AuditResult) -> ReportSection:
    """The Îµ lower bound against the claimed Îµ (:mod:`privaudit.sections.membership`)."""
    return epsilon_section(check)


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
