"""Benchmark of the perturbative remediators on 10^6 records: top and bottom coding, and invariant PRAM.

Prints, for a synthetic survey of 1,000,000 records (age and income numeric quasi-identifiers, region of 12
and occupation of 40 categories nominal ones, a sampling weight): the time of each remediator's run on the
audited table (``REMEDIATOR.run``, what ``privaudit remediate`` calls between its two audits), of PRAM with
strata, and of the kernels alone (:mod:`privaudit.remediation.perturbation`); and PRAM's largest shift of a
category's share (invariance in expectation). sdcMicro (R) is not installed here, so no comparison with
``topBotCoding``/``pram`` is printed; sdcMicro's ``pram`` loops over strata and categories in R and draws with
``sample``, which these figures do not measure.

Run from the repository root:  python benchmarks/bench_perturbation.py [N]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit.pipeline.audit import run_audit  # noqa: E402
from privaudit.remediation.methods import pram, top_bottom_coding  # noqa: E402
from privaudit.remediation.perturbation import pram_codes, top_bottom_code  # noqa: E402

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


def main(n: int) -> None:
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
    print("sdcMicro: not available here (no R); no comparison run")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
