"""Benchmark: local suppression (``remediate --method local_suppression``) against sdcMicro's localSuppression.

Tables: adult x10 mixed (recipe in ../shared/peers/README.md; built by ``bench_generalization_arx.make_x10``)
and evenly spaced subsets of it (every (301,620 / n)-th row), quasi-identifiers sex, age, race,
marital-status, education, native-country, workclass, salary-class, k = 5, sdcMicro's default importance.
For each table: the cells each tool suppresses and their times, side by side in one run: privaudit's
algorithm alone (``suppress_for_k``, in process) and sdcMicro's ``localSuppression`` call (``system.time``
around it, ``benchmarks/sdcmicro/run_localsuppression.R``). sdcMicro runs only with ``--sdcmicro-lib`` (an
installed sdcMicro) and only on tables up to ``--sdcmicro-max-rows``: its search scans every remaining record
for each record below k (``cpp_calcSuppInds``), so its time grows with the square of the rows.

    python benchmarks/bench_local_suppression.py --data ../shared/datasets/adult \\
        [--sizes 1000 2000 4000 8000 301620] [--sdcmicro-lib DIR] [--sdcmicro-max-rows 8000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_generalization_arx import QIS, make_x10  # noqa: E402

from privaudit.core.summary import column_codes  # noqa: E402
from privaudit.remediation.local_suppression import default_importance, suppress_for_k  # noqa: E402


def run_privaudit(path: Path, k: int) -> tuple[int, list[int], float]:
    frame = pd.read_csv(path, sep=";", dtype=str, na_values=["?"], keep_default_na=False)
    codes = np.column_stack([np.asarray(column_codes(frame[c])[0], dtype=np.int32) for c in QIS])
    start = time.perf_counter()
    result = suppress_for_k(codes, k, default_importance(codes))
    seconds = time.perf_counter() - start
    assert result.ok
    per = result.suppressed.sum(axis=0).tolist()
    return int(sum(per)), per, seconds


def run_sdcmicro(path: Path, k: int, lib: str) -> tuple[int, list[int], float]:
    script = ROOT / "benchmarks" / "sdcmicro" / "run_localsuppression.R"
    out = subprocess.run(["Rscript", str(script), lib, str(path), str(k)], capture_output=True, text=True, check=True)
    words = out.stdout.split()
    per = [int(x) for x in words[words.index("per") + 1].split(",")]
    return int(words[words.index("cells") + 1]), per, float(words[words.index("seconds") + 1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "datasets" / "adult")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 301620])
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--sdcmicro-lib", default=None)
    parser.add_argument("--sdcmicro-max-rows", type=int, default=8000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / "adult10.csv"
        make_x10(args.data / "adult.csv", full)
        frame = pd.read_csv(full, sep=";", dtype=str, keep_default_na=False)
        print("rows  privaudit: cells  seconds | sdcMicro: cells  seconds | cells ratio  time ratio")
        for n in args.sizes:
            path = full if n >= len(frame) else Path(tmp) / f"adult10_{n}.csv"
            if path != full:
                frame.iloc[:: len(frame) // n].iloc[:n].to_csv(path, sep=";", index=False)
            cells, _, seconds = run_privaudit(path, args.k)
            line = f"{n:>7}  {cells:>8} {seconds:8.2f}"
            if args.sdcmicro_lib and n <= args.sdcmicro_max_rows:
                theirs, _, their_seconds = run_sdcmicro(path, args.k, args.sdcmicro_lib)
                line += f" | {theirs:>8} {their_seconds:8.2f} | {cells / theirs:.2f}  {seconds / their_seconds:.3f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
