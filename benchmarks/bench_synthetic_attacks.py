"""Benchmark of the synthetic-release attacks against the anonymeter package (prints figures; not a test).

Training, control and synthetic tables of ``--rows`` records each (default 20,000; seeded): 2 numeric and
4 categorical columns; the synthetic table copies a quarter of the training rows and draws the rest
afresh. Each attack (singling out multivariate and univariate, linkability, inference) runs in
privaudit and in anonymeter with the same parameters; the table prints both wall times and risks.

Run from the repository root (anonymeter installed):  python benchmarks/bench_synthetic_attacks.py
[--rows N] [--n-attacks N] [--skip-anonymeter]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit.risk.synthetic_attacks import inference_attack, linkability_attack, singling_out_attack  # noqa: E402

NUMERIC = {"age": True, "income": True, "zip": False, "job": False, "sex": False, "disease": False}
FIRST, SECOND = ["age", "income"], ["zip", "job", "sex"]
AUX = ["age", "income", "zip", "job", "sex"]


def people(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age, job = rng.integers(18, 90, n), rng.integers(0, 20, n)
    disease = np.where(rng.random(n) < 0.3, (age // 15 + job) % 6, rng.integers(0, 6, n))
    return pd.DataFrame(
        {
            "age": age,
            "income": (rng.lognormal(10, 0.6, n) // 10 * 10).astype(int),
            "zip": [f"z{z:03d}" for z in rng.integers(0, 100, n)],
            "job": [f"j{j}" for j in job],
            "sex": rng.choice(["F", "M"], n),
            "disease": [f"d{d}" for d in disease],
        }
    )


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--n-attacks", type=int, default=500)
    parser.add_argument("--skip-anonymeter", action="store_true")
    args = parser.parse_args()
    n, k = args.rows, args.n_attacks
    train, control = people(n, 1), people(n, 2)
    leaked = n // 4
    synth = pd.concat([train.iloc[:leaked], people(n - leaked, 3)], ignore_index=True)

    ours = {
        "singling out (multivariate)": lambda: (
            singling_out_attack(
                train, synth, control, list(NUMERIC), NUMERIC, mode="multivariate", n_attacks=k, n_cols=3
            ).outcome.risk
        ),
        "singling out (univariate)": lambda: (
            singling_out_attack(
                train, synth, control, list(NUMERIC), NUMERIC, mode="univariate", n_attacks=k
            ).outcome.risk
        ),
        "linkability": lambda: linkability_attack(train, synth, control, (FIRST, SECOND), NUMERIC, n_attacks=k).risk,
        "inference (disease)": lambda: (
            inference_attack(train, synth, control, AUX, "disease", NUMERIC, n_attacks=k).risk
        ),
    }
    theirs = {}
    if not args.skip_anonymeter:
        import anonymeter.evaluators as am

        theirs = {
            "singling out (multivariate)": lambda: (
                am.SinglingOutEvaluator(train, synth, n_attacks=k, n_cols=3, control=control, seed=0)
                .evaluate("multivariate")
                .risk()
            ),
            "singling out (univariate)": lambda: (
                am.SinglingOutEvaluator(train, synth, n_attacks=k, control=control, seed=0)
                .evaluate("univariate")
                .risk()
            ),
            "linkability": lambda: (
                am.LinkabilityEvaluator(train, synth, (FIRST, SECOND), n_attacks=k, control=control)
                .evaluate(n_jobs=-1)
                .risk()
            ),
            "inference (disease)": lambda: (
                am.InferenceEvaluator(train, synth, AUX, "disease", n_attacks=k, control=control)
                .evaluate(n_jobs=-1)
                .risk()
            ),
        }
    print(f"{n:,} training, control and synthetic records; {k} attacks; a quarter of the rows leaked\n")
    print(f"{'attack':30s} {'privaudit s':>12s} {'risk':>18s} {'anonymeter s':>13s} {'risk':>18s}")
    for name, run in ours.items():
        t_ours, r = timed(run)
        line = f"{name:30s} {t_ours:12.2f} {r.value:6.3f} [{r.lower:.2f}, {r.upper:.2f}]"
        if name in theirs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_theirs, a = timed(theirs[name])
            line += f" {t_theirs:13.2f} {a.value:6.3f} [{a.ci[0]:.2f}, {a.ci[1]:.2f}]"
        print(line, flush=True)


if __name__ == "__main__":
    main()
