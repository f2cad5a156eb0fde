"""privaudit's ARX-compatible hierarchy builders (privaudit/discovery/arx_builders.py) against ARX 3.9's own.

The golden files of tests/data/arx_hierarchies/ are ARX's hierarchies (github:arx-deidentifier/arx commit
aacd487, ``org.deidentifier.arx.aggregates``: ``HierarchyBuilderIntervalBased``, ``HierarchyBuilderOrderBased``,
``HierarchyBuilderRedactionBased``), built from source by benchmarks/arx/RunArxHierarchy.java on columns of
tests/data; benchmarks/arx/make_hierarchy_goldens.sh holds each command, and each case below gives privaudit
the same parameters. Rows are compared cell for cell, labels included (ARX's interval function
``createIntervalFunction(true, false)``: ``[20, 30[``; its set function: ``{a, b}``). No Java runs here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import write_policy

from privaudit.discovery import arx_builders as A
from privaudit.discovery import hierarchies as H

DATA = Path(__file__).parent / "data"
GOLD = DATA / "arx_hierarchies"
ADULT = DATA / "generalization" / "adult_sample.csv"
WAGE = DATA / "surveys" / "wage1.csv"
EDUCATION_ORDER = (GOLD / "education_order.txt").read_text().split()

# golden file -> (table, column, privaudit's spec, column type); the ARX command is the same-named line of
# benchmarks/arx/make_hierarchy_goldens.sh
CASES = {
    # HierarchyBuilderIntervalBased, Range(25, 20, 0) and Range(75, 80, 150): bottom code <20, snap to [20, 30[
    "adult_age_snap": (ADULT, "age", {"builder": "intervals", "start": 0, "width": 5, "lower": [25, 20, 0],
                                      "upper": [75, 80, 150], "levels": [2, 2]}, "numeric"),
    # bottom_coding/top_coding: ARX's Range(20, 20, -1000000) and Range(80, 80, 1000000) (no minimum/maximum)
    "adult_age_coded": (ADULT, "age", {"builder": "intervals", "start": 0, "width": 5, "bottom_coding": 20,
                                       "top_coding": 80, "levels": [2, 2]}, "numeric"),
    # groups of 2 then 5 decades: the last level one group, so no * (prepareGroups adds none)
    "adult_age_decades": (ADULT, "age", {"builder": "intervals", "intervals": [[0, 10]], "lower": [0, 0, 0],
                                         "upper": [100, 100, 100], "levels": [2, 5]}, "numeric"),
    # uneven base intervals, two groups on level 0 (step 5 case 2), then case 1
    "adult_age_uneven": (ADULT, "age", {"builder": "intervals",
                                        "intervals": [[0, 18], [18, 25], [25, 45], [45, 65], [65, 100]],
                                        "lower": [0, 0, 0], "upper": [100, 100, 200], "levels": [[2, 3], 2]},
                         "numeric"),
    # upper snap 16 below top coding 17: getIntervalUpperSnap widens [12, 16[ to [12, 17[
    "wage1_educ_coded": (WAGE, "educ", {"builder": "intervals", "start": 0, "width": 4, "lower": [8, 8, 0],
                                        "upper": [16, 17, 19], "levels": [2]}, "numeric"),
    # DataType.DECIMAL: Double.toString labels; no range here = ARX's ranges at -1000 and 1000 (the departure)
    "wage1_wage_unbounded": (WAGE, "wage", {"builder": "intervals", "start": 0, "width": 2.5, "levels": [2, 2]},
                             "numeric"),
    "acs12_income": (DATA / "acs12" / "acs12.csv", "income",
                     {"builder": "intervals", "type": "decimal", "start": 0, "width": 25000, "lower": [0, 0, 0],
                      "upper": [100000, 100000, 1e9], "levels": [2, 2]}, "numeric"),
    # HierarchyBuilderOrderBased.create(DataType.INTEGER, true): natural order, groups of 3 then 2
    "wage1_educ_order": (WAGE, "educ", {"builder": "order", "levels": [3, 2]}, "numeric"),
    # create(DataType.STRING, String[] order)
    "adult_education_order": (ADULT, "education", {"builder": "order", "order": EDUCATION_ORDER, "levels": [4, 2]},
                              "nominal"),
    # HierarchyBuilderRedactionBased defaults: LEFT_TO_RIGHT alignment, RIGHT_TO_LEFT redaction, '*'
    "createdat400_lau2_redaction": (DATA / "sdcmicro" / "createdat400.csv", "lau2", {"builder": "redaction"},
                                    "nominal"),
    # values of one or two digits aligned right, padded with 0
    "wage1_exper_redaction": (WAGE, "exper", {"builder": "redaction", "align": "right", "padding": "0"},
                              "nominal"),
}  # fmt: skip


def _column(table: Path, column: str) -> pd.Series:
    sep = ";" if ";" in table.read_text().splitlines()[0] else ","
    return pd.read_csv(table, sep=sep, dtype=str, keep_default_na=False)[column].replace("NA", "")


def _rows(text: str) -> dict[str, list[str]]:
    return {line.split(";")[0]: line.split(";")[1:] for line in text.splitlines() if line}


@pytest.mark.parametrize("name", sorted(CASES))
def test_equals_arx_cell_for_cell(name):
    table, column, spec, kind = CASES[name]
    ours, _ = A.build(column, _column(table, column), spec, kind)
    arx = _rows((GOLD / f"{name}.csv").read_text())
    assert _rows(ours) == arx
    assert len(arx) > 10


def test_rows_in_arx_order_for_order_based():
    # HierarchyBuilderOrderBased sorts its data in place: the rows come out in the order
    table, column, spec, kind = CASES["adult_education_order"]
    ours, _ = A.build(column, _column(table, column), spec, kind)
    gold = (GOLD / "adult_education_order.csv").read_text().splitlines()
    assert ours.splitlines() == gold


def test_privaudits_postcode_builder_induces_arxs_redaction_partition():
    # privaudit's postcodes builder (one more trailing digit masked per level) against ARX's
    # HierarchyBuilderRedactionBased on five-digit LAU codes: the same partition on every level; the labels
    # differ only at the top (privaudit's root is '*', ARX's '*****')
    values = _column(DATA / "sdcmicro" / "createdat400.csv", "lau2")
    ours = _rows(H.postcodes(values.unique()))
    arx = _rows((GOLD / "createdat400_lau2_redaction.csv").read_text())
    assert ours.keys() == arx.keys()
    for level in range(len(next(iter(arx.values())))):
        assert {v: ours[v][level] for v in ours} == {v: arx[v][level] for v in arx} or (
            {ours[v][level] for v in ours} == {"*"} and len({arx[v][level] for v in arx}) == 1
        )


def test_privaudits_default_intervals_differ_from_fixed_ones():
    # the default builder reads its widths from the distribution (hierarchies.interval_levels); the ARX
    # builder is what reproduces ARX's fixed intervals: the two give different first levels on adult's ages
    ages = _column(ADULT, "age")
    default, _ = H.build({"age"}, ages, "numeric")
    first = {row[0] for row in _rows(default).values()}
    assert not any(label.startswith("[") for label in first)
    arx = {row[0] for row in _rows((GOLD / "adult_age_snap.csv").read_text()).values()}
    assert first != arx


def test_dates_equal_arx_with_a_root_above():
    # HierarchyBuilderDate.create(DataType.createDate("yyyy-MM-dd"), UTC, new Format(), MONTH_YEAR,
    # QUARTER_YEAR, YEAR, DECADE) on fertil2's months of birth: ARX's four levels cell for cell; ARX adds no
    # root (its hierarchies may have several top values), privaudit adds * above the decades
    born = pd.read_csv(GOLD / "fertil2_born.csv", dtype=str)["born"]
    spec = {"builder": "dates", "granularities": ["decade", "month_year", "year", "quarter_year"]}
    ours = _rows(A.build("born", born, spec, "nominal")[0])
    arx = _rows((GOLD / "fertil2_born_dates.csv").read_text())
    assert {v: row[:-1] for v, row in ours.items()} == arx
    assert {row[-1] for row in ours.values()} == {"*"} and len({row[-1] for row in arx.values()}) > 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"builder": "intervals", "widht": 5}, "unknown key 'widht'"),
        ({"builder": "histogram"}, "unknown hierarchy builder 'histogram'"),
        ({"builder": "intervals", "width": 5, "lower": [20, 20, 20]}, "value 17 is < the minimum 20"),
        ({"builder": "intervals", "intervals": [[0, 10], [20, 30]]}, "gap between"),
        ({"builder": "intervals", "width": 5, "levels": [0]}, "group size > 0"),
        # ARX 3.9 reads past its intervals here (IndexOutOfBoundsException): 5 intervals, groups 2 and 2
        ({"builder": "intervals", "intervals": [[0, 20], [20, 40], [40, 60], [60, 80], [80, 100]],
          "lower": [0, 0, 0], "upper": [100, 100, 200], "levels": [[2, 2]]}, "leave a last group empty"),
        ({"builder": "order", "order": ["Bachelors"], "levels": [2]}, "is not in the order given"),
    ],
)  # fmt: skip
def test_refusals(spec, message):
    column = "education" if spec.get("builder") == "order" else "age"
    with pytest.raises(ValueError, match=message):
        A.build(column, _column(ADULT, column), spec, "numeric" if column == "age" else "nominal")


POLICY = """version: 1
name: adult
columns:
  age: {role: quasi_identifier, type: numeric}
  sex: {role: quasi_identifier}
  occupation: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 5}
