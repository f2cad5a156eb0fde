"""The typed report (privaudit.plugin.result.Report): built once per run and read by every format; its JSON is
the report's bytes and reads back into the same model; each check carries the typed parameters it ran with;
a key the report writes only when set is never null."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from pydantic import ValidationError

from privaudit.plugin.result import Report, ReportCheck
from privaudit.report import json_report
from privaudit.report.json_report import render_json, report_of
from privaudit.testing import audit_frame, run_cli

EXAMPLE = [ROOT / "examples" / "adult" / "release.csv", "--policy", ROOT / "policies" / "adult.yaml"]


@pytest.fixture(scope="module")
def adult():
    from privaudit.pipeline.audit import run_audit

    return run_audit(EXAMPLE[0], EXAMPLE[2])


@pytest.mark.slow  # renders a PDF
def test_every_format_of_one_audit_reads_one_report(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    base = tmp_path / "base.json"
    assert run_cli("audit", *EXAMPLE, "--json", base, "--quiet").code == 0
    built = []
    real = json_report.build_report
    monkeypatch.setattr(json_report, "build_report", lambda audit: built.append(audit) or real(audit))
    outputs = {f: tmp_path / f"r.{f}" for f in ("json", "junit", "html", "pdf", "markdown", "sarif")}
    args = [a for flag, path in outputs.items() for a in (f"--{flag}", path)]
    run = run_cli("audit", *EXAMPLE, *args, "--baseline", base, "--annotations", "github")
    assert run.code == 0, run.stderr
    assert len(built) == 1  # json, junit, html, pdf (and its attached JSON), markdown, sarif, diff, annotations
    assert all(p.stat().st_size > 0 for p in outputs.values())
    assert outputs["json"].read_text() == base.read_text()


def test_the_json_is_the_model_dumped_and_reads_back_into_it(adult):
    report = report_of(adult)
    text = render_json(report)
    assert text == json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    again = Report.model_validate_json(text)
    assert render_json(again) == text  # read back: the same keys, the same figures, the same bytes
    assert report_of(adult) is report  # kept with the run: built once


def test_each_check_carries_the_policy_s_own_parameters(adult):
    report = report_of(adult)
    for check in adult.policy.checks:
        typed = report.check(check.id)
        assert typed.typed_params is check.params
        assert typed.params == check.params.model_dump(mode="json")
    read_back = Report.model_validate_json(render_json(report))
    assert all(c.typed_params is None for c in read_back.checks)  # JSON holds no Python object


def test_a_key_written_only_when_set_is_never_null():
    fields = dict(id="k", assessor="k_anonymity", status="pass", severity="error", value=5, threshold=2)
    fields |= dict(params={}, message="ok", details={})
    assert "better" not in ReportCheck(**fields).to_dict()
    assert ReportCheck(**fields, better="higher").to_dict()["better"] == "higher"
    with pytest.raises(ValidationError, match="better: null"):
        ReportCheck(**fields, better=None)
    with pytest.raises(ValidationError):
        ReportCheck(**fields, surprise=1)  # closed: a key the report does not have


def test_integers_stay_integers_and_infinity_is_a_string():
    fields = dict(id="k", assessor="a", status="pass", severity="error", threshold=2, params={}, message="")
    assert ReportCheck(**fields, value=5, details={}).to_dict()["value"] == 5
    assert isinstance(ReportCheck(**fields, value=5, details={}).to_dict()["value"], int)
    assert ReportCheck(**fields, value="inf", details={}).to_dict()["value"] == "inf"
    with pytest.raises(ValidationError):
        ReportCheck(**fields, value="NaN", details={})
    with pytest.raises(ValidationError):
        ReportCheck(**fields, value=True, details={})


def test_a_remediation_set_after_the_audit_is_reported():
    """The report is kept with the run until what is reported after the audit (a remediation) is set."""
    import pandas as pd

    frame = pd.DataFrame({"zip": ["1", "1", "2", "2"], "age": [30, 30, 40, 40]})
    policy = {
        "columns": {"zip": {"role": "quasi_identifier"}, "age": {"role": "quasi_identifier", "type": "numeric"}},
        "checks": [{"assessor": "k_anonymity", "k": 2}],
    }
    result = audit_frame(frame, policy)
    first = report_of(result)
    assert first.remediation is None and report_of(result) is first
    result.remediation = {"method": "m"}
    with pytest.raises(ValidationError):  # a remediation the report cannot hold is refused, not written
        report_of(result)


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "data" / "golden").glob("*.json")), ids=lambda p: p.stem)
def test_the_golden_reports_follow_the_generated_schema_and_read_back_exactly(path):
    """The golden reports (tests/data/golden, kept without the tool version): valid under the schema generated
    from the model, and read into the model they write the same JSON again."""
    from privaudit.testing import assert_valid_report

    data = json.loads(path.read_text(encoding="utf-8"))
    data["tool"]["version"] = "0"
    assert_valid_report(data)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert render_json(Report.model_validate(data)) == text
