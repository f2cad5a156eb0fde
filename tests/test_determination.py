"""The policy's context block, the threshold derived from it, and the determination document.

Thresholds: K. El Emam, Guide to the De-Identification of Personal Health Information (CRC 2013) ch. 5-6;
El Emam & Arbuckle, Anonymizing Health Data (O'Reilly 2013) ch. 2; 0.09 for public release as EMA Policy 0070's
external guidance (2018) 4.2.3 and Health Canada PRCI (2019) 5.3.2 apply it (privaudit's table:
docs/determination.md). Risk figures: the prosecutor model's maximum 1/min f_k and average c/n (El Emam 2013
ch. 16-18), recomputed here with pandas' groupby, independently of privaudit's packed keys."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

import privaudit
from privaudit.common.numbers import fmt
from privaudit.core.release_context import ReleaseContextSpec, derive_threshold
from privaudit.testing import run_cli

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "examples" / "adult"
POLICY = ROOT / "policies" / "adult_determination.yaml"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]


@pytest.mark.parametrize(
    ("context", "value", "measure"),
    [
        ({"release_model": "public_use"}, 0.05, "maximum"),
        ({"release_model": "public_use", "invasion_of_privacy": "medium"}, 0.075, "maximum"),
        ({"release_model": "public_use", "invasion_of_privacy": "low", "controls": ["contract"]}, 0.09, "maximum"),
        ({"release_model": "synthetic", "invasion_of_privacy": "low"}, 0.09, "maximum"),
        (
            {
                "release_model": "scientific_use",
                "controls": ["security", "contract", "audit"],
                "invasion_of_privacy": "medium",
                "motives_capacity": "low",
            },
            0.2,
            "average",
        ),
        (
            {"release_model": "scientific_use", "controls": ["contract", "audit"], "invasion_of_privacy": "low"},
            0.075,  # two controls 0.09, motives and capacity high (the default): one step lower
            "average",
        ),
        (
            {"release_model": "secure_enclave", "controls": ["contract"], "invasion_of_privacy": "high"},
            0.075,
            "average",
        ),
        ({"release_model": "scientific_use"}, 0.05, "average"),  # no control, high, high: the ladder's floor
    ],
)
def test_threshold_table(context, value, measure):
    derived = derive_threshold(ReleaseContextSpec(**context))
    assert (derived.value, derived.measure) == (value, measure)
    assert derived.steps and "El Emam" in derived.source


def _policy(tmp_path: Path, context: str, checks: str = "") -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(
        "version: 1\nname: t\ndata: {delimiter: ';', missing: ['?']}\n"
        f"context: {context}\n"
        "columns:\n  sex: {role: quasi_identifier}\n  race: {role: quasi_identifier}\n"
        "  occupation: {role: sensitive}\n"
        f"checks:\n{checks or '  - {assessor: k_anonymity, k: 2}'}\n"
    )
    return path


@pytest.mark.slow
def test_context_value_outside_the_allowed_set_is_one_line(tmp_path):
    policy = _policy(tmp_path, "{release_model: scientific_use, controls: [firewall]}")
    run = run_cli("policy", "check", policy)
    assert run.code == 2
    assert "context.controls" in run.stderr and len(run.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_context_fills_and_judges_the_risk_bound(tmp_path):
    checks = (
        "  - {assessor: reidentification_risk}\n"
        "  - {id: given, assessor: reidentification_risk, max_risk: 0.1, measure: average}\n"
    )
    policy = _policy(tmp_path, "{release_model: public_use, invasion_of_privacy: medium}", checks)
    run = run_cli("audit", ADULT / "release.csv", "--policy", policy, "--json", "-", "--quiet")
    report = json.loads(run.stdout)
    params = {c["id"]: c["params"] for c in report["checks"]}
    assert params["reidentification_risk"]["max_risk"] == 0.075
    assert params["reidentification_risk"]["measure"] == "highest"  # public release: the maximum risk
    findings = {f["check"]: f for f in report["context"]["findings"]}
    assert findings["reidentification_risk"]["supported"] and findings["reidentification_risk"]["derived"]
    assert not findings["given"]["supported"]
    assert "0.1 is above" in findings["given"]["note"] and "maximum" in findings["given"]["note"]


def _expected_risk(frame: pd.DataFrame) -> tuple[float, float]:
    sizes = frame.groupby(QIS, dropna=False).size()
    return 1 / sizes.min(), len(sizes) / len(frame)


@pytest.fixture(scope="module")
def determination_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("determination")
    run = run_cli(
        "determination",
        ADULT / "release.csv",
        "--policy",
        POLICY,
        "--original",
        ADULT / "adult.csv",
        "--docx",
        out / "d.docx",
        "--html",
        out / "d.html",
        "--pdf",
        out / "d.pdf",
        "--role",
        "Chief privacy officer",
        "--conditions",
        "kept on the recipient's secure server",
    )
    return run, out


@pytest.mark.slow
def test_determination_docx_reads_back(determination_run):
    import docx

    run, out = determination_run
    assert run.code == 0, run.stderr
    document = docx.Document(str(out / "d.docx"))
    headings = [p.text for p in document.paragraphs if p.style.name.startswith("Heading")]
    for title in (
        "Determination",
        "Context and threshold",
        "Identifiers and quasi-identifiers",
        "Initial and residual risk",
        "Article 29 Working Party criteria (Opinion 05/2014)",
        "Motivated intruder (UK ICO)",
        "HIPAA Expert Determination elements",
        "Conditions, review and signature",
    ):
        assert title in headings
    tables = {t.rows[0].cells[0].text: t for t in document.tables}
    risk = tables["Figure"]
    rows = {r.cells[0].text: [c.text for c in r.cells[1:]] for r in risk.rows[1:]}
    original = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    release = pd.read_csv(ADULT / "release.csv", sep=";", dtype=str, keep_default_na=False)
    (omax, oavg), (rmax, ravg) = _expected_risk(original), _expected_risk(release)
    assert rows["Prosecutor (sample), maximum"][:2] == [fmt(omax), fmt(rmax)]
    assert rows["Prosecutor (sample), average"] == [
        fmt(oavg),
        fmt(ravg),
        "0.2",  # scientific use, every control, medium / medium: El Emam's 0.2 on the average risk
    ]
    techniques = {r.cells[0].text: r.cells[2].text for r in tables["Column"].rows[1:]}
    assert techniques["age"] == "generalized" and techniques["race"] == "removed" and techniques["sex"] == "suppressed"
    assert {r.cells[4].text for r in tables["Column"].rows[1:]} >= {"Generalization technique"}
    text = "\n".join(p.text for p in document.paragraphs)
    assert "Role: Chief privacy officer" in text and "Name: A. Officer" in text  # option, then the policy
    assert "kept on the recipient's secure server" in {c.text for t in document.tables for r in t.rows for c in r.cells}
    assert "very small" in text
    attacks = [[c.text for c in r.cells] for r in tables["Attack"].rows[1:]]
    linkage = attacks[0]
    assert linkage[0].startswith("Linkage") and linkage[1] == "record_linkage (pass)"
    assert {"Membership (was a person's record used)", "—", "not simulated"} <= {c for r in attacks for c in r}


@pytest.mark.slow
def test_determination_pdf_is_a_few_pages_with_the_audit_attached(determination_run):
    import pypdf

    _, out = determination_run
    reader = pypdf.PdfReader(str(out / "d.pdf"))
    assert 2 <= len(reader.pages) <= 5
    attachments = reader.attachments
    assert set(attachments) == {"report.json", "policy.yaml"}
    report = json.loads(attachments["report.json"][0])
    assert report["context"]["threshold"] == 0.2 and report["context"]["measure"] == "average"
    assert attachments["policy.yaml"][0] == POLICY.read_bytes()


@pytest.mark.slow
def test_no_raw_value_in_the_document(determination_run):
    _, out = determination_run
    html = (out / "d.html").read_text()
    original = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    for value in ("Never-married", "Prof-school", "Amer-Indian-Eskimo", "Craft-repair", "Self-emp-inc"):
        assert value in set(original.to_numpy().ravel())
        assert value not in html


@pytest.mark.slow
def test_api_from_a_json_report_gives_the_cli_figures(tmp_path):
    report = tmp_path / "r.json"
    audit = ("audit", ADULT / "release.csv", "--policy", POLICY, "--original", ADULT / "adult.csv")
    assert run_cli(*audit, "--json", report, "--quiet").code == 0
    from_report = privaudit.determination(report=report, original=ADULT / "adult.csv", signer="B. Officer")
    direct = privaudit.determination(ADULT / "release.csv", POLICY, ADULT / "adult.csv")
    assert from_report.figures == direct.figures
    assert from_report.very_small and from_report.figures["threshold"] == 0.2
    import docx

    text = "\n".join(p.text for p in docx.Document(io.BytesIO(from_report.to_docx())).paragraphs)
    assert "Name: B. Officer" in text


def test_report_of_another_table_is_refused(tmp_path):
    report = tmp_path / "r.json"
    policy = ROOT / "policies" / "adult.yaml"
    assert run_cli("audit", ADULT / "release.csv", "--policy", policy, "--json", report, "--quiet").code == 0
    run = run_cli(
        "determination",
        ADULT / "adult.csv",
        "--report",
        report,
        "--original",
        ADULT / "adult.csv",
        "--html",
        tmp_path / "x.html",
    )
    assert run.code == 2 and "input.sha256" in run.stderr and not (tmp_path / "x.html").exists()


def test_determination_needs_an_output(tmp_path):
    run = run_cli("determination", ADULT / "release.csv", "--policy", POLICY, "--original", ADULT / "adult.csv")
    assert run.code == 2 and "--html, --pdf or --docx" in run.stderr


def _report(checks: list[dict], exceptions: list[dict] | None = None) -> dict:
    return {
        "tool": {"name": "privaudit", "version": "0"},
        "generated_at": "2026-01-02T03:04:05Z",
        "policy": {"name": "p", "path": "p.yaml", "sha256": "0" * 64},
        "input": {"path": "r.csv", "rows": 10, "columns": ["zip", "age"], "sha256": "1" * 64},
        "summary": {
            "passed": True,
            "checks_total": len(checks),
            "checks_failed": 0,
            "checks_warned": 0,
            "checks_errored": 0,
        },
        "scope": {"identifiers": ["name"], "quasi_identifiers": ["zip", "age"]},
        "checks": checks,
        **({"exceptions": exceptions} if exceptions else {}),
    }


def _figures(report: dict, residual_max: float) -> dict:
    risk = {"maximum": residual_max, "average": residual_max / 4}
    same = {"prosecutor": risk, "journalist": risk, "classes": 3, "records": 10, "uniques": 0.0, "population": "sample"}
    initial = {**same, "prosecutor": {"maximum": 1.0, "average": 0.5}, "journalist": {"maximum": 1.0, "average": 0.5}}
    return {"report": report, "initial": initial, "residual": same, "lost": None}


def test_safe_harbor_exceptions_and_the_frameworks_from_what_assessors_declare():
    """HIPAA Safe Harbor (45 CFR 164.514(b)(2)) is shown where its check ran, with the exceptions on record
    (ACRO's exception requests); WP29 Opinion 05/2014's criteria and the ICO's attacks come from each assessor's
    declared ``standards``, else from ``protects``/``needs`` (k-anonymity: singling out)."""
    from privaudit.pipeline.plugins import get_registry
    from privaudit.report.determination.build import build_document

    checks = [
        {"id": "k", "assessor": "k_anonymity", "status": "pass", "severity": "error", "message": "k=5"},
        {
            "id": "sh",
            "assessor": "safe_harbor",
            "status": "fail",
            "severity": "warning",
            "message": "zip kept",
            "excepted": {"check": "sh"},
        },
        {"id": "link", "assessor": "record_linkage", "status": "fail", "severity": "error", "message": "3% linked"},
    ]
    exception = {
        "check": "sh",
        "approver": {"name": "B", "role": "officer"},
        "date": "2026-01-01",
        "note": "in force until 2026-12-31",
        "justification": "zip is 3-digit",
    }
    document = build_document(_figures(_report(checks, [exception]), 0.05), get_registry(), {"signer": "S"})
    sections = {s.title: s for s in document.sections}
    hipaa = {row[0]: row[1] for row in sections["HIPAA Expert Determination elements"].tables[0].rows}
    assert hipaa["Safe Harbor check"] == "sh: fail, excepted"
    assert sections["HIPAA Expert Determination elements"].tables[1].rows[0][:2] == ["sh", "B (officer), 2026-01-01"]
    wp29 = {row[0]: row for row in sections["Article 29 Working Party criteria (Opinion 05/2014)"].tables[0].rows}
    assert "k (pass)" in wp29["Singling out"][1] and "sh (fail, excepted)" in wp29["Singling out"][1]
    assert wp29["Linkability"][1:] == ["link (fail)", "fail"]
    assert wp29["Inference"][1:] == ["not assessed", "—"]
    # no context in the report: the most protective one is assumed, 0.05 on the maximum risk
    assert document.figures["threshold"] == 0.05 and document.figures["measure"] == "maximum"
    assert document.figures["very_small"]  # 0.05 is within 0.05 and the audit passed
    assert not build_document(_figures(_report(checks), 0.06), get_registry(), {}).figures["very_small"]
    names = {row[0]: row[2] for row in sections["Identifiers and quasi-identifiers"].tables[0].rows}
    assert names == {"name": "removed", "zip": "none", "age": "none"}  # a raw audit: no remediation recorded
