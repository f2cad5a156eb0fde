"""The perturbative remediators on 10^6 records beside sdcMicro's topBotCoding and pram, in one run.

For a synthetic survey of 1,000,000 records (age and income numeric quasi-identifiers, region of 12 and
occupation of 40 categories nominal ones, a sampling weight), the table is written to CSV and
benchmarks/sdcmicro/perturbation.R times sdcMicro 5.8.1's calls on it (``R_LIBS=/work/Rlib Rscript``;
sdcTools/sdcMicro commit cf32510, R/topBotCoding.R and R/pram.R); then each privaudit remediator's run on the
audited table (``REMEDIATOR.run``, what ``privaudit remediate`` calls between its two audits; the audit that
builds its context is not timed) is timed on the same records, and the ratio privaudit / sdcMicro printed
(the goal: at most 2). Pairs: top coding of age and income at their 99th percentiles (``quantile(type = 1)``);
top and bottom coding of age, income and weight at their 99th and 1st; invariant PRAM of region and
occupation (pd 0.8, alpha 0.5); PRAM of occupation within the strata of region; PRAM with a pd per category
(``pd = list(<40 values>)``); PRAM with a given 40 x 40 matrix (``pd = <matrix>``). µ-ARGUS's PRAM (keep
probabilities, bandwidth) has no sdcMicro counterpart: timed alone. Also the kernels alone
(:mod:`privaudit.remediation.perturbation`) and PRAM's largest shift of a category's share.

Run from the repository root:  R_LIBS=/work/Rlib python benchmarks/bench_pram_topbot.py [N]
(without R or sdcMicro, privaudit's times only).

Measured here (2 shared cores shared with other jobs; sdcMicro seconds / privaudit seconds / ratio), two runs
of 10^6 records:
  top coding age, income            0.42 / 0.55 / 1.29    0.33 / 0.08 / 0.24
  top and bottom coding, 3 columns  2.13 / 0.91 / 0.43    1.42 / 0.23 / 0.16
  pram region, occupation          96.16 / 3.02 / 0.031  83.24 / 0.84 / 0.010
  pram occupation within region    46.15 / 3.61 / 0.078  67.91 / 0.74 / 0.011
  pram pd per category             35.08 / 1.81 / 0.051  39.88 / 0.34 / 0.009
  pram given 40 x 40 matrix        34.44 / 2.87 / 0.083  19.30 / 0.36 / 0.019
  µ-ARGUS keep 0.8, bandwidth 3     (none) / 1.65         (none) / 0.35
(the first run's privaudit part ran under a heavier load than the second's).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit.pipeline.audit import run_audit  # noqa: E402
from privaudit.remediation.methods import pram, top_bottom_coding  # noqa: E402
from privaudit.remediation.perturbation import pram_codes, top_bottom_code  # noqa: E402

R_SCRIPT = ROOT / "benchmarks" / "sdcmicro" / "perturbation.R"
R_LIBS = os.environ.get("R_LIBS", "/work/Rlib")

# the same synthetic survey, policy and timer as the noise and rank-swap benchmark beside it
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_perturbation import POLICY, table, timed  # noqa: E402


def sdcmicro_times(data: Path) -> dict[str, float]:
    """Seconds of each sdcMicro call of benchmarks/sdcmicro/perturbation.R on ``data`` (empty without R)."""
    if shutil.which("Rscript") is None or not (Path(R_LIBS) / "sdcMicro" / "DESCRIPTION").exists():
        print(f"sdcMicro: not installed under {R_LIBS} (or no Rscript): privaudit's times only")
        return {}
    env = {**os.environ, "R_LIBS": R_LIBS}
    done = subprocess.run(["Rscript", str(R_SCRIPT), str(data)], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"Rscript failed: {done.stderr.strip()}")
    return {line.split()[0]: float(line.split()[1]) for line in done.stdout.splitlines() if line.strip()}


def runs(matrix_file: Path) -> list[tuple[str, str | None, object, dict]]:
    """(label, the R script's name of the sdcMicro call it is compared with, module, options)."""
    return [
        ("top_bottom_coding top_quantile=0.99 (age, income)", "topBotCoding_top99_age_income", top_bottom_coding,
         {"top_quantile": 0.99}),
        ("top_bottom_coding top/bottom 0.99/0.01 (age, income, weight)", "topBotCoding_top_bottom_3",
         top_bottom_coding, {"columns": ["age", "income", "weight"], "top_quantile": 0.99, "bottom_quantile": 0.01}),
        ("pram pd=0.8 alpha=0.5 (region 12, occupation 40)", "pram_region_occupation", pram, {}),
        ("pram occupation, strata_variables=[region]", "pram_strata_region", pram,
         {"variables": ["occupation"], "strata_variables": ["region"]}),
        ("pram occupation, pd per category", "pram_pd_per_category", pram,
         {"variables": ["occupation"], "pd": {"occupation": OCCUPATION_PD}}),
        ("pram occupation, given matrix (CSV)", "pram_matrix", pram,
         {"variables": ["occupation"], "matrix": {"occupation": str(matrix_file)}}),
        ("pram occupation, µ-ARGUS keep 0.8 bandwidth 3", None, pram,
         {"variables": ["occupation"], "keep": 0.8, "bandwidth": 3}),
    ]  # fmt: skip


#: the R script's pd per category, seq(0.5, 0.95, length.out = 40), by the occupations' sorted labels
OCCUPATION_PD = {f"o{i:02d}": float(v) for i, v in enumerate(np.linspace(0.5, 0.95, 40))}


def write_matrix(path: Path) -> None:
    """The R script's matrix: keep 0.8, the rest spread evenly (rows the original category)."""
    labels = [f"o{i:02d}" for i in range(40)]
    m = np.full((40, 40), 0.2 / 39)
    np.fill_diagonal(m, 0.8)
    pd.DataFrame(m, index=labels, columns=labels).to_csv(path, index_label="original", float_format="%.17g")


def main(n: int) -> None:
    frame = table(n)
    with tempfile.TemporaryDirectory() as folder:
        data, policy, csv = Path(folder) / "data.parquet", Path(folder) / "policy.yaml", Path(folder) / "data.csv"
        frame.to_parquet(data)
        frame.to_csv(csv, index=False)
        policy.write_text(POLICY)
        matrix_file = Path(folder) / "occupation.csv"
        write_matrix(matrix_file)
        r_times = sdcmicro_times(csv)
        audit, t_audit = timed(run_audit, str(data), str(policy))
        ctx = audit.context
        print(f"== {n:,} records (audit before: {t_audit:.2f} s)")
        print(f"{'privaudit run':<62} {'privaudit':>9} {'sdcMicro':>9} {'ratio':>6}")
        for label, r_name, module, options in runs(matrix_file):
            parsed = module.REMEDIATOR.options.model_validate(options)
            result, seconds = timed(module.REMEDIATOR.run, ctx, parsed)
            theirs = r_times.get(r_name) if r_name else None
            r_text, ratio = (f"{theirs:8.2f}s", f"{seconds / theirs:6.3f}") if theirs else ("        -", "     -")
            print(f"{label:<62} {seconds:8.2f}s {r_text} {ratio}")
    values = frame["income"].to_numpy(dtype=float)
    _, seconds = timed(top_bottom_code, values, 1e6, 100.0)
    print(f"{'kernel top_bottom_code (1 column)':<62} {seconds:8.3f}s")
    codes = pd.factorize(frame["occupation"], sort=True)[0].astype(np.int64)
    strata = np.zeros(n, dtype=np.int64)
    out, seconds = timed(pram_codes, codes, strata, 40, 0.8, 0.5, np.random.default_rng(1))
    shift = np.abs(np.bincount(out.codes, minlength=40) - np.bincount(codes, minlength=40)).max() / n
    print(f"{'kernel pram_codes (40 categories)':<62} {seconds:8.3f}s  largest share shift {shift:.5f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
