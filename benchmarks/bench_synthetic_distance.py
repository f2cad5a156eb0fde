"""Benchmark of the synthetic-release distances (DCR, NNDR, holdout comparison): time and peak memory.

    python benchmarks/bench_synthetic_distance.py [--rows 50000] [--workers N] [--no-control]

Three tables of ``--rows`` records each (synthetic, training, holdout) with 8 mixed columns: age and
income (numeric, income with 2% missing), hours (numeric, whole numbers), sex, region (12 values),
occupation (300 values: compared code by code), education (ordinal, 8 levels) and marital status (with
missing values). The synthetic table copies 1% of the training rows, the rest is drawn from the same
distribution. :func:`privaudit.risk.synthetic.distance_to_closest_record` runs three exact nearest-two searches
(synthetic -> training, holdout -> training, synthetic -> holdout) and the tie counts; the script prints
wall seconds, the peak RSS of the process (``resource.getrusage``) and the peak of memory allocated
during the run as traced by ``tracemalloc`` (numpy buffers included), and the main figures.
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np
import pandas as pd

from privaudit.risk.synthetic.distance import distance_to_closest_record

EDUCATION = ["none", "primary", "lower-secondary", "secondary", "vocational", "bachelor", "master", "doctorate"]
KINDS = {
    "age": "numeric",
    "income": "numeric",
    "hours": "numeric",
    "sex": "nominal",
    "region": "nominal",
    "occupation": "nominal",
    "education": "ordinal",
    "marital": "nominal",
}


def table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    age = rng.integers(16, 95, n).astype(float)
    income = np.round(rng.lognormal(10, 0.6, n), 2)
    income[rng.random(n) < 0.02] = np.nan
    marital = rng.choice(["single", "married", "divorced", "widowed"], n).astype(object)
    marital[rng.random(n) < 0.03] = None
    return pd.DataFrame(
        {
            "age": age,
            "income": income,
            "hours": rng.integers(0, 80, n).astype(float),
            "sex": pd.array(rng.choice(["f", "m"], n), dtype="string"),
            "region": pd.array(rng.choice([f"r{i:02d}" for i in range(12)], n), dtype="string"),
            "occupation": pd.array(rng.choice([f"occ{i:03d}" for i in range(300)], n), dtype="string"),
            "education": pd.Categorical(rng.choice(EDUCATION, n), categories=EDUCATION, ordered=True),
            "marital": pd.array(marital, dtype="string"),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--no-control", action="store_true", help="training only (one search)")
    args = parser.parse_args()
    rng = np.random.default_rng(2024)
    training, holdout, synthetic = table(rng, args.rows), table(rng, args.rows), table(rng, args.rows)
    copies = rng.choice(args.rows, args.rows // 100, replace=False)
    synthetic.iloc[copies] = training.iloc[copies].to_numpy()
    synthetic["education"] = pd.Categorical(synthetic["education"], categories=EDUCATION, ordered=True)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()
    started = time.perf_counter()
    result = distance_to_closest_record(
        synthetic, training, None if args.no_control else holdout, KINDS, workers=args.workers
    )
    seconds = time.perf_counter() - started
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"rows: {args.rows:,} synthetic x {args.rows:,} training"
        + ("" if args.no_control else f" (+ {args.rows:,} holdout)")
        + f", {len(KINDS)} columns"
    )
    print(f"wall: {seconds:.1f} s")
    print(
        f"peak traced allocation during the run: {traced / 2**20:.0f} MiB; peak RSS {rss:.0f} MiB "
        f"(before the run: {rss_before:.0f} MiB)"
    )
    print(f"exact copies: {result.exact_share:.2%}; median DCR {np.median(result.dcr):.4f}")
    if result.has_control:
        lo, hi = result.closer_interval()
        print(
            f"closer to training: {result.closer_share:.2%} [{lo:.2%}, {hi:.2%}] (expected "
            f"{result.expected_closer:.0%}); below holdout p5 ({result.holdout_p5:.4f}): "
            f"{result.below_holdout_p5 / result.n_synthetic:.2%}; ties {result.closer_ties:,}"
        )


if __name__ == "__main__":
    main()
