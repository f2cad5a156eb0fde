"""Benchmark: the utility measures of items 1-2 of issue 28 (all but the classification benchmark) against
the class audit itself, side by side in one run on one machine.

A synthetic original of ``--rows`` records (default 10^7): age 18-90, sex, region (500 values), education
(16), income and hours (numbers); its release generalizes age to 10-year bands and region to 50 districts
(hierarchies written beside it), suppresses 2 % of the records (every quasi-identifier ``*``) and adds
noise to income and hours. Timed, in this process, in this order:

* **class audit**: ``run_audit`` of the release (in-memory frame: coding, the class summary, k-anonymity
  k = 5), no utility measure (``utility: []``);
* **release only**: granularity, generalization intensity, discernibility, AECS, ambiguity, suppressed
  cells, from the audit's own class summary (raw AECS and discernibility: no original);
* **against the original**: every measure of items 1-2 but classification, with the original (typed as
  an audit loads it, not timed) aligned row by row: the above normalised by the original's classes, plus
  non-uniform entropy, SSE/SST and attribute-level squared error, IL1s, eigen, mean/variance/correlation
  deviations.

Prints each wall and CPU time (this process's CPU seconds: on a shared machine the fairer comparison)
and the ratios utility / class audit (the issue asks for at most 1 for both).

    python benchmarks/bench_utility.py [--rows 10000000]

Measured on this machine (2 vCPUs shared with six other jobs, load average 9-14, run under ``nice``),
2026-11-26, 10^7 rows, 14,401 classes: class audit 366.3 s wall / 31.2 s CPU; release-only measures
0.09 s / 0.01 s (ratio 0.00); every measure against the original (39 entries) 75.1 s wall / 17.6 s CPU,
ratios 0.20 (wall) and 0.56 (CPU). At 10^6 rows: 0.35 (wall). The wall times mostly measure the load;
the CPU ratio is the steadier figure.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def tables(n: int, seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 91, n)
    region = rng.integers(0, 500, n)
    regions = np.array([f"R{i:03d}" for i in range(500)])
    education = rng.integers(0, 16, n)
    original = pd.DataFrame(
        {
            "age": age.astype(float),
            "sex": pd.Categorical.from_codes(rng.integers(0, 2, n), ["f", "m"]),
            "region": pd.Categorical.from_codes(region, regions),
            "education": pd.Categorical.from_codes(education, [f"E{i:02d}" for i in range(16)]),
            "income": rng.lognormal(10, 0.6, n),
            "hours": rng.normal(38, 8, n),
        }
    )
    bands = [f"{lo}-{lo + 9}" for lo in range(10, 100, 10)]
    suppressed = rng.random(n) < 0.02
    band = np.where(suppressed, -1, age // 10 - 1)
    district = np.where(suppressed, -1, region // 10)
    release = pd.DataFrame(
        {
            "age": pd.Categorical.from_codes(band, bands),
            "sex": pd.Categorical.from_codes(np.where(suppressed, -1, original["sex"].cat.codes), ["f", "m"]),
            "region": pd.Categorical.from_codes(district, [f"D{i:02d}" for i in range(50)]),
            "education": pd.Categorical.from_codes(
                np.where(suppressed, -1, education), [f"E{i:02d}" for i in range(16)]
            ),
            "income": original["income"] * rng.normal(1, 0.05, n),
            "hours": original["hours"] + rng.normal(0, 1, n),
        }
    )
    return original, release


def policy(folder: Path, utility) -> dict:
    (folder / "age.csv").write_text("".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(18, 91)))
    (folder / "region.csv").write_text("".join(f"R{i:03d};D{i // 10:02d};*\n" for i in range(500)))
    p = {
        "version": 1,
        "name": "utility benchmark",
        "columns": {
            "age": {"role": "quasi_identifier", "hierarchy": str(folder / "age.csv")},
            "sex": {"role": "quasi_identifier"},
            "region": {"role": "quasi_identifier", "hierarchy": str(folder / "region.csv")},
            "education": {"role": "quasi_identifier"},
            "income": {"role": "other", "type": "numeric"},
            "hours": {"role": "other", "type": "numeric"},
        },
        "checks": [{"assessor": "k_anonymity", "k": 5}],
    }
    if utility is not None:
        p["utility"] = utility
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    args = ap.parse_args()
    from privaudit.core.context import AuditContext
    from privaudit.io.data import load_input
    from privaudit.pipeline.audit import open_policy, run_audit
    from privaudit.pipeline.plugins import get_registry
    from privaudit.utility import runnable

    original, release = tables(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0, c0 = time.perf_counter(), time.process_time()
        result = run_audit(release, policy(folder, []), allow_outside_paths=True)
        audit, c_audit = time.perf_counter() - t0, time.process_time() - c0
        ctx = result.context
        release_only = [m for m in runnable(set()) if m in runnable({"original"})]
        full = open_policy(policy(folder, runnable({"original"})), get_registry(), True)
        lean = open_policy(policy(folder, release_only), get_registry(), True)
        t0, c0 = time.perf_counter(), time.process_time()
        alone = AuditContext(lean, ctx.table, precomputed=ctx.summary).utility
        t_alone, c_alone = time.perf_counter() - t0, time.process_time() - c0
        typed = load_input(original, full, "original table").frame
        t0, c0 = time.perf_counter(), time.process_time()
        both = AuditContext(full, ctx.table, original=typed, precomputed=ctx.summary).utility
        t_both, c_both = time.perf_counter() - t0, time.process_time() - c0
    print(f"rows {args.rows:,}; classes {ctx.summary.n_classes:,}")
    print("                                              wall s   CPU s   ratio to the audit (wall, CPU)")
    print(f"class audit (coding, summary, k-anonymity)  {audit:7.2f} {c_audit:7.2f}")
    print(
        f"utility, release only ({len(alone)} entries)        {t_alone:7.2f} {c_alone:7.2f}   "
        f"{t_alone / audit:.2f}, {c_alone / c_audit:.2f}"
    )
    print(
        f"utility, against the original ({len(both)} entries) {t_both:7.2f} {c_both:7.2f}   "
        f"{t_both / audit:.2f}, {c_both / c_audit:.2f}"
    )
    for e in both:
        if e["column"] is None:
            v = "—" if e["value"] is None else f"{e['value']:.4f}"
            print(f"  {e['measure']:<24} {v}")


if __name__ == "__main__":
    main()
