"""Benchmark: blocked distance-based record linkage of 10^6 x 10^6 records, pairs in DuckDB (issue #15 item 4).

Data (synthetic, seeded): ``n`` original records with ``age`` (18..90) and ``income`` (log-normal, 5 %
missing), numeric, ``zip`` (2,000 values), ``job`` (200), ``edu`` (16), ``sex`` (2) and a sensitive
column; the release is a masked copy in the same row order (``age`` + U{-2..2}, ``income`` times
1 + N(0, 0.05) and rounded to 100, ``zip`` replaced in 5 % of the rows). Both are CSV files. Intruder:
all ``n`` original records knowing the six columns; ``method: distance`` (euclidean, nearest);
blocking: the union of exact blocks on ``(zip, edu)`` and ``(job, edu, sex)``.

Runs, each in a fresh process whose peak memory is the largest sum of ``VmRSS`` over the process and
its children, sampled from ``/proc`` every 50 ms:

* ``duckdb``: ``run_audit(release, policy, original=..., engine="duckdb", memory_limit=...)``: the pairs
  never leave DuckDB (:mod:`privaudit.risk.linkage.distance_sql`);
* ``in-process`` (``--in-process``): the same audit with both tables loaded and the pairs walked in numpy
  chunks (:mod:`privaudit.risk.linkage.distance_blocked`), for the figures (they must be equal) and the
  memory it needs.

Usage: ``python benchmarks/bench_linkage_distance_duckdb.py [--rows 1000000] [--memory-limit 3GB]
[--in-process]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from measure import audit_check, run_sampled

REPO = Path(__file__).resolve().parents[1]
BLOCKING = [["zip", "edu"], ["job", "edu", "sex"]]

POLICY = f"""version: 1
name: distance linkage benchmark
columns:
  age: {{role: quasi_identifier, type: numeric}}
  income: {{role: quasi_identifier, type: numeric}}
  zip: {{role: quasi_identifier}}
  job: {{role: quasi_identifier}}
  edu: {{role: quasi_identifier}}
  sex: {{role: quasi_identifier}}
  disease: {{role: sensitive}}
checks:
  - id: dbrl
    assessor: record_linkage
    max_rate: 1
    blocking: {json.dumps(BLOCKING)}
"""


def make_tables(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    income = np.round(rng.lognormal(10, 0.6, n), -2)
    income[rng.random(n) < 0.05] = np.nan
    original = pd.DataFrame(
        {
            "age": rng.integers(18, 91, n),
            "income": income,
            "zip": rng.integers(0, 2000, n).astype(str),
            "job": np.char.add("j", rng.integers(0, 200, n).astype(str)),
            "edu": np.char.add("e", rng.integers(0, 16, n).astype(str)),
            "sex": rng.choice(["f", "m"], n),
            "disease": rng.choice(["a", "b", "c"], n),
        }
    )
    released = original.copy()
    released["age"] = original["age"] + rng.integers(-2, 3, n)
    released["income"] = np.round(income * (1 + rng.normal(0, 0.05, n)), -2)
    swap = rng.random(n) < 0.05
    released.loc[swap, "zip"] = rng.integers(0, 2000, int(swap.sum())).astype(str)
    return original, released


def worker(folder: Path, engine: str, memory_limit: str) -> dict:
    wall, check = audit_check(folder, "dbrl", engine, memory_limit, REPO)
    return {"wall_s": wall, "check_s": check.seconds, "value": check.value, "details": check.details}


def run_worker(folder: Path, engine: str, memory_limit: str) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(folder), engine, memory_limit]
    run = run_sampled(cmd, env=dict(os.environ, PYTHONPATH=str(REPO)))
    if run.returncode != 0:
        raise RuntimeError(f"{engine} worker failed (exit code {run.returncode}):\n{run.stderr[-3000:]}")
    res = json.loads(run.stdout.strip().splitlines()[-1])
    res["process_s"] = run.seconds
    res["peak_rss_mib"] = run.peak_mb
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--memory-limit", default="3GB", help="DuckDB memory_limit")
    ap.add_argument("--in-process", action="store_true", help="also run the in-process engine (same figures)")
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        folder, engine, memory_limit = args.worker
        print(json.dumps(worker(Path(folder), engine, memory_limit)))
        return 0

    with tempfile.TemporaryDirectory(prefix="bench-linkage-distance-duckdb-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        original, released = make_tables(args.rows, args.seed)
        original.to_csv(folder / "original.csv", index=False)
        released.to_csv(folder / "released.csv", index=False)
        (folder / "policy.yaml").write_text(POLICY)
        del original, released
        print(
            f"{args.rows:,} x {args.rows:,} records (CSV, written in {time.perf_counter() - t0:.1f} s); distance "
            f"linkage (euclidean, nearest) on age, income, zip, job, edu, sex; blocking {BLOCKING}; DuckDB "
            f"memory_limit {args.memory_limit}\n"
        )
        results = []
        for engine in ["duckdb"] + (["in-process"] if args.in_process else []):
            try:
                res = run_worker(folder, engine, args.memory_limit)
            except RuntimeError as exc:
                print(f"{engine}: failed: {exc}")
                continue
            results.append((engine, res))
            d = res["details"]
            print(
                f"{engine}: wall {res['wall_s']:.1f} s (process {res['process_s']:.1f} s, linkage check "
                f"{res['check_s']:.1f} s), peak RSS incl. children {res['peak_rss_mib']:.0f} MiB, pairs "
                f"{d['candidate_pairs']:,}, own record a candidate {d['pair_recall']:.4%}, rate {res['value']:.4%}, "
                f"distinct {d['distinct_share']:.4%}"
            )
        if len(results) == 2:
            print(f"\nduckdb and in-process details identical: {results[0][1]['details'] == results[1][1]['details']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
