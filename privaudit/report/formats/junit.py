"""``--junit OUT``: JUnit XML, a test case per check (:func:`privaudit.report.ci.junit_xml`), registered as an
output format."""

from __future__ import annotations

from typing import Any

from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.output import OutputFormat, OutputRequest


def render(result: Any, request: OutputRequest) -> str:
    from privaudit.report.ci import junit_xml

    return junit_xml(request.report(), request.fail_on)


@hookimpl
def privaudit_output_formats() -> list[OutputFormat]:
    return [OutputFormat("junit", "write JUnit XML here (a test case per check)", render, suffix=".xml")]
