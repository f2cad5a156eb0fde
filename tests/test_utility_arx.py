"""Utility measures against ARX 3.9's own quality figures for the same input and output.

Source of the expected figures: ARX 3.9 itself, compiled from github:arx-deidentifier/arx at commit
aacd487fb77b3af7970d5d6fa1b2f6cca1182b64 and run with ``benchmarks/arx/RunArxQuality.java`` on 755 records
of adult (``tests/data/generalization/adult_sample.csv``) with three anonymizations (k = 5 no
suppression, k = 5 with 4 %, k = 10 with 2 %; seven quasi-identifiers with ARX's hierarchies): its output
tables and its ``StatisticsQuality`` figures are in ``tests/data/utility`` (``PROVENANCE.md`` there gives
the commands). privaudit audits ARX's output with the sample as ``--original`` and must print ARX's
numbers: granularity (ARX "Loss"), generalization intensity ("Precision"), non-uniform entropy,
attribute-level squared error, missings (our ``suppressed_cells`` raw), AECS, ambiguity, discernibility and
SSE/SST, per column and over all columns. (ARX's record-level squared error is not one of privaudit's
measures.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privaudit.pipeline.audit import run_audit
from privaudit.testing import run_cli

ROOT = Path(__file__).resolve().parent / "data"
SAMPLE = ROOT / "generalization" / "adult_sample.csv"
QIS = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
RUNS = ["k5s0", "k5s4", "k10s2"]


def policy() -> dict:
    hier = ROOT / "generalization" / "hierarchies"
    return {
        "version": 1,
        "name": "arx quality",
        "data": {"delimiter": ";"},
        "columns": {
            **{q: {"role": "quasi_identifier", "hierarchy": str(hier / f"{q}.csv")} for q in QIS},
            "occupation": {"role": "other"},
            "salary-class": {"role": "other"},
        },
        "checks": [],
    }


def arx_figures(run: str) -> list[tuple[str, str | None, float]]:
    out = []
    for line in (ROOT / "utility" / f"arx_quality_{run}.tsv").read_text().splitlines():
        if line.startswith("#"):
            continue
        measure, column, value = line.split("\t")
        out.append((measure, None if column == "*" else column, float(value)))
    return out


def ours(entry: dict, arx_measure: str, column: str | None) -> float | None:
    if arx_measure == "missings":
        return entry["raw"]  # ARX prints the share missing; our value is the share kept
    if arx_measure == "attribute_level_squared_error" and column is None:
        return entry["details"]["attribute_level"]  # our column-null sse_sst entry is SSE/SST
    return entry["value"]


NAMES = {"attribute_level_squared_error": "sse_sst", "missings": "suppressed_cells"}


@pytest.mark.parametrize("run", RUNS)
def test_every_arx_quality_figure(run):
    result = run_audit(ROOT / "utility" / f"arx_output_{run}.csv", policy(), original=SAMPLE)
    got = {(e["measure"], e["column"]): e for e in result.utility}
    compared = 0
    for measure, column, expected in arx_figures(run):
        if measure == "record_level_squared_error":
            continue
        entry = got[(NAMES.get(measure, measure), column)]
        assert ours(entry, measure, column) == pytest.approx(expected, abs=1e-9), (measure, column)
        compared += 1
    assert compared == 5 * 8 + 4  # five column-oriented measures (7 columns and all), four row-oriented


def test_arx_figures_spelled_out():
    """A few of ARX's printed figures, inline, so a reader sees them (k = 5, 4 % suppression: ARX's optimum
    generalizes age, education and native-country to the root; 23 records suppressed)."""
    result = run_audit(ROOT / "utility" / "arx_output_k5s4.csv", policy(), original=SAMPLE)
    got = {(e["measure"], e["column"]): e for e in result.utility}
    assert got[("granularity", None)]["value"] == pytest.approx(0.3923034466250296, abs=1e-12)
    assert got[("granularity", "sex")]["value"] == pytest.approx(0.9695364238410595, abs=1e-12)
    assert got[("non_uniform_entropy", "workclass")]["value"] == pytest.approx(0.40210334552054283, abs=1e-12)
    assert got[("discernibility", None)]["value"] == pytest.approx(0.7913839772207966, abs=1e-12)
    assert got[("aecs", None)]["value"] == pytest.approx(0.9444441396245716, abs=1e-12)
    assert got[("suppressed_cells", "sex")]["raw"] == pytest.approx(23 / 755)
    assert got[("suppressed_cells", None)]["details"]["records_suppressed"] == 23


def test_cli_prints_arx_figures_in_the_json_report(tmp_path):
    """End to end through the CLI: the same numbers in the JSON report, which follows its schema."""
    import yaml

    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(policy()))
    out = tmp_path / "report.json"
    run = run_cli(
        "audit",
        ROOT / "utility" / "arx_output_k10s2.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--original",
        SAMPLE,
        "--json",
        out,
        "--allow-outside-paths",
    )
    assert run.code == 0, run.stderr
    report = json.loads(out.read_text())
    got = {(e["measure"], e["column"]): e for e in report["utility"]}
    expected = {(m, c): v for m, c, v in arx_figures("k10s2")}
    assert got[("granularity", "age")]["value"] == pytest.approx(expected[("granularity", "age")], abs=1e-12)
    assert got[("sse_sst", None)]["value"] == pytest.approx(expected[("sse_sst", None)], abs=1e-12)
    assert got[("ambiguity", None)]["value"] == pytest.approx(expected[("ambiguity", None)], abs=1e-12)
