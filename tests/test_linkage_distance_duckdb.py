"""Blocked distance-based record linkage past memory: DuckDB gives the in-process figures.

Through the CLI (``privaudit audit REL --original ORIG --engine duckdb|chunked`` against the default
engine), through :func:`privaudit.risk.linkage.distance_sql.distance_linkage_sql` against
:func:`privaudit.risk.linkage.distance_blocked.blocked_distance_linkage` directly, and the blocked linkage
against the plain :func:`privaudit.risk.linkage.distance_linkage` when one block holds everything.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import cli as run_cli
from conftest import write_policy

from privaudit.risk.linkage import AttributeSpec, distance_linkage
from privaudit.risk.linkage.distance_blocked import blocked_distance_linkage
from privaudit.risk.linkage.intruder import intruder_sample

duckdb = pytest.importorskip("duckdb")


POLICY = """version: 1
name: linkage
columns:
IDS  age: {role: quasi_identifier, type: numeric}
  income: {role: quasi_identifier, type: numeric}
  zip: {role: quasi_identifier}
  sex: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {id: d, assessor: record_linkage, max_rate: 0.5, intruder: {rows: 0.6, seed: 5}EXTRA}
"""


def tables(n: int = 300, seed: int = 2) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Coarse values (many exact ties), missing values on both sides, a rescaled numeric column."""
    rng = np.random.default_rng(seed)
    original = pd.DataFrame(
        {
            "rid": [f"r{i}" for i in range(n)],
            "age": rng.integers(18, 40, n).astype(float),
            "income": rng.integers(1, 6, n).astype(float) * 10,
            "zip": rng.choice(list("ABCD"), n),
            "sex": rng.choice(["m", "f"], n),
            "disease": rng.choice(["x", "y"], n),
        }
    )
    original.loc[rng.random(n) < 0.05, "income"] = np.nan
    released = original.copy()
    released["age"] = released["age"] + rng.integers(-1, 2, n)
    released["income"] = released["income"] * 3 + 40  # each file standardised by its own mean and sd
    released.loc[rng.random(n) < 0.05, "zip"] = ""  # missing: never blocks, its own category
    released.loc[rng.random(n) < 0.05, "age"] = np.nan
    return original, released


def policy(tmp_path, extra: str = "", ids: bool = True, name: str = "policy.yaml"):
    text = POLICY.replace("IDS", "  rid: {role: record_id}\n" if ids else "").replace("EXTRA", extra)
    return write_policy(tmp_path, text, name)


def write(tmp_path, original, released, fmt="csv"):
    paths = {}
    for name, frame in (("original", original), ("released", released)):
        paths[name] = tmp_path / f"{name}.{fmt}"
        frame.to_csv(paths[name], index=False) if fmt == "csv" else frame.to_parquet(paths[name], index=False)
    return paths


def audit(tmp_path, paths, pol, *extra):
    out = tmp_path / "report.json"
    code, _, err = run_cli(
        "audit", paths["released"], "--policy", pol, "--original", paths["original"], "--json", out, *extra
    )
    assert out.exists(), err
    report = json.loads(out.read_text())
    return code, {c["id"]: c for c in report["checks"]}["d"], report["original"]


@pytest.mark.parametrize(
    "blocking, ids, fmt",
    [
        ("[[zip], [sex, age]]", True, "csv"),
        ("[[sex]]", False, "parquet"),
    ],
)
@pytest.mark.slow
def test_cli_duckdb_and_chunked_give_the_in_process_figures(tmp_path, blocking, ids, fmt):
    original, released = tables()
    if ids:  # a shuffled release joined by record_id
        released = released.sample(frac=1, random_state=1).reset_index(drop=True)
    paths = write(tmp_path, original, released, fmt)
    pol = policy(tmp_path, f", blocking: {blocking}, weights: {{income: 2, sex: 0.5}}", ids)
    code_a, a, orig_a = audit(tmp_path, paths, pol)
    for engine, option in (("duckdb", "memory_limit=1GB"), ("chunked", "batch_rows=64")):
        code_b, b, orig_b = audit(tmp_path, paths, pol, "--engine", engine, "--engine-option", option)
        assert (code_b, b["status"], b["value"], b["details"]) == (code_a, a["status"], a["value"], a["details"])
        assert orig_b == orig_a
    d = a["details"]
    assert d["n_intruder"] == 180 and d["candidate_pairs"] > 0 and d["blocking"]
    assert 0 < a["value"] < 1 and a["value"] * 180 != round(a["value"] * 180)  # ties count 1/t


