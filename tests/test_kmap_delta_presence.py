"""k_map and delta_presence, as ARX 3.9's KMap and DPresence define them.

The derived thresholds of KMap's estimators are worked through ARX's loops by hand below
(src/main/org/deidentifier/arx/criteria/KMap.java: calculateKPoisson, calculateKZeroPoisson); δ-presence
follows Nergiz, Atzori & Clifton 2007, Definition 3."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scipy.stats import poisson

from privaudit.risk.kmap import derived_k
from privaudit.testing import assert_section_renders, run_cli


def test_poisson_derived_k_by_hand():
    # λ = 0.1 · 10 = 1; α = 0.05: cdf(0) .368, cdf(1) .736, cdf(2) .920, cdf(3) .981 >= .95 after counter 4 -> 5
    d = derived_k(10, 0.1, 0.05, "poisson", 1000)
    assert d.k == 5 and d.type1_error == pytest.approx(1 - poisson(1).cdf(3))
    # the loop stops at counter = k: certain, type-1 error 0, k' = min(k, k + 1) = k
    d = derived_k(3, 0.5, 0.001, "poisson", 1000)
    assert d.k == 3 and d.type1_error == 0.0


def test_zero_truncated_poisson_derived_k_by_hand():
    lam = 0.5  # 0.05 · 10
    v2 = 1 - poisson(lam).pmf(0)
    acc = [poisson(lam).pmf(c) / v2 for c in (1, 2, 3)]  # .771, .963, .9955 >= .99 -> counter 4
    d = derived_k(10, 0.05, 0.01, "zero_truncated_poisson", 1000)
    assert d.k == 4 and d.type1_error == pytest.approx(1 - sum(acc))


RELEASE = pd.DataFrame({"age": ["30", "30", "40", "50"], "zip": ["1", "1", "2", "3"]})
POPULATION = pd.concat(
    [
        RELEASE,
        pd.DataFrame({"age": ["30", "40", "40", "50", "50", "50", "60"], "zip": ["1", "2", "2", "3", "3", "3", "4"]}),
    ]
)
COLUMNS = {"age": {"role": "quasi_identifier"}, "zip": {"role": "quasi_identifier"}}


def _audit(tmp_path, checks):
    RELEASE.to_csv(tmp_path / "release.csv", index=False)
    POPULATION.to_csv(tmp_path / "population.csv", index=False)
    (tmp_path / "policy.yaml").write_text(json.dumps({"version": 1, "name": "p", "columns": COLUMNS, "checks": checks}))
    out = tmp_path / "r.json"
    result = run_cli(
        "audit",
        tmp_path / "release.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--json",
        out,
        "--html",
        tmp_path / "r.html",
        "--quiet",
    )
    report = json.loads(out.read_text()) if out.exists() else None
    return result, report


def test_k_map_against_a_population_table(tmp_path):
    # population classes of the release: (30,1) 3, (40,2) 3, (50,3) 4 -> min 3
    result, report = _audit(
        tmp_path,
        [
            {"id": "m3", "assessor": "k_map", "k": 3, "population": "population.csv"},
            {"id": "m4", "assessor": "k_map", "k": 4, "population": "population.csv"},
        ],
    )
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["m3"]["status"] == "pass" and checks["m3"]["value"] == 3
    assert checks["m4"]["status"] == "fail" and checks["m4"]["details"]["classes_failing"] == 2 and result.code == 1


def test_k_map_estimated(tmp_path):
    _, report = _audit(
        tmp_path, [{"id": "e", "assessor": "k_map", "k": 10, "sampling_fraction": 0.1, "significance": 0.05}]
    )
    check = next(c for c in report["checks"] if c["id"] == "e")
    assert check["details"]["derived_k"] == 4  # min(k, k' = 5, n = 4 records)
    assert check["value"] == 1 and check["status"] == "fail"


def test_delta_presence(tmp_path):
    # δ per population class: (30,1) 2/3, (40,2) 1/3, (50,3) 1/4, (60,4) 0/1
    result, report = _audit(
        tmp_path,
        [
            {"id": "d", "assessor": "delta_presence", "delta_max": 0.5, "population": "population.csv"},
            {"id": "ok", "assessor": "delta_presence", "delta_max": 0.7, "population": "population.csv"},
        ],
    )
    checks = {c["id"]: c for c in report["checks"]}
    d = checks["d"]
    assert d["value"] == pytest.approx(2 / 3) and d["details"]["delta_min_measured"] == 0
    assert d["details"]["classes_above"] == 1 and d["status"] == "fail"
    assert checks["ok"]["status"] == "pass"
    assert "δ of the population groups" in (tmp_path / "r.html").read_text()


def test_sections_render(tmp_path):
    import privaudit

    RELEASE.to_csv(tmp_path / "x.csv", index=False)
    POPULATION.to_csv(tmp_path / "population.csv", index=False)
    policy = {
        "columns": COLUMNS,
        "checks": [
            {"id": "m", "assessor": "k_map", "k": 3, "population": "population.csv"},
            {"id": "d", "assessor": "delta_presence", "delta_max": 1, "population": "population.csv"},
        ],
    }
    (tmp_path / "policy.yaml").write_text(json.dumps({"version": 1, "name": "p", **policy}))
    report = privaudit.audit(RELEASE, tmp_path / "policy.yaml")
    assert_section_renders(report.result, "m")
    assert_section_renders(report.result, "d")


@pytest.mark.parametrize(
    "check, expected",
    [
        ({"assessor": "k_map", "k": 3}, "give exactly one of population"),
        ({"assessor": "k_map", "k": 3, "population": "nope.csv"}, "nope.csv"),
        (
            {"assessor": "delta_presence", "delta_min": 0.6, "delta_max": 0.5, "population": "population.csv"},
            "delta_min is larger than delta_max",
        ),
    ],
)
def test_bad_input_is_one_line(tmp_path, check, expected):
    result, _ = _audit(tmp_path, [check])
    assert result.code == 2 and result.stderr.count("\n") == 1 and expected in result.stderr, result.stderr


def test_a_population_without_the_quasi_identifiers(tmp_path):
    result, report = _audit(tmp_path, [{"id": "m", "assessor": "k_map", "k": 2, "population": "population.csv"}])
    POPULATION[["age"]].to_csv(tmp_path / "population.csv", index=False)
    out = tmp_path / "r2.json"
    result = run_cli("audit", tmp_path / "release.csv", "--policy", tmp_path / "policy.yaml", "--json", out)
    assert result.code == 2 and result.stderr.count("\n") == 1 and "zip" in result.stderr and not out.exists()
