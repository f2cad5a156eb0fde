"""The utility families of privaudit/utility/synthetic_quality.py (SDMetrics' quality report) and
classification.py (ARX's classification benchmark) through the audit: the CLI's JSON ``utility`` list carries
the figures the modules compute directly, a synthetic release gets the quality report by default, and asking
for a measure without its inputs is one line and exit 2."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privaudit.testing import run_cli
from privaudit.utility.classification import classification_accuracy
from privaudit.utility.synthetic_quality import quality_report

COLUMNS = {
    "age": {"role": "quasi_identifier", "type": "numeric"},
    "sex": {"role": "quasi_identifier"},
    "job": {"role": "quasi_identifier"},
    "disease": {"role": "sensitive"},
    "name": {"role": "identifier"},
}


def _people(n: int, rng: np.random.Generator) -> pd.DataFrame:
    age = rng.integers(18, 90, n)
    job = rng.integers(0, 6, n)
    return pd.DataFrame(
        {
            "age": age,
            "sex": rng.choice(["f", "m"], n),
            "job": [f"j{j}" for j in job],
            "disease": [f"d{(a // 20 + j) % 3}" for a, j in zip(age, job, strict=True)],
            "name": [f"person {i}" for i in range(n)],
        }
    )


@pytest.fixture
def synthetic(tmp_path):
    rng = np.random.default_rng(11)
    train, holdout = _people(300, rng), _people(300, rng)
    release = pd.DataFrame(
        {c: train[c].sample(n=300, replace=True, random_state=i).to_numpy() for i, c in enumerate(train.columns)}
    )
    for name, frame in (("train", train), ("holdout", holdout), ("release", release)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    return tmp_path, train, release


def _utility(path):
    return json.loads(path.read_text())["utility"]


def test_a_synthetic_release_gets_sdmetrics_quality_report_by_default(synthetic):
    folder, train, release = synthetic
    policy = folder / "p.json"
    policy.write_text(
        json.dumps(
            {
                "version": 1,
                "name": "t",
                "release": "synthetic",
                "columns": COLUMNS,
                "checks": [{"assessor": "distance_to_closest_record"}],
            }
        )
    )
    result = run_cli(
        "audit",
        folder / "release.csv",
        "--policy",
        policy,
        "--original",
        folder / "train.csv",
        "--control",
        folder / "holdout.csv",
        "--json",
        folder / "r.json",
        "--quiet",
    )
    assert result.code in (0, 1), result.stderr
    got = {(e["measure"], e["column"]): e for e in _utility(folder / "r.json")}
    kinds = {"age": "numerical", "sex": "categorical", "job": "categorical", "disease": "categorical"}
    expected = quality_report(train, release, kinds)
    assert {(e["measure"], e["column"]) for e in expected} == set(got)  # the identifier is not compared
    for e in expected:
        assert got[(e["measure"], e["column"])]["value"] == pytest.approx(e["value"], abs=1e-12, nan_ok=True)
    assert got[("quality_score", None)]["value"] == pytest.approx(expected[-1]["value"])
    assert ("granularity", None) not in got  # release-only ARX measures are for masked microdata


def test_classification_benchmark_through_the_cli_equals_the_module(tmp_path):
    rng = np.random.default_rng(5)
    n = 240
    age = rng.integers(20, 70, n)
    sex = rng.choice(["f", "m"], n)
    label = np.where((age > 45) ^ (rng.random(n) < 0.1), "high", "low")
    original = pd.DataFrame({"age": age.astype(str), "sex": sex, "income": label})
    release = original.assign(age=[f"{a // 10 * 10}-{a // 10 * 10 + 9}" for a in age])
    original.to_csv(tmp_path / "original.csv", index=False)
    release.to_csv(tmp_path / "release.csv", index=False)
    options = {"target": "income", "models": ["logistic"], "folds": 4}
    policy = tmp_path / "p.json"
    policy.write_text(
        json.dumps(
            {
                "version": 1,
                "name": "t",
                "columns": {
                    "age": {"role": "quasi_identifier"},
                    "sex": {"role": "quasi_identifier"},
                    "income": {"role": "sensitive"},
                },
                "utility": [{"classification_accuracy": options}],
                "checks": [{"assessor": "k_anonymity", "k": 2}],
            }
        )
    )
    result = run_cli(
        "audit",
        tmp_path / "release.csv",
        "--policy",
        policy,
        "--original",
        tmp_path / "original.csv",
        "--json",
        tmp_path / "r.json",
        "--quiet",
    )
    assert result.code in (0, 1), result.stderr
    (got,) = _utility(tmp_path / "r.json")
    (expected,) = classification_accuracy(release, original, "income", ["age", "sex"], models=["logistic"], folds=4)
    assert got["measure"] == "classification_accuracy" and got["column"] == "income"
    assert got["value"] == pytest.approx(expected["value"]) and got["raw"] == pytest.approx(expected["raw"])
    assert 0.5 < got["raw"] <= 1


@pytest.mark.parametrize(
    "utility, release, expected",
    [
        ([{"classification_accuracy": {"models": ["logistic"]}}], "microdata", "needs a target column"),
        (["quality_score"], "microdata", "is for a synthetic release"),
        ([{"classification_accuracy": {"target": "sex", "tagret": 1}}], "microdata", "has no option 'tagret'"),
    ],
)
def test_a_measure_without_its_inputs_is_one_line(tmp_path, utility, release, expected):
    frame = pd.DataFrame({"age": ["20", "30", "40", "50"] * 30, "sex": ["f", "m"] * 60})
    frame.to_csv(tmp_path / "d.csv", index=False)
    policy = tmp_path / "p.json"
    policy.write_text(
        json.dumps(
            {
                "version": 1,
                "name": "t",
                "release": release,
                "utility": utility,
                "columns": {"age": {"role": "quasi_identifier"}, "sex": {"role": "quasi_identifier"}},
                "checks": [{"assessor": "k_anonymity", "k": 2}],
            }
        )
    )
    result = run_cli(
        "audit", tmp_path / "d.csv", "--policy", policy, "--original", tmp_path / "d.csv", "--json", tmp_path / "r.json"
    )
    assert result.code == 2, result.stdout
    assert expected in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r.json").exists()
