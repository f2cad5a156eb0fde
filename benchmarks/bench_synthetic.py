"""The synthetic-release chapter against anonymeter on the peers' recipe (../shared/peers/README.md,
"anonymeter 1.1.0"): training, control and synthetic tables of ``--rows`` rows each (default 100,000) from
the 9 adult columns -- training and control resampled from adult with 10 % of cells swapped (a cell takes the
same column's value of a uniformly drawn row), synthetic resampled from training with 30 % swapped.

    python benchmarks/bench_synthetic.py [--rows 100000] [--skip-anonymeter] [--ten-columns]
                                         [--anonymeter-singling-out univariate multivariate]

``--ten-columns`` gives the issue's shape (10 mixed columns): a tenth, continuous column ``hours`` (one
draw of N(40, 12), one decimal, per adult row, so it travels with its row through the resampling and swaps)
joins the quasi-identifiers and the aux columns of the first linkability set and of inference.

privaudit: one ``run_audit`` of every synthetic check (distance_to_closest_record, singling_out with 500
multivariate and 500 univariate predicates, linkability and inference with anonymeter's parameters below,
cap), timed in process with its peak RSS.
anonymeter (when installed): LinkabilityEvaluator (aux columns age/sex/race/marital-status vs
education/occupation/workclass/native-country, n_neighbors 10, n_attacks 2,000) and InferenceEvaluator
(secret salary-class, n_attacks 2,000), as the peers' table measured them; with ``--anonymeter-singling-out``
also SinglingOutEvaluator (n_attacks 500, n_cols 3) in the modes named. Times side by side, one run.

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

Issue #14's shape, ``--ten-columns --anonymeter-singling-out univariate multivariate`` (2026-11-25, the same
machine under a heavier load -- load average 5 to 6 on two cores --, so the two runs differ by more than the
code; ratios within a run are the comparable figures). "after": 2-D dominance counting of predicates with two
numeric conditions (``risk/synthetic_attacks/dominance.py``), windows of sorted numeric columns for the
k-nearest search (``windows.py``), run minima instead of a sort in the DCR joins (``risk/synthetic/segments.py``);
the univariate singling-out check was added to the chapter then (the "before" run has none):

=========================== ============================ ====================================
                            before                       after
=========================== ============================ ====================================
whole chapter, peak RSS     343.7 s, 719 MB              60.0 s, 793 MB
distance_to_closest_record  17.1 s                       19.1 s
singling_out (500, multi)   306.4 s                      30.5 s (anonymeter 695.2 s: 22.8x)
singling_out (500, uni)     --                           0.5 s (anonymeter 1.4 s: 2.8x)
linkability (2,000, k 10)   14.4 s (anonymeter 87.0 s)   3.2 s (anonymeter 103.2 s: 32.7x)
inference (2,000)           2.5 s (anonymeter 50.6 s)    3.0 s (anonymeter 44.1 s: 14.8x)
cap                         1.2 s                        1.7 s
=========================== ============================ ====================================

Same process, old against new code on the same tables: the three DCR searches 27.9 s -> 11.3 s, the
linkability search of 4,000 targets on the five columns with ``hours`` 10.3 s -> 2.1 s (identical neighbours);
the ten-column audit's JSON (values, details, per-record arrays) is identical to the old code's. The 9-column
default in the same session: chapter 24.7 s (singling_out 9.0 s, DCR 9.2 s; linkability 54.0x, inference
57.6x faster than anonymeter), singling out 8.7 s against 9.4 s without the new step (no regression).

Later the same day (2026-11-25), the checks of one audit share the encoded tables (``--ten-columns``; the
previous commit's checkout, then this one, one after the other, load average 2.2 falling to 1.1 on two cores):
every column of the three tables is encoded once per audit and each column set's distinct records are found
once (``risk/synthetic_attacks/shared.py``) instead of one encoding and one ``drop_duplicates`` per check;
multivariate generation looks each column combination up once per batch and searches the large key arrays
with sorted needles (one search, one dominance count per batch); the 500 final predicates are counted on the
training and control tables record by record when that is cheaper than building key indexes (``_count_once``);
category codes are counted by ``bincount`` instead of sorts. Same JSON (values, details) as before:

=========================== ============================ ====================================
                            before (0a8cb20)             after
=========================== ============================ ====================================
whole chapter, peak RSS     34.5 s, 793 MB               33.2 s, 808 MB
distance_to_closest_record  10.4 s                       10.3 s (code unchanged)
singling_out (500, multi)   16.2 s                       14.9 s
singling_out (500, uni)     0.3 s                        0.2 s (anonymeter 0.6 s: 3.7x)
linkability (2,000, k 10)   2.6 s                        3.0 s (anonymeter 64.8 s: 21.6x)
inference (2,000)           1.6 s                        2.1 s (anonymeter 35.7 s: 16.9x)
cap                         0.9 s                        1.0 s (code unchanged)
=========================== ============================ ====================================

Per-check times within one audit move by +-30 % from run to run here (linkability and inference, which now
skip their encoding, came out slower in this pair of runs and faster in others). Measured in one process on
the same inputs, old and new code alternating: the multivariate singling-out attack 17.9 s / 18.1 s ->
13.1 s / 14.8 s. The univariate check in an audit of its own (it then encodes and de-duplicates the three
tables itself) takes 0.34 s against anonymeter's 0.62 s (1.8x); within the chapter it reads what the
multivariate check encoded. What remains of its time is the predicate search and counts (sorts of the numeric
columns) and the control-size correction's 50 subsample draws, whose random stream fixes the figures.
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

COLUMNS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
]


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
    parser.add_argument(
        "--anonymeter-singling-out",
        nargs="+",
        default=[],
        metavar="MODE",
        choices=["univariate", "multivariate"],
        help="also time anonymeter's SinglingOutEvaluator in these modes (multivariate: over 25 minutes on 10^5 rows)",
    )
    args = parser.parse_args()
    global COLUMNS
    train, control, synthetic = tables(args.rows, args.ten_columns)
    aux = [["age", "sex", "race", "marital-status"], ["education", "occupation", "workclass", "native-country"]]
    if args.ten_columns:
        COLUMNS = ["hours"] + COLUMNS
        aux[0].append("hours")
    policy = {
        "release": "synthetic",
        "columns": {
            c: {"role": "sensitive" if c in ("occupation", "salary-class") else "quasi_identifier"} for c in COLUMNS
        },
        "checks": [  # the peers' attacks with the same parameters as anonymeter's below
            {"assessor": "distance_to_closest_record"},
            {"assessor": "singling_out", "n_attacks": 500, "max_risk": 0.1},
            {
                "assessor": "singling_out",
                "id": "singling_out_univariate",
                "mode": "univariate",
                "n_attacks": 500,
                "max_risk": 0.1,
            },
            {"assessor": "linkability", "aux_columns": aux, "n_neighbors": 10, "n_attacks": 2000, "max_risk": 0.1},
            {
                "assessor": "inference",
                "secret": "salary-class",
                "aux_columns": COLUMNS[:-1],
                "n_attacks": 2000,
                "max_risk": 0.1,
            },
            {"assessor": "cap", "min_protection": 0.5},
        ],
    }
    policy["columns"]["age"]["type"] = "numeric"
    if args.ten_columns:
        policy["columns"]["hours"]["type"] = "numeric"
    from privaudit.pipeline.audit import run_audit

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
    LinkabilityEvaluator(
        ori=train, syn=synthetic, control=control, n_attacks=2000, aux_cols=aux, n_neighbors=10
    ).evaluate(n_jobs=1)
    link = time.perf_counter() - t
    t = time.perf_counter()
    InferenceEvaluator(
        ori=train, syn=synthetic, control=control, aux_cols=COLUMNS[:-1], secret="salary-class", n_attacks=2000
    ).evaluate(n_jobs=1)
    inference = time.perf_counter() - t
    print(
        f"anonymeter: linkability {link:.1f} s, inference {inference:.1f} s (2,000 attacks each); "
        f"privaudit's whole chapter / anonymeter's two attacks = {seconds / (link + inference):.2f}"
    )
    by_id = {c.id: c.seconds for c in result.checks}
    print(
        f"same attacks: linkability {link / by_id['linkability']:.1f}x, inference "
        f"{inference / by_id['inference']:.1f}x faster than anonymeter"
    )
    if not args.anonymeter_singling_out:
        return
    from anonymeter.evaluators import SinglingOutEvaluator

    typed = []
    for frame in (train, synthetic, control):  # anonymeter compares numeric columns as numbers
        frame = frame.copy()
        for c in ("age", "hours"):
            if c in frame:
                frame[c] = pd.to_numeric(frame[c])
        typed.append(frame)
    for mode in args.anonymeter_singling_out:
        check = "singling_out_univariate" if mode == "univariate" else "singling_out"
        t = time.perf_counter()
        SinglingOutEvaluator(ori=typed[0], syn=typed[1], control=typed[2], n_attacks=500, n_cols=3).evaluate(mode=mode)
        took = time.perf_counter() - t
        print(
            f"anonymeter singling out ({mode}, 500 attacks, n_cols 3): {took:.1f} s; privaudit "
            f"{by_id[check]:.1f} s: {took / by_id[check]:.1f}x faster"
        )


if __name__ == "__main__":
    main()
