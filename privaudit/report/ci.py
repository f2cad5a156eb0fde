"""The verdict in the forms CI systems read: JUnit XML (one test case per check), SARIF 2.1.0 (for code
scanning dashboards), a Markdown summary (for ``$GITHUB_STEP_SUMMARY``) and GitHub Actions workflow-command
annotations. Each is built from the run's
typed report (:class:`~privaudit.plugin.result.Report`, built once per run), so every format says the same thing.

A check of severity ``warning`` that fails is a JUnit ``<failure>`` and a GitHub ``::error`` only with
``fail_on="warning"`` (``--fail-on warning``); otherwise it is a test case that passes with its message in
``<system-out>``, and a ``::warning``. A failing check that one of the policy's exceptions accepts (``excepted``)
fails none of them: JUnit's ``<system-out>`` says EXCEPTED with the justification and approver, Markdown marks
it "excepted" and lists the exceptions, GitHub gets a ``::notice``, and SARIF a result with an accepted
external suppression (SARIF 2.1.0 section 3.35: ``suppressions``, ``kind: external``, ``status: accepted``).
"""

from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from privaudit.plugin.result import Report, ReportCheck
from privaudit.plugin.text import fmt, printable


def _failing(check: ReportCheck, fail_on: str) -> bool:
    """A failing check that fails the run: of severity error (or any, with ``fail_on="warning"``), and
    accepted by no exception in force."""
    return check.status == "fail" and check.excepted is None and (check.severity == "error" or fail_on == "warning")


def excepted_text(check: ReportCheck) -> str:
    """The exception that accepts a failing check, in one line (empty when none does)."""
    e = check.excepted
    if e is None:
        return ""
    return f"excepted ({e.approver.name}, {e.approver.role}, until {e.expires}): {e.justification}"


def junit_xml(report: Report, fail_on: str = "error") -> str:
    """JUnit XML: a ``<testsuite>`` per audit, a ``<testcase>`` per check (classname ``privaudit.<assessor>``,
    name the check id), ``<failure>`` for failing checks and ``<error>`` for checks that ended in error."""
    checks = report.checks
    failures = sum(_failing(c, fail_on) for c in checks)
    errors = sum(c.status == "error" for c in checks)
    suites = ET.Element(
        "testsuites", name="privaudit", tests=str(len(checks)), failures=str(failures), errors=str(errors)
    )
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=str(report.policy.name),
        tests=str(len(checks)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        timestamp=str(report.generated_at).rstrip("Z"),
        hostname="privaudit",
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("input", report.input.path),
        ("input.sha256", report.input.sha256),
        ("policy", report.policy.path),
        ("engine", report.engine),
        ("privaudit", report.tool.version),
    ):
        ET.SubElement(props, "property", name=name, value=str(value))
    for c in checks:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"privaudit.{c.assessor}",
            name=printable(c.id),
            time="0.000",  # the report holds no timings: the same inputs give the same bytes
        )
        message = printable(c.message)  # XML 1.0 cannot hold control characters
        text = f"value {fmt(c.value)}, threshold {_threshold(c.threshold)}: {message}"
        if c.status == "error":
            ET.SubElement(case, "error", message=message, type="error").text = text
        elif c.excepted is not None:
            ET.SubElement(
                case, "system-out"
            ).text = f"EXCEPTED (severity {c.severity}): {text}; {printable(excepted_text(c))}"
        elif _failing(c, fail_on):
            ET.SubElement(case, "failure", message=message, type=f"{c.severity} check failed").text = text
        elif c.status == "fail":
            ET.SubElement(case, "system-out").text = f"WARNING (severity warning): {text}"
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _threshold(threshold: Any) -> str:
    if isinstance(threshold, dict):
        return ", ".join(f"{k} {fmt(v)}" for k, v in threshold.items())
    return fmt(threshold)


#: Markdown syntax a value could use to become markup (GFM 0.29: raw HTML, links, images, emphasis, code,
#: table cells); each is backslash-escaped (CommonMark section 2.4: any ASCII punctuation may be).
_MD_SYNTAX = re.compile(r"([\\`*\[\]<>&|~])")


def _one_line(text: Any) -> str:
    """``text`` on one line, control and bidi characters shown as escapes."""
    return printable(str(text).replace("\r", " ").replace("\n", " "))


def _cell(text: Any) -> str:
    """``text`` as the plain text of one Markdown table cell: :func:`_one_line`, Markdown and HTML syntax
    escaped (a column named ``<img src=…>`` must not fetch an image in a rendered job summary)."""
    return _MD_SYNTAX.sub(r"\\\1", _one_line(text))


