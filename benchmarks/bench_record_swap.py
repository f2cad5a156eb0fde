"""record_swap beside sdcMicro's recordSwap, on sdcMicro's own synthetic census (``createDat``).

Two parts, both on tables that sdcMicro's ``createDat(N)`` makes after ``set.seed(2021)`` (written to CSV by
benchmarks/sdcmicro/record_swap.R, which this script runs with ``R_LIBS=/work/Rlib Rscript``; sdcMicro 5.8.1,
sdcTools/sdcMicro commit cf32510):

* **figures** (``createDat(10000)``, seeds 1..S): for each scenario of the R script (hierarchy, similarity
  profile, k_anonymity, risk variables, swap rate), the mean number of households swapped, of households
  without a donor, whether every household count per area (every level) and per area and first similarity
  profile is kept, and the households that must be swapped per level, sdcMicro's beside privaudit's;
* **time** (``createDat(285000)``, about 10^6 records): the seconds of one ``recordSwap`` call (hierarchy
  nuts1 > nuts2 > nuts3 > lau2, similar hsize, k_anonymity 3, risk variables ageGroup and national) and of
  privaudit's ``REMEDIATOR.run`` on the same table (the audit that builds its context is not timed), and
  their ratio.

Run from the repository root:  python benchmarks/bench_record_swap.py [figures|time|both] [N_TIME] [SEEDS]

Measured here (2 shared cores, load about 11): figures, 5 seeds, mean households swapped sdcMicro / privaudit:
k1_nuts3 500 / 500, k1_rate25 2500 / 2500, k3_nuts3 3327.2 / 3345.6, k2_nuts2 500 / 500, k3_lau2 9766.8 / 9758.0,
k0_profiles 500 / 500; households at risk per level identical in every scenario; no donor missing; every area's
household count, and per area and first profile, kept by both. Time on 996,572 records (285,000 households):
sdcMicro 177.95 s, privaudit 15.48 s, ratio 11.5 (privaudit alone, less loaded: 4.8-5.9 s; sdcMicro alone 138.7 s).
"""

from __future__ import annotations

import os
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
from privaudit.remediation.methods import record_swap  # noqa: E402

R_SCRIPT = ROOT / "benchmarks" / "sdcmicro" / "record_swap.R"
R_LIBS = os.environ.get("R_LIBS", "/work/Rlib")

POLICY = """version: 1
name: census
columns:
  nuts1: {role: other, reason: geography}
  nuts2: {role: other, reason: geography}
  nuts3: {role: other, reason: geography}
  lau2: {role: other, reason: geography}
  hid: {role: household_id}
  hsize: {role: other, reason: household size}
  ageGroup: {role: quasi_identifier}
  gender: {role: other, reason: not counted}
  national: {role: quasi_identifier}
  htype: {role: other, reason: household type}
  hincome: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 1}
"""

N3 = ["nuts1", "nuts2", "nuts3"]
SCENARIOS = {  # as benchmarks/sdcmicro/record_swap.R's list
    "k1_nuts3": dict(hierarchy=N3, similar=["hsize"], k_anonymity=1, risk_variables=["ageGroup", "national"]),
    "k1_rate25": dict(
        hierarchy=N3, similar=["hsize"], k_anonymity=1, risk_variables=["ageGroup", "national"], swaprate=0.25
    ),
    "k3_nuts3": dict(hierarchy=N3, similar=["hsize"], k_anonymity=3, risk_variables=["ageGroup", "national"]),
    "k2_nuts2": dict(
        hierarchy=N3[:2], similar=["hsize"], k_anonymity=2, risk_variables=["ageGroup", "national", "hsize"]
    ),
    "k3_lau2": dict(hierarchy=[*N3, "lau2"], similar=["hsize"], k_anonymity=3, risk_variables=["ageGroup", "national"]),
    "k0_profiles": dict(
        hierarchy=N3[:2],
        similar=[["hsize"], ["hsize", "htype"]],
        k_anonymity=0,
        risk_variables=["ageGroup", "national"],
    ),
}


def r_available() -> bool:
    return shutil.which("Rscript") is not None and (Path(R_LIBS) / "sdcMicro" / "DESCRIPTION").exists()


