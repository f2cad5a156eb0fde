"""``--html OUT``: the self-contained HTML report (:mod:`privaudit.report.html`), registered as an output format;
the page is rendered once per run and shared with ``--pdf``."""

from __future__ import annotations

from typing import Any

from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.output import OutputFormat, OutputRequest


def page(result: Any, request: OutputRequest) -> str:
    """The HTML page of the run, rendered once for every format that needs it."""

    def make() -> str:
        from privaudit.report.html import render_html

        return render_html(result)

    html: str = request.shared("html", make)
    return html


@hookimpl
def privaudit_output_formats() -> list[OutputFormat]:
    return [OutputFormat("html", "write the HTML report here", page, suffix=".html")]
