"""cap: correct attribution probability of a synthetic release. Hand-computed golden
cases of the definition (Taub et al. 2018, section 2; SDMetrics CategoricalCAP / ZeroCAP /
DisclosureProtection), the CLI end to end and bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from privaudit.risk.synthetic.cap import correct_attribution_probability
from privaudit.testing import assert_section_renders, run_cli

TRAIN = pd.DataFrame({"k": ["a", "a", "b", "c"], "t": ["x", "y", "x", "z"]})


def test_hand_computed_cap_skip_and_zero():
    synthetic = pd.DataFrame({"k": ["a", "a", "a", "b"], "t": ["x", "x", "y", "y"]})
    # r1 (a, x): 2 of the 3 synthetic a's say x; r2 (a, y): 1/3; r3 (b, x): 0 of 1; r4 (c, z): key absent
    skip = correct_attribution_probability(TRAIN, synthetic, ["k"], "t")
    assert skip.cap == pytest.approx((2 / 3 + 1 / 3 + 0) / 3) and skip.evaluated == 3 and skip.unmatched == 1
    assert skip.target_values == 3 and skip.baseline_safety == pytest.approx(2 / 3)
    assert skip.protection == 1.0  # safety 2/3 equals a random guess's: min(1, 1)
    zero = correct_attribution_probability(TRAIN, synthetic, ["k"], "t", unmatched="zero")
    assert zero.cap == pytest.approx(1 / 4) and zero.evaluated == 4


def test_a_copy_of_the_training_table_leaks():
    r = correct_attribution_probability(TRAIN, TRAIN.copy(), ["k"], "t")
    # a: 1/2 and 1/2; b: 1; c: 1 -> CAP 0.75; safety 0.25 against 2/3
    assert r.cap == pytest.approx(0.75) and r.protection == pytest.approx(0.25 / (2 / 3))


def test_numeric_columns_are_binned_over_the_training_range():
    train = pd.DataFrame({"age": [0.0, 9.9, 10.0, 100.0], "t": ["x", "x", "y", "y"]})
    synthetic = pd.DataFrame({"age": [5.0, 95.0, 250.0], "t": ["x", "y", "y"]})
    # 10 bins over [0, 100]: 0 and 9.9 and 5 share bin 0; 10 is bin 1 (absent); 100, 95, 250 (clipped) bin 9
    r = correct_attribution_probability(train, synthetic, ["age"], "t", numeric={"age"})
    assert r.evaluated == 3 and r.cap == pytest.approx(1.0)


POLICY = {
    "version": 1,
    "name": "cap",
    "columns": {"k": {"role": "quasi_identifier"}, "t": {"role": "sensitive"}},
    "checks": [{"id": "cap", "assessor": "cap", "min_protection": 0.5}],
}


def test_cli_end_to_end(tmp_path):
    TRAIN.to_csv(tmp_path / "train.csv", index=False)
    TRAIN.to_csv(tmp_path / "copy.csv", index=False)
    (tmp_path / "policy.yaml").write_text(json.dumps(POLICY))
    out = tmp_path / "r.json"
    result = run_cli(
        "audit",
        tmp_path / "copy.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--original",
        tmp_path / "train.csv",
        "--json",
        out,
        "--quiet",
    )
    assert result.code == 1, result.stderr
    check = next(c for c in json.loads(out.read_text())["checks"] if c["id"] == "cap")
    assert check["status"] == "fail" and check["value"] == pytest.approx(0.375)
    assert check["details"]["targets"][0]["cap"] == pytest.approx(0.75)


def test_report_section_renders():
    import privaudit

    report = privaudit.audit(TRAIN, POLICY, original=TRAIN)
    assert_section_renders(report.result, "cap")


@pytest.mark.parametrize(
    "check, expected",
    [
        ({"target": "k"}, "target: 'k' is also a key"),
        ({"keys": ["nope"]}, "keys: 'nope' is not a column"),
        ({}, "--original"),
    ],
)
def test_bad_input_is_one_line(tmp_path, check, expected):
    TRAIN.to_csv(tmp_path / "d.csv", index=False)
    policy = {**POLICY, "checks": [{**POLICY["checks"][0], **check}]}
    (tmp_path / "policy.yaml").write_text(json.dumps(policy))
    extra = () if expected == "--original" else ("--original", tmp_path / "d.csv")
    result = run_cli("audit", tmp_path / "d.csv", "--policy", tmp_path / "policy.yaml", *extra)
    assert result.code == 2 and result.stderr.count("\n") == 1 and expected in result.stderr, result.stderr
