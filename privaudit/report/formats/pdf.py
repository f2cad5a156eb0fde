"""``--pdf OUT``: the PDF/A-3b report (:mod:`privaudit.report.pdf`, WeasyPrint, imported when rendering),
registered as an output format; made from the same HTML page as ``--html``."""

from __future__ import annotations

from typing import Any

from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.output import OutputFormat, OutputRequest
from privaudit.report.formats.html import page


def render(result: Any, request: OutputRequest) -> bytes:
    from privaudit.report.pdf import render_audit_pdf

    return render_audit_pdf(result, page(result, request))


@hookimpl
def privaudit_output_formats() -> list[OutputFormat]:
    return [OutputFormat("pdf", "write the PDF report here", render, suffix=".pdf")]
