"""Attacker scenarios: a check may name its own quasi_identifiers (mu-Argus-style key
combinations: an intruder who knows only some of them); each scenario is evaluated on its own class
summary, built once per distinct subset, and the report shows it. The figures equal a policy that declares
only that subset."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privaudit.testing import audit_frame, check_result, run_cli

FRAME = pd.DataFrame(
    {
        "age": ["30", "30", "40", "40", "50", "50", "50"],
        "sex": ["m", "f", "m", "f", "m", "m", "f"],
        "zip": ["1", "1", "2", "2", "3", "3", "3"],
        "disease": ["a", "b", "a", "b", "a", "a", "b"],
    }
)
COLUMNS = {
    "age": {"role": "quasi_identifier"},
    "sex": {"role": "quasi_identifier"},
    "zip": {"role": "quasi_identifier"},
    "disease": {"role": "sensitive"},
}


def _policy(checks):
    return {"columns": COLUMNS, "checks": checks}


@pytest.mark.parametrize(
    "check",
    [
        {"assessor": "k_anonymity", "k": 2},
        {"assessor": "l_diversity", "l": 2, "sensitive": "disease"},
        {"assessor": "uniqueness", "max_share": 1},
        {"assessor": "t_closeness", "t": 0.5, "sensitive": "disease"},
    ],
)
def test_a_scenario_equals_a_policy_that_declares_only_its_columns(check):
    scenario = audit_frame(FRAME, _policy([{"id": "s", **check, "quasi_identifiers": ["age", "zip"]}]))
    reduced = {**COLUMNS, "sex": {"role": "other"}}
    alone = audit_frame(FRAME, {"columns": reduced, "checks": [{"id": "s", **check}]})
    a, b = check_result(scenario, "s"), check_result(alone, "s")
    assert (a["value"], a["status"]) == (b["value"], b["status"])
    assert a["quasi_identifiers"] == ["age", "zip"] and "quasi_identifiers" not in b


def test_several_scenarios_in_one_policy_and_the_cli(tmp_path):
    FRAME.to_csv(tmp_path / "d.csv", index=False)
    policy = {
        "version": 1,
        "name": "scenarios",
        **_policy(
            [
                {"id": "all", "assessor": "k_anonymity", "k": 2},
                {"id": "neighbour", "assessor": "k_anonymity", "k": 2, "quasi_identifiers": ["age", "zip"]},
                {"id": "register", "assessor": "k_anonymity", "k": 2, "quasi_identifiers": ["sex"]},
            ]
        ),
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
        "--records",
        tmp_path / "rec.csv",
        "--quiet",
    )
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    assert checks["all"]["value"] == 1 and checks["all"]["status"] == "fail" and result.code == 1
    assert checks["neighbour"]["value"] == 2 and checks["register"]["value"] == 3
    html = (tmp_path / "r.html").read_text()
    assert "scenario: the intruder knows" in html and "age, zip" in html
    records = pd.read_csv(tmp_path / "rec.csv")
    assert not records["violates:neighbour"].any() and records["violates:all"].sum() == 5


def test_remediation_maps_a_scenarios_classes_to_the_records():
    from privaudit.plugin.remediator import class_violations
    from privaudit.testing import audit_context

    policy = _policy([{"id": "n", "assessor": "k_anonymity", "k": 3, "quasi_identifiers": ["zip"]}])
    ctx = audit_context(FRAME, policy)
    bad = class_violations(ctx)
    records_bad = bad[ctx.summary.class_of]
    np.testing.assert_array_equal(records_bad, FRAME["zip"].isin(["1", "2"]).to_numpy())


@pytest.mark.parametrize(
    "scenario, expected",
    [
        (["age", "height"], "checks[0].quasi_identifiers: 'height' is not a quasi-identifier"),
        (["disease"], "'disease' is not a quasi-identifier"),
        ([], "give at least one quasi-identifier"),
    ],
)
def test_bad_scenarios_are_one_line(tmp_path, scenario, expected):
    FRAME.to_csv(tmp_path / "d.csv", index=False)
    policy = {
        "version": 1,
        "name": "bad",
        **_policy([{"assessor": "k_anonymity", "k": 2, "quasi_identifiers": scenario}]),
    }
    (tmp_path / "p.yaml").write_text(json.dumps(policy))
    result = run_cli("audit", tmp_path / "d.csv", "--policy", tmp_path / "p.yaml")
    assert result.code == 2 and result.stderr.count("\n") == 1 and expected in result.stderr, result.stderr


def test_k_m_anonymity_by_hand_and_against_every_subset():
    frame = pd.DataFrame({"a": list("xxyyx"), "b": list("pqpqp"), "c": list("11221")})
    policy = {
        "columns": {c: {"role": "quasi_identifier"} for c in "abc"},
        "checks": [
            {"id": "m1", "assessor": "k_anonymity", "k": 2, "m": 1},
            {"id": "m2", "assessor": "k_anonymity", "k": 2, "m": 2},
            {"id": "m3", "assessor": "k_anonymity", "k": 2, "m": 3},
        ],
    }
    result = audit_frame(frame, policy)
    m1, m2, m3 = (check_result(result, i) for i in ("m1", "m2", "m3"))
    assert m1["value"] == 2 and m1["status"] == "pass"  # every single value occurs at least twice
    # pairs: (a, b) xq and yp and yq once; brute force over the 3 pairs
    import itertools

    brute = min(frame.groupby(list(sub)).size().min() for sub in itertools.combinations("abc", 2))
    assert m2["value"] == brute == 1 and m2["status"] == "fail" and m2["details"]["m"] == 2
    assert m3["value"] == frame.groupby(list("abc")).size().min() and "m" not in m3["details"]
