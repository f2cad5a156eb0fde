"""noise and rank_swap through the command line and the library: a written table audits again under its own
policy with the verdict of remediate's re-audit (the input as its original: sdcMicro's dRisk of a perturbed
sdcMicroObj against its origData), a numeric quasi-identifier with a hierarchy keeps to its leaves, the weight
gets µ-ARGUS's noise, the parameters are written beside the table, bad options are one line and exit 2, and
both methods are candidates of ``remediate --explore`` where a check measures the risk of perturbed values."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy

import privaudit

POLICY = """version: 1
name: survey
columns:
  age: {role: quasi_identifier, type: numeric}
  income: {role: sensitive, type: numeric}
  sex: {role: quasi_identifier}
  weight: {role: weight, type: numeric}
checks:
  - {assessor: k_anonymity, k: 1}
  - {assessor: interval_disclosure, max_rate: 0.3}
"""


@pytest.fixture
def survey(tmp_path):
    """1,500 records: age 18-89, a log-normal income, sex, a sampling weight of one decimal."""
    rng = np.random.default_rng(11)
    n = 1500
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "income": rng.lognormal(10, 0.8, n).round(),
            "sex": rng.choice(["F", "M"], n),
            "weight": rng.uniform(20, 400, n).round(1),
        }
    )
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    return path


def _verdicts(report: dict) -> dict:
    return {c["id"]: (c["status"], c["value"]) for c in report["checks"]}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "options", "side"),
    [("noise", [], ".noise.csv"), ("rank_swap", ["--option", "P=60", "--option", "seed=2"], ".rank_swap.csv")],
)
def test_written_table_audits_again_with_the_same_verdict(tmp_path, survey, run_cli, method, options, side):
    policy = write_policy(tmp_path, POLICY)
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    code, _, err = run_cli(
        "remediate", survey, "--policy", policy, "--method", method, *options, "--out", out, "--json", report
    )
    assert code == 0, err
    reaudit = json.loads(report.read_text())
    code, _, err = run_cli("audit", out, "--policy", policy, "--original", survey, "--json", tmp_path / "a.json")
    assert code == 0, err
    assert _verdicts(json.loads((tmp_path / "a.json").read_text())) == _verdicts(reaudit)
    before, after = pd.read_csv(survey), pd.read_csv(out)
    assert (before["sex"] == after["sex"]).all() and (before["weight"] == after["weight"]).all()
    assert (before["age"] != after["age"]).mean() > 0.5
    figures = pd.read_csv(tmp_path / f"out{side}")
    assert list(figures["column"]) == ["age", "income"]
    if method == "rank_swap":  # the values between the two grouped ends are the original ones, permuted
        age = figures.set_index("column").loc["age"]
        assert age["P"] == 60 and age["max_rank_distance"] < 0.6 * (
            1500 - age["records_top_coded"] - age["records_bottom_coded"]
        )
        top, bottom = int(age["records_top_coded"]), int(age["records_bottom_coded"])
        released = after["age"].to_numpy(dtype=float)
        rest = np.sort(released[~np.isclose(released, age["top_mean"]) & ~np.isclose(released, age["bottom_mean"])])
        assert (rest == np.sort(before["age"].to_numpy(dtype=float))[bottom : 1500 - top]).all()


@pytest.mark.slow
def test_hierarchy_column_keeps_to_its_leaves_and_weight_gets_noise(tmp_path, survey, run_cli):
    """Noise on a numeric quasi-identifier with a hierarchy: each noised age is moved to the nearest leaf (0-99),
    so the output audits again under the policy whose hierarchy lists the ages; the weight gets µ-ARGUS's noise of
    at most 10 % and keeps its one decimal."""
    (tmp_path / "age.csv").write_text("".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(100)))
    policy = write_policy(
        tmp_path, POLICY.replace("type: numeric}\n  income", "type: numeric, hierarchy: age.csv}\n  income")
    )
    out = tmp_path / "out.csv"
    code, _, err = run_cli(
        "remediate", survey, "--policy", policy, "--method", "noise", "--option", "variables=[age]",
        "--option", "weight_noise=10", "--option", "seed=5", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    before, after = pd.read_csv(survey), pd.read_csv(out)
    assert after["age"].between(0, 99).all() and (after["age"] % 1 == 0).all()
    assert (before["income"] == after["income"]).all()
    ratio = after["weight"] / before["weight"]
    assert ratio.between(0.9 - 1e-3, 1.1).all() and (ratio != 1).mean() > 0.5
    assert ((after["weight"] * 10).round(6) % 1 == 0).all()  # the weight's own decimal
    assert run_cli("audit", out, "--policy", policy, "--original", survey)[0] == 0


@pytest.mark.parametrize(
    ("method", "option", "message"),
    [
        ("noise", "noise=-1", "noise: Input should be greater than or equal to 0"),
        ("noise", "delta=0", "delta: Input should be greater than 0"),
        ("noise", "variables=[sex]", "variables: 'sex' is not a numeric quasi-identifier or sensitive column"),
        ("noise", "weight_noise=101", "weight_noise: Input should be less than or equal to 100"),
        ("noise", "method=ROMM", "method: Input should be 'additive', 'correlated', 'correlated2' or 'restr'"),
        ("rank_swap", "P=0", "P: Input should be greater than 0"),
        ("rank_swap", "P=150", "P: Input should be less than or equal to 100"),
        ("rank_swap", "R0=1.5", "R0: Input should be less than or equal to 1"),
        ("rank_swap", "variables=[weight]", "variables: 'weight' is not a numeric quasi-identifier or sensitive"),
        ("rank_swap", "TopPercent=60", "TopPercent, BottomPercent: together they must stay below 100"),
    ],
)
def test_bad_options_one_line_exit_2(tmp_path, survey, run_cli, method, option, message):
    policy = write_policy(tmp_path, POLICY)
    extra = ["--option", "BottomPercent=40"] if option.startswith("TopPercent") else []
    code, _, err = run_cli(
        "remediate", survey, "--policy", policy, "--method", method, "--option", option, *extra,
        "--out", tmp_path / "o.csv",
    )  # fmt: skip
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o.csv").exists()


def test_two_rank_ranges_refused(tmp_path, survey, run_cli):
    policy = write_policy(tmp_path, POLICY)
    code, _, err = run_cli(
        "remediate",
        survey,
        "--policy",
        policy,
        "--method",
        "rank_swap",
        "--option",
        "P=10",
        "--option",
        "R0=0.9",
        "--out",
        tmp_path / "o.csv",
    )
    assert code == 2 and "P, R0, K0: give only one of them" in err and len(err.strip().splitlines()) == 1


def test_weight_noise_without_a_weight_column(tmp_path, survey, run_cli):
    policy = write_policy(tmp_path, POLICY.replace("role: weight", "role: other"))
    code, _, err = run_cli(
        "remediate",
        survey,
        "--policy",
        policy,
        "--method",
        "noise",
        "--option",
        "weight_noise=5",
        "--out",
        tmp_path / "o.csv",
    )
    assert code == 2 and "weight_noise: the policy has no weight column" in err, err


@pytest.mark.slow
def test_library_remediate_and_explore(tmp_path, survey):
    policy = write_policy(tmp_path, POLICY)
    done = privaudit.remediate(str(survey), str(policy), method="noise", noise=100, seed=3)
    frame = pd.read_csv(survey)
    assert done.offered and (done.table["age"] != frame["age"]).all()
    assert abs(done.table["age"].std() / frame["age"].std() - np.sqrt(2)) < 0.1  # noise of 100 % of the sd
    rounded = privaudit.remediate(str(survey), str(policy), method="noise", noise=100, seed=3, digits=0)
    assert (rounded.table["age"] == done.table["age"].round(0)).all() and (rounded.table["age"] % 1 == 0).all()
    swapped = privaudit.remediate(str(survey), str(policy), method="rank_swap", P=60, TopPercent=0, BottomPercent=0)
    assert sorted(swapped.table["income"]) == sorted(frame["income"])  # a permutation
    found = privaudit.explore(str(survey), str(policy), methods=["noise", "rank_swap"], max_candidates=12)
    by_method: dict[str, list] = {}
    for c in found.candidates:
        by_method.setdefault(c["method"], []).append(c)
    assert {m: len(v) for m, v in by_method.items()} == {"noise": 6, "rank_swap": 5}
    assert any(c["passes"] for c in by_method["noise"]) and all("failure" not in c for c in found.candidates)
    # without a check of perturbed values' risk, both are left out: k-anonymity says nothing of noised values
    plain = write_policy(tmp_path, POLICY.replace("  - {assessor: interval_disclosure, max_rate: 0.3}\n", ""), "k.yaml")
    none = privaudit.explore(str(survey), str(plain), methods=["noise", "rank_swap"])
    notes = none.report.to_dict()["explore"]["notes"]
    assert not none.candidates or {c["method"] for c in none.candidates} <= {"unchanged"}
    assert any(n.startswith("noise: left out") for n in notes) and any(
        n.startswith("rank_swap: left out") for n in notes
    )