def _code(text: Any) -> str:
    """``text`` as a code span in a table cell: backslash escapes do not work inside code spans, so only
    ``|`` is escaped (GFM splits cells first) and the fence is longer than any run of backticks inside."""
    text = _one_line(text).replace("|", "\\|")
    fence = "`" * (max((len(m) for m in re.findall("`+", text)), default=0) + 1)
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_MARK = {"pass": "✅ pass", "fail": "❌ fail", "error": "⛔ error"}


def markdown(report: Report, fail_on: str = "error") -> str:
    """A Markdown summary: the verdict, the input and policy, and one table row per check."""
    checks = report.checks
    failed = [c for c in checks if _failing(c, fail_on)]
    errored = [c for c in checks if c.status == "error"]
    excepted = [c for c in checks if c.status == "fail" and c.excepted is not None]
    warned = [c for c in checks if c.status == "fail" and not _failing(c, fail_on) and c.excepted is None]
    verdict = "FAIL" if failed or errored else "PASS"
    lines = [
        f"## privaudit: {verdict}",
        "",
        f"{_code(report.input.path)} ({fmt(report.input.rows)} rows) against the policy "
        f"**{_cell(report.policy.name)}**: {len(failed)} failed, {len(warned)} warned, "
        f"{len(errored)} errored of {len(checks)} "
        "checks" + (f"; {len(excepted)} failing accepted by the policy's exceptions." if excepted else "."),
        "",
        "| status | check | assessor | value | threshold | message |",
        "|---|---|---|---:|---|---|",
    ]
    for c in checks:
        status = _MARK[c.status] if c.status != "fail" or _failing(c, fail_on) else "⚠️ warning"
        if c.excepted is not None:
            status = "🟡 excepted"
        message = c.message + (f" ({excepted_text(c)})" if c.excepted is not None else "")
        lines.append(
            f"| {status} | {_code(c.id)} | {_cell(c.assessor)} | {_cell(fmt(c.value))} | "
            f"{_cell(_threshold(c.threshold))} | {_cell(message)} |"
        )
    lines += _exceptions_markdown(report)
    from privaudit.report.lost_table import markdown as lost_markdown

    lost = (report.remediation.lost if report.remediation else None) or (
        report.explore.lost if report.explore else None
    )
    if (report.explore is not None and report.explore.no_change_needed) or (
        report.remediation is not None and report.remediation.no_change_needed
    ):
        lines += ["", "**No change needed**: the table already passes the policy; nothing written."]
    elif lost is not None:
        lines += lost_markdown(lost.to_dict(), _cell)
    if report.remediation is not None and report.remediation.recipe is not None:
        from privaudit.report.recipe_table import markdown as recipe_markdown

        lines += recipe_markdown(report.remediation.recipe.to_dict(), _cell)
    return "\n".join(lines) + "\n"


def _exceptions_markdown(report: Report) -> list[str]:
    """The policy's exceptions, one row each: the check, who approved it, its period, whether it was in force."""
    if not report.exceptions:
        return []
    lines = [
        "",
        "**Exceptions** (the policy's, as judged on the audit's day):",
        "",
        "| check | approver | date | expires | in force | justification |",
        "|---|---|---|---|---|---|",
    ]
    for e in report.exceptions:
        lines.append(
            f"| {_code(e.check)} | {_cell(f'{e.approver.name}, {e.approver.role}')} | {e.date} | {e.expires} | "
            f"{'yes' if e.in_force else 'no'}: {_cell(e.note)} | {_cell(e.justification)} |"
        )
    return lines


def _escape_data(text: str) -> str:
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(report: Report, fail_on: str = "error") -> str:
    """GitHub Actions workflow commands: ``::error`` for failing and errored checks, ``::warning`` for failing
    warning checks, on the released file (escaped as the workflow-command syntax requires)."""
    out = []
    path = report.input.path
    for c in report.checks:
        if c.status == "pass":
            continue
        level = "error" if c.status == "error" or _failing(c, fail_on) else "warning"
        if c.excepted is not None:
            level = "notice"
        title = _escape_property(f"privaudit {c.id} ({c.assessor})")
        out.append(f"::{level} file={_escape_property(path)},title={title}::{_escape_data(c.message)}")
    return "\n".join(out) + ("\n" if out else "")


SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _uri(path: str) -> str:
    """A SARIF artifact URI: object-store URIs as they are, absolute paths as ``file://`` URIs, relative
    paths percent-encoded (SARIF 2.1.0 section 3.4.3: a URI reference)."""
    text = str(path)
    if "://" in text:
        return text
    if text.startswith("/"):
        return "file://" + quote(text)
    return quote(PurePosixPath(text).as_posix())


