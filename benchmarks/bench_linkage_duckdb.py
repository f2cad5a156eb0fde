"""Benchmark: Fellegi–Sunter record linkage of 10^6 x 10^6 records with blocking, pairs in DuckDB (issue #15 item 4).

Data (synthetic, seeded): ``n`` original records with ``age`` (18..90, numeric), ``zip`` (2,000 values),
``job`` (50), ``edu`` (16), ``sex`` (2) and a sensitive column; the release is a perturbed copy in the same
row order (``age`` + U{-2..2}; ``job`` replaced by a random one in 10 % of the rows, ``zip`` in 5 %).
Both are CSV files. Intruder: all ``n`` original records, knowing the five columns; comparisons: age
exact / |d| <= 1 / |d| <= 3 / else, the four others exact / else; blocking: the union of exact blocks on
``(zip, job)``, ``(zip, edu, sex)`` and ``(age, job, edu)``; m/u from the true pairs (``labels``; ``--estimation
em`` for privaudit's EM, splink then skipped).

Runs, each in a fresh process whose peak memory is the largest sum of ``VmRSS`` over the process and
its children, sampled from ``/proc`` every 50 ms:

* ``privaudit duckdb``: ``run_audit(release, policy, original=..., engine="duckdb",
  memory_limit=...)`` -- the pairs never leave DuckDB (:mod:`privaudit.risk.linkage.fellegi_sunter.sql`);
* ``privaudit in-process`` (``--in-process``): the same audit with both tables loaded, for the figures
  (they must be equal) and the memory it needs;
* ``splink`` (when a Python with splink 4 is found: ``--splink-python``, default
  ``/tmp/splinkvenv_fs/bin/python``): Splink on DuckDB with the same blocking rules and comparison
  levels, the same DuckDB ``memory_limit``, u by random sampling (10^7 pairs), m from the label column,
  then ``predict()`` and the same top-1 figure (ties credited 1/t) in SQL, as
  ``bench_linkage_probabilistic.py`` does.

Usage: ``python benchmarks/bench_linkage_duckdb.py [--rows 1000000] [--memory-limit 3GB] [--in-process]
[--skip-splink]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from measure import audit_check, run_sampled
from splink_top1 import top1_sql

REPO = Path(__file__).resolve().parents[1]
COLUMNS = ["age", "zip", "job", "edu", "sex"]
CATEGORICAL = COLUMNS[1:]
BLOCKING = [["zip", "job"], ["zip", "edu", "sex"], ["age", "job", "edu"]]
AGE_TOLERANCES = (1, 3)
DEFAULT_SPLINK_PYTHON = "/tmp/splinkvenv_fs/bin/python"

POLICY = f"""version: 1
name: linkage benchmark
columns:
  age: {{role: quasi_identifier, type: numeric}}
  zip: {{role: quasi_identifier}}
  job: {{role: quasi_identifier}}
  edu: {{role: quasi_identifier}}
  sex: {{role: quasi_identifier}}
  disease: {{role: sensitive}}
checks:
  - id: fs
    assessor: record_linkage
    method: probabilistic
    max_rate: 1
    estimation: ESTIMATION
    tolerances: {{age: {list(AGE_TOLERANCES)}}}
    blocking: {json.dumps(BLOCKING)}
