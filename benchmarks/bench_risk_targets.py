"""ARX 3.9's optimum under its population-uniqueness models, checked against privaudit's generalization.

The configurations too slow for the unit tests (tests/test_risk_targets.py has the others): ARX's adult extract,
quasi-identifiers sex, age, race, marital-status, education, native-country, workclass with ARX's hierarchies,
the Loss metric, 4 % suppression, ``PopulationUniqueness(0.01, MODEL, N = 300,000)``. ARX's figures are from a
run of ARX 3.9 built from source (benchmarks/arx/RunArxRisk.java, 2026-11-26):

    java RunArxRisk . adult.csv population-DANKAR 0.01 0.04 300000 -> levels=[0,3,0,0,1,0,0] suppressed=687 loss=0.07647316317142856
    java RunArxRisk . adult.csv population-ZAYATZ 0.01 0.04 300000 -> levels=[0,2,0,0,1,0,0] suppressed=966 loss=0.07139848854285714
    java RunArxRisk . adult.csv population-SNB 0.01 0.04 300000    -> levels=[0,3,0,0,1,1,0] suppressed=919 loss=0.12137288605714286

privaudit gave the same three optima (levels, suppressed records, loss to 1e-9) in 65 s, 33 s and 19 s under a
load average of about 8 (each lattice node's suppression is a binary search, each step a population-model fit).

    python benchmarks/bench_risk_targets.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
ARX = {
    "dankar": ([0, 3, 0, 0, 1, 0, 0], 687, 0.07647316317142856),
    "zayatz": ([0, 2, 0, 0, 1, 0, 0], 966, 0.07139848854285714),
    "snb": ([0, 3, 0, 0, 1, 1, 0], 919, 0.12137288605714286),
}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{'model':8} {'same optimum':12} {'seconds':>8}")
        for model, (levels, suppressed, loss) in ARX.items():
            lines = ["version: 1", "name: adult", 'data: {delimiter: ";", missing: ["?"]}', "columns:"]
            for q in QIS:
                (folder / f"{q}.csv").write_bytes((ROOT / "policies/hierarchies/adult" / f"{q}.csv").read_bytes())
                lines.append(f"  {q}: {{role: quasi_identifier, type: nominal, hierarchy: {q}.csv}}")
            lines += [
                "  occupation: {role: other}",
                "  salary-class: {role: other}",
                "checks:",
                f"  - {{id: pu, assessor: uniqueness, population_model: {model}, max_share: 0.01, "
                "population_size: 300000, snb: arx}",
            ]
            (folder / "p.yaml").write_text("\n".join(lines) + "\n")
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "privaudit",
                    "remediate",
                    str(ROOT / "examples/adult/adult.csv"),
                    "--policy",
                    str(folder / "p.yaml"),
                    "--method",
                    "generalize",
                    "--option",
                    "metric=Loss",
                    "--option",
                    "max_suppression=0.04",
                    "--out",
                    str(folder / "o.csv"),
                    "--json",
                    str(folder / "o.json"),
                    "--quiet",
                ],
                check=True,
            )
            seconds = time.perf_counter() - start
            rem = json.loads((folder / "o.json").read_text())["remediation"]
            same = (
                [rem["changes"]["levels"][q] for q in QIS] == levels
                and rem["loss"]["records_suppressed"] == suppressed
                and abs(rem["loss"]["alteration"] / 100 - loss) <= 1e-8 * loss
            )
            print(f"{model:8} {str(same):12} {seconds:>8.1f}")


if __name__ == "__main__":
    main()
