"""A data owner auditing synthetic releases end to end (``release: synthetic``): a copy of the training
table fails, independent column marginals pass, a larger ``n_attacks`` or a tiny control table cannot talk
a leaky release into passing, and bad input is one line with exit 2."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privaudit.risk.synthetic_attacks import singling_out_attack
from privaudit.testing import run_cli

COLUMNS = {
    "age": {"role": "quasi_identifier", "type": "numeric"},
    "sex": {"role": "quasi_identifier"},
    "zip": {"role": "quasi_identifier"},
    "job": {"role": "quasi_identifier"},
    "disease": {"role": "sensitive"},
}


def _people(n: int, rng: np.random.Generator) -> pd.DataFrame:
    age = rng.integers(18, 90, n)
    job = rng.integers(0, 8, n)
    return pd.DataFrame(
        {
            "age": age,
            "sex": rng.choice(["f", "m"], n),
            "zip": rng.choice(list("abcdefgh"), n),
            "job": [f"j{j}" for j in job],
            "disease": [f"d{(a // 15 + j) % 4}" for a, j in zip(age, job, strict=False)],
        }
    )


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(7)
    train, holdout = _people(400, rng), _people(400, rng)
    train.to_csv(tmp_path / "train.csv", index=False)
    holdout.to_csv(tmp_path / "holdout.csv", index=False)
    train.to_csv(tmp_path / "copy.csv", index=False)
    pd.DataFrame(
        {c: train[c].sample(n=400, replace=True, random_state=i).to_numpy() for i, c in enumerate(train.columns)}
    ).to_csv(tmp_path / "marginals.csv", index=False)
    holdout.iloc[:0].to_csv(tmp_path / "empty.csv", index=False)
    holdout.iloc[:3].to_csv(tmp_path / "tiny.csv", index=False)
    holdout.drop(columns=["job"]).to_csv(tmp_path / "no_job.csv", index=False)
    return tmp_path


def _policy(path, checks=None):
    policy = {"version": 1, "name": "synthetic", "release": "synthetic", "columns": COLUMNS}
    if checks is not None:
        policy["checks"] = checks
    path.write_text(json.dumps(policy))
    return path


def _audit(files, release, policy, *extra):
    out = files / f"{release}.json"
    result = run_cli(
        "audit",
        files / f"{release}.csv",
        "--policy",
        policy,
        "--original",
        files / "train.csv",
        "--control",
        files / "holdout.csv",
        "--json",
        out,
        "--quiet",
        *extra,
    )
    return result, {c["assessor"]: c for c in json.loads(out.read_text())["checks"]}


@pytest.mark.slow
def test_a_copy_fails_and_marginals_pass(files):
    policy = _policy(files / "p.yaml")
    copied, copy = _audit(files, "copy", policy)
    kept, marginals = _audit(files, "marginals", policy)
    assert copied.code == 1 and kept.code == 0
    for name in ("distance_to_closest_record", "singling_out", "inference"):
        assert copy[name]["status"] == "fail" and marginals[name]["status"] == "pass", name
    for name in ("singling_out", "linkability", "inference"):
        assert copy[name]["value"] > marginals[name]["value"], name


def test_asking_for_more_attacks_than_predicates_does_not_lower_the_risk(files):
    """A copy of 400 records has only 367 predicates singling out one record; the rates are over those, not
    over the n_attacks asked for (which counted the rest as failures: the risk, 0.99 over the 367, was
    0.65 at the default n_attacks 500 and 0.01 at 20,000)."""
    train, copy, holdout = (pd.read_csv(files / f"{n}.csv") for n in ("train", "copy", "holdout"))
    numeric = {c: c == "age" for c in COLUMNS}
    few = singling_out_attack(train, copy, holdout, list(COLUMNS), numeric, n_attacks=100)
    many = singling_out_attack(train, copy, holdout, list(COLUMNS), numeric, n_attacks=20_000)
    assert many.n_predicates < 20_000 and many.outcome.attack.trials == many.n_predicates
    assert many.outcome.risk.value > 0.5 and abs(many.outcome.risk.value - few.outcome.risk.value) < 0.2
    assert any("rates are over those" in note for note in many.outcome.notes)

    policy = _policy(files / "p.yaml", [{"assessor": "singling_out", "n_attacks": 20_000, "max_risk": 0.3}])
    result, checks = _audit(files, "copy", policy)
    assert result.code == 1 and checks["singling_out"]["status"] == "fail"
    assert f"over {many.n_predicates} multivariate predicates (of 20000 requested" in checks["singling_out"]["message"]


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"control": "empty.csv"}, "no data rows"),
        # 3 control records pulled the control rate to 1/2: a copy's linkability risk fell from 0.10 to 0.00
        (
            {"control": "tiny.csv", "checks": [{"assessor": "linkability", "max_risk": 0.1}]},
            "--control: 3 record(s), fewer than the 100 the linkability attack needs",
        ),
        ({"control": "no_job.csv"}, "'job' is absent"),
        ({"control": None}, "--control FILE"),
        ({"checks": [{"assessor": "inference", "secret": "salary", "max_risk": 0.1}]}, "secret: 'salary'"),
        (
            {"checks": [{"assessor": "linkability", "aux_columns": [["age"], ["zipcode"]], "max_risk": 0.1}]},
            "aux_columns[1]: 'zipcode'",
        ),
        (
            {"checks": [{"assessor": "inference", "aux_columns": ["age", "nope"], "max_risk": 0.1}]},
            "aux_columns: 'nope'",
        ),
        ({"checks": [{"assessor": "singling_out", "n_attacks": 10**9, "max_risk": 0.1}]}, "n_attacks"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(files, change, expected):
    policy = _policy(files / "p.yaml", change.get("checks"))
    control = change.get("control", "holdout.csv")
    args = ["--control", files / control] if control else []
    result = run_cli("audit", files / "copy.csv", "--policy", policy, "--original", files / "train.csv", *args)
    assert result.code == 2, result
    assert result.stderr.count("\n") == 1 and expected in result.stderr and "Traceback" not in result.stderr
