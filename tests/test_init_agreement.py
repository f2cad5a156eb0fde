"""``privaudit init`` on public microdata with a published list of key variables (issue #27): the drafted
roles agree with the list, special categories are marked, and the drafted policy fails where the key
variables make the table risky.

* sdcMicro's ``testdata`` (tests/data/sdcmicro, GPL-2): the key variables of sdcMicro's examples,
  ``createSdcObj(testdata, keyVars=c('urbrur','roof','walls','water','electcon','relat','sex'),
  numVars=c('expend','income','savings'), w='sampling_weight')`` (R/addNoise.r, R/addGhostVars.R at
  sdcTools/sdcMicro cf32510), with ``age`` added as in its vignette ``ai_assisted_anonymization.Rmd``
  (``roles$keyVars <- c(roles$keyVars, "age")``) and ``hhId = 'ori_hid'``;
* ARX's adult example (examples/adult, Apache-2.0): ARX's examples declare sex, age, race, marital-status,
  education, native-country and workclass quasi-identifying; occupation, which its examples keep as the
  sensitive attribute, is a key variable in the handbooks (Hundepool et al. 2012, section 3.3; Benschop et
  al.), and so is drafted;
* Fair's affairs survey (tests/data/surveys/fair.csv, statsmodels): the survey of the issue, with its
  codebook (statsmodels' ``fair`` NOTE);
* the American National Election Study 1996 extract (tests/data/surveys/anes96.csv, statsmodels, public
  domain), with its codebook (statsmodels' ``anes96`` NOTE): PID (party identification) and the vote are
  political opinions;
* carData's ``Salaries`` of a US college's professors (tests/data/surveys/salaries.csv, GPL): a staff
  directory shows rank, discipline (department) and years of service, and a CV the years since the PhD --
  the occupation and education the handbooks list. With sex alone (the header words before ``career``)
  the draft passed at k = 39 on a table where 72.5 % of the professors are unique.
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
import yaml
from conftest import DATA, ROOT

from privaudit.testing import run_cli

TABLES = {
    "testdata": (
        DATA / "sdcmicro" / "testdata.csv",
        {
            "quasi_identifier": ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex", "age", "hhcivil"],
            "sensitive": ["expend", "income", "savings"],
            "weight": ["sampling_weight"],
            "household_id": ["ori_hid"],
            "other": ["household_weights"],  # sdcMicro weighs persons by sampling_weight (w)
        },
        {},
    ),
    "adult": (
        ROOT / "examples" / "adult" / "adult.csv",
        {
            "quasi_identifier": [
                "sex",
                "age",
                "race",
                "marital-status",
                "education",
                "native-country",
                "workclass",
                "occupation",
            ],
            "sensitive": ["salary-class"],
        },
        {"race": "ethnicity"},
    ),
    "fair": (
        DATA / "surveys" / "fair.csv",
        {
            "quasi_identifier": [
                "age",
                "yrs_married",
                "children",
                "religious",
                "educ",
                "occupation",
                "occupation_husb",
            ],
            "sensitive": ["affairs"],
            "other": ["rate_marriage"],  # an opinion of one's marriage: nobody can observe it
        },
        {"religious": "religion", "affairs": "sex_life"},
    ),
    "anes96": (
        DATA / "surveys" / "anes96.csv",
        {
            "quasi_identifier": ["age", "educ", "income"],  # 24 income brackets: a band an intruder can know
            "sensitive": ["selfLR", "PID", "vote"],
            "other": ["popul", "TVnews", "ClinLR", "DoleLR"],
        },
        {"selfLR": "political", "PID": "political", "vote": "political"},
    ),
    "salaries": (
        DATA / "surveys" / "salaries.csv",
        {
            "quasi_identifier": ["rank", "discipline", "yrs.since.phd", "yrs.service", "sex"],
            "sensitive": ["salary"],
        },
        {},
    ),
}


@pytest.mark.parametrize(
    "name", [pytest.param("testdata", marks=pytest.mark.slow), "adult", "fair", "anes96", "salaries"]
)
def test_init_drafts_the_published_key_variables_and_the_draft_fails(tmp_path, name):
    source, expected, special = TABLES[name]
    data = tmp_path / source.name
    shutil.copy(source, data)
    result = run_cli("init", data)
    assert result.code == 0, result.stderr
    policy = tmp_path / f"{source.stem}.policy.yaml"
    doc = yaml.safe_load(policy.read_text())
    roles: dict[str, list[str]] = {}
    for column, spec in doc["columns"].items():
        roles.setdefault(spec["role"], []).append(column)
    assert roles == expected
    assert {c: s["special_category"] for c, s in doc["columns"].items() if "special_category" in s} == special
    assert "all_key_variables: " in result.stdout and "so the drafted uniqueness check fails" in result.stdout
    out = tmp_path / "report.json"
    audit = run_cli("audit", data, "--policy", policy, "--json", out, "--quiet")
    assert audit.code == 1, audit.stderr
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    every = next(c for i, c in checks.items() if c["assessor"] == "uniqueness" and "quasi_identifiers" not in c)
    assert every["status"] == "fail" and every["value"] > 0.05  # the key variables make many records unique


def test_fair_reproduces_the_issue_and_the_stricter_scenario_decides(tmp_path):
    """The issue's figures: with age alone (the old draft) k = 139 and the policy passed; every key variable
    makes 40.4 % of the 6,366 records unique (f_k = 1, counted here independently with pandas)."""
    shutil.copy(DATA / "surveys" / "fair.csv", tmp_path / "fair.csv")
    frame = pd.read_csv(tmp_path / "fair.csv")
    keys = ["age", "yrs_married", "children", "religious", "educ", "occupation", "occupation_husb"]
    f_k = frame.groupby(keys)["affairs"].transform("size")
    assert f"{(f_k == 1).mean():.1%}" == "40.4%"
    result = run_cli("init", tmp_path / "fair.csv")
    assert "demographics: 0.0% (0 records) under age\n" in result.stdout
    assert (
        "all_key_variables: 40.4% (2,570 records) under age, yrs_married, children, religious, educ, occupation, "
        "occupation_husb" in result.stdout
    )
    assert (
        "special categories: religious: religious or philosophical beliefs, GDPR Art. 9; affairs: sex life"
        in result.stdout
    )
    text = (tmp_path / "fair.policy.yaml").read_text()
    assert "special category (GDPR Art. 9): sex life or sexual orientation, by its header" in text
    doc = yaml.safe_load(text)
    # ages 17.5, 22, ...: numeric, remediate builds half-open intervals ([15, 20) ...) to coarsen them
    assert doc["columns"]["age"] == {"role": "quasi_identifier", "type": "numeric", "importance": 1}
    assert "numbers with fractions: an interval hierarchy ([15, 20), 10, 20 wide, then *) is built by remediate" in text
    ids = [c.get("id") for c in doc["checks"]]
    assert "k_anonymity_demographics" in ids and "k_anonymity_all_key_variables" in ids
    out = tmp_path / "r.json"
    run_cli("audit", tmp_path / "fair.csv", "--policy", tmp_path / "fair.policy.yaml", "--json", out, "--quiet")
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    assert (checks["k_anonymity_demographics"]["value"], checks["k_anonymity_demographics"]["status"]) == (139, "pass")
    assert checks["k_anonymity_all_key_variables"]["status"] == "fail"
    assert checks["k_anonymity_demographics"]["quasi_identifiers"] == ["age"]


def test_salaries_career_variables_make_the_draft_fail(tmp_path):
    """Rank, discipline and years of service are drafted as the career key variables they are (and the
    years since the PhD as education); together with sex they make 72.5 % of the 397 professors unique
    (counted here independently with pandas), where sex alone passed."""
    shutil.copy(DATA / "surveys" / "salaries.csv", tmp_path / "salaries.csv")
    frame = pd.read_csv(tmp_path / "salaries.csv")
    keys = ["rank", "discipline", "yrs.since.phd", "yrs.service", "sex"]
    assert f"{(frame.groupby(keys)['salary'].transform('size') == 1).mean():.1%}" == "72.5%"
    assert frame.groupby("sex")["salary"].transform("size").min() == 39
    result = run_cli("init", tmp_path / "salaries.csv")
    assert "demographics: 0.0% (0 records) under sex\n" in result.stdout
    assert (
        "all_key_variables: 72.5% (288 records) under rank, discipline, yrs.since.phd, yrs.service, sex"
        in result.stdout
    )
    text = (tmp_path / "salaries.policy.yaml").read_text()
    assert "known from elsewhere: job rank, field or length of service (its header)" in text
