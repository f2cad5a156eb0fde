"""Utility without ``--original``: the release stands in for the original, so a missing answer in a raw table
is not a suppression and the table compared with itself keeps 100 % (the American Community Survey 2012
sample of tests/data/acs12, whose time_to_work is missing for 1,217 of 2,000 people, read "82.74 %; time_to_work
lost most" before). In a column the release generalized, a missing value is still the suppression string."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import ROOT

from privaudit.core.summary import build_summary
from privaudit.testing import run_cli
from privaudit.utility import available, measure_all
from privaudit.utility.inputs import UtilityInputs

ACS = ROOT / "tests/data/acs12/acs12.csv"


def by_key(entries):
    return {(e["measure"], e["column"]): e for e in entries}


@pytest.mark.slow
def test_a_raw_table_audited_without_its_original_keeps_everything(tmp_path):
    data = tmp_path / "acs12.csv"
    data.write_bytes(ACS.read_bytes())
    # the drafted policy (interval hierarchies too), with the commute time, which has missing answers, a QI
    r = run_cli("init", data, "--out", tmp_path / "policy.yaml", "--role", "time_to_work=quasi_identifier")
    assert r.code == 0, r.stderr
    out = tmp_path / "report.json"
    r = run_cli("audit", data, "--policy", tmp_path / "policy.yaml", "--json", out)
    assert r.code in (0, 1), r.stderr
    utility = json.loads(out.read_text())["utility"]
    figures = {(u["measure"], u["column"]): u["value"] for u in utility if u["value"] is not None}
    assert ("granularity", "time_to_work") in figures and ("suppressed_cells", None) in figures
    assert all(v == pytest.approx(1.0) for v in figures.values()), {k: v for k, v in figures.items() if v != 1}
    line = next(x for x in r.stdout.splitlines() if x.startswith("utility:"))
    assert "keeps 100%" in line and "lost most" not in line


def _inputs(release: pd.DataFrame, hierarchies=None, original=None) -> UtilityInputs:
    qis = list(release.columns)
    return UtilityInputs(build_summary(release, qis), qis, hierarchies or {}, release, original)


AGE = pd.DataFrame([["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3-4", "*"], ["4", "3-4", "*"]]).set_index(
    0, drop=False
)


def test_missing_answers_are_kept_where_the_release_did_not_generalize():
    # sex: missing for one of four, never generalized; age: generalized (1-2), its missing value is the root
    release = pd.DataFrame({"age": ["1-2", "1-2", "3", None], "sex": ["m", None, "f", "f"]})
    got = by_key(measure_all(_inputs(release, {"age": AGE}), available()))
    assert got[("suppressed_cells", "sex")]["value"] == 1.0
    assert got[("granularity", "sex")]["value"] == 1.0
    assert got[("suppressed_cells", "age")]["raw"] == pytest.approx(0.25)
    # age shares 2/4, 2/4, 1/4 and 1 (the missing value, as *) -> 0.5625, as ARX's Loss
    assert got[("granularity", "age")]["raw"] == pytest.approx(0.5625)
    # with the original the release's every missing value is counted, as ARX counts its output's missings
    original = pd.DataFrame({"age": ["1", "2", "3", "4"], "sex": ["m", "m", "f", "f"]})
    got = by_key(measure_all(_inputs(release, {"age": AGE}, original), ["suppressed_cells", "granularity"]))
    assert got[("suppressed_cells", "sex")]["raw"] == pytest.approx(0.25)


def test_a_missing_only_quasi_identifier_is_no_suppressed_record():
    release = pd.DataFrame({"commute": ["10", None, None, "20", "10"]})
    got = by_key(measure_all(_inputs(release), ["suppressed_cells", "discernibility", "aecs", "ambiguity"]))
    assert got[("suppressed_cells", None)]["value"] == 1.0
    assert got[("suppressed_cells", None)]["details"]["records_suppressed"] == 0
    assert got[("aecs", None)]["raw"] == pytest.approx(5 / 3)  # three classes, none left out
    assert got[("ambiguity", None)]["value"] == pytest.approx(1.0)


def test_a_column_with_no_value_left_is_suppressed():
    release = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [None, None, None, None]})
    got = by_key(measure_all(_inputs(release), ["suppressed_cells"]))
    assert got[("suppressed_cells", "b")]["value"] == 0.0 and got[("suppressed_cells", "a")]["value"] == 1.0


@pytest.mark.slow
def test_the_release_compared_with_itself_keeps_everything(tmp_path):
    """``--original`` the release itself: a value missing from both was never given, not suppressed."""
    data = tmp_path / "acs12.csv"
    data.write_bytes(ACS.read_bytes())
    assert run_cli("init", data, "--out", tmp_path / "policy.yaml", "--role", "time_to_work=quasi_identifier").code == 0
    out = tmp_path / "report.json"
    r = run_cli("audit", data, "--policy", tmp_path / "policy.yaml", "--original", data, "--json", out)
    assert r.code in (0, 1), r.stderr
    figures = {(u["measure"], u["column"]): u for u in json.loads(out.read_text())["utility"]}
    for measure in ("granularity", "generalization_intensity", "suppressed_cells"):
        assert figures[(measure, "time_to_work")]["value"] == pytest.approx(1.0), measure
        assert figures[(measure, None)]["value"] == pytest.approx(1.0), measure


def test_with_the_original_only_values_it_had_count_as_suppressed():
    # sex: row 2 never answered (missing in the original too), row 4 suppressed by the release
    original = pd.DataFrame({"age": ["1", "2", "3", "4"], "sex": ["m", None, "f", "f"]})
    release = pd.DataFrame({"age": ["1", "2", "3", "4"], "sex": ["m", None, "f", None]})
    got = by_key(measure_all(_inputs(release, {"age": AGE}, original), ["suppressed_cells", "granularity"]))
    assert got[("suppressed_cells", "sex")]["details"]["cells"] == 1
    assert got[("suppressed_cells", "sex")]["value"] == pytest.approx(0.75)
    # granularity of sex: [m, f] domain, shares 1/2, 1/2 (kept), 1/2, 1 (suppressed) -> 0.625, between 1/2 and 1
    assert got[("granularity", "sex")]["raw"] == pytest.approx(0.625)