"""


def make_tables(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    original = pd.DataFrame(
        {
            "age": rng.integers(18, 91, n),
            "zip": rng.integers(0, 2000, n).astype(str),
            "job": np.char.add("j", rng.integers(0, 50, n).astype(str)),
            "edu": np.char.add("e", rng.integers(0, 16, n).astype(str)),
            "sex": rng.choice(["f", "m"], n),
            "disease": rng.choice(["a", "b", "c"], n),
        }
    )
    released = original.copy()
    released["age"] = original["age"] + rng.integers(-2, 3, n)
    swap = rng.random(n) < 0.10
    released.loc[swap, "job"] = np.char.add("j", rng.integers(0, 50, int(swap.sum())).astype(str))
    swap = rng.random(n) < 0.05
    released.loc[swap, "zip"] = rng.integers(0, 2000, int(swap.sum())).astype(str)
    return original, released


# --------------------------------------------------------------------------- workers (fresh processes)


def worker_privaudit(folder: Path, engine: str, memory_limit: str) -> dict:
    wall, check = audit_check(folder, "fs", engine, memory_limit, REPO)
    e = next(x for x in check.details["estimations"] if x["estimation"] == check.details["worst_estimation"])
    return {
        "wall_s": wall,
        "check_s": check.seconds,
        "value": check.value,
        "n_pairs": check.details["candidate_pairs"],
        "pair_recall": check.details["pair_recall"],
        "top1": e["top1_correct"],
        "links": e["links"],
        "upper": e["thresholds"]["upper"],
        "details": check.details,
    }


def worker_splink(folder: Path, engine: str, memory_limit: str) -> dict:
    import logging

    import duckdb
    import splink
    import splink.comparison_level_library as cll
    import splink.comparison_library as cl
    from splink import DuckDBAPI, Linker, SettingsCreator, block_on

    t0 = time.perf_counter()
    con = duckdb.connect(":memory:", config={"memory_limit": memory_limit, "temp_directory": tempfile.mkdtemp()})
    for name in ("original", "released"):
        con.execute(
            f"CREATE TABLE {name} AS SELECT row_number() OVER () - 1 AS unique_id, "
            f"row_number() OVER () - 1 AS truth, * FROM read_csv('{folder / (name + '.csv')}', "
            "types={'zip': 'VARCHAR'})"
        )
    n = int(con.sql("SELECT count(*) FROM original").fetchall()[0][0])
    db = DuckDBAPI(connection=con)
    age = [cll.NullLevel("age"), cll.ExactMatchLevel("age")]
    age += [cll.AbsoluteDifferenceLevel("age", t) for t in AGE_TOLERANCES] + [cll.ElseLevel()]
    settings = SettingsCreator(
        link_type="link_only",
        comparisons=[cl.CustomComparison(age, output_column_name="age")] + [cl.ExactMatch(c) for c in CATEGORICAL],
        blocking_rules_to_generate_predictions=[block_on(*rule) for rule in BLOCKING],
        probability_two_random_records_match=1.0 / n,
        retain_intermediate_calculation_columns=False,
        retain_matching_columns=False,
    )
    linker = Linker(
        ["original", "released"],
        settings,
        db_api=db,
        input_table_aliases=["a_original", "b_released"],
        set_up_basic_logging=False,
    )
    logging.getLogger("splink").setLevel(logging.WARNING)
    linker.training.estimate_u_using_random_sampling(max_pairs=1e7, seed=1)
    linker.training.estimate_m_from_label_column("truth")
    pred = linker.inference.predict()
    sql = top1_sql(pred.physical_name)
    row = con.sql(sql).fetchall()[0]
    return {
        "version": splink.__version__,
        "wall_s": time.perf_counter() - t0,
        "n_pairs": int(row[0]),
        "top1": float(row[1]) / n,
    }


# --------------------------------------------------------------------------- orchestration


def run_worker(python: str, kind: str, folder: Path, engine: str, memory_limit: str) -> dict:
    cmd = [python, str(Path(__file__).resolve()), "--worker", kind, str(folder), engine, memory_limit]
    run = run_sampled(cmd, env=dict(os.environ, PYTHONPATH=str(REPO)))
    if run.returncode != 0:
        raise RuntimeError(f"{kind}/{engine} worker failed (exit code {run.returncode}):\n{run.stderr[-3000:]}")
    res = json.loads(run.stdout.strip().splitlines()[-1])
    res["process_s"] = run.seconds
    res["peak_rss_mib"] = run.peak_mb
    return res


def splink_python(requested: str | None) -> str | None:
    for py in [requested] if requested else [DEFAULT_SPLINK_PYTHON, sys.executable]:
        if (
            py
            and Path(py).exists()
            and subprocess.run([py, "-c", "import splink"], capture_output=True).returncode == 0
        ):
            return py
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--memory-limit", default="3GB", help="DuckDB memory_limit of privaudit and splink")
    ap.add_argument("--in-process", action="store_true", help="also run the in-process engine (same figures)")
    ap.add_argument(
        "--estimation",
        choices=["labels", "em", "both"],
        default="labels",
        help="privaudit's m/u (splink runs with labels only)",
    )
    ap.add_argument("--skip-splink", action="store_true")
    ap.add_argument("--splink-python", default=None)
    ap.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        kind, folder, engine, memory_limit = args.worker
        out = (worker_privaudit if kind == "privaudit" else worker_splink)(Path(folder), engine, memory_limit)
        print(json.dumps(out))
        return 0

    with tempfile.TemporaryDirectory(prefix="bench-linkage-duckdb-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        original, released = make_tables(args.rows, args.seed)
        original.to_csv(folder / "original.csv", index=False)
        released.to_csv(folder / "released.csv", index=False)
        (folder / "policy.yaml").write_text(POLICY.replace("ESTIMATION", args.estimation))
        del original, released
        print(
            f"{args.rows:,} x {args.rows:,} records (CSV, written in {time.perf_counter() - t0:.1f} s); blocking "
            f"{BLOCKING}; comparisons age exact/<=1/<=3/else, {', '.join(CATEGORICAL)} exact/else; m/u from "
            f"{args.estimation}; "
            f"DuckDB memory_limit {args.memory_limit}\n"
        )
        runs = [("privaudit", "duckdb", sys.executable)]
        if args.in_process:
            runs.append(("privaudit", "in-process", sys.executable))
        py = None if args.skip_splink or args.estimation != "labels" else splink_python(args.splink_python)
        if py is not None:
            runs.append(("splink", "duckdb", py))
        else:
            print("splink: skipped (--skip-splink, --estimation other than labels, or not importable)")
        results = []
        for kind, engine, python in runs:
            try:
                res = run_worker(python, kind, folder, engine, args.memory_limit)
            except RuntimeError as exc:
                print(f"{kind} {engine}: failed: {exc}")
                continue
            results.append((kind, engine, res))
            label = f"{kind} {res.get('version', '')} ({engine})".replace("  ", " ")
            print(
                f"{label}: wall {res['wall_s']:.1f} s (process {res['process_s']:.1f} s"
                + (f", linkage check {res['check_s']:.1f} s" if "check_s" in res else "")
                + f"), peak RSS incl. children {res['peak_rss_mib']:.0f} MiB, pairs {res['n_pairs']:,}, "
                f"top-1 correct {res['top1']:.4%}"
                + (f", value {res['value']:.4%}, links {res['links']:,}" if "value" in res else "")
            )
        same = [r for k, _, r in results if k == "privaudit"]
        if len(same) == 2:
            print(f"\nduckdb and in-process details identical: {same[0]['details'] == same[1]['details']}")
        print("\nsummary (tool, engine, wall s, peak RSS MiB, candidate pairs, top-1 correct):")
        for kind, engine, res in results:
            print(
                f"  {kind:9s} {engine:10s} {res['wall_s']:8.1f} {res['peak_rss_mib']:8.0f} {res['n_pairs']:>13,} "
                f"{res['top1']:8.4%}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
