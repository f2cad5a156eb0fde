"""The verdict in the forms CI systems read: JUnit XML (one test case per check), a Markdown summary (for
``$GITHUB_STEP_SUMMARY``) and GitHub Actions workflow-command annotations. Each is built from the JSON
report (:func:`privaudit.report.json_report.report_dict`), so every format says the same thing.

A check of severity ``warning`` that fails is a JUnit ``<failure>`` and a GitHub ``::error`` only with
``fail_on="warning"`` (``--fail-on warning``); otherwise it is a test case that passes with its message in
``<system-out>``, and a ``::warning``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from privaudit.report.text import fmt, printable


def _failing(check: dict, fail_on: str) -> bool:
    return check["status"] == "fail" and (check["severity"] == "error" or fail_on == "warning")


def junit_xml(report: dict, fail_on: str = "error") -> str:
    """JUnit XML: a ``<testsuite>`` per audit, a ``<testcase>`` per check (classname ``privaudit.<assessor>``,
    name the check id), ``<failure>`` for failing checks and ``<error>`` for checks that ended in error."""
    checks = report["checks"]
    failures = sum(_failing(c, fail_on) for c in checks)
    errors = sum(c["status"] == "error" for c in checks)
    suites = ET.Element("testsuites", name="privaudit", tests=str(len(checks)), failures=str(failures),
                        errors=str(errors))
    suite = ET.SubElement(suites, "testsuite", name=str(report["policy"]["name"]), tests=str(len(checks)),
                          failures=str(failures), errors=str(errors), skipped="0",
                          timestamp=str(report["generated_at"]).rstrip("Z"), hostname="privaudit")
    props = ET.SubElement(suite, "properties")
    for name, value in (("input", report["input"]["path"]), ("input.sha256", report["input"]["sha256"]),
                        ("policy", report["policy"]["path"]), ("engine", report["engine"]),
                        ("privaudit", report["tool"]["version"])):
        ET.SubElement(props, "property", name=name, value=str(value))
    for c in checks:
        case = ET.SubElement(suite, "testcase", classname=f"privaudit.{c['assessor']}", name=printable(c["id"]),
                             time=f"{float(c.get('seconds') or 0):.3f}")
        message = printable(c["message"])  # XML 1.0 cannot hold control characters
        text = f"value {fmt(c['value'])}, threshold {_threshold(c['threshold'])}: {message}"
        if c["status"] == "error":
            ET.SubElement(case, "error", message=message, type="error").text = text
        elif _failing(c, fail_on):
            ET.SubElement(case, "failure", message=message,
                          type=f"{c['severity']} check failed").text = text
        elif c["status"] == "fail":
            ET.SubElement(case, "system-out").text = f"WARNING (severity warning): {text}"
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _threshold(threshold: Any) -> str:
    if isinstance(threshold, dict):
        return ", ".join(f"{k} {fmt(v)}" for k, v in threshold.items())
    return fmt(threshold)


def _cell(text: Any) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


_MARK = {"pass": "✅ pass", "fail": "❌ fail", "error": "⛔ error"}


def markdown(report: dict, fail_on: str = "error") -> str:
    """A Markdown summary: the verdict, the input and policy, and one table row per check."""
    checks = report["checks"]
    failed = [c for c in checks if _failing(c, fail_on)]
    errored = [c for c in checks if c["status"] == "error"]
    verdict = "FAIL" if failed or errored else "PASS"
    lines = [f"## privaudit: {verdict}", "",
             f"`{_cell(report['input']['path'])}` ({fmt(report['input']['rows'])} rows) against the policy "
             f"**{_cell(report['policy']['name'])}**: {len(failed)} failed, {len(errored)} errored of {len(checks)} "
             "checks.", "",
             "| status | check | assessor | value | threshold | message |", "|---|---|---|---:|---|---|"]
    for c in checks:
        status = _MARK[c["status"]] if c["status"] != "fail" or _failing(c, fail_on) else "⚠️ warning"
        lines.append(f"| {status} | `{_cell(c['id'])}` | {_cell(c['assessor'])} | {_cell(fmt(c['value']))} | "
                     f"{_cell(_threshold(c['threshold']))} | {_cell(c['message'])} |")
    return "\n".join(lines) + "\n"


def _escape_data(text: str) -> str:
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(report: dict, fail_on: str = "error") -> str:
    """GitHub Actions workflow commands: ``::error`` for failing and errored checks, ``::warning`` for failing
    warning checks, on the released file (escaped as the workflow-command syntax requires)."""
    out = []
    path = report["input"]["path"]
    for c in report["checks"]:
        if c["status"] == "pass":
            continue
        level = "error" if c["status"] == "error" or _failing(c, fail_on) else "warning"
        title = _escape_property(f"privaudit {c['id']} ({c['assessor']})")
        out.append(f"::{level} file={_escape_property(path)},title={title}::{_escape_data(c['message'])}")
    return "\n".join(out) + ("\n" if out else "")
