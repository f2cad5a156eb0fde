"""Utility measures (privaudit/utility/): definitions worked by hand, sdcMicro's dUtility and summary.micro
formulas on small tables and sdcMicro's own code run by R on CASC (live-run figures), the policy's ``utility`` list and ``utility`` gate, the JSON report's
``utility`` list, the same figures from an out-of-memory engine, and bad input (one line, exit 2).

ARX's own figures for the same input and output are in ``test_utility_arx.py``."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from privaudit.core.summary import build_summary
from privaudit.pipeline.audit import run_audit
from privaudit.pipeline.plugins import get_registry
from privaudit.plugin.measure import Measure
from privaudit.testing import run_cli
from privaudit.utility import available, families, measure_all
from privaudit.utility.eigen import eigen
from privaudit.utility.entries import entry
from privaudit.utility.il1s import il1s
from privaudit.utility.inputs import UtilityInputs

AGE = pd.DataFrame([["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3-4", "*"], ["4", "3-4", "*"]])
AGE = AGE.set_index(0, drop=False)


def hand_inputs(original: pd.DataFrame | None = None) -> UtilityInputs:
    """Four released records: (1-2, m) twice, (3, f), and one suppressed record (*, *); age has the
    hierarchy 1..4 -> 1-2 / 3-4 -> *, sex none (ARX's [value, *] over the distinct values m, f)."""
    release = pd.DataFrame({"age": ["1-2", "1-2", "3", None], "sex": ["m", "m", "f", None]})
    return UtilityInputs(build_summary(release, ["age", "sex"]), ["age", "sex"], {"age": AGE}, release, original)


def by_key(entries):
    return {(e["measure"], e["column"]): e for e in entries}


def test_release_only_measures_worked_by_hand():
    got = by_key(measure_all(hand_inputs(), available()))
    # granularity (ARX Loss): age shares 2/4, 2/4, 1/4, 1 -> mean 0.5625; normalised between 1/4 and 1
    assert got[("granularity", "age")]["raw"] == pytest.approx(0.5625)
    assert got[("granularity", "age")]["value"] == pytest.approx(1 - (0.5625 - 0.25) / 0.75)
    # sex: 1/2, 1/2, 1/2, 1 -> 0.625 between 1/2 and 1 -> 0.75
    assert got[("granularity", "sex")]["value"] == pytest.approx(0.75)
    # all columns: ARX's mean of results 0.59375, minima 0.375, maxima 1 -> 1 - 0.21875 / 0.625
    assert got[("granularity", None)]["value"] == pytest.approx(0.65)
    # generalization intensity (ARX Precision): age levels 1/2, 1/2, 0, 1 -> 0.5; sex 0, 0, 0, 1 -> 0.25
    assert got[("generalization_intensity", "age")]["value"] == pytest.approx(0.5)
    assert got[("generalization_intensity", "sex")]["value"] == pytest.approx(0.75)
    # suppressed cells: one of four in each column
    assert got[("suppressed_cells", "age")]["raw"] == pytest.approx(0.25)
    assert got[("suppressed_cells", None)]["value"] == pytest.approx(0.75)
    # discernibility: classes 2 and 1, one suppressed record counts n = 4 -> 4 + 1 + 4
    assert got[("discernibility", None)]["raw"] == 9
    assert got[("discernibility", None)]["value"] is None
    assert "--original" in got[("discernibility", None)]["details"]["reason"]
    # AECS: 3 records in 2 classes, the suppressed record left out
    assert got[("aecs", None)]["raw"] == pytest.approx(1.5)
    assert got[("aecs", None)]["value"] is None
    # ambiguity: (2 x 1) + (2 x 1) + (1 x 1) + (4 x 2) = 13, between 4 and 4 x 8
    assert got[("ambiguity", None)]["raw"] == pytest.approx(13)
    assert got[("ambiguity", None)]["value"] == pytest.approx(1 - 9 / 28)
    # measures against the original are not asked for without it
    assert ("non_uniform_entropy", None) not in got or got[("non_uniform_entropy", None)]["value"] is None


def test_with_the_original_aecs_and_discernibility_are_normalised():
    original = pd.DataFrame({"age": ["1", "2", "3", "4"], "sex": ["m", "m", "f", "f"]})
    got = by_key(measure_all(hand_inputs(original), ["aecs", "discernibility", "non_uniform_entropy"]))
    # the original has 4 classes of 1: AECS 1, discernibility 4
    assert got[("aecs", None)]["value"] == pytest.approx(1 - (1.5 - 1) / (4 - 1))
    assert got[("discernibility", None)]["value"] == pytest.approx(1 - (9 - 4) / (16 - 4))
    # non-uniform entropy of age: records 1, 2 -> "1-2" (level 1), 3 kept, 4 -> * (level 2).
    # level 0 (all rows): nothing lost; level 1 (rows 1, 2, 4): leaves 1, 1, 1 vs 1-2: 2, 1-2: 2, 3-4: 1
    # -> 2 log2(1/2) = -2; level 2 (row 4): 3-4 vs *: one row each -> 0. Loss 2 bits of the original's
    # 4 log2 4 = 8.
    assert got[("non_uniform_entropy", "age")]["raw"] == pytest.approx(2.0)
    assert got[("non_uniform_entropy", "age")]["value"] == pytest.approx(1 - 2 / 8)


def test_sdcmicro_dutility_and_summary_micro_formulas():
    """sdcMicro's R/dUtility.R (IL1s, eigen) and summary.micro (amean, devvar, acor) worked by hand:
    x = (a, b) with a = 1..4, b = 2, 1, 4, 3; the release swaps b's first two values (b' = 1, 2, 4, 3).
    cor(a, b) = 3/5 = 0.6, cor(a, b') = 4/5 = 0.8: eigenvalues 1.6, 0.4 and 1.8, 0.2, so
    eigen = 0.2 / 1.6 + 0.2 / 0.4 = 0.625. IL1s: b moves by 1 twice, sd(b) = sqrt(5/3):
    2 / (sqrt(5/3) sqrt 2) = 1.0954451150103321. Means and variances unchanged, the covariance of a and b
    goes from 3/3 to 4/3: devvar = 2 x (1/3) / 2 = 1/3 (over the whole covariance matrix, as sdcMicro);
    acor = 2 x (0.2 / 0.6) / (2 x 2) = 1/6."""
    x = np.array([[1, 2], [2, 1], [3, 4], [4, 3]], dtype=float)
    m = np.array([[1, 1], [2, 2], [3, 4], [4, 3]], dtype=float)
    assert eigen(x, m) == pytest.approx(0.625)
    assert il1s(x, m).sum() == pytest.approx(2 / (math.sqrt(5 / 3) * math.sqrt(2)))
    release = pd.DataFrame({"a": m[:, 0], "b": m[:, 1], "q": ["u"] * 4})
    original = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "q": ["u"] * 4})
    inputs = UtilityInputs(build_summary(release, ["q"]), ["q"], {}, release, original, numeric=["a", "b"])
    got = by_key(measure_all(inputs, available()))
    assert got[("il1s", None)]["raw"] == pytest.approx(1.0954451150103321)
    assert got[("il1s", "a")]["raw"] == 0
    assert got[("eigen", None)]["raw"] == pytest.approx(0.625)
    assert got[("eigen", None)]["value"] == pytest.approx(1 - 0.625 / 2)
    assert got[("mean_deviation", None)]["raw"] == 0
    assert got[("variance_deviation", None)]["raw"] == pytest.approx(1 / 3)
    assert got[("variance_deviation", "b")]["raw"] == pytest.approx(0)
    assert got[("correlation_deviation", None)]["raw"] == pytest.approx(1 / 6)


