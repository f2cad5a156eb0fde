"""Benchmark of the perturbative remediators on 10^6 records: top and bottom coding, invariant PRAM, noise
addition and rank swapping.

Prints, for a synthetic survey of 1,000,000 records (age and income numeric quasi-identifiers, region of 12
and occupation of 40 categories nominal ones, a sampling weight): the time of each remediator's run on the
audited table (``REMEDIATOR.run``, what ``privaudit remediate`` calls between its two audits), of PRAM with
strata, and of the kernels alone (:mod:`privaudit.remediation.perturbation`, ``noise_addition``,
``rank_swapping``); PRAM's largest shift of a category's share (invariance in expectation), and noise's
released variance over the original (1 + 1.5^2 = 3.25 expected at noise 150).

With sdcMicro installed (``--sdcmicro LIB``, the R library holding it; Rscript on the PATH), the same calls of
sdcMicro's ``addNoise`` (N rows) and ``rankSwap`` (at most ``--swap-rows`` rows, default 100,000: its C++
``RankSwap`` visits every candidate rank of every value, so its time grows with the square of the rows -- 3 s
at 10^5, 74 s at 3 x 10^5 on this shared machine, 558 s (R0 = 0.95) and 407 s (P = 0.05) at 10^6 against
3.9 s and 3.4 s for privaudit's kernel, ratios 144 and 118: ``--swap-rows 1000000`` runs them) run through
``benchmarks/sdcmicro/run_noise_rankswap.R`` and the ratio of the times is printed (R's elapsed time;
privaudit's kernels on the same two columns). sdcMicro's ``topBotCoding``/``pram`` are not timed.

Run from the repository root:  python benchmarks/bench_perturbation.py [N] [--sdcmicro LIB] [--swap-rows M]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit.pipeline.audit import run_audit  # noqa: E402
from privaudit.remediation.methods import noise, pram, rank_swap, top_bottom_coding  # noqa: E402
from privaudit.remediation.noise_addition import add_noise  # noqa: E402
from privaudit.remediation.perturbation import pram_codes, top_bottom_code  # noqa: E402
from privaudit.remediation.rank_swapping import rank_swap as rank_swap_kernel  # noqa: E402

POLICY = """version: 1
name: bench
columns:
  age: {role: quasi_identifier, type: numeric}
  income: {role: quasi_identifier, type: numeric}
  region: {role: quasi_identifier}
  occupation: {role: quasi_identifier}
  weight: {role: weight, type: numeric}
checks:
  - {assessor: k_anonymity, k: 1}
