"""Benchmark of synthpop's disclosure measures (prints figures; not a test).

An original and a release of ``--rows`` records each (default 1,000,000; seeded): a numeric key (age, 90
values) and three categorical keys (2, 16 and 6 levels, SD2011's sex, region and placesize), a target of
three levels, as categorical columns (as privaudit reads nominal columns) and as plain text. Prints the wall
time of :func:`privaudit.risk.synthetic.synthpop_disclosure.disclosure` and its repU / DiSCO. The R figures
for SD2011 (5,000 records) come from tests/peers/synthpop_disclosure.R; on SD2011 synthpop's disclosure() takes 0.3 s
of CPU (1.5 s elapsed; its composite keys are pasted strings, its tables dense matrices), this function 0.04 s;
at 10^6 + 10^6 records it takes 1.7 s (categorical columns) to 3.7 s (text).

Run from the repository root:  python benchmarks/bench_synthpop_disclosure.py [--rows N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit.risk.synthetic.synthpop_disclosure import disclosure  # noqa: E402


def table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(0, 90, n).astype(float),
            "sex": rng.choice(["MALE", "FEMALE"], n),
            "region": rng.choice([f"r{i}" for i in range(16)], n),
            "placesize": rng.choice([f"p{i}" for i in range(6)], n),
            "target": rng.choice(["u", "v", "w"], n),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    rows = parser.parse_args().rows
    original, release = table(rows, 1), table(rows, 2)
    keys = ["age", "sex", "region", "placesize"]
    categorical = {c: "category" for c in ("sex", "region", "placesize", "target")}
    for label, o, r in (
        ("text columns", original, release),
        ("categorical columns", original.astype(categorical), release.astype(categorical)),
    ):
        start = time.perf_counter()
        got = disclosure(o, r, keys, "target", {"age"})
        print(
            f"{rows:,} + {rows:,} records, {label}: {time.perf_counter() - start:.2f} s "
            f"(repU {got.repU:.4%}, DiSCO {got.DiSCO:.4%}, UiO {got.UiO:.4%})"
        )


if __name__ == "__main__":
    main()
