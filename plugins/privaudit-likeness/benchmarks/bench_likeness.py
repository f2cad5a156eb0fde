"""Benchmark and cross-check of the β-likeness and δ-disclosure assessors.

    python plugins/privaudit-likeness/benchmarks/bench_likeness.py [--rows 10000000] [--pycanon PYTHON]

Prints, per case, the time to build the shared class summary and the time of each check on top of it
(the assessors only read the summary's sparse counts, so their cost follows the number of stored
(class, value) pairs, not rows):

* (a) the Adult extract (privaudit's examples/adult/adult.csv, 30,162 rows, 7 QIs);
* (b) a synthetic table of ``--rows`` rows (6 QIs, age in 5-year bands), built in memory.

With ``--pycanon PYTHON`` (the interpreter of a separate venv with ``pip install pycanon``; keep it
out of the project's environment) pycanon's basic/enhanced β and δ are computed on the Adult extract
too, timed, and compared with ours: basic β must agree; pycanon's enhanced figure is
``min(β*, -ln min p)`` and its δ skips absent values (our ``delta_present_values``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd

from privaudit.core.context import AuditContext
from privaudit.testing import load_policy
from privaudit_likeness import beta_likeness, delta_disclosure

ROOT = Path(__file__).resolve().parents[3]
ADULT = ROOT / "examples" / "adult" / "adult.csv"
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]


def policy_for(qis: list[str], sensitive: list[str], folder: Path) -> Path:
    lines = ["version: 1", "name: bench", "columns:"]
    lines += [f"  {q}: {{role: quasi_identifier}}" for q in qis]
    lines += [f"  {s}: {{role: sensitive}}" for s in sensitive]
    path = folder / "policy.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def checks(column: str) -> list[tuple[str, object, object]]:
    return [
        ("basic β", beta_likeness, beta_likeness.BetaLikenessParams(sensitive=column, beta=1.0)),
        ("enhanced β", beta_likeness, beta_likeness.BetaLikenessParams(sensitive=column, beta=1.0, variant="enhanced")),
        ("δ-disclosure", delta_disclosure, delta_disclosure.DeltaDisclosureParams(sensitive=column, delta=1.0)),
    ]


def time_case(label: str, frame: pd.DataFrame, qis: list[str], column: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        policy = load_policy(policy_for(qis, [column], Path(tmp)))
    ctx = AuditContext(policy, frame)
    t0 = time.perf_counter()
    s = ctx.summary
    summary_s = time.perf_counter() - t0
    sc = s.sensitive[column]
    print(
        f"{label}: {s.n_records:,} rows, {s.n_classes:,} classes, {sc.counts.nnz:,} (class, value) pairs; "
        f"summary {summary_s:.2f} s"
    )
    values = {}
    for name, module, params in checks(column):
        best = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            m = module.run(ctx, params)
            best = min(best, time.perf_counter() - t0)
        values[name] = m.value if name != "δ-disclosure" else (m.value, m.details["delta_present_values"])
        print(
            f"    {name:<14} {best * 1000:9.1f} ms   value {m.value:.6g}   classes failing "
            f"{m.details['classes_failing']:,}"
        )
    return values


def typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Nominal columns as the loader types them (categoricals)."""
    return frame.astype({c: "category" for c in frame.columns})


def synthetic(n: int, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)

    def cat(prefix: str, k: int, skew: float = 1.2) -> pd.Categorical:
        p = 1 / np.arange(1, k + 1) ** skew
        return pd.Categorical.from_codes(rng.choice(k, size=n, p=p / p.sum()), [f"{prefix}{i}" for i in range(k)])

    # the shape of privaudit's benchmarks/bench_audit.py, with age in 5-year bands: ~10^5-10^6 classes
    return pd.DataFrame(
        {
            "age": cat("a", 15, 0.2),
            "sex": cat("s", 2, 0.3),
            "race": cat("r", 5),
            "marital": cat("m", 7),
            "education": cat("e", 16, 0.8),
            "zip3": cat("z", 900, 0.6),
            "occupation": cat("o", 14, 0.5),
        }
    )


PYCANON = textwrap.dedent("""
    import json, sys, time
    import pandas as pd
    from pycanon import anonymity
    df = pd.read_csv(sys.argv[1], sep=";", dtype=str, keep_default_na=False)
    qi, sa = json.loads(sys.argv[2]), [sys.argv[3]]
    out = {}
    for name, fn in (("basic", anonymity.basic_beta_likeness), ("enhanced", anonymity.enhanced_beta_likeness),
                     ("delta", anonymity.delta_disclosure)):
        t0 = time.perf_counter()
        out[name] = [float(fn(df, qi, sa)), time.perf_counter() - t0]
    print(json.dumps(out))
""")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--pycanon", help="python interpreter of a venv with pycanon installed")
    args = parser.parse_args()
    adult = pd.read_csv(ADULT, sep=";", dtype=str, keep_default_na=False)
    ours = {}
    for column in ("salary-class", "occupation"):
        ours[column] = time_case(
            f"(a) adult, sensitive {column}", typed(adult[ADULT_QIS + [column]]), ADULT_QIS, column
        )
    t0 = time.perf_counter()
    frame = synthetic(args.rows)
    print(f"(b) synthetic table built in {time.perf_counter() - t0:.1f} s")
    time_case(f"(b) synthetic, {args.rows:,} rows", frame, list(frame.columns[:-1]), "occupation")
    if args.pycanon:
        for column in ("salary-class", "occupation"):
            done = subprocess.run(
                [args.pycanon, "-c", PYCANON, str(ADULT), json.dumps(ADULT_QIS), column], capture_output=True, text=True
            )
            if done.returncode:
                print("pycanon failed:", (done.stderr.strip().splitlines() or ["?"])[-1])
                continue
            theirs = json.loads(done.stdout)
            mine = ours[column]
            print(f"pycanon on adult, sensitive {column}:")
            for name, our_value in (
                ("basic", mine["basic β"]),
                ("enhanced", mine["enhanced β"]),
                ("delta", mine["δ-disclosure"][1]),
            ):
                value, secs = theirs[name]
                agree = "agrees" if np.isclose(value, our_value, rtol=1e-9) else "differs"
                print(f"    {name:<9} pycanon {value:.6g} in {secs:.1f} s; ours {our_value:.6g} ({agree})")
            print(
                f"    (our δ counting absent values: {mine['δ-disclosure'][0]:.6g}; our enhanced figure is the "
                f"smallest β that passes)"
            )


if __name__ == "__main__":
    main()
