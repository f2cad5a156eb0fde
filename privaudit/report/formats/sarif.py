"""``--sarif OUT``: SARIF 2.1.0 for code scanning, a result per check (:func:`privaudit.report.ci.sarif`),
registered as an output format."""

from __future__ import annotations

from typing import Any

from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.output import OutputFormat, OutputRequest


def render(result: Any, request: OutputRequest) -> str:
    from privaudit.report.ci import sarif

    assessors = {c.assessor.name: c.assessor for c in result.policy.checks}
    return sarif(request.report(), request.fail_on, assessors)


@hookimpl
def privaudit_output_formats() -> list[OutputFormat]:
    what = "write SARIF 2.1.0 here (code scanning: a result per check)"
    return [OutputFormat("sarif", what, render, suffix=".sarif")]