"""


def table(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "age": rng.integers(0, 100, n),
            "income": rng.lognormal(10, 1, n).round(),
            "region": rng.choice([f"r{i:02d}" for i in range(12)], n),
            "occupation": rng.choice([f"o{i:02d}" for i in range(40)], n, p=np.arange(1, 41) / 820),
            "weight": rng.uniform(10, 2000, n).round(1),
        }
    )


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def main(n: int, sdcmicro: str | None = None, swap_rows: int = 100_000) -> None:
    frame = table(n)
    with tempfile.TemporaryDirectory() as folder:
        data, policy = Path(folder) / "data.parquet", Path(folder) / "policy.yaml"
        frame.to_parquet(data)
        policy.write_text(POLICY)
        audit, t_audit = timed(run_audit, str(data), str(policy))
    ctx = audit.context
    print(f"== {n:,} records (audit before: {t_audit:.2f} s)")
    runs = [
        ("top_bottom_coding top_quantile=0.99 (age, income)", top_bottom_coding, {"top_quantile": 0.99}),
        (
            "top_bottom_coding top/bottom quantiles, age, income, weight",
            top_bottom_coding,
            {"columns": ["age", "income", "weight"], "top_quantile": 0.99, "bottom_quantile": 0.01},
        ),
        ("pram pd=0.8 alpha=0.5 (region 12, occupation 40)", pram, {}),
        ("pram with strata_variables=[region] (occupation)", pram, {"variables": ["occupation"], "strata_variables": ["region"]}),
        ("noise additive noise=150 (age, income)", noise, {}),
        ("noise correlated2 delta=0.1 (age, income)", noise, {"method": "correlated2"}),
        ("noise weight_noise=10 only", noise, {"variables": [], "weight_noise": 10}),
        ("rank_swap R0=0.95 (age, income)", rank_swap, {}),
        ("rank_swap P=5 (age, income)", rank_swap, {"P": 5}),
    ]  # fmt: skip
    for label, module, options in runs:
        parsed = module.REMEDIATOR.options.model_validate(options)
        result, seconds = timed(module.REMEDIATOR.run, ctx, parsed)
        print(f"{label:<62} {seconds:6.2f} s  loss {result.loss}")
    values = frame["income"].to_numpy(dtype=float)
    _, seconds = timed(top_bottom_code, values, 1e6, 100.0)
    print(f"{'kernel top_bottom_code (1 column)':<62} {seconds:6.3f} s")
    codes = pd.factorize(frame["occupation"], sort=True)[0].astype(np.int64)
    strata = np.zeros(n, dtype=np.int64)
    out, seconds = timed(pram_codes, codes, strata, 40, 0.8, 0.5, np.random.default_rng(1))
    shift = np.abs(np.bincount(out.codes, minlength=40) - np.bincount(codes, minlength=40)).max() / n
    print(f"{'kernel pram_codes (40 categories)':<62} {seconds:6.3f} s  largest share shift {shift:.5f}")
    ours = kernels(frame)
    if sdcmicro is None:
        print("sdcMicro: not compared (give --sdcmicro LIB, the R library that holds it)")
        return
    compare(n, min(n, swap_rows), sdcmicro, ours, frame)


def kernels(frame: pd.DataFrame) -> dict[str, float]:
    """Seconds of the noise kernels on age and income (the R script's two columns)."""
    x = frame[["age", "income"]].to_numpy(dtype=float)
    out: dict[str, float] = {}
    for method in ("additive", "correlated2"):
        xm, out[method] = timed(add_noise, x, method, 150.0, 0.1, np.random.default_rng(1))
        ratio = (xm.var(axis=0, ddof=1) / x.var(axis=0, ddof=1)).round(3)
        print(f"{'kernel add_noise ' + method + ' (2 columns)':<62} {out[method]:6.3f} s  variance ratio {ratio}")
    seconds = swap_kernel(x)
    print(f"{'kernel rank_swap R0=0.95 (2 columns)':<62} {seconds:6.3f} s")
    return out


def swap_kernel(x: np.ndarray, **options) -> float:
    start = time.perf_counter()
    for j in range(x.shape[1]):
        rank_swap_kernel(x[:, j], np.random.default_rng(j), **options)
    return time.perf_counter() - start


def compare(n: int, m: int, lib: str, ours: dict[str, float], frame: pd.DataFrame) -> None:
    """sdcMicro's addNoise on n rows and rankSwap on m rows, side by side with privaudit's kernels."""
    script = ROOT / "benchmarks" / "sdcmicro" / "run_noise_rankswap.R"
    if shutil.which("Rscript") is None:
        print("sdcMicro: Rscript is not on the PATH; no comparison run")
        return
    done = subprocess.run(["Rscript", str(script), lib, "time", str(n), str(m)], capture_output=True, text=True)
    if done.returncode != 0:
        print("sdcMicro: the R script failed:", done.stderr.strip().splitlines()[-1:])
        return
    theirs = {}
    for line in done.stdout.splitlines():
        if re.search(r"seconds", line):
            theirs[" ".join(line.split()[:2])] = float(line.split()[-1])
    x = frame[["age", "income"]].to_numpy(dtype=float)[:m]
    ours_swap = {"rankSwap R0=0.95": swap_kernel(x), "rankSwap P=0.05": swap_kernel(x, p=5.0)}
    rows = [(f"addNoise {k}", n, theirs.get(f"addNoise {k}"), ours[k]) for k in ("additive", "correlated2")]
    rows += [(k, m, theirs.get(k), ours_swap[k]) for k in ours_swap]
    print(
        f"{'sdcMicro call (privaudit: its kernel, P=0.05 is P=5)':<52} {'rows':>9} {'sdcMicro':>9} {'privaudit':>9} {'ratio':>7}"
    )
    for label, count, r, p in rows:
        ratio = f"{r / p:7.1f}" if r is not None and p > 0 else "      -"
        shown = float("nan") if r is None else r
        print(f"{label:<52} {count:>9,} {shown:9.2f} {p:9.3f} {ratio}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=1_000_000)
    parser.add_argument("--sdcmicro", metavar="LIB", help="the R library directory that holds sdcMicro")
    parser.add_argument("--swap-rows", type=int, default=100_000, help="rows of the rankSwap comparison")
    args = parser.parse_args()
    main(args.n, args.sdcmicro, args.swap_rows)
