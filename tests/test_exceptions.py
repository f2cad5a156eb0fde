"""A failing check accepted on the record: the policy's ``exceptions`` (after ACRO's exception requests, SACRO
project, github.com/AI-SDC/ACRO: an output failing a rule is released when its justification is accepted by an
output checker). Through the command line and ``privaudit.audit``: an exception in force turns the exit code to 0
and is counted, an expired one no longer applies and says so, an error check needs the policy's allowance, bad
exceptions are one line naming the field; the diff and the baseline gate honour exceptions; the HTML/PDF list
them beside the sign-off; Markdown, JUnit and SARIF mark excepted checks (SARIF 2.1.0 section 3.35,
suppressions)."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET

import pandas as pd
import pytest
import yaml
from conftest import ROOT

import privaudit
from privaudit.core.errors import PrivauditError
from privaudit.testing import run_cli

# 12 records; over (age, sex) the smallest class has 1 record, over age alone 4
TABLE = pd.DataFrame(
    {
        "age": ["20-29"] * 4 + ["30-39"] * 4 + ["40-49"] * 4,
        "sex": ["f", "f", "f", "m", "f", "f", "m", "m", "f", "m", "m", "m"],
        "income": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    }
)
APPROVER = {"name": "A. Checker", "role": "output checker"}
JUSTIFICATION = "The single man of 20-29 is published in the census tables of the same area."


def policy(severity: str = "warning", allow: bool | None = None, **exception) -> dict:
    """A policy whose check ``small`` (k=3 over age and sex) fails with value 1, and one exception of it."""
    doc = {
        "version": 1,
        "name": "exceptions",
        "columns": {
            "age": {"role": "quasi_identifier"},
            "sex": {"role": "quasi_identifier"},
            "income": {"role": "sensitive", "type": "numeric"},
        },
        "checks": [
            {"id": "coarse", "assessor": "k_anonymity", "k": 2, "quasi_identifiers": ["age"]},
            {"id": "small", "assessor": "k_anonymity", "k": 3, "severity": severity},
        ],
        "exceptions": [
            {
                "check": "small",
                "justification": JUSTIFICATION,
                "approver": APPROVER,
                "date": "2026-01-05",
                "expires": "2026-12-31",
                **exception,
            }
        ],
    }
    if allow is not None:
        doc["allow_error_exceptions"] = allow
    return doc


@pytest.fixture
def folder(tmp_path):
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    return tmp_path


def audit(folder, doc, *extra):
    (folder / "policy.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return run_cli("audit", folder / "t.csv", "--policy", folder / "policy.yaml", "--json", folder / "r.json", *extra)


def report(folder) -> dict:
    return json.loads((folder / "r.json").read_text())


# ------------------------------------------------------------------------------------------ the verdict
def test_a_warning_excepted_exits_0_and_is_counted(folder):
    run = audit(folder, policy(), "--today", "2026-06-01", "--fail-on", "warning")
    assert run.code == 0, run.stderr
    assert "1 failing check excepted by the policy" in run.stdout
    assert re.search(r"WARN\s+small .*\[excepted \(A\. Checker, output checker, until 2026-12-31\)\]", run.stdout)
    r = report(folder)
    assert r["summary"] == {
        "passed": True,
        "checks_total": 5,
        "checks_failed": 0,
        "checks_warned": 0,
        "checks_errored": 0,
        "checks_excepted": 1,
    }
    small = next(c for c in r["checks"] if c["id"] == "small")
    assert small["status"] == "fail" and small["value"] == 1
    assert small["excepted"]["approver"] == APPROVER and small["excepted"]["applied"] is True
    assert r["exceptions"] == [small["excepted"]]
    # no other check carries the key; a run without exceptions writes neither key
    assert [c["id"] for c in r["checks"] if "excepted" in c] == ["small"]


def test_without_exceptions_the_report_has_no_new_keys(folder):
    doc = policy()
    del doc["exceptions"]
    assert audit(folder, doc, "--fail-on", "warning").code == 1
    r = report(folder)
    assert "exceptions" not in r and "checks_excepted" not in r["summary"]
    assert all("excepted" not in c for c in r["checks"])


def test_an_expired_exception_no_longer_applies(folder):
    run = audit(folder, policy("error", allow=True), "--today", "2027-01-01")
    assert run.code == 1, run.stderr
    assert "exception expired on 2026-12-31" in run.stdout
    r = report(folder)
    assert r["summary"]["checks_failed"] == 1 and "checks_excepted" not in r["summary"]
    (entry,) = r["exceptions"]
    assert entry["in_force"] is False and entry["applied"] is False
    assert entry["note"] == "exception expired on 2026-12-31"
    assert "excepted" not in next(c for c in r["checks"] if c["id"] == "small")
    # the last day is still in force
    assert audit(folder, policy("error", allow=True), "--today", "2026-12-31").code == 0


def test_an_error_check_excepted_with_the_allowance(folder):
    run = audit(folder, policy("error", allow=True), "--today", "2026-06-01")
    assert run.code == 0, run.stderr
    assert report(folder)["summary"]["checks_excepted"] == 1


def test_the_clock_is_source_date_epoch(folder, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(pd.Timestamp("2027-03-01", tz="UTC").timestamp())))
    assert audit(folder, policy(), "--fail-on", "warning").code == 1
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(pd.Timestamp("2026-03-01", tz="UTC").timestamp())))
    assert audit(folder, policy(), "--fail-on", "warning").code == 0


def test_max_value_holds_in_the_checks_direction(folder):
    # k-anonymity: higher is better, so max_value 2 asks for a smallest class of at least 2; it is 1
    run = audit(folder, policy(max_value=2), "--today", "2026-06-01", "--fail-on", "warning")
    assert run.code == 1
    assert "covers the check only while its value is at least 2" in run.stdout
    assert audit(folder, policy(max_value=1), "--today", "2026-06-01", "--fail-on", "warning").code == 0


def test_the_python_api(tmp_path):
    result = privaudit.audit(TABLE, policy("error", allow=True), today="2026-06-01")
    assert result.passed
    assert result.to_dict()["summary"]["checks_excepted"] == 1
    expired = privaudit.audit(TABLE, policy("error", allow=True), today="2027-01-01")
    assert not expired.passed
    with pytest.raises(PrivauditError, match=r"^today: expected a date YYYY-MM-DD"):
        privaudit.audit(TABLE, policy(), today="June")


# ------------------------------------------------------------------------------------------ bad exceptions
@pytest.mark.parametrize(
    "change, line",
    [
        ({"check": "smal"}, r"exceptions\[0\]\.check: 'smal' is not a check of the policy \(did you mean 'small'\?\)"),
        ({"expires": "2025-12-31"}, r"exceptions\[0\]: expires 2025-12-31 is not after date 2026-01-05"),
        ({"justification": "  "}, r"exceptions\[0\]\.justification: an exception needs a justification"),
        ({"date": 20260105}, r"exceptions\[0\]\.date: expected an ISO date"),
        ({"approver": {"name": "A. Checker"}}, r"exceptions\[0\]\.approver\.role: required field is missing"),
    ],
)
def test_bad_exceptions_are_one_line(folder, change, line):
    run = audit(folder, policy(**change))
    assert run.code == 2 and run.stderr.count("\n") == 1, run.stderr
    assert re.search(line, run.stderr), run.stderr


def test_an_error_check_needs_the_allowance(folder):
    for allow in (None, False):
        run = audit(folder, policy("error", allow=allow))
        assert run.code == 2 and run.stderr.count("\n") == 1, run.stderr
        assert "exceptions[0].check: 'small' is a check of severity error" in run.stderr
        assert "allow_error_exceptions: true" in run.stderr
    # an always-run check is of severity error too, and may be named
    run = audit(folder, policy(check="direct_identifiers"))
    assert run.code == 2 and "'direct_identifiers' is a check of severity error" in run.stderr


# ------------------------------------------------------------------------------------------ diff and gate
@pytest.mark.slow
def test_diff_and_baseline_honour_exceptions(folder):
    doc = policy()
    del doc["exceptions"]
    base = dict(doc, checks=[doc["checks"][0], dict(doc["checks"][1], k=1)])  # passes
    assert audit(folder, base).code == 0
    (folder / "r.json").rename(folder / "base.json")
    assert audit(folder, policy(), "--today", "2026-06-01", "--fail-on", "warning").code == 0
    diff = run_cli("diff", folder / "base.json", folder / "r.json", "--fail-on", "warning", "--allow-changed-policy")
    assert diff.code == 0, diff.stdout + diff.stderr
    assert re.search(r"excepted \(A\. Checker, output checker, until 2026-12-31\)\s+small", diff.stdout)
    gate = ("--baseline", folder / "base.json", "--fail-on", "warning", "--allow-changed-policy")
    assert audit(folder, policy(), "--today", "2026-06-01", *gate).code == 0
    expired = audit(folder, policy(), "--today", "2027-06-01", *gate)
    assert expired.code == 1 and re.search(r"REGRESSION\s+small", expired.stdout)


# ------------------------------------------------------------------------------------------ reports
def test_ci_formats_mark_excepted_checks(folder):
    run = audit(
        folder,
        policy(),
        "--today",
        "2026-06-01",
        "--fail-on",
        "warning",
        *("--markdown", folder / "r.md", "--junit", folder / "r.xml", "--sarif", folder / "r.sarif"),
        *("--annotations", "github"),
    )
    assert run.code == 0, run.stderr
    assert "::notice file=" in run.stdout and "::error" not in run.stdout
    md = (folder / "r.md").read_text()
    assert "## privaudit: PASS" in md and "🟡 excepted | `small`" in md
    assert "| `small` | A. Checker, output checker | 2026-01-05 | 2026-12-31 | yes: in force until 2026-12-31 |" in md
    case = ET.parse(folder / "r.xml").getroot().find(".//testcase[@name='small']")
    assert case.find("failure") is None and case.find("system-out").text.startswith("EXCEPTED (severity warning)")
    log = json.loads((folder / "r.sarif").read_text())
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(log, json.loads((ROOT / "tests/data/schemas/sarif-schema-2.1.0.json").read_text()))
    run0 = log["runs"][0]
    (result,) = [r for r in run0["results"] if r["properties"]["check"] == "small"]
    assert result["suppressions"][0]["status"] == "accepted" and result["suppressions"][0]["kind"] == "external"
    assert result["suppressions"][0]["justification"] == JUSTIFICATION
    assert run0["invocations"][0]["exitCode"] == 0


@pytest.mark.slow
def test_html_lists_every_exception_beside_the_sign_off(folder):
    assert audit(folder, policy(), "--today", "2027-06-01", "--html", folder / "r.html").code == 0
    page = (folder / "r.html").read_text()
    signoff = page[page.index('<section id="signoff"') :]
    assert '<h4 id="exceptions">Exceptions</h4>' in signoff
    for text in (JUSTIFICATION, "A. Checker", "output checker", "2026-01-05 to 2026-12-31"):
        assert text in signoff
    assert "no: exception expired on 2026-12-31" in signoff
    assert audit(folder, policy(), "--today", "2026-06-01", "--html", folder / "r.html").code == 0
    page = (folder / "r.html").read_text()
    assert "yes: in force until 2026-12-31" in page[page.index('<section id="signoff"') :]
    assert '<span class="badge EXCEPTED">EXCEPTED</span>' in page
    assert "Accepted by the policy's exception</strong> of 2026-01-05, approved by A. Checker (output checker)" in page


@pytest.mark.slow
def test_pdf_lists_the_exception_on_the_sign_off_page(folder):
    pypdf = pytest.importorskip("pypdf")
    assert audit(folder, policy(), "--today", "2026-06-01", "--pdf", folder / "r.pdf").code == 0
    reader = pypdf.PdfReader(io.BytesIO((folder / "r.pdf").read_bytes()))
    last = " ".join(reader.pages[-1].extract_text().split())
    assert "Sign-off" in last and "Exceptions" in last
    for text in ("A. Checker", "output checker", "2026-01-05", "in force until 2026-12-31", "census tables"):
        assert text in last, last
