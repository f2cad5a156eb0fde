"""Benchmark: k-anonymous t-close microaggregation on the CASC reference file.

Reproduces the setting of Soria-Comas, Domingo-Ferrer, Sanchez & Martinez,
"t-Closeness through Microaggregation" (IEEE TKDE 2015), Tables I-III / Fig. 6:
quasi-identifiers TAXINC and POTHVAL, confidential attribute FEDTAX and then
FICA, k in {2, 5, 10}, t in {0.05, 0.1, 0.25}; for Algorithm 1 (MDAV + merge),
Algorithm 2 (k-anonymity-first) and Algorithm 3 (t-closeness-first) it prints
the minimum and mean cluster size, the normalised SSE (SSE/SST on
standardised QIs), the largest cluster EMD and the run time.  It then times
plain MDAV (k = 5) on 100,000 synthetic records.

Usage::

    python benchmarks/bench_microaggregation.py [--data PATH] [--n-large N] [--skip-large]

The CASC file is read from ../shared/datasets/casc/ relative to the repository.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privaudit.remediation.microaggregation import mdav, microaggregate  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "casc" / "CASCrefmicrodata.csv"
QIS = ["TAXINC", "POTHVAL"]
SENSITIVE = ["FEDTAX", "FICA"]
KS = [2, 5, 10]
TS = [0.05, 0.1, 0.25]
ALGS = {"merge": "Alg1 merge", "k-anonymity-first": "Alg2 k-first", "t-closeness-first": "Alg3 t-first"}


def run_casc(path: Path) -> pd.DataFrame:
    d = pd.read_csv(path)
    X = d[QIS].to_numpy(dtype=float)
    rows = []
    for sname in SENSITIVE:
        s = d[sname].to_numpy()
        corr = ", ".join(f"{q} {np.corrcoef(d[q], d[sname])[0, 1]:+.2f}" for q in QIS)
        print(f"\n=== sensitive {sname}: {np.unique(s).size} distinct values; correlation with {corr} ===")
        print(
            f"{'k':>3} {'t':>5} {'algorithm':<13} {'k_eff':>5} {'#clus':>6} {'min':>5} "
            f"{'mean':>7} {'maxEMD':>7} {'nSSE':>7} {'merges':>6} {'time s':>7}"
        )
        for k in KS:
            t0 = time.perf_counter()
            base = microaggregate(X, s, k, None, "mdav")
            el = time.perf_counter() - t0
            print(
                f"{k:>3} {'-':>5} {'MDAV only':<13} {k:>5} {base.n_clusters:>6} "
                f"{base.min_cluster_size:>5} {base.mean_cluster_size:>7.2f} "
                f"{base.max_emd:>7.4f} {base.normalized_sse:>7.4f} {'-':>6} {el:>7.3f}"
            )
            for t in TS:
                for alg, label in ALGS.items():
                    t0 = time.perf_counter()
                    r = microaggregate(X, s, k, t, alg)
                    el = time.perf_counter() - t0
                    assert r.verification.ok
                    rows.append(
                        dict(
                            sensitive=sname,
                            k=k,
                            t=t,
                            algorithm=label,
                            k_eff=r.k_effective,
                            clusters=r.n_clusters,
                            min_size=r.min_cluster_size,
                            mean_size=r.mean_cluster_size,
                            max_emd=r.max_emd,
                            nsse=r.normalized_sse,
                            merges=r.n_merges,
                            seconds=el,
                        )
                    )
                    print(
                        f"{k:>3} {t:>5} {label:<13} {r.k_effective:>5} {r.n_clusters:>6} "
                        f"{r.min_cluster_size:>5} {r.mean_cluster_size:>7.2f} "
                        f"{r.max_emd:>7.4f} {r.normalized_sse:>7.4f} {r.n_merges:>6} "
                        f"{el:>7.3f}"
                    )
    return pd.DataFrame(rows)


def summarise(df: pd.DataFrame) -> None:
    print("\n=== Does Algorithm 3 give the smallest clusters / SSE? (per sensitive, k, t) ===")
    wins_size = wins_sse = total = 0
    for (sname, k, t), g in df.groupby(["sensitive", "k", "t"]):
        a3 = g[g.algorithm == ALGS["t-closeness-first"]].iloc[0]
        total += 1
        wins_size += a3.mean_size <= g.mean_size.min() + 1e-12
        best = g.loc[g.nsse.idxmin()]
        wins_sse += best.algorithm == a3.algorithm
        smallest = g[g.mean_size <= g.mean_size.min() + 1e-12].algorithm.tolist()
        print(
            f"{sname:<7} k={k:<3} t={t:<5} smallest mean size: "
            f"{' = '.join(smallest):<28} lowest nSSE: {best.algorithm:<13}"
            f" (Alg3 {a3.nsse:.4f} vs best other "
            f"{g[g.algorithm != a3.algorithm].nsse.min():.4f})"
        )
    print(
        f"Algorithm 3 smallest mean cluster size in {wins_size}/{total} settings, "
        f"lowest normalised SSE in {wins_sse}/{total}."
    )
    print("Total time per algorithm (s):")
    print(df.groupby("algorithm").seconds.sum().round(2).to_string())


def run_large(n: int, p: int, k: int = 5) -> None:
    rng = np.random.default_rng(2015)
    X = rng.normal(size=(n, p))
    t0 = time.perf_counter()
    labels = mdav(X, k)
    el = time.perf_counter() - t0
    sizes = np.bincount(labels)
    print(f"\n=== MDAV on {n:,} synthetic N(0, I_{p}) records, k = {k} ===")
    print(f"time {el:.2f} s; {sizes.size:,} clusters, sizes {sizes.min()}..{sizes.max()}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--n-large", type=int, default=100_000)
    ap.add_argument("--p-large", type=int, default=3)
    ap.add_argument("--skip-large", action="store_true")
    args = ap.parse_args(argv)
    if args.data.exists():
        summarise(run_casc(args.data))
    else:
        print(f"CASC data not found at {args.data}; skipping the CASC table")
    if not args.skip_large:
        run_large(args.n_large, args.p_large)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
