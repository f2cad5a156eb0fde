"""risk_drivers: the drop in sample uniques and average risk per quasi-identifier when
it is left out or generalized one level, computed by regrouping the class summary -- checked against a
recount over the records, and through the CLI with the report's bar chart."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from privaudit.testing import assert_section_renders, audit_frame, check_result, run_cli


def _recount(frame: pd.DataFrame, columns: list[str]) -> tuple[int, float]:
    sizes = frame.groupby(columns, dropna=False).size() if columns else pd.Series([len(frame)])
    return int(sizes[sizes == 1].sum()), len(sizes) / len(frame)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz"), st.sampled_from("01")), min_size=1, max_size=40)
)
@example(rows=[("a", "x", "0"), ("a", "y", "1")])  # categorical columns: unobserved combinations are no classes
def test_regrouping_the_summary_equals_a_recount(rows):
    frame = pd.DataFrame(rows, columns=["p", "q", "r"])
    policy = {
        "columns": {c: {"role": "quasi_identifier"} for c in "pqr"},
        "checks": [{"id": "d", "assessor": "risk_drivers"}],
    }
    details = check_result(audit_frame(frame, policy), "d")["details"]
    assert (details["baseline"]["sample_uniques"], details["baseline"]["average_risk"]) == _recount(frame, list("pqr"))
    for driver in details["drivers"]:
        rest = [c for c in "pqr" if c != driver["column"]]
        uniques, risk = _recount(frame, rest)
        assert driver["removed"]["sample_uniques"] == uniques
        assert np.isclose(driver["removed"]["average_risk"], risk)


def test_generalized_one_level_and_the_cli(tmp_path):
    frame = pd.DataFrame({"age": ["31", "32", "33", "41", "41"], "sex": ["m", "f", "m", "f", "f"]})
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "age.csv").write_text("31;30-39;*\n32;30-39;*\n33;30-39;*\n41;40-49;*\n", encoding="utf-8")
    policy = {
        "version": 1,
        "name": "drivers",
        "columns": {"age": {"role": "quasi_identifier", "hierarchy": "age.csv"}, "sex": {"role": "quasi_identifier"}},
        "checks": [{"id": "d", "assessor": "risk_drivers"}],
    }
    (tmp_path / "p.yaml").write_text(json.dumps(policy))
    out = tmp_path / "r.json"
    result = run_cli(
        "audit",
        tmp_path / "d.csv",
        "--policy",
        tmp_path / "p.yaml",
        "--json",
        out,
        "--html",
        tmp_path / "r.html",
        "--quiet",
    )
    assert result.code == 0, result.stderr
    details = next(c for c in json.loads(out.read_text())["checks"] if c["id"] == "d")["details"]
    assert details["baseline"]["sample_uniques"] == 3  # (31,m) (32,f) (33,m); (41,f) twice
    age = next(d for d in details["drivers"] if d["column"] == "age")
    # one level up: (30-39,m) x2, (30-39,f) x1, (40-49,f) x2 -> 1 unique
    assert age["generalized"]["sample_uniques"] == 1 and age["generalized"]["drop_uniques"] == 2
    assert age["removed"]["sample_uniques"] == 0  # m x2, f x3
    assert "Sample uniques removed by dropping each quasi-identifier" in (tmp_path / "r.html").read_text()


def test_threshold_and_section():
    frame = pd.DataFrame({"a": list("aabc"), "b": list("xxyz")})
    policy = {
        "columns": {"a": {"role": "quasi_identifier"}, "b": {"role": "quasi_identifier"}},
        "checks": [{"id": "d", "assessor": "risk_drivers", "max_share": 0.25}],
    }
    result = audit_frame(frame, policy)
    check = check_result(result, "d")
    assert check["value"] == 0.5 and check["status"] == "fail"
    assert_section_renders(result, "d")
