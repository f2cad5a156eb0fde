"""Start-up cost of the command line: CPU seconds of ``privaudit policy check POLICY`` and ``privaudit --help``
beside a bare interpreter and beside importing the table machinery alone, in one run.

    python benchmarks/bench_startup.py [--repeat 7] [--policy tests/data/golden/class_checks.yaml]

Each command runs ``--repeat`` times in a fresh interpreter; its CPU time (user + system) is read from
``resource.getrusage(RUSAGE_CHILDREN)`` before and after it (POSIX ``getrusage``: the children's times are
added when they are waited for), so time spent waiting on this shared machine's other jobs is not counted.
Printed per command: the median and the minimum CPU seconds, the median wall seconds, and which of numpy,
pandas, pyarrow, scipy the command imported (``-X importtime``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "pandas", "pyarrow", "scipy")


def _commands(policy: Path) -> list[tuple[str, list[str]]]:
    py = sys.executable
    return [
        ("python -c pass", [py, "-c", "pass"]),
        ("import pandas, pyarrow, pydantic", [py, "-c", "import pandas, pyarrow, pydantic"]),
        ("privaudit --help", [py, "-m", "privaudit", "--help"]),
        ("privaudit policy check", [py, "-m", "privaudit", "policy", "check", str(policy)]),
    ]


def _cpu_and_wall(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def _heavy_imported(argv: list[str], env: dict[str, str]) -> str:
    done = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], env=env, cwd=ROOT, capture_output=True, text=True)
    names = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return ", ".join(h for h in HEAVY if h in names) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--policy", type=Path, default=ROOT / "tests" / "data" / "golden" / "class_checks.yaml")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    print(f"{'command':<36}{'cpu median':>11}{'cpu min':>9}{'wall median':>13}  heavy imported")
    for label, argv in _commands(args.policy):
        runs = [_cpu_and_wall(argv, env) for _ in range(args.repeat)]
        cpu = [c for c, _ in runs]
        wall = statistics.median(w for _, w in runs)
        heavy = _heavy_imported(argv, env)
        print(f"{label:<36}{statistics.median(cpu):>10.3f}s{min(cpu):>8.3f}s{wall:>12.3f}s  {heavy}")


if __name__ == "__main__":
    main()