def test_a_family_that_raises_gives_no_figure_never_a_value():
    def boom(inputs):
        raise RuntimeError("broken measure")

    records = dict(get_registry().of("measure"))
    records["granularity"] = replace(records["granularity"], compute=boom)
    got = by_key(measure_all(hand_inputs(), ["granularity", "ambiguity"], measures=records))
    assert got[("granularity", None)]["value"] is None
    assert "broken measure" in got[("granularity", None)]["details"]["error"]
    assert got[("ambiguity", None)]["value"] is not None


def test_a_measure_is_one_record():
    """How the synthetic-release and classification families join: a record naming a function returning
    entries of the same shape; records sharing one function are one family, computed once."""
    calls = []

    def both(inputs):
        calls.append(1)
        return [entry("kept_a", None, 0.5, 0.5), entry("kept_b", None, 0.25, 0.25)]

    records = {
        **get_registry().of("measure"),
        "kept_a": Measure("kept_a", "a", both),
        "kept_b": Measure("kept_b", "b", both),
    }
    assert available(records)[-2:] == ["kept_a", "kept_b"]
    assert [f.measures for f in families(records)][-1] == ("kept_a", "kept_b")
    got = by_key(measure_all(hand_inputs(), ["kept_a", "kept_b"], measures=records))
    assert (got[("kept_a", None)]["value"], got[("kept_b", None)]["value"], len(calls)) == (0.5, 0.25, 1)