def test_refusals_are_one_line(tmp_path):
    original, released = tables(60)
    paths = write(tmp_path, original, released)
    cases = [
        ("", "`blocking`"),
        (", assignment: one_to_one", "assignment: one_to_one"),
        (", metric: mahalanobis", "metric: mahalanobis"),
        (", worst_case: true", "worst_case: true"),
    ]
    for extra, expected in cases:
        pol = policy(tmp_path, extra)
        code, _, err = run_cli(
            "audit", paths["released"], "--policy", pol, "--original", paths["original"], "--engine", "duckdb"
        )
        assert code == 2 and expected in err and "in memory" in err and len(err.strip().splitlines()) == 1, err
    # with blocking, under every engine: what the blocked linkage does not do is a policy error
    for extra, expected in [
        (", blocking: [[zip]], assignment: one_to_one", "blocking"),
        (", blocking: [[zip]], worst_case: true", "worst_case"),
        (", blocking: []", "blocking"),
        (", blocking: [[disease]]", "disease"),
    ]:
        for engine in ("in-process", "duckdb"):
            pol = policy(tmp_path, extra)
            code, _, err = run_cli(
                "audit", paths["released"], "--policy", pol, "--original", paths["original"], "--engine", engine
            )
            assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, err
    text = (
        policy(tmp_path, ", blocking: [[sex]]")
        .read_text()
        .replace(
            "zip: {role: quasi_identifier}",
            "zip: {role: quasi_identifier, hierarchy: {A: ['*'], B: ['*'], C: ['*'], D: ['*']}}",
        )
    )
    pol = write_policy(tmp_path, text, "hierarchy.yaml")
    code, _, err = run_cli("audit", paths["released"], "--policy", pol, "--original", paths["original"])
    assert code == 2 and "hierarchy" in err and len(err.strip().splitlines()) == 1, err


def _coded(frame: pd.DataFrame, ids: dict) -> dict:
    out = {}
    for c in frame.columns:
        missing = frame[c].isna().to_numpy()
        if c in ids:
            out[c] = pa.array(pd.Index(ids[c]).get_indexer(frame[c]), pa.int64(), mask=missing)
        else:
            out[c] = pa.array(frame[c].to_numpy(dtype=float), pa.float64(), mask=missing)
    return out


SPECS = [
    AttributeSpec("age", "numeric"),
    AttributeSpec("income", "numeric", weight=2.0),
    AttributeSpec("zip", "categorical"),
    AttributeSpec("sex", "categorical", weight=0.5),
]


@pytest.mark.parametrize("blocking", [[["sex"]], [["zip"], ["sex", "age"]], [["zip", "sex"], ["income"]]])
def test_sql_equals_in_process(blocking):
    from privaudit.risk.linkage.distance_sql import distance_linkage_sql

    original, released = tables(400, seed=7)
    cols = ["age", "income", "zip", "sex"]
    original, released = original[cols], released[cols].replace("", None)
    expected = blocked_distance_linkage(original, released, SPECS, blocking, rows=0.7, seed=3)
    idx = intruder_sample(len(original), 0.7, 3)
    ids = {c: pd.unique(pd.concat([original[c], released[c]]).dropna()) for c in ("zip", "sex")}
    con = duckdb.connect()
    con.register(
        "l",
        pa.table(
            {
                "privaudit_lid": np.arange(len(idx)),
                "privaudit_own": idx,
                **_coded(original.iloc[idx].reset_index(drop=True), ids),
            }
        ),
    )
    con.register("r", pa.table({"privaudit_rid": np.arange(len(released)), **_coded(released, ids)}))
    con.register("o", pa.table(_coded(original, ids)))
    got = distance_linkage_sql(con, "l", "r", "o", SPECS, blocking)
    assert got.to_dict() == expected.to_dict()
    np.testing.assert_array_equal(got.credit, expected.credit)
    np.testing.assert_allclose(got.d1, expected.d1, rtol=1e-12)
    assert 0 < expected.to_dict()["pair_recall"] <= 1


def test_one_block_is_the_plain_nearest_neighbour_linkage():
    original, released = tables(400, seed=4)
    original, released = original.assign(all="x"), released.assign(all="x")
    specs = [*SPECS, AttributeSpec("all", "categorical")]
    plain = distance_linkage(original, released, specs, rows=0.5, seed=1)
    blocked = blocked_distance_linkage(original, released, specs, [["all"]], rows=0.5, seed=1)
    np.testing.assert_array_equal(blocked.credit, plain.credit)
    np.testing.assert_allclose(blocked.d1, plain.nearest_distance, rtol=1e-12, atol=1e-15)
    d = blocked.to_dict()
    assert d["rate"] == pytest.approx(plain.rate) and d["distinct_share"] == plain.distinct_share
    assert d["without_candidates"] == 0 and d["pair_recall"] == 1


def test_a_record_without_candidates_is_not_linked():
    original = pd.DataFrame({"age": [30.0, 40.0, 50.0], "zip": ["A", "B", "C"]})
    released = pd.DataFrame({"age": [30.0, 40.0, 50.0], "zip": ["A", "B", None]})
    specs = [AttributeSpec("age", "numeric"), AttributeSpec("zip", "categorical")]
    result = blocked_distance_linkage(original, released, specs, [["zip"]])
    np.testing.assert_array_equal(result.credit, [1.0, 1.0, 0.0])
    assert result.to_dict()["without_candidates"] == 1 and not result.seen[2]


def test_numeric_block_keys_compare_as_numbers():
    original = pd.DataFrame({"age": [30, 40, 50, 60], "zip": ["A", "B", "A", "B"]})
    released = pd.DataFrame({"age": [30.0, 40.0, np.nan, 60.0], "zip": ["A", "B", "A", "B"]})
    specs = [AttributeSpec("age", "numeric"), AttributeSpec("zip", "categorical")]
    result = blocked_distance_linkage(original, released, specs, [["age"]])
    np.testing.assert_array_equal(result.seen, [True, True, False, True])
    np.testing.assert_array_equal(result.credit, [1.0, 1.0, 0.0, 1.0])