def run_r(mode: str, n: int, out: Path, seeds: int) -> str:
    env = {**os.environ, "R_LIBS": R_LIBS}
    done = subprocess.run(
        ["Rscript", str(R_SCRIPT), mode, str(n), str(out), str(seeds)], env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"Rscript failed: {done.stderr.strip()}")
    return done.stdout


def context(data: Path):
    with tempfile.TemporaryDirectory() as folder:
        policy = Path(folder) / "policy.yaml"
        policy.write_text(POLICY)
        return run_audit(str(data), str(policy)).context


def kept(before: pd.DataFrame, after: pd.DataFrame, columns: list[str]) -> bool:
    a = before.drop_duplicates("hid").value_counts(columns).sort_index()
    b = after.drop_duplicates("hid").value_counts(columns).sort_index()
    return a.equals(b)


def ours(ctx, options: dict, seed: int) -> tuple[int, int, bool, bool, str]:
    parsed = record_swap.REMEDIATOR.options.model_validate({**options, "seed": seed})
    result = record_swap.REMEDIATOR.run(ctx, parsed)
    hierarchy = options["hierarchy"]
    first = options["similar"][0] if isinstance(options["similar"][0], list) else options["similar"]
    before, after = ctx.table.astype(object), result.table.astype(object)
    geo = all(kept(before, after, hierarchy[: h + 1]) for h in range(len(hierarchy)))
    profile = kept(before, after, hierarchy + list(first))
    c = result.changes
    levels = [*c["households_at_risk"].values(), c["households"] - sum(c["households_at_risk"].values())]
    return c["households_swapped"], c["households_without_donor"], geo, profile, "/".join(map(str, levels))


def figures(seeds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "dat.csv"
        lines = run_r("figures", 10_000, data, seeds).splitlines()
        ctx = context(data)
    theirs: dict[str, list[list[str]]] = {}
    for line in lines:
        name, *rest = line.split()
        theirs.setdefault(name, []).append(rest)
    print(f"createDat(10000) after set.seed(2021); mean over seeds 1..{seeds}")
    print(
        f"{'scenario':<12} {'':9} {'swapped':>9} {'no donor':>9} {'geo kept':>9} {'prof kept':>9}  must swap per level"
    )
    for name, options in SCENARIOS.items():
        rows = theirs[name]
        mine = [ours(ctx, options, seed) for seed in range(1, seeds + 1)]
        r_swapped = np.mean([int(r[2]) for r in rows])
        r_failed = np.mean([int(r[3]) for r in rows])
        r_geo, r_prof = all(r[4] == "TRUE" for r in rows), all(r[5] == "TRUE" for r in rows)
        r_levels = "/".join(rows[0][6:]) if len(rows[0]) > 6 else ""
        print(f"{name:<12} {'sdcMicro':9} {r_swapped:9.1f} {r_failed:9.1f} {r_geo!s:>9} {r_prof!s:>9}  {r_levels}")
        print(
            f"{'':<12} {'privaudit':9} {np.mean([m[0] for m in mine]):9.1f} {np.mean([m[1] for m in mine]):9.1f} "
            f"{all(m[2] for m in mine)!s:>9} {all(m[3] for m in mine)!s:>9}  {mine[0][4]}"
        )


def timing(n: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "dat.csv"
        out = run_r("time", n, data, 1).split()
        r_seconds, records, hids = float(out[1]), int(out[2]), int(out[3])
        ctx = context(data)
    options = record_swap.REMEDIATOR.options.model_validate({**SCENARIOS["k3_lau2"], "seed": 1})
    start = time.perf_counter()
    result = record_swap.REMEDIATOR.run(ctx, options)
    seconds = time.perf_counter() - start
    print(f"createDat({n}): {records:,} records, {hids:,} households; k3_lau2 (4 levels, k 3, swaprate 0.05)")
    print(f"sdcMicro recordSwap   {r_seconds:8.2f} s")
    print(f"privaudit record_swap {seconds:8.2f} s  ({result.changes['households_swapped']:,} households swapped)")
    print(f"ratio sdcMicro / privaudit: {r_seconds / seconds:.2f}")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "both"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 285_000
    seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    if not r_available():
        raise SystemExit(f"sdcMicro is not installed under {R_LIBS} (or Rscript is missing): nothing to compare")
    if mode in ("figures", "both"):
        figures(seeds)
    if mode in ("time", "both"):
        timing(n)


if __name__ == "__main__":
    main()
