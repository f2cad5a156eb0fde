"""Benchmark of the full class-based audit (k, p, three l-variants, t ordered and equal, uniqueness).

    python benchmarks/bench_audit.py [--rows 10000000] [--shape issue|wide|both] [--skip-synthetic]
                                     [--repeat 3] [--pycanon PYTHON]

Cases: (a) the Adult extract (30,162 rows); (b) Adult x 10, copy i with age + 1000*i (classes grow
tenfold too); (c) a synthetic table (default 10^7 rows: age, sex, race, marital, education, zip3,
occupation, income) read from Parquet. Shape ``issue`` draws zip3 from a Zipf law with exponent 1.33,
which gives the 2.83 million classes the core issue measured with 6 QIs; shape ``wide`` (exponent 0.6)
gives 7.04 million, a harder case. Each case runs in a fresh subprocess, which prints wall seconds
(load + summary + all checks) and its peak RSS; synthetic cases run ``--repeat`` times (default 3: the
median run is printed, with every run's time, since this shared machine varies run to run). With --pycanon PYTHON (a venv's interpreter with pycanon
installed; keep it out of the project's environment) the same checks on case (b) are also timed with
pycanon in the same run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "examples" / "adult" / "adult.csv"

CHECKS = """
checks:
  - {assessor: k_anonymity, k: 5}
  - {assessor: p_sensitive_k_anonymity, p: 2, k: 5}
  - {id: ld, assessor: l_diversity, sensitive: %(nominal)s, variant: distinct, l: 2}
  - {id: le, assessor: l_diversity, sensitive: %(nominal)s, variant: entropy, l: 2}
  - {id: lr, assessor: l_diversity, sensitive: %(nominal)s, variant: recursive, l: 2, c: 3}
  - {id: to, assessor: t_closeness, sensitive: %(ordered)s, t: 0.2}
  - {id: te, assessor: t_closeness, sensitive: %(nominal)s, t: 0.2}
  - {assessor: uniqueness}
"""

ADULT_POLICY = (
    """version: 1
name: benchmark adult
data: {delimiter: ";"}
columns:
  sex: {role: quasi_identifier}
  age: {role: quasi_identifier, type: numeric}
  race: {role: quasi_identifier}
  marital-status: {role: quasi_identifier}
  education: {role: quasi_identifier}
  native-country: {role: quasi_identifier}
  workclass: {role: quasi_identifier}
  occupation: {role: sensitive}
  salary-class: {role: sensitive, type: ordinal, order: ["<=50K", ">50K"]}
"""
    + CHECKS % {"nominal": "occupation", "ordered": "salary-class"}
)

SYNTH_POLICY = (
    """version: 1
name: benchmark synthetic
columns:
  age: {role: quasi_identifier, type: numeric}
  sex: {role: quasi_identifier}
  race: {role: quasi_identifier}
  marital: {role: quasi_identifier}
  education: {role: quasi_identifier}
  zip3: {role: quasi_identifier}
  occupation: {role: sensitive}
  income: {role: sensitive, type: numeric}
"""
    + CHECKS % {"nominal": "occupation", "ordered": "income"}
)


ZIP_SKEW = {"issue": 1.33, "wide": 0.6}


def synthetic(n: int, seed: int = 7, zip_skew: float = 0.6) -> pd.DataFrame:
    rng = np.random.default_rng(seed)

    def cat(prefix: str, k: int, skew: float = 1.2) -> pd.Categorical:
        p = 1 / np.arange(1, k + 1) ** skew
        codes = rng.choice(k, size=n, p=p / p.sum())
        return pd.Categorical.from_codes(codes, [f"{prefix}{i}" for i in range(k)])

    return pd.DataFrame(
        {
            "age": rng.integers(17, 91, n).astype(np.int16),
            "sex": cat("s", 2, 0.3),
            "race": cat("r", 5),
            "marital": cat("m", 7),
            "education": cat("e", 16, 0.8),
            "zip3": cat("z", 900, zip_skew),
            "occupation": cat("o", 14, 0.5),
            "income": rng.integers(1, 21, n).astype(np.int32) * 5000,  # 5,000 to 100,000: int16 would wrap past 32,767
        }
    )


CHILD = textwrap.dedent("""
    import json, resource, sys, time
    t0 = time.perf_counter()
    from privaudit.pipeline.audit import run_audit
    t1 = time.perf_counter()
    result = run_audit(sys.argv[1], sys.argv[2])
    t2 = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": t2 - t1, "import": t1 - t0, "rss_mb": rss,
                      "classes": int(result.context.summary.n_classes),
                      "values": {c.id: c.value for c in result.checks}}))
