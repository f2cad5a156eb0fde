"""Hierarchies built from the data (privaudit/discovery/hierarchies.py): intervals from the distribution with
bottom and top codes, known domains grouped semantically, large categorical domains grouped rare values first;
through init and ``remediate --method generalize``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy

from privaudit.discovery import hierarchies as H

ARX_AGE = Path(__file__).parent / "data" / "generalization" / "hierarchies" / "age.csv"


def _rows(text: str) -> dict[str, list[str]]:
    return {line.split(";")[0]: line.split(";")[1:] for line in text.splitlines()}


def _nested(rows: dict[str, list[str]]) -> bool:
    """Every level a function of the level below it (a tree, as ARX's grouping of adjacent intervals)."""
    height = len(next(iter(rows.values())))
    for j in range(1, height):
        parent: dict[str, str] = {}
        for levels in rows.values():
            if parent.setdefault(levels[j - 1], levels[j]) != levels[j]:
                return False
    return True


def test_uniform_ages_give_arxs_shipped_age_hierarchy():
    # ARX's data/adult_hierarchy_age.csv (arx-deidentifier/arx aacd487: intervals of 5 repeated, adjacent ones
    # grouped by 2, then 2, as HierarchyBuilderIntervalBased builds them): ages spread evenly over 1-99 have no
    # bottom or top code, and the width read from the distribution is ARX's 5. The shipped file puts each
    # multiple of 5 in the interval below (5 in 0-4, 100 in 95-99), which [min, max) intervals do not: on
    # every other age the labels agree
    arx = _rows(ARX_AGE.read_text())
    ages = [str(a) for a in range(1, 100) if a % 5]
    text, note = H.build({"age"}, pd.Series([str(a) for a in range(1, 100)] * 3), "numeric")
    ours = _rows(text)
    assert "bottom/top codes" not in note
    assert {a: ours[a] for a in ages} == {a: arx[a] for a in ages}


def test_top_and_bottom_codes_from_the_distribution():
    rng = np.random.default_rng(5)
    ages = np.clip(rng.normal(45, 12, 5000).round(), 18, 70).astype(int).tolist() + [3, 96]
    text, note = H.build({"age"}, pd.Series([str(a) for a in ages]), "numeric")
    rows = _rows(text)
    assert _nested(rows)
    first = rows["96"][0]
    assert rows["70"][0] == first == "70+"  # the oldest joins the top code
    assert rows["3"][0] == rows["18"][0] == "<20"  # ARX's out-of-bounds label
    assert "bottom/top codes" in note and rows["45"][0] == "45-49"
    assert all(levels[-1] == "*" for levels in rows.values())


def test_one_long_schooling_is_no_class_of_its_own():
    years = [str(y) for y in [12] * 50 + [16] * 30 + [8] * 20 + [14] * 10 + [20]]
    text, note = H.build({"years"}, pd.Series(years), "numeric")  # no schooling header: plain numbers
    rows = _rows(text)
    assert rows["20"][0] == rows["16"][0] and rows["20"][0].endswith("+")
    text, note = H.build({"educ"}, pd.Series(years), "numeric")  # a schooling header: ISCED levels
    rows = _rows(text)
    assert note.startswith("years of schooling")
    assert rows["12"] == ["ISCED 3 (upper secondary)", "upper secondary (ISCED 3-4)", "*"]
    assert rows["16"][0] == "ISCED 6 (bachelor)" and rows["20"][1] == rows["14"][1] == "tertiary (ISCED 5-8)"
    assert rows["8"][0] == "ISCED 1 (primary)"  # eight years: primary completed, lower secondary not


def test_fractions_get_half_open_intervals():
    values = [f"{v:.2f}" for v in np.linspace(0.5, 24.9, 400)]
    text, _ = H.build({"wage"}, pd.Series(values), "numeric")
    rows = _rows(text)
    assert _nested(rows)
    assert {rows[v][0] for v in values if 10 <= float(v) < 12} == {"[10, 12)"}


def test_us_states_census_divisions_and_regions():
    states = "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC "
    states += "ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY"
    text = H.us_states(np.array(states.split()))
    rows = _rows(text)
    # US Census Bureau: 50 states and DC in 9 divisions and 4 regions
    assert len(rows) == 51 and len({r[0] for r in rows.values()}) == 9 and len({r[1] for r in rows.values()}) == 4
    assert rows["CA"] == ["Pacific", "West", "*"] and rows["DC"] == ["South Atlantic", "South", "*"]
    by_name = _rows(H.us_states(np.array(["New York", "district of columbia", "36"])))
    assert by_name["New York"] == by_name["36"] == ["Middle Atlantic", "Northeast", "*"]
    with pytest.raises(ValueError, match="'Ontario' is not a US state"):
        H.us_states(np.array(["Ontario"]))


def test_countries_and_a_large_domain():
    rows = _rows(H.countries(np.array(["DE", "br", "NG", "JP", "AU", "US"])))
    assert [rows[c][0] for c in ("DE", "br", "NG", "JP", "AU", "US")] == [
        "Europe",
        "South America",
        "Africa",
        "Asia",
        "Oceania",
        "North America",
    ]
    values = [f"city{i:03d}" for i in range(120) for _ in range(120 - i)]  # 120 cities, the first most frequent
    text, note = H.build({"city"}, pd.Series(values), "nominal")
    rows = _rows(text)
    assert len(rows) == 120 and _nested(rows) and "rarest grouped" in note
    assert rows["city000"][:2] == ["city000", "city000"] and rows["city030"][:2] == ["city030", "other"]
    assert rows["city119"][:2] == ["other", "other"]


STATES_POLICY = """version: 1
name: states
columns:
  state: {role: quasi_identifier}
  sex: {role: quasi_identifier}
  income: {role: sensitive, type: numeric}
checks:
  - {assessor: k_anonymity, k: 5}
"""


def _states_table(path: Path) -> Path:
    rng = np.random.default_rng(2)
    states = "CA OR WA NV AZ NY NJ PA TX FL GA IL OH MI".split()
    weights = np.array([40, 3, 8, 2, 4, 30, 6, 9, 25, 12, 6, 10, 7, 5], dtype=float)
    frame = pd.DataFrame(
        {
            "state": rng.choice(states, 300, p=weights / weights.sum()),
            "sex": rng.choice(["F", "M"], 300),
            "income": rng.integers(10, 90, 300),
        }
    )
    frame.to_csv(path, index=False)
    return path


def test_generalize_groups_states_into_divisions(tmp_path, run_cli):
    data = _states_table(tmp_path / "people.csv")
    policy = write_policy(tmp_path, STATES_POLICY)
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    run = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", out, "--json", report,
        "--option", "hierarchy_builders={state: us_states}",
    )  # fmt: skip
    assert run[0] == 0, run[2]
    rem = json.loads(report.read_text())["remediation"]
    assert rem["changes"]["built_hierarchies"]["state"]["builder"].startswith("US states")
    written = pd.read_csv(out)
    assert set(written["state"]) <= {"Pacific", "Mountain", "Middle Atlantic", "West South Central", "South Atlantic",
                                     "East North Central", "West", "Northeast", "South", "Midwest", "*"}  # fmt: skip
    assert run_cli("audit", out, "--policy", policy)[0] == 0


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("hierarchy_builders={sex: us_states}", "hierarchy of 'sex': 'F' is not a US state"),
        ("hierarchy_builders={state: provinces}", "unknown hierarchy builder 'provinces'"),
        ("hierarchy_builders={income: countries}", "'income': not a quasi-identifier"),
    ],
)
def test_semantic_builder_refusals(tmp_path, run_cli, option, message):
    data = _states_table(tmp_path / "people.csv")
    policy = write_policy(tmp_path, STATES_POLICY)
    out = tmp_path / "out.csv"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", out, "--option", option
    )
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and not out.exists()


