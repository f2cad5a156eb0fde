"""No refactoring changes a figure: the JSON reports of the bundled example and of audits of the shared
datasets (every built-in assessor; tests/data/golden/PROVENANCE.md) are identical to the reports kept in
tests/data/golden, apart from the tool version. Run through the CLI from the repository root."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

G = "tests/data/golden"
SCENARIOS = {
    "example": ["examples/adult/release.csv", "--policy", "policies/adult.yaml"],
    "class": ["tests/data/sdcmicro/testdata.csv", "--policy", f"{G}/class_checks.yaml"],
    "masked": [
        f"{G}/masked400.csv",
        "--policy",
        f"{G}/masked_checks.yaml",
        "--original",
        "tests/data/linkage_distance/adult_head400.csv",
    ],
    "synthetic": [
        f"{G}/synthetic300.csv",
        "--policy",
        f"{G}/synthetic_checks.yaml",
        "--original",
        f"{G}/population1000.csv",
        "--control",
        "tests/data/linkage_distance/adult_head400.csv",
    ],
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_report_is_the_golden_one(name, run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    out = tmp_path / "report.json"
    code, _, err = run_cli("audit", *SCENARIOS[name], "--json", out)
    assert code in (0, 1), err
    report = json.loads(out.read_text())
    report["tool"].pop("version")
    golden = json.loads((ROOT / G / f"{name}.json").read_text())
    for key in golden:
        if key != "checks":
            assert report[key] == golden[key], key
    assert [c["id"] for c in report["checks"]] == [c["id"] for c in golden["checks"]]
    for mine, kept in zip(report["checks"], golden["checks"], strict=False):
        assert mine == kept, mine["id"]
    assert report == golden
