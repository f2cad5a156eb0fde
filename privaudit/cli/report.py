"""``privaudit report schema``: print the JSON Schema of the JSON report (``--json OUT``)."""

from __future__ import annotations

import json


def add_parser(sub) -> None:
    report = sub.add_parser("report", help="report tools")
    rsub = report.add_subparsers(dest="report_command", required=True, metavar="ACTION")
    rsub.add_parser("schema", help="print the JSON Schema of the JSON report (draft 2020-12)")


def run(args) -> int:
    from privaudit.pipeline.plugins import get_registry
    from privaudit.report.schema import report_json_schema

    print(json.dumps(report_json_schema(get_registry()), indent=2))
    return 0