def test_init_drafts_regions_and_top_codes(tmp_path, run_cli):
    rng = np.random.default_rng(9)
    n = 400
    frame = pd.DataFrame(
        {
            "state": rng.choice(["CA", "NY", "TX", "FL", "IL", "OH"], n),
            "age": np.clip(rng.normal(40, 12, n).round(), 18, 80).astype(int),
            "income": rng.integers(10, 200, n),
        }
    )
    frame.loc[0, "age"] = 99
    frame.to_csv(tmp_path / "t.csv", index=False)
    result = run_cli("init", tmp_path / "t.csv", "--role", "state=quasi_identifier", "--role", "age=quasi_identifier")
    assert result[0] == 0, result[2]
    states = _rows((tmp_path / "hierarchies" / "state.csv").read_text())
    assert states["TX"] == ["West South Central", "South", "*"]
    # age stays numeric (no file): remediate builds its intervals, top-coded, from the same builder
    assert not (tmp_path / "hierarchies" / "age.csv").exists()
    from privaudit.discovery.hierarchies import numeric_hierarchy

    text, _ = numeric_hierarchy(frame["age"].astype(str).to_numpy(), np.ones(n, dtype=np.int64))
    ages = _rows(text)
    assert ages["99"][0].endswith("+") and _nested(ages)


NMES1988 = Path(__file__).parent / "data" / "surveys" / "NMES1988.csv"


def test_decimal_ages_nest_despite_float_error():
    # AER::NMES1988 (tests/data/surveys/PROVENANCE.md) gives age in decades (6.6 .. 10.9): intervals 0.2 wide
    # from 6.6 put 7.0 at (7.0 - 6.6) / 0.2 = 1.9999999999999996 intervals, so a bare floor labelled it
    # "[6.8, 7)" under "[7, 8)" while 6.9's "[6.8, 7)" sat under "[6, 7)": two parents, no hierarchy.
    # ARX's HierarchyBuilderIntervalBased puts a value on a bound in the interval above it.
    ages = pd.read_csv(NMES1988, dtype=str)["age"]
    counts = ages.value_counts()
    text, _ = H.numeric_hierarchy(counts.index.to_numpy(), counts.to_numpy())
    rows = _rows(text)
    assert _nested(rows)
    assert rows["7.0"][0] == "[7, 7.2)"
    assert rows["6.9"][0] == "[6.8, 7)"


@pytest.mark.slow
def test_generalize_decimal_ages_of_a_patient_survey(tmp_path, run_cli):
    # the same table through `remediate --method generalize`, which built that hierarchy and stopped (exit 2,
    # "value '[6.8, 7)' at level 1 has two parents")
    policy = write_policy(
        tmp_path,
        "version: 1\nname: patients\ncolumns:\n  age: {role: quasi_identifier, type: numeric}\n"
        "  gender: {role: quasi_identifier}\n  region: {role: quasi_identifier}\n"
        "checks:\n  - {id: k5, assessor: k_anonymity, k: 5}\n",
    )
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    code, _, err = run_cli(
        "remediate", NMES1988, "--policy", policy, "--method", "generalize", "--out", out, "--json", report
    )
    assert code in (0, 1), err  # 1: the undeclared columns (school, employed ...) still break k=5
    built = json.loads(report.read_text())["remediation"]["changes"]["built_hierarchies"]
    assert built["age"]["builder"].startswith("numbers: intervals")
