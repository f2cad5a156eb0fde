"""The synthetic-release chapter against anonymeter on the peers' recipe (../shared/peers/README.md,
"anonymeter 1.1.0"): training, control and synthetic tables of ``--rows`` rows each (default 100,000) from
the 9 adult columns -- training and control resampled from adult with 10 % of cells swapped (a cell takes the
same column's value of a uniformly drawn row), synthetic resampled from training with 30 % swapped.

    python benchmarks/bench_synthetic.py [--rows 100000] [--skip-anonymeter] [--ten-columns]

``--ten-columns`` gives the issue's shape (10 mixed columns): a tenth, continuous column ``hours`` (one
draw of N(40, 12), one decimal, per adult row, so it travels with its row through the resampling and swaps)
joins the quasi-identifiers and the aux columns of the first linkability set and of inference.

privaudit: one ``run_audit`` of every synthetic check (distance_to_closest_record, singling_out with 500
predicates, linkability and inference with anonymeter's parameters below, cap), timed in process with its
peak RSS.
anonymeter (when installed): LinkabilityEvaluator (aux columns age/sex/race/marital-status vs
education/occupation/workclass/native-country, n_neighbors 10, n_attacks 2,000) and InferenceEvaluator
(secret salary-class, n_attacks 2,000), as the peers' table measured them. Times side by side, one run.

Measured on the shared two-core machine (2026-11-25, other jobs running; the figures of one run are
comparable with each other, not across runs), 100,000 rows per table:

=========================== ============================ ===========================
                            before (exact brute force)   after (joins, bounds, keys)
=========================== ============================ ===========================
whole chapter, peak RSS     475.6 s, 731 MB              16.6 s, 535 MB
distance_to_closest_record  250.5 s                      6.8 s
singling_out (500)          116.9 s                      5.0 s
linkability (2,000, k 10)   57.4 s (anonymeter 92.3 s)   1.7 s (anonymeter 66.9 s)
inference (2,000)           46.0 s (anonymeter 59.8 s)   0.8 s (anonymeter 34.9 s)
cap                         2.7 s                        0.9 s
=========================== ============================ ===========================

against anonymeter in the same run: linkability 1.6x -> 40.3x, inference 1.3x -> 45.2x faster; every
check's value and details are unchanged (the searches are exact, the predicates the same).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COLUMNS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
           "salary-class"]


def swapped(frame: pd.DataFrame, share: float, rng: np.random.Generator) -> pd.DataFrame:
    out = frame.copy()
    for c in out.columns:
        mask = rng.random(len(out)) < share
        out.loc[mask, c] = frame[c].to_numpy()[rng.integers(0, len(frame), mask.sum())]
    return out


def tables(rows: int, ten: bool = False) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    adult = pd.read_csv(ROOT / "examples" / "adult" / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    if ten:
        hours = np.random.default_rng(11).normal(40, 12, len(adult)).round(1)
        adult["hours"] = [f"{h:.1f}" for h in hours]
    rng = np.random.default_rng(7)
    train = swapped(adult.sample(rows, replace=True, random_state=1).reset_index(drop=True), 0.1, rng)
    control = swapped(adult.sample(rows, replace=True, random_state=2).reset_index(drop=True), 0.1, rng)
    synthetic = swapped(train.sample(rows, replace=True, random_state=3).reset_index(drop=True), 0.3, rng)
    return train, control, synthetic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--skip-anonymeter", action="store_true")
    parser.add_argument("--ten-columns", action="store_true", help="add a continuous tenth column (see above)")
    args = parser.parse_args()
    global COLUMNS
    train, control, synthetic = tables(args.rows, args.ten_columns)
    aux = [["age", "sex", "race", "marital-status"], ["education", "occupation", "workclass", "native-country"]]
    if args.ten_columns:
        COLUMNS = ["hours"] + COLUMNS
        aux[0].append("hours")
    policy = {"release": "synthetic",
              "columns": {c: {"role": "sensitive" if c in ("occupation", "salary-class") else "quasi_identifier"}
                          for c in COLUMNS},
              "checks": [  # the peers' attacks with the same parameters as anonymeter's below
                  {"assessor": "distance_to_closest_record"},
                  {"assessor": "singling_out", "n_attacks": 500, "max_risk": 0.1},
                  {"assessor": "linkability", "aux_columns": aux, "n_neighbors": 10, "n_attacks": 2000,
                   "max_risk": 0.1},
                  {"assessor": "inference", "secret": "salary-class", "aux_columns": COLUMNS[:-1], "n_attacks": 2000,
                   "max_risk": 0.1},
                  {"assessor": "cap", "min_protection": 0.5}]}
    policy["columns"]["age"]["type"] = "numeric"
    if args.ten_columns:
        policy["columns"]["hours"]["type"] = "numeric"
    from privaudit.core.audit import run_audit

    with tempfile.TemporaryDirectory() as folder:
        t = time.perf_counter()
        result = run_audit(synthetic, policy, original=train, control=control)
        seconds = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"privaudit, {args.rows:,} rows each: {seconds:.1f} s for the synthetic chapter, peak RSS {rss:.0f} MB")
    for c in result.checks:
        print(f"  {c.id:28s} {c.status:5s} {c.value}  ({c.seconds:.1f} s)")
    del folder
    if args.skip_anonymeter:
        return
    try:
        from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator
    except ImportError:
        print("anonymeter is not installed: pip install anonymeter")
        return
    t = time.perf_counter()
    LinkabilityEvaluator(ori=train, syn=synthetic, control=control, n_attacks=2000, aux_cols=aux,
                         n_neighbors=10).evaluate(n_jobs=1)
    link = time.perf_counter() - t
    t = time.perf_counter()
    InferenceEvaluator(ori=train, syn=synthetic, control=control, aux_cols=COLUMNS[:-1], secret="salary-class",
                       n_attacks=2000).evaluate(n_jobs=1)
    inference = time.perf_counter() - t
    print(f"anonymeter: linkability {link:.1f} s, inference {inference:.1f} s (2,000 attacks each); "
          f"privaudit's whole chapter / anonymeter's two attacks = {seconds / (link + inference):.2f}")
    by_id = {c.assessor: c.seconds for c in result.checks}
    print(f"same attacks: linkability {link / by_id['linkability']:.1f}x, inference "
          f"{inference / by_id['inference']:.1f}x faster than anonymeter")


if __name__ == "__main__":
    main()