def _suppression(check: ReportCheck) -> dict[str, Any]:
    """SARIF 2.1.0's suppression of a result (section 3.35) for a failing check an exception accepts: kept
    outside the data (``external``: the policy), ``accepted``, with its justification and approver."""
    e = check.excepted
    assert e is not None
    return {
        "kind": "external",
        "status": "accepted",
        "justification": printable(e.justification),
        "properties": {
            "approver": printable(e.approver.name),
            "role": printable(e.approver.role),
            "date": e.date,
            "expires": e.expires,
        },
    }


def _sarif_result(c: ReportCheck, policy: str, rule: int, uri: str, fail_on: str) -> dict[str, Any]:
    """One check as a SARIF ``result`` (section 3.27) located on the released data; a check an exception
    accepts carries the suppression (:func:`_suppression`)."""
    if c.status == "pass":
        kind, level = "pass", "none"
    elif c.status == "error" or _failing(c, fail_on):
        kind, level = "fail", "error"
    else:  # a failing warning, or a check an exception accepts (at its own severity, suppressed)
        kind, level = "fail", "error" if c.excepted is not None and c.severity == "error" else "warning"
    identity = hashlib.sha256(f"{policy}\0{c.id}".encode()).hexdigest()
    suppressed = {} if c.excepted is None else {"suppressions": [_suppression(c)]}
    return {
        "ruleId": c.assessor,
        "ruleIndex": rule,
        "kind": kind,
        "level": level,
        "message": {"text": printable(c.message) or printable(c.id)},
        "locations": [
            {
                "physicalLocation": {"artifactLocation": {"uri": uri, "index": 0}},
                "logicalLocations": [{"name": printable(c.id), "kind": "object"}],
            }
        ],
        "partialFingerprints": {"privauditCheck/v1": identity},
        **suppressed,
        "properties": {
            "check": c.id,
            "status": c.status,
            "severity": c.severity,
            "value": c.value,
            "threshold": c.threshold,
        },
    }


def sarif(report: Report, fail_on: str = "error", assessors: Mapping[str, Any] | None = None) -> str:
    """SARIF 2.1.0: one ``reportingDescriptor`` (rule) per assessor used, one result per check.

    A failing check is ``kind: fail`` with ``level: error`` (or ``warning`` for a warning-severity check
    unless ``fail_on="warning"``); a check that ended in error is ``kind: fail``, ``level: error`` with
    ``properties.status: error``; a passing check is ``kind: pass``, ``level: none``. Every result is
    located on the released data (``artifacts[0]``, with its SHA-256) and names its check as a logical
    location; ``partialFingerprints`` keep a check's identity across runs (policy name + check id).
    ``invocations[0].exitCode`` is the audit's exit code. ``assessors`` (name -> Assessor) gives rules
    their titles, descriptions and references.
    """
    assessors = assessors or {}
    checks = report.checks
    names = list(dict.fromkeys(c.assessor for c in checks))
    rules = [_sarif_rule(name, assessors.get(name)) for name in names]
    artifact = {"location": {"uri": _uri(report.input.path)}}
    if report.input.sha256:
        artifact["hashes"] = {"sha-256": report.input.sha256}
    uri = artifact["location"]["uri"]
    results = [_sarif_result(c, report.policy.name, names.index(c.assessor), uri, fail_on) for c in checks]
    failed = any(_failing(c, fail_on) for c in checks)
    errored = any(c.status == "error" for c in checks)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "privaudit",
                        "version": str(report.tool.version),
                        "semanticVersion": str(report.tool.version),
                        "rules": rules,
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not errored,
                        "exitCode": 2 if errored else 1 if failed else 0,
                        "endTimeUtc": report.generated_at,
                    }
                ],
                "artifacts": [artifact],
                "results": results,
                "properties": {
                    "policy": report.policy.name,
                    "policySha256": report.policy.sha256,
                    "engine": report.engine,
                },
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _sarif_rule(name: str, a: Any) -> dict[str, Any]:
    """The SARIF ``reportingDescriptor`` (SARIF 2.1.0 section 3.49) of assessor ``name`` (``a``: its
    Assessor, or None if unknown)."""
    rule: dict[str, Any] = {
        "id": name,
        "name": name,
        "shortDescription": {"text": printable(getattr(a, "title", None) or name)},
    }
    if a is not None and a.measures:
        rule["fullDescription"] = {"text": printable(f"Measures {a.measures}.")}
    help_text = " ".join(printable(t) for t in (getattr(a, "formula", ""), getattr(a, "reference", "")) if t)
    if help_text:
        rule["help"] = {"text": help_text}
    if a is not None:
        rule["properties"] = {"protects": a.protects}
    return rule