# ---------------------------------------------------------------- through the CLI

ORIGINAL = pd.DataFrame(
    {
        "age": [21, 22, 35, 36, 50, 51, 52, 23, 24, 37],
        "sex": list("mfmfmfmfmf"),
        "income": [10, 20, 30, 40, 50, 60, 70, 80, 90, 100.0],
    }
)


def write(tmp_path: Path, checks: list, utility=None, release=None) -> tuple[Path, Path, Path]:
    policy = {
        "version": 1,
        "name": "utility",
        "columns": {
            "age": {"role": "quasi_identifier", "type": "numeric"},
            "sex": {"role": "quasi_identifier"},
            "income": {"role": "sensitive", "type": "numeric"},
        },
        "checks": checks,
    }
    if utility is not None:
        policy["utility"] = utility
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(policy, sort_keys=False))
    if release is None:
        release = ORIGINAL.astype({"age": object}).copy()
        release.loc[[0, 1, 7, 8], "age"] = "*"
        release.loc[2, "income"] = 33.0
    release.to_csv(tmp_path / "release.csv", index=False)
    ORIGINAL.to_csv(tmp_path / "original.csv", index=False)
    return tmp_path / "policy.yaml", tmp_path / "release.csv", tmp_path / "original.csv"


def test_cli_report_lists_utility_and_a_gate_warns(tmp_path):
    policy, release, original = write(tmp_path, [{"assessor": "utility", "measure": "granularity", "min": 0.9}])
    out = tmp_path / "report.json"
    run = run_cli("audit", release, "--policy", policy, "--original", original, "--json", out)
    assert run.code == 0, run.stderr  # the gate fails, but a utility gate is a warning by default
    report = json.loads(out.read_text())
    gate = next(c for c in report["checks"] if c["assessor"] == "utility")
    assert (gate["status"], gate["severity"]) == ("fail", "warning")
    got = by_key(report["utility"])
    assert gate["value"] == got[("granularity", None)]["value"]
    # age: 4 of 10 values suppressed; its ARX domain is the original's 10 distinct ages
    assert got[("suppressed_cells", "age")]["raw"] == pytest.approx(0.4)
    assert got[("granularity", "age")]["raw"] == pytest.approx((6 * 0.1 + 4 * 1.0) / 10)
    assert got[("il1s", "income")]["raw"] > 0 and got[("mean_deviation", "income")]["raw"] == pytest.approx(0.3 / 55)
    assert {e["measure"] for e in report["utility"]} >= {"non_uniform_entropy", "sse_sst", "eigen", "aecs"}
    assert "utility" in run_cli("report", "schema").stdout


def test_cli_gate_as_error_fails_the_audit_and_policy_chooses_measures(tmp_path):
    policy, release, original = write(
        tmp_path,
        [{"assessor": "utility", "measure": "aecs", "min": 0.99, "severity": "error"}],
        utility=["granularity"],
    )
    out = tmp_path / "report.json"
    run = run_cli("audit", release, "--policy", policy, "--original", original, "--json", out)
    assert run.code == 1, run.stderr
    report = json.loads(out.read_text())
    assert sorted({e["measure"] for e in report["utility"]}) == ["aecs", "granularity"]  # chosen + gated


