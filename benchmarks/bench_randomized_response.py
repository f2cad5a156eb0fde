"""Benchmark of the randomized-response risk model and keep-probability selection.

Prints: Kronecker-free vs explicit np.kron timings; risk of the Adult extract (ARX packaging,
../shared/datasets/adult/adult.csv) before and after randomization, estimated from the released
data vs computed on the original; keep-probability selection (RR-QI, RR-S, RR-Both) timings.

Run from the repository root:  python benchmarks/bench_randomized_response.py
(OPENBLAS_NUM_THREADS defaults to 1 here, see below.)
"""

from __future__ import annotations

import os

# One BLAS thread: on a small shared machine OpenBLAS threading makes the many thin (groups x d_s)
# matrix products of the selection loop 10-40x slower. Set before numpy is imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit.risk.randomized_response import (  # noqa: E402
    apply_kronecker,
    keep_probability_matrices,
    randomize,
    rr_attribute_disclosure,
)
from privaudit.risk.rr_selection import select_keep_probabilities  # noqa: E402

ADULT = ROOT.parent / "shared" / "datasets" / "adult" / "adult.csv"


def timed(fn, *args, repeat=3, **kwargs):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t)
    return out, best


def bench_kronecker() -> None:
    rng = np.random.default_rng(0)
    print("== Kronecker-free product vs np.kron")
    for dims in ([2, 5, 7, 9, 3], [2, 72, 5, 7, 16, 14]):
        factors = [rng.random((d, d)) for d in dims]
        x = rng.random(dims)
        y, t_free = timed(apply_kronecker, factors, x)
        cells = int(np.prod(dims))
        line = f"dims={dims} cells={cells}: kron-free {t_free * 1e3:.1f} ms"
        if cells <= 5000:

            def explicit(factors=factors, x=x):
                full = np.ones((1, 1))
                for f in factors:
                    full = np.kron(full, f)
                return full @ x.ravel()

            z, t_kron = timed(explicit, repeat=1)
            line += f"; np.kron {t_kron * 1e3:.1f} ms; max abs diff {np.abs(z - y.ravel()).max():.2e}"
        else:
            line += f"; np.kron would need a {cells}x{cells} matrix ({cells**2 * 8 / 1e12:.1f} TB)"
        print(line)


def bench_adult() -> None:
    if not ADULT.exists():
        print(f"(skipping Adult: {ADULT} not found)")
        return
    df = pd.read_csv(ADULT, sep=";")
    print(f"== Adult ({len(df)} records)")
    for qi in (["sex", "race", "marital-status", "workclass"], ["sex", "age", "race", "marital-status", "education"]):
        s = "occupation"
        plain, t0 = timed(rr_attribute_disclosure, df, qi, s, {}, original=df, max_risk=0.5)
        shape = "x".join(str(len(d)) for d in plain.domains)
        print(
            f"QI={qi} S={s} table {shape}: no RR max risk {plain.value:.3f}, "
            f"records > 0.5: {plain.share_above:.4f} ({t0 * 1e3:.0f} ms)"
        )
        mats = keep_probability_matrices(df, {c: 0.8 for c in qi})
        released = randomize(df, mats, seed=1)
        own, t1 = timed(rr_attribute_disclosure, released, qi, s, mats, original=df, max_risk=0.5)
        est, t2 = timed(rr_attribute_disclosure, released, qi, s, mats, max_risk=0.5)
        print(
            f"  RR-QI keep 0.8: risk on original pi {own.value:.3f} ({t1 * 1e3:.0f} ms); "
            f"estimated from release {est.value:.3f} ({t2 * 1e3:.0f} ms); "
            f"max |pi_hat - pi| {np.abs(est.pi - own.pi).max():.4f}"
        )
        for label, cols in (("RR-QI", qi), ("RR-S", [s]), ("RR-Both", qi + [s])):
            sel, t3 = timed(select_keep_probabilities, df, qi, s, cols, 0.5, repeat=1)
            keeps = ", ".join(f"{c}={p:.3f}" for c, p in sel.keep_probabilities.items())
            print(
                f"  {label:8s} max_risk 0.5: feasible={sel.feasible} risk={sel.achieved_risk:.4f} "
                f"loss(full)={sel.utility_loss_full:.4g} recon.err={sel.reconstruction_error:.3g} "
                f"[{keeps}] ({t3:.2f} s)"
            )


if __name__ == "__main__":
    bench_kronecker()
    bench_adult()