""")


def run_case(label: str, data: Path, policy: Path, repeat: int = 1) -> dict:
    """Run the case ``repeat`` times, each in a fresh process; print the median run (and the range)."""
    runs = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", CHILD, str(data), str(policy)], capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(f"{label}: {out.stderr}")
        runs.append(json.loads(out.stdout))
    runs.sort(key=lambda r: r["seconds"])
    res = runs[len(runs) // 2]
    times = " / ".join(f"{r['seconds']:.2f}" for r in runs)
    spread = f"  (runs: {times} s)" if repeat > 1 else ""
    print(f"{label:<34} {res['seconds']:8.2f} s  {res['rss_mb']:8.0f} MB peak  {res['classes']:>10,} classes{spread}")
    return res


PYCANON = textwrap.dedent("""
    import sys, time
    import pandas as pd
    from pycanon import anonymity
    df = pd.read_csv(sys.argv[1], sep=";")
    qi = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
    sa = ["occupation"]
    t0 = time.perf_counter()
    k = anonymity.k_anonymity(df, qi)
    l = anonymity.l_diversity(df, qi, sa)
    e = anonymity.entropy_l_diversity(df, qi, sa)
    t = anonymity.t_closeness(df, qi, sa)
    print(f"{time.perf_counter() - t0:.2f} {k} {l} {e} {t}")
""")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--shape", choices=["issue", "wide", "both"], default="both")
    parser.add_argument("--pycanon", help="python interpreter of a venv with pycanon installed")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each synthetic case (median printed)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "adult.yaml").write_text(ADULT_POLICY)
        (tmp / "synth.yaml").write_text(SYNTH_POLICY)
        adult = pd.read_csv(ADULT, sep=";", dtype=str, keep_default_na=False)
        ages = adult["age"].astype(int)
        x10 = pd.concat([adult.assign(age=ages + 1000 * i) for i in range(10)], ignore_index=True)
        x10.to_csv(tmp / "adult_x10.csv", sep=";", index=False)
        print(f"{'case':<34} {'wall':>10}  {'peak RSS':>13}")
        run_case("(a) adult, 30,162 rows", ADULT, tmp / "adult.yaml")
        ours = run_case("(b) adult x 10, 301,620 rows", tmp / "adult_x10.csv", tmp / "adult.yaml")
        if args.pycanon:
            out = subprocess.run(
                [args.pycanon, "-c", PYCANON, str(tmp / "adult_x10.csv")], capture_output=True, text=True
            )
            if out.returncode == 0:
                secs = float(out.stdout.split()[0])
                print(
                    f"{'(b) pycanon k, l, entropy-l, t':<34} {secs:8.2f} s   -> privaudit is "
                    f"{secs / ours['seconds']:.0f}x faster on the same table"
                )
            else:
                print("pycanon failed:", out.stderr.strip().splitlines()[-1])
        if not args.skip_synthetic:
            shapes = ["issue", "wide"] if args.shape == "both" else [args.shape]
            for shape in shapes:  # every table first: writing one frees memory the cases would then refault
                t0 = time.perf_counter()
                synthetic(args.rows, zip_skew=ZIP_SKEW[shape]).to_parquet(
                    tmp / f"synth_{shape}.parquet", row_group_size=1_000_000
                )
                print(f"(c) {shape} synthetic table written in {time.perf_counter() - t0:.1f} s")
            time.sleep(5)
            for shape in shapes:
                run_case(
                    f"(c) {shape}, {args.rows:,} rows",
                    tmp / f"synth_{shape}.parquet",
                    tmp / "synth.yaml",
                    repeat=max(args.repeat, 1),
                )


if __name__ == "__main__":
    main()