def test_utility_none_and_release_only_without_original(tmp_path):
    policy, release, _ = write(tmp_path, [], utility=[])
    out = tmp_path / "report.json"
    assert run_cli("audit", release, "--policy", policy, "--json", out).code == 0
    assert json.loads(out.read_text())["utility"] == []
    policy, release, _ = write(tmp_path, [])
    assert run_cli("audit", release, "--policy", policy, "--json", out).code == 0
    measures = {e["measure"] for e in json.loads(out.read_text())["utility"]}
    assert measures == {
        "granularity",
        "generalization_intensity",
        "discernibility",
        "aecs",
        "ambiguity",
        "suppressed_cells",
    }


@pytest.mark.slow
def test_out_of_memory_engine_gives_the_same_release_figures(tmp_path):
    """The measures of the release alone read the class summary only: the chunked engine's report holds
    the same figures as the in-process one (chunked and DuckDB engines)."""
    policy, release, _ = write(tmp_path, [])
    reports = []
    for engine in ("in-process", "chunked", "duckdb"):
        out = tmp_path / f"{engine}.json"
        assert run_cli("audit", release, "--policy", policy, "--engine", engine, "--json", out).code == 0
        reports.append(json.loads(out.read_text())["utility"])
    assert reports[0] == reports[1] == reports[2]


