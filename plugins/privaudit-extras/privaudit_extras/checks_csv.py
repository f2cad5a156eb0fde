"""The ``checks-csv`` output format: ``--checks-csv OUT`` writes one CSV row per check.

Columns ``id, assessor, status, severity, value, threshold``, read from the run's typed report
(:class:`privaudit.plugin.result.Report`, ``request.report()``): the figures the JSON report holds, in its
order. A value is written as JSON writes it (``inf`` for infinity, empty for a check that ended in error); a
threshold that is an object (some assessors state a bound per column) as compact JSON.

Written with the standard library's ``csv`` module (RFC 4180 quoting, ``\\r\\n`` line ends). A text cell
that a spreadsheet would run as a formula is neutralised by the rule privaudit applies to every CSV it
writes (``privaudit/remediation/export.py``, after OWASP's "CSV Injection"): a cell that starts with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return, and is not a plain number, gets a leading apostrophe.
A check id is the policy author's text, so it can start with ``=``.
"""

from __future__ import annotations

import re
from typing import Any

from privaudit.plugin import OutputFormat, hookimpl

HEADER = ("id", "assessor", "status", "severity", "value", "threshold")
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def guarded(text: str) -> str:
    """``text`` with a leading apostrophe when a spreadsheet would take it for a formula."""
    if text.startswith(FORMULA_PREFIXES) and _NUMBER.fullmatch(text) is None:
        return "'" + text
    return text


def _cell(value: Any) -> str:
    import json

    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return guarded(str(value))
    return guarded(json.dumps(value, sort_keys=True, separators=(",", ":"), default=str))


def render(result: Any, request: Any) -> str:
    """The CSV text of the run's checks (``request`` an :class:`privaudit.plugin.output.OutputRequest`)."""
    import csv
    import io

    report = request.report()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    for check in report.checks:
        value = check.value
        writer.writerow(
            [_cell(check.id), _cell(check.assessor), check.status, check.severity, _cell(value), _cell(check.threshold)]
        )
    return out.getvalue()


OUTPUT = OutputFormat(
    "checks-csv",
    "write one CSV row per check here (id, assessor, status, severity, value, threshold)",
    render,
    suffix=".csv",
)


@hookimpl
def privaudit_output_formats() -> list[OutputFormat]:
    return [OUTPUT]
