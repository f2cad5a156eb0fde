"""``--json OUT``: the JSON report (:mod:`privaudit.report.json_report`), registered as an output format."""

from __future__ import annotations

from typing import Any

from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.output import OutputFormat, OutputRequest


def render(result: Any, request: OutputRequest) -> str:
    from privaudit.report.json_report import render_json

    return render_json(request.report())


@hookimpl
def privaudit_output_formats() -> list[OutputFormat]:
    return [OutputFormat("json", "write the JSON report here", render, suffix=".json")]
