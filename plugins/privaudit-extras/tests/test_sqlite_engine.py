"""The ``sqlite`` engine gives in-process's figures: the JSON reports are equal (as privaudit's own
tests/test_engines.py compares its engines), on the bundled Adult example and on a messy table (padded
numbers, missing tokens, weights, an ordinal column; Adult's hierarchies); bad input is in-process's one line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import REPO
from privaudit_extras import sqlite_engine

from privaudit.testing import AssessorCase, parametrize_with_checks, registry_with, run_cli

MESSY_POLICY = """version: 1
name: messy
data:
  missing: ["?", "NA"]
columns:
  id: {role: identifier}
  age: {role: quasi_identifier, type: numeric}
  zip: {role: quasi_identifier}
  grade: {role: quasi_identifier, type: ordinal, order: [low, mid, high]}
  disease: {role: sensitive}
  income: {role: sensitive, type: numeric}
  w: {role: weight}
  note: {role: other}
checks:
  - {id: k3, assessor: k_anonymity, k: 3}
  - {id: ldiv, assessor: l_diversity, sensitive: disease, l: 2, severity: warning}
  - {id: tclose, assessor: t_closeness, sensitive: income, t: 0.3, severity: warning}
  - {id: unique, assessor: uniqueness, max_share: 0.05, severity: warning}
