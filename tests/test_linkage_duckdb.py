"""Fellegi–Sunter record linkage with the pairs in DuckDB: the same figures as in process.

Through the CLI (``privaudit audit REL --original ORIG --engine duckdb|chunked``) and through
:func:`privaudit.risk.linkage.fellegi_sunter.sql.probabilistic_linkage_sql` directly.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import cli as run_cli
from conftest import write_policy

from privaudit.risk.linkage.fellegi_sunter import ComparisonSpec, probabilistic_linkage
from privaudit.risk.linkage.intruder import intruder_sample

duckdb = pytest.importorskip("duckdb")


POLICY = """version: 1
name: linkage
columns:
IDS  age: {role: quasi_identifier, type: numeric}
  zip: {role: quasi_identifier}
  job: {role: quasi_identifier}
  sex: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {id: fs, assessor: record_linkage, method: probabilistic, max_rate: 0.5, estimation: ESTIMATION,
     tolerances: {age: [1, 3]}, intruder: {rows: 0.6, seed: 5}BLOCKING}
"""


def tables(n: int = 300, seed: int = 2) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    original = pd.DataFrame(
        {
            "rid": [f"r{i}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "zip": rng.choice(list("ABCDEFGH"), n),
            "job": rng.choice([f"j{i}" for i in range(12)], n),
            "sex": rng.choice(["m", "f"], n),
            "disease": rng.choice(["x", "y"], n),
        }
    )
    released = original.copy()
    released["age"] = released["age"] + rng.integers(-2, 3, n)
    released["job"] = np.where(rng.random(n) < 0.2, "j0", released["job"])
    released["zip"] = released["zip"].where(rng.random(n) > 0.05, "")  # some missing
    return original, released


def policy(tmp_path, estimation="labels", blocking="", ids=True):
    text = (
        POLICY.replace("IDS", "  rid: {role: record_id}\n" if ids else "")
        .replace("ESTIMATION", estimation)
        .replace("BLOCKING", f", blocking: {blocking}" if blocking else "")
    )
    return write_policy(tmp_path, text)


def audit(tmp_path, released, original, pol, *extra):
    out = tmp_path / "report.json"
    code, _, err = run_cli("audit", released, "--policy", pol, "--original", original, "--json", out, *extra)
    assert out.exists(), err
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    return code, checks["fs"], json.loads(out.read_text())["original"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "estimation, blocking, ids, fmt",
    [
        ("labels", "[[zip], [job, sex]]", True, "csv"),
        ("both", "", False, "parquet"),
    ],
)
def test_cli_duckdb_gives_the_in_process_figures(tmp_path, estimation, blocking, ids, fmt):
    original, released = tables()
    if ids:  # a shuffled release joined by record_id
        released = released.sample(frac=1, random_state=1).reset_index(drop=True)
    paths = {}
    for name, frame in (("original", original), ("released", released)):
        paths[name] = tmp_path / f"{name}.{fmt}"
        frame.to_csv(paths[name], index=False) if fmt == "csv" else frame.to_parquet(paths[name], index=False)
    pol = policy(tmp_path, estimation, blocking, ids)
    code_a, a, orig_a = audit(tmp_path, paths["released"], paths["original"], pol)
    for engine in ("duckdb", "chunked"):
        code_b, b, orig_b = audit(
            tmp_path,
            paths["released"],
            paths["original"],
            pol,
            "--engine",
            engine,
            "--engine-option",
            "memory_limit=1GB" if engine == "duckdb" else "batch_rows=64",
        )
        assert (code_b, b["status"], b["value"], b["details"]) == (code_a, a["status"], a["value"], a["details"])
        assert orig_b == orig_a
    assert a["details"]["n_intruder"] == 180 and a["details"]["candidate_pairs"] > 0


@pytest.mark.slow
def test_cli_bad_inputs_are_one_line(tmp_path):
    original, released = tables(50)
    original.to_csv(tmp_path / "original.csv", index=False)
    released.to_csv(tmp_path / "released.csv", index=False)
    pol = policy(tmp_path)
    code, _, err = run_cli(
        "audit",
        tmp_path / "released.csv",
        "--policy",
        pol,
        "--original",
        tmp_path / "nowhere.csv",
        "--engine",
        "duckdb",
    )
    assert code == 2 and "nowhere.csv" in err and len(err.strip().splitlines()) == 1
    original.drop(columns=["zip"]).to_csv(tmp_path / "narrow.csv", index=False)
    code, _, err = run_cli(
        "audit", tmp_path / "released.csv", "--policy", pol, "--original", tmp_path / "narrow.csv", "--engine", "duckdb"
    )
    assert code == 2 and "zip" in err and len(err.strip().splitlines()) == 1
    # the original's rows must match the release's, as in process (same line)
    original.iloc[:45].to_csv(tmp_path / "short.csv", index=False)
    for ids in (False, True):
        pol = policy(tmp_path, ids=ids)
        lines = [
            run_cli("audit", tmp_path / "released.csv", "--policy", pol, "--original", tmp_path / "short.csv", *engine)[
                ::2
            ]
            for engine in ((), ("--engine", "duckdb"))
        ]
        assert lines[0] == lines[1] and lines[0][0] == 2 and len(lines[0][1].strip().splitlines()) == 1
    assert "record_id 'r45' is not in" in lines[0][1]
    # a blocking column that is not among the intruder's columns is a policy error
    bad = policy(tmp_path, blocking="[[disease]]")
    code, _, err = run_cli(
        "audit",
        tmp_path / "released.csv",
        "--policy",
        bad,
        "--original",
        tmp_path / "original.csv",
        "--engine",
        "duckdb",
    )
    assert code == 2 and "disease" in err and len(err.strip().splitlines()) == 1
    # the distance method still needs the tables in memory
    text = pol.read_text().split("checks:")[0] + "checks:\n  - {id: d, assessor: record_linkage, max_rate: 0.5}\n"
    dist = write_policy(tmp_path, text, "distance.yaml")
    code, _, err = run_cli(
        "audit",
        tmp_path / "released.csv",
        "--policy",
        dist,
        "--original",
        tmp_path / "original.csv",
        "--engine",
        "duckdb",
    )
    assert code == 2 and "in memory" in err


def _coded(frame: pd.DataFrame, ids: dict) -> dict:
    out = {}
    for c in frame.columns:
        missing = frame[c].isna().to_numpy()
        if c == "age":
            out[c] = pa.array(frame[c].to_numpy(dtype=float), pa.float64(), mask=missing)
        else:
            out[c] = pa.array(pd.Index(ids[c]).get_indexer(frame[c]), pa.int64(), mask=missing)
    return out


@pytest.mark.parametrize("blocking", [[["zip"], ["job", "sex"]], None, [["age"]], []])
def test_sql_pairs_equal_in_process(blocking):
    original, released = tables(400, seed=7)
    cols = ["age", "zip", "job", "sex"]
    original, released = original[cols], released[cols].replace("", None)
    specs = [ComparisonSpec("age", "numeric", (1, 3))] + [ComparisonSpec(c, "categorical") for c in cols[1:]]
    expected = probabilistic_linkage(original, released, specs, blocking=blocking, rows=0.5, seed=3, estimation="both")
    from privaudit.risk.linkage.fellegi_sunter.sql import probabilistic_linkage_sql

    idx = intruder_sample(len(original), 0.5, 3)
    ids = {c: pd.unique(pd.concat([original[c], released[c]]).dropna()) for c in cols[1:]}
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
    got = probabilistic_linkage_sql(con, "l", "r", specs, blocking=blocking, estimation="both")
    assert got == expected
