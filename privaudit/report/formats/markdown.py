"""``--markdown OUT``: a Markdown summary, e.g. for ``$GITHUB_STEP_SUMMARY`` (:func:`privaudit.report.ci.markdown`),
registered as an output format."""

from __future__ import annotations

from typing import Any

from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.output import OutputFormat, OutputRequest


def render(result: Any, request: OutputRequest) -> str:
    from privaudit.report.ci import markdown

    return markdown(request.report(), request.fail_on)


@hookimpl
def privaudit_output_formats() -> list[OutputFormat]:
    what = "write a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)"
    return [OutputFormat("markdown", what, render, suffix=".md")]
