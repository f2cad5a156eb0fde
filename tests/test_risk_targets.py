"""Risk-based targets of generalization (ARX 3.9's AverageReidentificationRisk and SampleUniqueness, with
their suppression by ``RiskBasedCriterion.enforce``).

Golden values: a run of ARX 3.9 built from source (github:arx-deidentifier/arx, as
benchmarks/bench_generalization_arx.py says) driven by benchmarks/arx/RunArxRisk.java on ARX's adult extract
(examples/adult/adult.csv, byte-identical to ARX's data/adult.csv) with ARX's hierarchies
(policies/hierarchies/adult), quasi-identifiers sex, age, race, marital-status, education, native-country,
workclass, the Loss metric (arithmetic mean) -- run on 2026-11-26:

    java RunArxRisk . adult.csv average 0.05 0.04            -> levels=[0,3,0,0,2,0,0] suppressed=870 loss=0.1065643791
    java RunArxRisk . adult.csv average 0.1 0                -> levels=[0,3,0,0,1,0,0] suppressed=0 loss=0.0545375607
    java RunArxRisk . adult.csv uniqueness 0.01 0.04         -> levels=[0,3,0,0,2,0,0] suppressed=1013 loss=0.1109045402
    java RunArxRisk . adult.csv uniqueness 0.005 0           -> levels=[0,4,0,0,2,1,1] suppressed=0 loss=0.2750423394
    java RunArxRisk . adult.csv average3 0.05 0.04 0.2 0.1   -> levels=[0,3,0,0,2,0,0] suppressed=870 loss=0.1065643791
    java RunArxRisk . adult.csv population-PITMAN 0.005 0 100000 -> levels=[0,3,0,1,1,1,1] suppressed=0
                                                                   loss=0.19620678154285714

ARX's own TestAnonymizationRiskBased uses 9 QIs and metrics privaudit does not offer (precomputed entropy, loss
with a generalization/suppression factor of 0.1); its figures could not be reproduced with the same metric.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_generalization import AGE, SEX, ZIP, categorical, make_policy

from privaudit.core.context import AuditContext
from privaudit.remediation.generalization import CostModel, GeneralizationProblem, LatticeSearch
from privaudit.remediation.generalization.risk_targets import RiskTarget, enforce
from privaudit.risk.sample_criteria import average, share_below, size_threshold

ROOT = Path(__file__).resolve().parents[1]
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]


def AVG(bound):
    return {"id": "avg", "assessor": "reidentification_risk", "measure": "average", "max_risk": bound}


def UNIQUE(share):
    return {"id": "su", "assessor": "uniqueness", "max_share": share}


def POPULATION(model, share, size):
    return {
        "id": "pu",
        "assessor": "uniqueness",
        "population_model": model,
        "max_share": share,
        "population_size": size,
        "snb": "arx",
    }


#: (checks, suppression limit) -> ARX 3.9's optimum: levels (QIS order), suppressed records, loss
ARX_RUNS = [
    ([AVG(0.05)], 0.04, [0, 3, 0, 0, 2, 0, 0], 870, 0.1065643791),
    ([AVG(0.1)], 0.0, [0, 3, 0, 0, 1, 0, 0], 0, 0.05453756065714286),
    ([UNIQUE(0.01)], 0.04, [0, 3, 0, 0, 2, 0, 0], 1013, 0.11090454018571427),
    ([UNIQUE(0.005)], 0.0, [0, 4, 0, 0, 2, 1, 1], 0, 0.27504233938571426),
    # ARX's AverageReidentificationRisk(0.05, 0.2, 0.1): average, and records in classes of fewer than 5 at most 10 %
    (
        [
            AVG(0.05),
            {
                "id": "rar",
                "assessor": "reidentification_risk",
                "measure": "records_at_risk",
                "max_risk": 0.1,
                "risk_threshold": 0.2,
            },
        ],
        0.04,
        [0, 3, 0, 0, 2, 0, 0],
        870,
        0.1065643791,
    ),
    # ARX's PopulationUniqueness(0.005, PITMAN, N = 100,000) (Dankar, Zayatz and SNB: benchmarks/bench_risk_targets.py)
    ([POPULATION("pitman", 0.005, 100_000)], 0.0, [0, 3, 0, 1, 1, 1, 1], 0, 0.19620678154285714),
]


def _policy(tmp_path, checks) -> Path:
    lines = ["version: 1", "name: adult risk", 'data: {delimiter: ";", missing: ["?"]}', "columns:"]
    for q in QIS:
        (tmp_path / f"{q}.csv").write_bytes((ROOT / "policies/hierarchies/adult" / f"{q}.csv").read_bytes())
        lines.append(f"  {q}: {{role: quasi_identifier, type: nominal, hierarchy: {q}.csv}}")
    why = "reason: not a quasi-identifier in ARX's configuration"
    lines += [f"  occupation: {{role: other, {why}}}", f"  salary-class: {{role: other, {why}}}", "checks:"]
    lines += [f"  - {json.dumps(c)}" for c in checks]
    return write_policy(tmp_path, "\n".join(lines) + "\n")


@pytest.mark.slow
@pytest.mark.parametrize("checks, supp, levels, suppressed, loss", ARX_RUNS)
def test_arx_optimum_for_risk_based_models(tmp_path, run_cli, checks, supp, levels, suppressed, loss):
    policy = _policy(tmp_path, checks)
    code, out, err = run_cli(
        "remediate",
        ROOT / "examples/adult/adult.csv",
        "--policy",
        policy,
        "--method",
        "generalize",
        "--option",
        "metric=Loss",
        "--option",
        f"max_suppression={supp}",
        "--out",
        tmp_path / "o.csv",
        "--json",
        tmp_path / "o.json",
    )
    assert code == 0, err
    rem = json.loads((tmp_path / "o.json").read_text())["remediation"]
    assert [rem["changes"]["levels"][q] for q in QIS] == levels
    assert rem["loss"]["records_suppressed"] == suppressed
    assert rem["loss"]["alteration"] == pytest.approx(100 * loss, rel=1e-8)  # ARX's Loss, as a percentage
    assert set(rem["changes"]["risk_targets"]) == {c["id"] for c in checks}
    assert not any("cannot steer" in n for n in rem["notes"])


def test_average_risk_as_arx():
    ok = average(0.25)
    assert ok(np.array([4, 4])) and not ok(np.array([4, 3])) and ok(np.array([], dtype=int))
    assert size_threshold(0.2) == 5 and size_threshold(0.3) == 4 and size_threshold(1.0) == 1


def test_enforce_suppresses_smallest_classes_first_within_the_budget():
    sizes = np.array([1, 1, 2, 6, 10])
    unique = RiskTarget("u", "SampleUniqueness(0)", share_below(2, 0.0))
    order = np.argsort(sizes, kind="stable")
    assert enforce(sizes, order, [unique], budget=2) == (True, 2)
    assert enforce(sizes, order, [unique], budget=1)[0] is False
    avg = RiskTarget("a", "avg", average(1 / 5))  # classes / records <= 0.2
    ok, m = enforce(sizes, order, [avg], budget=10)
    assert ok and len(sizes[order[m:]]) / sizes[order[m:]].sum() <= 0.2
    assert not (len(sizes[order[m - 1 :]]) / sizes[order[m - 1 :]].sum() <= 0.2)  # the fewest classes


def test_policy_with_only_risk_checks_is_steered(tmp_path, run_cli):
    rng = np.random.default_rng(2)
    pd.DataFrame(
        {"age": rng.integers(18, 80, 300), "sex": rng.choice(["F", "M"], 300), "d": rng.choice(["a", "b", "c"], 300)}
    ).to_csv(tmp_path / "t.csv", index=False)
    policy = write_policy(
        tmp_path,
        "version: 1\nname: r\ncolumns:\n  age: {role: quasi_identifier, type: numeric}\n"
        "  sex: {role: quasi_identifier}\n  d: {role: sensitive}\nchecks:\n"
        "  - {id: avg, assessor: reidentification_risk, max_risk: 0.1}\n"
        "  - {id: su, assessor: uniqueness, max_share: 0.01}\n",
    )
    code, out, err = run_cli(
        "remediate",
        tmp_path / "t.csv",
        "--policy",
        policy,
        "--method",
        "generalize",
        "--out",
        tmp_path / "o.csv",
        "--json",
        tmp_path / "o.json",
    )
    assert code == 0, err
    report = json.loads((tmp_path / "o.json").read_text())
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["avg"]["value"] <= 0.1 and checks["su"]["value"] <= 0.01
    assert report["remediation"]["changes"]["levels"]["age"] > 0  # age coarsened on its built hierarchy
    # a population table is another table's classes: said, not steered
    (tmp_path / "pop.csv").write_text((tmp_path / "t.csv").read_text())
    policy = write_policy(
        tmp_path,
        "version: 1\nname: r\ncolumns:\n  age: {role: quasi_identifier, type: numeric}\n"
        "  sex: {role: quasi_identifier}\n  d: {role: sensitive}\nchecks:\n"
        "  - {id: j, assessor: reidentification_risk, model: journalist, population: pop.csv, "
        "max_risk: 0.1}\n",
        "p2.yaml",
    )
    code, out, err = run_cli(
        "remediate",
        tmp_path / "t.csv",
        "--policy",
        policy,
        "--method",
        "generalize",
        "--out",
        tmp_path / "o2.csv",
        "--json",
        tmp_path / "o2.json",
    )
    notes = json.loads((tmp_path / "o2.json").read_text())["remediation"]["notes"]
    assert any("cannot steer" in n and n.endswith(": j") for n in notes)


def test_k_map_with_an_estimated_population_is_steered(tmp_path, run_cli):
    rng = np.random.default_rng(5)
    pd.DataFrame(
        {"age": rng.integers(18, 80, 400), "sex": rng.choice(["F", "M"], 400), "d": rng.choice(["a", "b"], 400)}
    ).to_csv(tmp_path / "t.csv", index=False)
    policy = write_policy(
        tmp_path,
        "version: 1\nname: r\ncolumns:\n  age: {role: quasi_identifier, type: numeric}\n"
        "  sex: {role: quasi_identifier}\n  d: {role: sensitive}\nchecks:\n"
        "  - {id: km, assessor: k_map, k: 10, population_size: 4000}\n",
    )
    code, out, err = run_cli(
        "remediate",
        tmp_path / "t.csv",
        "--policy",
        policy,
        "--method",
        "generalize",
        "--out",
        tmp_path / "o.csv",
        "--json",
        tmp_path / "o.json",
    )
    assert code == 0, err
    report = json.loads((tmp_path / "o.json").read_text())
    km = next(c for c in report["checks"] if c["id"] == "km")
    assert km["status"] == "pass" and km["value"] >= km["details"]["derived_k"] > 1
    assert report["remediation"]["changes"]["risk_targets"]["km"].startswith("KMap(10, derived k' = ")


def test_population_model_needs_the_population_size(tmp_path, run_cli):
    policy = _policy(
        tmp_path, [{"id": "pu", "assessor": "uniqueness", "population_model": "dankar", "max_share": 0.01}]
    )
    code, out, err = run_cli(
        "remediate",
        ROOT / "examples/adult/adult.csv",
        "--policy",
        policy,
        "--method",
        "generalize",
        "--out",
        tmp_path / "o.csv",
    )
    assert code == 2 and "population_model 'dankar' needs the population's size" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "o.csv").exists()


@st.composite
def risk_cases(draw):
    n = draw(st.integers(2, 24))
    pick = lambda values: draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))  # noqa: E731
    frame = pd.DataFrame(
        {
            "zip": categorical(pick(["13053", "13068", "14850", "14853"])),
            "age": categorical(pick(["20", "30", "40", "50", "60"])),
            "sex": categorical(pick(["M", "F"])),
            "disease": categorical(pick(["flu", "hiv"])),
        }
    )
    checks = [
        draw(
            st.sampled_from(
                [
                    {"id": "avg", "assessor": "reidentification_risk", "max_risk": 0.3},
                    {"id": "hi", "assessor": "reidentification_risk", "measure": "highest", "max_risk": 0.5},
                    {"id": "rar", "assessor": "reidentification_risk", "measure": "records_at_risk", "max_risk": 0.25},
                    {"id": "su", "assessor": "uniqueness", "max_share": 0.1},
                ]
            )
        )
    ]
    if draw(st.booleans()):
        checks.append({"assessor": "k_anonymity", "k": 2})
    columns = {
        "zip": {"role": "quasi_identifier", "hierarchy": ZIP},
        "age": {"role": "quasi_identifier", "hierarchy": AGE},
        "sex": {"role": "quasi_identifier", "hierarchy": SEX},
        "disease": {"role": "sensitive"},
    }
    return frame, make_policy(columns, checks)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=risk_cases(), suppression=st.sampled_from([0.0, 0.25]))
def test_risk_targets_lattice_is_optimal_by_brute_force(case, suppression):
    """The lattice search with risk targets (monotone tags, ARX's enforcement in the exact step) returns the
    cheapest node whose exact evaluation passes, as evaluating every node does."""
    frame, policy = case
    problem = GeneralizationProblem.from_context(AuditContext(policy, frame))
    costs = CostModel(problem.domains, "Loss")
    budget = int(np.floor(suppression * len(frame)))
    result = LatticeSearch(problem, costs, budget).search()
    brute = LatticeSearch(problem, costs, budget)
    passing = [
        brute.costs.table_cost(nodes) for levels in brute.lattice for ok, nodes, _ in [brute.exact(levels)] if ok
    ]
    if not passing:
        assert not result.satisfied
    else:
        assert result.satisfied and result.cost == pytest.approx(min(passing))
