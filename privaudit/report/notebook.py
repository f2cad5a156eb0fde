"""The inline view a notebook shows for an audit (``AuditReport._repr_html_``).

A fragment, not a page: the verdict, the utility sentence and figures, one row per check (the HTML report's own measured / threshold texts
and plain-language sentence) and each check's first chart in a collapsed ``<details>``. It is drawn from
the same check views and autoescaping environment as the full report (:mod:`privaudit.report.html`), so it
shows nothing the report would not.
"""

from __future__ import annotations

from typing import Any

from privaudit.report.chapters.utility import utility_view
from privaudit.report.html import check_views, environment
from privaudit.report.json_report import report_of


def render_notebook(result: Any, registry: Any = None) -> str:
    """The notebook fragment of an :class:`~privaudit.pipeline.audit.AuditResult`."""
    if registry is None:
        registry = result.registry
    report = report_of(result)
    data = report.to_dict()  # what the template and the utility chapter print
    return (
        environment()
        .get_template("notebook.html.j2")
        .render(
            data=data,
            checks=check_views(report, result, registry),
            utility=utility_view(data),
            verdict="PASS" if report.summary.passed else "FAIL",
        )
    )
