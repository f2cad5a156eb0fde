"""Benchmark of the risk models of issue #13 on the benchmark shape (``bench_audit.synthetic``: age, sex,
race, marital, education, zip3 as quasi-identifiers; occupation and income sensitive).

    python benchmarks/bench_risk_models.py [--rows 10000000]

Loads the table once and builds the shared class summary once (timed), then times each check alone on that
summary, in one process, side by side: k-anonymity (the reference), k^2-anonymity, an attacker scenario of
three quasi-identifiers, the three attacker models, k-map (estimated population), risk drivers, uniqueness
with the exact individual risk, household risk (households of 1-4 records) and the log-linear model risk.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_audit import synthetic  # noqa: E402

CHECKS = [
    ("k_anonymity (reference)", {"assessor": "k_anonymity", "k": 5}),
    ("k^2-anonymity", {"assessor": "k_anonymity", "k": 5, "m": 2}),
    ("scenario: age, sex, zip3", {"assessor": "k_anonymity", "k": 5, "quasi_identifiers": ["age", "sex", "zip3"]}),
    ("reidentification_risk", {"assessor": "reidentification_risk", "max_risk": 1}),
    ("k_map (estimate)", {"assessor": "k_map", "k": 10, "sampling_fraction": 0.1}),
    ("risk_drivers", {"assessor": "risk_drivers"}),
    ("uniqueness, exact risk, households", {"assessor": "uniqueness", "max_share": 1, "individual_risk": "exact"}),
    ("model_risk (default)", {"assessor": "model_risk", "max_risk": 1}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    args = parser.parse_args()

    from privaudit.core.context import AuditContext
    from privaudit.core.policy import policy_from_dict
    from privaudit.pipeline.audit import run_check
    from privaudit.pipeline.plugins import get_registry

    frame = synthetic(args.rows)
    rng = np.random.default_rng(11)
    frame["hh"] = np.repeat(np.arange(args.rows), rng.integers(1, 5, args.rows))[: args.rows]
    frame["w"] = rng.uniform(50, 150, args.rows)
    columns = {c: {"role": "quasi_identifier"} for c in ("age", "sex", "race", "marital", "education", "zip3")}
    columns["age"]["type"] = "numeric"
    columns |= {
        "occupation": {"role": "sensitive"},
        "income": {"role": "sensitive", "type": "numeric"},
        "hh": {"role": "household_id"},
        "w": {"role": "weight", "type": "numeric"},
    }
    registry = get_registry()
    policy = policy_from_dict(
        {"columns": columns, "checks": [dict(c, id=f"c{i}") for i, (_, c) in enumerate(CHECKS)]}, registry
    )
    from privaudit.io.data import load_input

    t = time.perf_counter()
    table = load_input(frame, policy)
    ctx = AuditContext(policy, table.frame)
    summary = ctx.summary
    print(f"{args.rows:,} rows, {summary.n_classes:,} classes; load + summary {time.perf_counter() - t:.1f} s")
    for (label, _), check in zip(CHECKS, policy.checks, strict=False):
        t = time.perf_counter()
        result = run_check(ctx, check)
        print(f"  {label:40s} {time.perf_counter() - t:7.2f} s  {result.status:5s} value {result.value}")


if __name__ == "__main__":
    main()