"""


def messy(n: int = 1200, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)

    def pick(values, missing=0.05):
        out = rng.choice(np.array(values, dtype=object), n)
        out[rng.random(n) < missing] = "?"
        return out

    age = np.array([str(a) for a in rng.integers(17, 40, n)], dtype=object)
    age[rng.random(n) < 0.1] = "19.0"  # the same number as "19"
    age[rng.random(n) < 0.05] = " 20 "  # padded
    age[rng.random(n) < 0.03] = ""  # missing
    return pd.DataFrame(
        {
            "id": pick([f"p{i}" for i in range(60)], 0.3),
            "age": age,
            "zip": pick(["z1", "Z1", "z10", "a b", "é3"]),
            "grade": pick(["low", "mid", "high"]),
            "disease": pick(["flu", "cold", "asthma", "ulcer"]),
            "income": pick(["1000", "2000", "2500.5", "1e3", "4000"]),
            "w": pick(["1", "2", "0.5", "4.25"]),  # dyadic: weight sums are exact in any order
            "note": pick(["a", "=1+1", "NA"]),
        }
    )


def report(data, policy, *options) -> dict:
    out = data.parent / f"report-{len(list(data.parent.glob('report-*')))}.json"
    done = run_cli("audit", data, "--policy", policy, "--json", out, *options)
    assert done.code in (0, 1), done.stderr
    got = json.loads(out.read_text())
    got.pop("generated_at")
    return got


def assert_same(data, policy, *options):
    reference, got = report(data, policy), report(data, policy, "--engine", "sqlite", *options)
    assert reference.pop("engine") == "in-process" and got.pop("engine") == "sqlite"
    assert got["input"] == reference["input"]
    for ref_check, check in zip(reference["checks"], got["checks"], strict=True):
        assert check == ref_check, check["id"]
    assert got == reference


@pytest.mark.slow
def test_the_bundled_example_equals_in_process(tmp_path):
    data = tmp_path / "release.csv"
    data.write_bytes((REPO / "examples/adult/release.csv").read_bytes())
    assert_same(data, REPO / "policies/adult.yaml", "--allow-outside-paths")


@pytest.mark.slow
@pytest.mark.parametrize("options", [(), ("--engine-option", "block_bytes=4000")])
def test_a_messy_table_equals_in_process(tmp_path, options):
    messy().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "policy.yaml").write_text(MESSY_POLICY)
    assert_same(tmp_path / "data.csv", tmp_path / "policy.yaml", *options)


def test_a_bad_value_is_in_process_line(tmp_path):
    frame = messy(300)
    frame.loc[250, "income"] = "lots"
    frame.loc[280, "age"] = "old"
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "policy.yaml").write_text(MESSY_POLICY)
    reference = run_cli("audit", tmp_path / "data.csv", "--policy", tmp_path / "policy.yaml")
    got = run_cli("audit", tmp_path / "data.csv", "--policy", tmp_path / "policy.yaml", "--engine", "sqlite")
    assert reference.code == got.code == 2 and got.stderr.count("\n") == 1
    assert "column 'age', line 282: 'old' is not a" in got.stderr  # the first bad column in file order
    assert got.stderr == reference.stderr


def test_a_parquet_file_and_wildcard_matching_are_refused(tmp_path):
    messy(50).to_parquet(tmp_path / "data.parquet")
    (tmp_path / "policy.yaml").write_text(MESSY_POLICY)
    done = run_cli("audit", tmp_path / "data.parquet", "--policy", tmp_path / "policy.yaml", "--engine", "sqlite")
    assert done.code == 2 and done.stderr.count("\n") == 1
    assert "the sqlite engine reads one CSV file" in done.stderr
    messy(50).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "policy.yaml").write_text(MESSY_POLICY.replace("data:\n", "data:\n  missing_qi: wildcard\n"))
    done = run_cli("audit", tmp_path / "data.csv", "--policy", tmp_path / "policy.yaml", "--engine", "sqlite")
    assert done.code == 2 and "'wildcard'" in done.stderr and "--engine in-process" in done.stderr


def test_options_are_checked(release):
    done = run_cli(
        "audit", release / "data.csv", "--policy", release / "policy.yaml", "--engine", "sqlite",
        "--engine-option", "temp_directory=" + str(release / "nowhere"),
    )  # fmt: skip
    assert done.code == 2 and "temp_directory" in done.stderr and "folder not found" in done.stderr
    done = run_cli(
        "audit", release / "data.csv", "--policy", release / "policy.yaml", "--engine", "sqlite",
        "--engine-option", "threads=2",
    )  # fmt: skip
    assert done.code == 2 and "the sqlite engine takes block_bytes, temp_directory" in done.stderr


# privaudit's assessor contract: with the sqlite engine registered, "the same figures on every engine"
# compares it with in-process (and chunked, duckdb) for class-based checks.
RNG = np.random.default_rng(11)
FRAME = pd.DataFrame(
    {
        "age": RNG.integers(20, 30, 300),
        "zip": RNG.choice(["z1", "z2", "z3", "z4"], 300),
        "disease": RNG.choice(["flu", "cold", "none", "hiv"], 300, p=[0.3, 0.3, 0.3, 0.1]),
    }
)
COLUMNS = {
    "age": {"role": "quasi_identifier", "type": "numeric"},
    "zip": {"role": "quasi_identifier"},
    "disease": {"role": "sensitive"},
}
CASES = [
    AssessorCase({"assessor": "k_anonymity", "k": 3}, FRAME, COLUMNS),
    AssessorCase({"assessor": "l_diversity", "sensitive": "disease", "l": 2, "variant": "entropy"}, FRAME, COLUMNS),
]


@pytest.fixture(scope="module")
def registry():
    return registry_with(sqlite_engine)


@parametrize_with_checks(CASES)
def test_contract(case, check, registry):
    check(case, registry)


def test_the_contract_runs_the_sqlite_engine(registry):
    from privaudit.testing.contract import engines_for

    assert "sqlite" in engines_for(CASES[0], registry)


def test_progress_ends_done_and_the_summary_counts_every_row(release):
    from privaudit.testing import load_policy

    calls = []
    policy = load_policy(release / "policy.yaml")
    got = sqlite_engine.summarize(
        release / "data.csv", policy, block_bytes=1000, progress=lambda *a: calls.append(a)
    )  # fmt: skip
    assert len(calls) >= 4 and calls[-1][1] == calls[-1][2]  # several blocks of about 1,000 bytes, then done
    assert all(done < total for _, done, total in calls[:-1])
    assert got.table.rows == got.summary.n_records == 400 and got.column_counts == {
        "age": 400,
        "zip": 400,
        "disease": 400,
    }


def test_a_policy_with_nothing_to_group_on_is_one_class(release):
    policy = release / "policy.yaml"
    policy.write_text("version: 1\nname: none\ncolumns:\n  age: {role: other, type: numeric}\nchecks: []\n")
    assert_same(release / "data.csv", policy)
