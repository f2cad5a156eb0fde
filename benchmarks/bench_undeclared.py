"""What the two always-run checks on undeclared columns (``refining_columns``, ``undeclared_key_variables``) add
to an audit's time, measured side by side in one run.

    python benchmarks/bench_undeclared.py [--rows 1000000] [--repeat 3]

The table (Parquet): six quasi-identifiers (age in five-year bands, sex, race, marital, education, zip3), a
sensitive occupation, and 20 undeclared columns: eight binary dummies, six coded domains (3 to 30 values),
three continuous measurements, ``agesq`` (the exact age squared: refines the banded age), a year of birth and
a region code. Each repeat runs the same audit (k-anonymity, distinct l-diversity, uniqueness) with the default
registry and with a registry without the two checks, alternately; the medians and their ratio are printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit.pipeline.audit import run_audit  # noqa: E402
from privaudit.pipeline.plugins import get_registry  # noqa: E402

NEW = ("refining_columns", "undeclared_key_variables")
POLICY = {
    "version": 1,
    "name": "benchmark undeclared",
    "columns": {
        "age": {"role": "quasi_identifier"},
        "sex": {"role": "quasi_identifier"},
        "race": {"role": "quasi_identifier"},
        "marital": {"role": "quasi_identifier"},
        "education": {"role": "quasi_identifier"},
        "zip3": {"role": "quasi_identifier"},
        "occupation": {"role": "sensitive"},
    },
    "checks": [
        {"assessor": "k_anonymity", "k": 5},
        {"assessor": "l_diversity", "sensitive": "occupation", "variant": "distinct", "l": 2},
        {"assessor": "uniqueness"},
    ],
}


def table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    band = age // 5 * 5
    labels = np.array([f"{b}-{b + 4}" for b in range(15, 95, 5)])
    frame = {
        "age": labels[(band - 15) // 5],
        "sex": rng.choice(["f", "m"], n),
        "race": rng.choice(["a", "b", "c", "d", "e"], n, p=[0.6, 0.2, 0.1, 0.06, 0.04]),
        "marital": rng.choice(["single", "married", "divorced", "widowed"], n),
        "education": rng.integers(0, 16, n).astype(str),
        "zip3": (np.minimum(rng.zipf(1.33, n), 999)).astype(str),
        "occupation": rng.choice([f"o{i}" for i in range(14)], n),
    }
    for i in range(8):
        frame[f"d{i}"] = rng.integers(0, 2, n)
    for i, values in enumerate((3, 5, 8, 12, 20, 30)):
        frame[f"c{i}"] = rng.integers(0, values, n)
    for i in range(3):
        frame[f"m{i}"] = rng.normal(100, 15, n)
    frame["agesq"] = age**2
    frame["yob"] = 2020 - age
    frame["regcode"] = rng.integers(0, 9, n)
    return pd.DataFrame(frame)


def timed(path: Path, registry, cpu: list[float], own: list[float] | None = None) -> float:
    """The audit's wall seconds; ``cpu`` gets its CPU seconds (every thread: steadier than wall time on a shared
    machine), ``own`` the two checks' own wall seconds (as the audit measured them)."""
    started, started_cpu = time.perf_counter(), time.process_time()
    result = run_audit(path, POLICY, registry=registry)
    cpu.append(time.process_time() - started_cpu)
    if own is not None:
        own.append(sum(c.seconds for c in result.checks if c.assessor in NEW))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    full = get_registry()
    without = dataclasses.replace(full, assessors={k: v for k, v in full.assessors.items() if k not in NEW})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "release.parquet"
        table(args.rows).to_parquet(path, index=False)
        result = run_audit(path, POLICY, registry=full)
        for check in result.checks:
            if check.assessor in NEW:
                print(f"{check.id}: {check.status}: {check.message[:160]}")
        times: dict[str, list[float]] = {"without": [], "with": []}
        own: list[float] = []
        cpu: dict[str, list[float]] = {"without": [], "with": []}
        for _ in range(args.repeat):
            times["without"].append(timed(path, without, cpu["without"]))
            times["with"].append(timed(path, full, cpu["with"], own))
    base, new = statistics.median(times["without"]), statistics.median(times["with"])
    print(f"rows {args.rows:,}, 20 undeclared columns, {args.repeat} runs each")
    print(f"audit without the two checks: {base:.2f} s (runs {', '.join(f'{t:.2f}' for t in times['without'])})")
    print(f"audit with them:              {new:.2f} s (runs {', '.join(f'{t:.2f}' for t in times['with'])})")
    print(f"wall ratio {new / base:.3f} (+{100 * (new / base - 1):.1f} %)")
    cpu_base, cpu_new = statistics.median(cpu["without"]), statistics.median(cpu["with"])
    print(f"CPU seconds {cpu_base:.2f} without, {cpu_new:.2f} with: ratio {cpu_new / cpu_base:.3f}")
    print(
        f"the two checks' own time (their threads, beside the other checks): median {statistics.median(own):.2f} s, "
        f"{100 * statistics.median(own) / base:.1f} % of the audit without them"
    )


if __name__ == "__main__":
    main()
