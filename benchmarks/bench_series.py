"""Benchmark of composition across releases (issue 30): three releases of 10^6 records each, linked by a
record id, audited with ``composition`` and ``m_invariance`` against the audit of one of them alone.

    python benchmarks/bench_series.py [--rows 1000000] [--repeat 3]

Each release is a different random sample of ``rows`` people from a population of 1.2 x ``rows``, with
age generalized differently (decades, 5-year bands, decades shifted by 5), sex, a zip3 of 300 values and
a disease of 12 values, written as Parquet. Side by side in one run (so the machine's load weighs on both
alike): (a) the audit of the newest release alone (k_anonymity, l_diversity), (b) the same audit with the
two others as ``previous`` and the two series checks added. Prints the median wall time of each over
``--repeat`` runs (every run's time too) and the ratio b / a; the issue's bound is 3. On a shared machine the
wall times swing with the other jobs' load (the longer run more so), so the CPU time of the process is printed
too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SINGLE = """version: 1
name: bench
columns:
  id: {role: record_id}
  age: {role: quasi_identifier}
  sex: {role: quasi_identifier}
  zip3: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 5}
  - {assessor: l_diversity, sensitive: disease, l: 2}
"""
SERIES = (
    SINGLE
    + """  - {assessor: composition, sensitive: disease}
  - {assessor: m_invariance, sensitive: disease, m: 2}
"""
)


def releases(folder: Path, rows: int, seed: int = 7) -> list[Path]:
    rng = np.random.default_rng(seed)
    population = int(rows * 1.2)
    age = rng.integers(18, 90, population)
    sex = rng.choice(np.array(["F", "M"]), population)
    zip3 = rng.integers(100, 400, population).astype(str)
    disease = rng.choice(np.array([f"d{i:02d}" for i in range(12)]), population)
    ids = np.char.add("p", np.arange(population).astype(str))
    bands = [lambda a: (a // 10) * 10, lambda a: (a // 5) * 5, lambda a: ((a + 5) // 10) * 10 - 5]
    paths = []
    for i, band in enumerate(bands):
        pick = np.sort(rng.choice(population, rows, replace=False))
        lo = band(age[pick])
        frame = pd.DataFrame(
            {
                "id": ids[pick],
                "age": np.char.add(np.char.add(lo.astype(str), "-"), (lo + (4 if i == 1 else 9)).astype(str)),
                "sex": sex[pick],
                "zip3": zip3[pick],
                "disease": disease[pick],
            }
        )
        path = folder / f"release{i}.parquet"
        frame.sample(frac=1.0, random_state=i).to_parquet(path, index=False)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from privaudit.pipeline.audit import run_audit

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = releases(folder, args.rows)
        (folder / "single.yaml").write_text(SINGLE)
        (folder / "series.yaml").write_text(SERIES)
        run_audit(paths[0], folder / "single.yaml")  # warm the imports
        single, series, single_cpu, series_cpu = [], [], [], []
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            run_audit(paths[0], folder / "single.yaml")
            single.append(time.perf_counter() - t)
            single_cpu.append(time.process_time() - c)
            t, c = time.perf_counter(), time.process_time()
            result = run_audit(paths[0], folder / "series.yaml", previous=paths[1:])
            series.append(time.perf_counter() - t)
            series_cpu.append(time.process_time() - c)
        comp = next(c for c in result.checks if c.assessor == "composition").details
        a, b = statistics.median(single), statistics.median(series)
        print(
            f"rows per release: {args.rows:,}; people linked in 2+ releases: {comp['people_linked']:,}; "
            f"below l={comp['l']:g}: {comp['people_below_l']:,} (disclosed {comp['people_disclosed']:,})"
        )
        print(f"(a) one release alone:            {a:7.2f} s  (runs: {', '.join(f'{x:.2f}' for x in single)})")
        print(f"(b) with two previous + 2 checks: {b:7.2f} s  (runs: {', '.join(f'{x:.2f}' for x in series)})")
        print(f"ratio b / a: {b / a:.2f} (bound: 3)")
        ca, cb = statistics.median(single_cpu), statistics.median(series_cpu)
        print(
            f"CPU seconds of this process (what a loaded machine does not inflate): (a) {ca:.2f}, (b) {cb:.2f}, "
            f"ratio {cb / ca:.2f}"
        )


if __name__ == "__main__":
    main()
