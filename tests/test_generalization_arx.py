"""ARX-compatible optimal generalization: the metrics ``Loss`` (Iyengar) and ``Precision`` (Sweeney) under
ARX's names, and the lattice search picking ARX 3.9's optimum and writing ARX's table.

Setup as ../shared/peers/README.md: ARX's adult extract (examples/adult/adult.csv, byte-identical to ARX's
data/adult.csv at commit aacd487) and its hierarchies (policies/hierarchies/adult, byte-identical to ARX's
data/adult_hierarchy_*.csv); QIs sex, age, race, marital-status, education, native-country, workclass,
salary-class; occupation sensitive; k = 5, optionally distinct 2-diversity on occupation; 0 % and 5 %
suppression; arithmetic-mean aggregation.

Source of the expected figures: ARX 3.9 itself -- compiled from github:arx-deidentifier/arx at commit
aacd487 (javac over src/main with its lib/ant jars) and run on this machine with
``benchmarks/arx/RunArx.java`` (``Metric.createLossMetric(AggregateFunction.ARITHMETIC_MEAN)`` /
``createPrecisionMetric(AggregateFunction.ARITHMETIC_MEAN)``, ``KAnonymity(5)``, ``DistinctLDiversity
("occupation", 2)``, ``setSuppressionLimit``): the global optimum's transformation, ARX's reported score,
and a SHA-256 (first 16 hex digits) of ARX's written table, rows joined by newlines and cells by ``;``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from privaudit.testing import run_cli

ROOT = Path(__file__).resolve().parents[1]
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]

# (metric, suppression, l-diversity) -> (ARX's optimum levels in QIS order, ARX's score, hash of ARX's table)
ARX = {
    ("Loss", 0.0, False): ([0, 4, 1, 2, 3, 2, 0, 0], 0.625, "4ba90928d14715f1"),
    ("Loss", 0.0, True): ([0, 4, 1, 2, 3, 2, 0, 0], 0.625, "4ba90928d14715f1"),
    ("Loss", 0.05, False): ([0, 3, 0, 0, 2, 1, 1, 0], 0.1783389956, "3b460e2653fb9617"),
    ("Loss", 0.05, True): ([0, 3, 0, 0, 2, 1, 1, 0], 0.1783389956, "3b460e2653fb9617"),
    ("Precision", 0.0, False): ([0, 4, 1, 2, 3, 2, 0, 0], 0.625, "4ba90928d14715f1"),
    ("Precision", 0.0, True): ([0, 4, 1, 2, 3, 2, 0, 0], 0.625, "4ba90928d14715f1"),
    ("Precision", 0.05, False): ([0, 4, 0, 0, 2, 1, 0, 0], 0.29964994584797644, "1d60f1d1157fd818"),
    ("Precision", 0.05, True): ([0, 4, 0, 0, 2, 1, 0, 0], 0.29994004597396284, "31c86f7003866eb4"),
}


def _table_hash(path: Path) -> str:
    frame = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)
    return hashlib.sha256("\n".join(";".join(r) for r in frame.itertuples(index=False)).encode()).hexdigest()[:16]


@pytest.fixture(scope="module")
def adult(tmp_path_factory):
    folder = tmp_path_factory.mktemp("arx")
    (folder / "adult.csv").write_bytes((ROOT / "examples" / "adult" / "adult.csv").read_bytes())
    for q in QIS + ["occupation"]:
        (folder / f"{q}.csv").write_bytes((ROOT / "policies" / "hierarchies" / "adult" / f"{q}.csv").read_bytes())
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("metric, suppression, ldiv", list(ARX))
def test_lattice_picks_arx_optimum_and_writes_arx_table(adult, metric, suppression, ldiv):
    levels, score, digest = ARX[(metric, suppression, ldiv)]
    checks = [{"assessor": "k_anonymity", "k": 5}]
    if ldiv:
        checks.append({"assessor": "l_diversity", "sensitive": "occupation", "variant": "distinct", "l": 2})
    columns = {q: {"role": "quasi_identifier", "type": "nominal", "hierarchy": f"{q}.csv"} for q in QIS}
    columns["occupation"] = {"role": "sensitive", "type": "nominal"}
    policy = {
        "version": 1,
        "name": "adult as ARX",
        "data": {"delimiter": ";", "missing": ["?"]},
        "columns": columns,
        "checks": checks,
    }
    path = adult / f"policy-{metric}-{suppression}-{ldiv}.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False))
    out, report = adult / f"out-{metric}-{suppression}-{ldiv}.csv", adult / "report.json"
    result = run_cli(
        "remediate",
        adult / "adult.csv",
        "--policy",
        path,
        "--method",
        "generalize",
        "--option",
        f"metric={metric}",
        "--option",
        f"max_suppression={suppression}",
        "--out",
        out,
        "--json",
        report,
        "--quiet",
    )
    assert result.code == 0, result.stderr
    remediation = json.loads(report.read_text())["remediation"]
    assert [remediation["changes"]["levels"][q] for q in QIS] == levels
    # Definition 7's alteration under Loss / Precision is 100 x ARX's score (arithmetic mean over QIs)
    assert remediation["loss"]["metric"] == metric
    assert remediation["loss"]["alteration"] == pytest.approx(100 * score, rel=1e-9)
    assert _table_hash(out) == digest
