"""What every report-writing command shares: the report options, the refusals made before any work, and
rendering every report before writing any."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from privaudit.core.atomic import atomic_write
from privaudit.core.errors import PrivauditError


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", dest="json_out", metavar="OUT", help="write the JSON report here")
    parser.add_argument("--html", dest="html_out", metavar="OUT", help="write the HTML report here")
    parser.add_argument("--pdf", dest="pdf_out", metavar="OUT", help="write the PDF report here")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors; no progress bar")
    parser.add_argument("--allow-outside-paths", action="store_true",
                        help="let the policy reference files outside its own folder")


def report_outputs(args) -> list[str]:
    """The report paths the command line asked for."""
    return [p for p in (args.json_out, args.html_out, args.pdf_out) if p]


def check_outputs(outputs: list[str], inputs: list[str | None]) -> None:
    """Refuse before any work: a missing output folder, or an output that is one of the inputs."""
    for p in outputs:
        folder = Path(p).parent
        if not folder.is_dir():
            raise PrivauditError(f"{p}: the output folder {str(folder)!r} does not exist")
        for src in inputs:
            if src and Path(src).exists() and Path(p).exists() and os.path.samefile(src, p):
                raise PrivauditError(f"{p}: an output would overwrite an input file")


def render_reports(result, args) -> list[tuple[str, bytes | str]]:
    """Every report the command line asked for, rendered (nothing written yet)."""
    from privaudit.report.json_report import render_json

    rendered: list[tuple[str, bytes | str]] = []
    if args.json_out:
        rendered.append((args.json_out, render_json(result)))
    if args.html_out or args.pdf_out:
        from privaudit.report.html import render_html

        html = render_html(result)
        if args.html_out:
            rendered.append((args.html_out, html))
        if args.pdf_out:
            from privaudit.report.pdf import render_pdf

            rendered.append((args.pdf_out, render_pdf(html)))
    return rendered


def write_all(rendered: list[tuple[str, bytes | str]]) -> None:
    """Write what :func:`render_reports` (and the command) rendered."""
    for path, data in rendered:
        atomic_write(path, data)


def progress_bar(args):
    from privaudit.core.progress import ProgressBar

    return ProgressBar(enabled=False if args.quiet else None)