@pytest.mark.parametrize(
    "checks, utility, extra, words",
    [
        (
            [{"assessor": "utility", "measure": "granularityy", "min": 0.5}],
            None,
            [],
            "unknown utility measure 'granularityy'",
        ),
        ([], ["non_uniform_entropy"], [], "utility measure 'non_uniform_entropy' needs the original table"),
        ([{"assessor": "utility", "measure": "aecs", "min": 0.5}], None, [], "'aecs' needs the original table"),
        ([], ["nonsense"], [], "utility[0]: unknown utility measure 'nonsense'"),
        ([], [{"granularity": {"target": "nope"}}], [], "utility[0].granularity.target: 'nope' is not a column"),
        ([{"assessor": "utility", "measure": "granularity", "min": 1.5}], None, [], "min"),
        ([], ["il1s"], ["--engine", "chunked", "--original"], "whole tables in memory"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, checks, utility, extra, words):
    policy, release, original = write(tmp_path, checks, utility=utility)
    args = ["audit", release, "--policy", policy, *extra]
    if extra and extra[-1] == "--original":
        args.append(original)
    run = run_cli(*args)
    assert run.code == 2, (run.stdout, run.stderr)
    assert words in run.stderr and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_python_api_has_the_same_figures(tmp_path):
    import privaudit

    policy, release, original = write(tmp_path, [])
    report = privaudit.audit(release, policy, original=original)
    assert report.to_dict()["utility"] == run_audit(release, policy, original=original).utility == report.utility


def test_html_chapter_summary_notebook_and_to_dict_show_the_same_numbers(tmp_path):
    import privaudit

    policy, release, original = write(tmp_path, [{"assessor": "utility", "measure": "granularity", "min": 0.5}])
    report = privaudit.audit(release, policy, original=original)
    figures = by_key(report.to_dict()["utility"])
    kept = figures[("granularity", None)]["value"]
    from privaudit.plugin.text import share

    html = report.to_html()
    chapter = html[html.index('<section id="utility"') : html.index('<section id="checks"')]
    assert f"The release keeps {share(kept)} of the original&#39;s granularity" in chapter
    assert f"age lost most: it keeps {share(figures[('granularity', 'age')]['value'])}" in chapter
    assert "<svg" in chapter and "Per column (kept)" in chapter
    assert 'id="utility-headline"' in html[: html.index('<section id="utility"')]  # the summary's sentence
    notebook = report._repr_html_()
    assert f"The release keeps {share(kept)}" in notebook


def test_chapter_absent_without_figures(tmp_path):
    import privaudit

    policy, release, _ = write(tmp_path, [], utility=[])
    html = privaudit.audit(release, policy).to_html()
    assert 'id="utility"' not in html


# ---------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ROWS = st.lists(
    st.tuples(
        st.integers(1, 4),
        st.sampled_from("mf"),
        st.floats(-5, 5, allow_nan=False),
        st.floats(-5, 5, allow_nan=False),
        st.integers(0, 2),
    ),
    min_size=3,
    max_size=25,
)


def property_inputs(rows, generalize: bool) -> UtilityInputs:
    original = pd.DataFrame(
        {
            "age": [str(a) for a, *_ in rows],
            "sex": [s for _, s, *_ in rows],
            "x": [x for *_, x, _, _ in rows],
            "y": [y for *_, y, _ in rows],
        }
    )
    release = original.copy()
    if generalize:
        level = [g for *_, g in rows]
        release["age"] = [AGE.loc[a, lv] if lv < 2 else None for a, lv in zip(original["age"], level, strict=False)]
        release["x"] = release["x"] + 0.5
    return UtilityInputs(
        build_summary(release, ["age", "sex"]), ["age", "sex"], {"age": AGE}, release, original, numeric=["x", "y"]
    )


@settings(max_examples=25, deadline=None)
@given(ROWS)
def test_identity_release_loses_nothing(rows):
    """A release equal to its original keeps everything: every figure that has a value is 1 (ARX's quality
    scale), whatever the table."""
    for e in measure_all(property_inputs(rows, False), available()):
        if e["value"] is not None:
            assert e["value"] == pytest.approx(1.0), e


@settings(max_examples=25, deadline=None)
@given(ROWS)
def test_every_value_on_the_quality_scale_and_generalizing_never_gains(rows):
    generalized = by_key(measure_all(property_inputs(rows, True), available()))
    for e in generalized.values():
        assert e["value"] is None or 0.0 <= e["value"] <= 1.0, e
    for m in ("granularity", "generalization_intensity", "suppressed_cells", "non_uniform_entropy"):
        sex = generalized[(m, "sex")]
        if sex["value"] is None:  # one value in the column: nothing to lose, ARX's 0/0 gives no figure
            assert "single value" in sex["details"]["reason"]
        else:
            assert sex["value"] == pytest.approx(1.0)  # sex is released as it is


def test_sdcmicro_figures_live_run_on_casc(tmp_path):
    """sdcMicro's own dUtility (IL1s, eigen) and summary.micro (amean, devvar, acor), run by R 4.2.2 on
    five numeric columns of CASCrefmicrodata and their two-significant-digit rounding
    (tests/data/utility/PROVENANCE.md: sdcMicro commit cf32510, benchmarks/sdcmicro/run_dutility.R)."""
    data = Path(__file__).resolve().parent / "data"
    columns = ["AFNLWGT", "AGI", "EMCONTRB", "FEDTAX", "PTOTVAL"]
    original = pd.read_csv(data / "casc" / "CASCrefmicrodata.csv")[columns].astype(float)
    masked = pd.read_csv(data / "utility" / "casc_masked.csv")[columns].astype(float)
    original["q"] = masked["q"] = "u"
    inputs = UtilityInputs(build_summary(masked, ["q"]), ["q"], {}, masked, original, numeric=columns)
    got = by_key(
        measure_all(inputs, ["il1s", "eigen", "mean_deviation", "variance_deviation", "correlation_deviation"])
    )
    assert got[("il1s", None)]["raw"] == pytest.approx(60.131166258053383, rel=1e-12)
    assert got[("eigen", None)]["raw"] == pytest.approx(0.03459811905836347, rel=1e-10)
    assert got[("mean_deviation", None)]["raw"] == pytest.approx(0.001309437902205072, rel=1e-12)
    assert got[("variance_deviation", None)]["raw"] == pytest.approx(0.34935201228348933, rel=1e-12)
    assert got[("correlation_deviation", None)]["raw"] == pytest.approx(0.1742665958673969, rel=1e-12)


def test_remediation_report_says_what_generalization_cost(tmp_path):
    """The issue's case: ``remediate --method generalize`` passes by generalizing most quasi-identifier
    values; the re-audit (with the input as its original) now says how much of the table is left."""
    data = Path(__file__).resolve().parent / "data" / "generalization"
    out, report, html = tmp_path / "out.csv", tmp_path / "r.json", tmp_path / "r.html"
    run = run_cli(
        "remediate",
        data / "adult_sample.csv",
        "--policy",
        data / "policy.yaml",
        "--method",
        "generalize",
        "--out",
        out,
        "--json",
        report,
        "--html",
        html,
    )
    assert run.code == 0, run.stderr
    got = by_key(json.loads(report.read_text())["utility"])
    kept = got[("granularity", None)]["value"]
    assert 0 < kept < 0.5  # most of the detail is gone, and the report says so
    assert got[("non_uniform_entropy", None)]["value"] is not None  # against the remediation's input
    assert got[("aecs", None)]["value"] is not None
    from privaudit.plugin.text import share

    assert f"The release keeps {share(kept)} of the original&#39;s granularity" in html.read_text()


def test_terminal_says_what_the_release_keeps(tmp_path):
    policy, release, original = write(tmp_path, [])
    run = run_cli("audit", release, "--policy", policy, "--original", original)
    lines = run.stdout.splitlines()
    assert lines[-1].startswith("verdict: ")
    assert any(line.startswith("utility: The release keeps ") and "granularity" in line for line in lines)


def test_hostile_column_name_is_escaped_in_the_chapter(tmp_path):
    import privaudit

    name = "<script>alert(1)</script>\u202e"
    frame = pd.DataFrame({name: ["a", "b", "*", "a"], "sex": list("mfmf")})
    frame.to_csv(tmp_path / "r.csv", index=False)
    policy = {
        "version": 1,
        "name": "hostile",
        "columns": {name: {"role": "quasi_identifier"}, "sex": {"role": "quasi_identifier"}},
        "checks": [],
    }
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(policy))
    html = privaudit.audit(tmp_path / "r.csv", tmp_path / "p.yaml").to_html()
    chapter = html[html.index('<section id="utility"') : html.index('<section id="checks"')]
    assert "<script>" not in chapter and "&lt;script&gt;" in chapter and "\u202e" not in chapter
    run = run_cli("audit", tmp_path / "r.csv", "--policy", tmp_path / "p.yaml")
    assert "\u202e" not in run.stdout