"""


def _adult(tmp_path: Path) -> Path:
    frame = pd.read_csv(ADULT, sep=";", dtype=str)[["age", "sex", "occupation"]]
    frame.to_csv(tmp_path / "adult.csv", index=False)
    return tmp_path / "adult.csv"


@pytest.mark.slow
def test_generalize_writes_arxs_hierarchy(tmp_path, run_cli):
    # remediate --method generalize with ARX's parameters: the hierarchy written beside the output is ARX's
    data, policy = _adult(tmp_path), write_policy(tmp_path, POLICY)
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    option = (
        "hierarchy_builders={age: {builder: intervals, start: 0, width: 5, lower: [25, 20, 0], "
        "upper: [75, 80, 150], levels: [2, 2]}}"
    )
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", out, "--json", report,
        "--option", option,
    )  # fmt: skip
    assert code == 0, err
    assert _rows((tmp_path / "out.hierarchy-age.csv").read_text()) == _rows((GOLD / "adult_age_snap.csv").read_text())
    built = json.loads(report.read_text())["remediation"]["changes"]["built_hierarchies"]["age"]
    assert built["builder"].startswith("ARX intervals builder")
    arx_labels = {label for row in _rows((GOLD / "adult_age_snap.csv").read_text()).values() for label in row}
    assert set(pd.read_csv(out, dtype=str)["age"]) <= arx_labels
    assert run_cli("audit", out, "--policy", tmp_path / "out.reaudit.policy.yaml")[0] == 0


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("hierarchy_builders={age: {builder: intervals, widht: 5}}",
         "hierarchy builder for 'age': intervals builder: unknown key 'widht'"),
        ("hierarchy_builders={age: {builder: intervals, width: 5, lower: [30, 30, 30]}}",
         "hierarchy of 'age': value 17 is < the minimum 30 of the range"),
        # a semantic builder asked for values it does not know
        ("hierarchy_builders={sex: countries}", "hierarchy of 'sex': 'Male' is not an ISO 3166-1 alpha-2"),
        ("hierarchy_builders={age: countries}", "hierarchy of 'age': '39' is not an ISO 3166-1 alpha-2"),
    ],
)  # fmt: skip
def test_builder_refusals_one_line_exit_2(tmp_path, run_cli, option, message):
    data, policy = _adult(tmp_path), write_policy(tmp_path, POLICY)
    out = tmp_path / "out.csv"
    code, _, err = run_cli("remediate", data, "--policy", policy, "--method", "generalize", "--out", out,
                           "--option", option)  # fmt: skip
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and not out.exists()
