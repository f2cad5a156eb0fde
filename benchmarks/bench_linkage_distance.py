"""Benchmark of distance-based record linkage (prints figures; not a test).

(a) scale: 300,000 released x 30,000 intruder records, 8 mixed attributes (synthetic, seeded):
    wall time and peak RSS (target < 5 s, < 2 GB);
(b) adult (../shared/datasets/adult/adult.csv) against a noisy copy: linkage rate with one-hot
    mixed types vs numeric columns only, and nearest vs one_to_one on 5,000 records.

Run from the repository root:  python benchmarks/bench_linkage_distance.py [--skip-scale] [--skip-adult]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit.risk.linkage import AttributeSpec, distance_linkage  # noqa: E402

ADULT = ROOT.parent / "shared" / "datasets" / "adult" / "adult.csv"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def synthetic(m: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, list[AttributeSpec]]:
    """4 numeric (normal, lognormal, uniform, integer age) + 4 categorical (2, 5, 9, 16 levels).

    Release: numeric attributes + Gaussian noise of 10 % of their sd; each categorical value
    replaced by a uniformly drawn level with probability 5 %."""
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame(
        {
            "n_normal": rng.normal(50, 10, m),
            "n_income": rng.lognormal(10, 0.6, m),
            "n_uniform": rng.uniform(0, 1, m),
            "n_age": rng.integers(17, 91, m).astype(float),
            "c_sex": rng.choice(["F", "M"], m),
            "c_region": rng.choice([f"r{i}" for i in range(5)], m, p=[0.4, 0.25, 0.15, 0.12, 0.08]),
            "c_edu": rng.choice([f"e{i}" for i in range(9)], m),
            "c_occ": rng.choice([f"o{i}" for i in range(16)], m),
        }
    )
    rel = orig.copy()
    for c in ["n_normal", "n_income", "n_uniform", "n_age"]:
        rel[c] = orig[c] + rng.normal(0, 0.1 * orig[c].std(), m)
    for c in ["c_sex", "c_region", "c_edu", "c_occ"]:
        levels = orig[c].unique()
        swap = rng.random(m) < 0.05
        rel.loc[swap, c] = rng.choice(levels, int(swap.sum()))
    attrs = [AttributeSpec(c, "numeric") for c in orig.columns[:4]] + [
        AttributeSpec(c, "categorical") for c in orig.columns[4:]
    ]
    return orig, rel, attrs


def bench_scale() -> None:
    print("== (a) 300,000 released x 30,000 intruder records, 4 numeric + 4 categorical ==")
    orig, rel, attrs = synthetic(300_000, seed=7)
    rss0 = peak_rss_mb()
    for rep in range(2):
        t0, c0 = time.perf_counter(), time.process_time()
        res = distance_linkage(orig, rel, attrs, rows=30_000, seed=1)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(
            f"  run {rep + 1}: wall {wall:.2f} s, CPU {cpu:.2f} s (all threads), "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )
    print(f"  nearest: rate {res.rate:.4f}, distinct {res.distinct_share:.3f} (precision {res.distinct_precision:.3f})")
    print(f"  peak RSS {peak_rss_mb():.0f} MB (after data generation {rss0:.0f} MB)")


CATEGORICAL = ["sex", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
NOISE = {
    "mild": ["marital-status", "workclass", "occupation"],
    "harsh": CATEGORICAL,
}


def noisy_adult(df: pd.DataFrame, seed: int, swapped: list[str]) -> pd.DataFrame:
    """Noisy copy of adult: age + N(0, (0.1 sd)^2) rounded to whole years (sd of age 13.1, so
    noise sd 1.3 years); each column in ``swapped`` replaced, with probability 10 %, by a value
    drawn from the column's empirical distribution (which may be the same value)."""
    rng = np.random.default_rng(seed)
    out = df.copy()
    out["age"] = np.round(df["age"] + rng.normal(0, 0.1 * df["age"].std(), len(df)))
    for c in swapped:
        swap = rng.random(len(df)) < 0.10
        out.loc[swap, c] = rng.choice(df[c].to_numpy(), int(swap.sum()))
    return out


def bench_adult() -> None:
    if not ADULT.exists():
        print(f"== (b) skipped: {ADULT} not found ==")
        return
    df = pd.read_csv(ADULT, sep=";")
    mixed = [AttributeSpec("age", "numeric")] + [AttributeSpec(c, "categorical") for c in CATEGORICAL]
    codes = {c: {v: i for i, v in enumerate(sorted(df[c].unique()))} for c in CATEGORICAL}
    print(f"== (b) adult ({len(df)} records), intruder knows age + 7 categoricals, against a noisy copy ==")
    print("   noise: age + N(0, 1.3^2) rounded; 10 % of values re-drawn from the column's distribution in")
    for name, cols in NOISE.items():
        print(f"   {name:5s}: {', '.join(cols)}")
    ceiling = distance_linkage(df, df, mixed)
    print(f"  [none] identity release (ceiling: duplicates tie): rate {ceiling.rate:.4f}")
    for name, cols in NOISE.items():
        rel = noisy_adult(df, seed=3, swapped=cols)
        t0 = time.perf_counter()
        r_mixed = distance_linkage(df, rel, mixed)
        t1 = time.perf_counter()
        r_age = distance_linkage(df, rel, [AttributeSpec("age", "numeric")])
        df_num, rel_num = df.copy(), rel.copy()
        for c in CATEGORICAL:  # categoricals as arbitrary integer codes, standardised like numbers
            df_num[c] = df[c].map(codes[c]).astype(float)
            rel_num[c] = rel[c].map(codes[c]).astype(float)
        r_codes = distance_linkage(df_num, rel_num, [AttributeSpec(c, "numeric") for c in ["age", *CATEGORICAL]])
        print(f"  [{name}] one-hot mixed types:               rate {r_mixed.rate:.4f}  ({t1 - t0:.2f} s)")
        print(f"  [{name}] numeric columns only (age):        rate {r_age.rate:.4f}")
        print(f"  [{name}] categoricals as numeric codes:     rate {r_codes.rate:.4f}")

    sub = df.sample(5000, random_state=11).reset_index(drop=True)
    runs = [("nearest", {}), ("one_to_one", {}), ("one_to_one", {"candidates": 10}), ("one_to_one", {"candidates": 30})]
    for name, cols in NOISE.items():
        sub_rel = noisy_adult(sub, seed=5, swapped=cols)
        for asg, extra in runs:
            t0 = time.perf_counter()
            r = distance_linkage(sub, sub_rel, mixed, assignment=asg, **extra)
            label = asg if asg == "nearest" else f"{asg} (candidates={extra.get('candidates', 20)})"
            print(
                f"  [{name}] 5,000 records, {label:28s}: rate {r.rate:.4f}  unassigned {r.unassigned:4.0f}  "
                f"({time.perf_counter() - t0:.2f} s)"
            )
        t0 = time.perf_counter()
        r = distance_linkage(sub, sub_rel, mixed, worst_case=True)
        print(
            f"  [{name}] 5,000 records, worst case: plain {r.rate:.4f}, learned weights {r.worst_case_rate:.4f} "
            f"({time.perf_counter() - t0:.2f} s)\n    weights "
            + ", ".join(f"{k}={v:.3f}" for k, v in r.worst_case_weights)
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--skip-adult", action="store_true")
    args = ap.parse_args()
    if not args.skip_scale:
        bench_scale()
    if not args.skip_adult:
        bench_adult()


if __name__ == "__main__":
    main()