def test_original_joined_by_record_id_as_record_linkage_aligns_it(tmp_path):
    """A shuffled release with a record_id column gives the figures of the row-aligned one."""
    policy = {
        "version": 1,
        "name": "ids",
        "columns": {
            "id": {"role": "record_id"},
            "age": {"role": "quasi_identifier", "type": "numeric"},
            "sex": {"role": "quasi_identifier"},
            "income": {"role": "sensitive", "type": "numeric"},
        },
        "checks": [],
    }
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(policy))
    original = ORIGINAL.assign(id=range(100, 110))
    release = original.astype({"age": object}).copy()
    release.loc[[0, 1, 7], "age"] = "*"
    release["income"] = release["income"] * 1.1
    original.to_csv(tmp_path / "o.csv", index=False)
    release.to_csv(tmp_path / "aligned.csv", index=False)
    release.sample(frac=1, random_state=3).to_csv(tmp_path / "shuffled.csv", index=False)
    figures = [
        run_audit(tmp_path / f, tmp_path / "p.yaml", original=tmp_path / "o.csv").utility
        for f in ("aligned.csv", "shuffled.csv")
    ]
    a, b = by_key(figures[0]), by_key(figures[1])
    assert a.keys() == b.keys()
    for key in a:
        if a[key]["value"] is None:
            assert b[key]["value"] is None, key
        else:
            assert a[key]["value"] == pytest.approx(b[key]["value"], abs=1e-12), key
    assert a[("il1s", "income")]["raw"] > 0
