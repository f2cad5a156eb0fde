"""``privaudit init`` reads headers as codebooks write them (abbreviations, compounds, dummies, labels), weighs
every column for key variables by content, and says where a limit applied."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import DATA

from privaudit.discovery.draft import draft, importance
from privaudit.discovery.key_variables import key_variable, key_variable_match
from privaudit.discovery.special_categories import special_category
from privaudit.testing import run_cli


@pytest.mark.parametrize(
    "header, category",
    [
        ("fml", "sex"),  # consonant skeleton of female
        ("yedu", "education"),  # years of + edu
        ("empl", "occupation"),  # a prefix of employ
        ("evermarr", "marital"),  # ever + a prefix of married
        ("yearborn", "age"),
        ("mnthborn", "age"),
        ("ethrace2a", "ethnicity"),  # eth + race, split at the digit
        ("racef", "ethnicity"),  # race + f (an R factor)
        ("collegeed", "education"),
        ("agesq", "age"),  # age squared
        ("heduc", "education"),  # the husband's
        ("smsa", "geography"),
        ("lat", "geography"),
        ("lng", "geography"),
        ("longitude", "geography"),
        ("Postleitzahl", "geography"),
        ("codice_postale", "geography"),
        ("postalcode", "geography"),
        ("cnty", "geography"),
        ("husage", "age"),  # the husband's age
        ("kidslt6", "household"),  # kids less than 6
        ("youngkids", "household"),
        ("edlevel1", "education"),
        ("foreign", "citizenship"),
    ],
)
def test_key_variables_in_codebook_spelling(header, category):
    found = key_variable(header)
    assert found is not None and found.key == category, header


@pytest.mark.parametrize(
    "header", ["wage", "usage", "image", "stage", "average", "mileage", "percentage", "voltage", "racerare", "code"]
)
def test_words_that_merely_contain_a_key_variable_are_none(header):
    assert key_variable(header) is None, header


@pytest.mark.parametrize(
    "header", ["nwhite", "white", "hisp", "catholic", "protest", "female", "married", "south", "reg661", "clerocc"]
)
def test_dummies_named_after_one_category(header):
    found = key_variable_match(header, dummy=True)
    assert found is not None and found.weak is None, header
    assert key_variable_match("white") is None  # a column of colours is no race: only a 0/1 dummy is


@pytest.mark.parametrize("header", ["hrs_work", "time_to_work", "hours_worked", "minutes_to_work"])
def test_quantities_of_a_key_variable_are_weak(header):
    found = key_variable_match(header)
    assert found is not None and found.weak and key_variable(header) is None


@pytest.mark.parametrize(
    "header, key",
    [
        ("votetrump", "political"),
        ("pid7na", "political"),
        ("ideo", "political"),
        ("bornagain", "religion"),
        ("churchatd", "religion"),
        ("prayerfreq", "religion"),
        ("famincr", "economic"),
        ("lwage", "economic"),
        ("drinks_per_day", "health"),
        ("contraceptive_use", "sex_life"),
    ],
)
def test_special_categories_in_codebook_spelling(header, key):
    found = special_category(header)
    assert found is not None and found.key == key, header


@pytest.mark.parametrize("header", ["state", "parttime", "experience", "conditional_prob", "trade", "condomin"])
def test_not_special_categories(header):
    assert special_category(header) is None, header


def test_importance_puts_sex_age_and_geography_first():
    qis = ["educ", "region", "age", "marital", "sex"]
    category = {"educ": "education", "region": "geography", "age": "age", "marital": "marital", "sex": "sex"}
    assert importance(qis, category) == {"sex": 1, "age": 2, "region": 3, "educ": 4, "marital": 5}


def test_sampling_weights_by_their_codebook_names_not_body_weight():
    rng = np.random.default_rng(2)
    n = 200
    frame = pd.DataFrame(
        {
            "perweight": rng.integers(700, 9000, n).astype(str),
            "birthwt": rng.integers(2000, 4500, n).astype(str),
            "sex": rng.choice(["1", "2"], n),
        }
    )
    roles = {c.name: c.role for c in draft(frame, "t.csv").columns}
    assert roles["perweight"] == "weight" and roles["birthwt"] != "weight"
    assert {c.name: c.role for c in draft(frame.rename(columns={"birthwt": "bwght"}), "t.csv").columns}[
        "bwght"
    ] != "weight"  # a birth weight in ounces, Wooldridge's bwght
    for header in ("hhwt", "pwgtp", "wtfinl", "final_weight"):
        assert {c.name: c.role for c in draft(frame.rename(columns={"perweight": header}), "t.csv").columns}[
            header
        ] == "weight", header


def test_a_body_weight_beside_a_height_is_no_sampling_weight():
    """openintro's yrbss: weight in kilograms beside height in metres."""
    rng = np.random.default_rng(11)
    frame = pd.DataFrame(
        {
            "height": rng.uniform(1.4, 2.0, 200).round(2).astype(str),
            "weight": rng.uniform(40, 120, 200).round(2).astype(str),
            "sex": rng.choice(["1", "2"], 200),
        }
    )
    assert {c.name: c.role for c in draft(frame, "t.csv").columns}["weight"] == "other"


def test_yes_no_dummies_are_dummies():
    frame = pd.DataFrame({"south": ["yes", "no"] * 20, "wage": [str(100 + i) for i in range(40)]})
    assert {c.name: c.role for c in draft(frame, "t.csv").columns}["south"] == "quasi_identifier"


def test_geography_headers_of_the_red_team_are_drafted(tmp_path):
    rng = np.random.default_rng(4)
    n = 300
    frame = pd.DataFrame(
        {
            "latitude": rng.uniform(40, 50, n).round(4),
            "lon": rng.uniform(5, 15, n).round(4),
            "Postleitzahl": rng.choice(["10115", "80331", "20095"], n),
            "codice_postale": rng.choice(["00184", "20121"], n),
            "diagnosis": rng.choice(["flu", "cold"], n),
        }
    )
    frame.to_csv(tmp_path / "geo.csv", index=False)
    assert run_cli("init", tmp_path / "geo.csv").code == 0
    doc = yaml.safe_load((tmp_path / "geo.policy.yaml").read_text())
    assert all(doc["columns"][c]["role"] == "quasi_identifier" for c in ("latitude", "lon", "Postleitzahl"))
    assert doc["columns"]["Postleitzahl"]["hierarchy"] == "hierarchies/Postleitzahl.csv"  # digits masked
    out = tmp_path / "r.json"
    assert run_cli("audit", tmp_path / "geo.csv", "--policy", tmp_path / "geo.policy.yaml", "--json", out).code == 1


def _generic(n: int, columns: int, rng) -> pd.DataFrame:
    return pd.DataFrame({f"V{i}": np.zeros(n, dtype=int).astype(str) for i in range(columns)})


def test_coded_key_variables_past_the_30th_column_are_weighed(tmp_path):
    """The 35th and 37th columns whose header says nothing make records unique: they are proposed."""
    rng = np.random.default_rng(6)
    frame = _generic(400, 40, rng)
    for i in range(40):  # every column a candidate (a few codes), only two making anybody unique
        frame[f"V{i}"] = (np.arange(400) % 2).astype(str)
    frame["V34"] = rng.integers(0, 40, 400).astype(str)
    frame["V36"] = rng.integers(0, 40, 400).astype(str)
    frame["sex"] = rng.choice(["1", "2"], 400)
    frame.to_csv(tmp_path / "t.csv", index=False)
    result = run_cli("init", tmp_path / "t.csv")
    drafted = result.stdout.split("quasi_identifier:")[1].splitlines()[0]
    assert result.code == 0 and "V34" in drafted and "V36" in drafted, result.stdout


def test_combinations_past_the_first_10000_rows_are_weighed(tmp_path):
    """Uniques only in rows 10,001 on (a table sorted by region): found all the same, and the draft fails."""
    rng = np.random.default_rng(7)
    n = 12_000
    frame = pd.DataFrame({"V1": ["1"] * n, "V2": ["1"] * n, "sex": rng.choice(["1", "2"], n)})
    frame.loc[10_000:, "V1"] = rng.integers(0, 30, n - 10_000).astype(str)
    frame.loc[10_000:, "V2"] = rng.integers(0, 30, n - 10_000).astype(str)
    frame.to_csv(tmp_path / "t.csv", index=False)
    result = run_cli("init", tmp_path / "t.csv")
    assert result.code == 0
    assert "quasi_identifier: V1, V2, sex" in result.stdout
    assert "no coded column makes records unique" not in result.stdout


def test_a_column_half_full_of_social_security_numbers_is_an_identifier(tmp_path):
    """55 % valid SSNs (below the recognizer's 60 %) still publish identifiers: init drafts the column an
    identifier, and an audit under a policy that calls it "other" warns, one that leaves it out fails."""
    rng = np.random.default_rng(8)
    n = 400
    ssn = [f"{rng.integers(100, 665):03d}-{rng.integers(10, 99):02d}-{rng.integers(1000, 9999):04d}" for _ in range(n)]
    notes = [s if rng.random() < 0.55 else str(rng.choice(["refused", "unknown", "n/a"])) for s in ssn]
    frame = pd.DataFrame({"notes": notes, "age": rng.integers(18, 90, n), "sex": rng.choice(["1", "2"], n)})
    frame.to_csv(tmp_path / "t.csv", index=False)
    assert run_cli("init", tmp_path / "t.csv").code == 0
    doc = yaml.safe_load((tmp_path / "t.policy.yaml").read_text())
    assert doc["columns"]["notes"] == {"role": "identifier"}
    doc["columns"]["notes"] = {"role": "other", "type": "nominal"}
    doc["checks"] = []
    (tmp_path / "other.yaml").write_text(yaml.safe_dump(doc))
    out = tmp_path / "r.json"
    run_cli("audit", tmp_path / "t.csv", "--policy", tmp_path / "other.yaml", "--json", out, "--quiet")
    check = next(c for c in json.loads(out.read_text())["checks"] if c["assessor"] == "direct_identifiers")
    assert [w["column"] for w in check["details"]["declared_warnings"]] == ["notes"]
    del doc["columns"]["notes"]
    (tmp_path / "missing.yaml").write_text(yaml.safe_dump(doc))
    audit = run_cli("audit", tmp_path / "t.csv", "--policy", tmp_path / "missing.yaml", "--quiet")
    assert audit.code == 1


def test_labels_are_evidence_like_headers(tmp_path):
    rng = np.random.default_rng(9)
    n = 300
    frame = pd.DataFrame(
        {
            "q1": rng.integers(18, 90, n),
            "q2": rng.choice(["1", "2"], n),
            "q3": rng.integers(0, 30, n),
            "q4": rng.integers(0, 8, n),
        }
    )
    frame.to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "labels.csv").write_text(
        "column,label\nq1,Age of respondent in years\nq2,Sex of respondent\nq3,Cigarettes smoked per day\n"
        'q4,"Hours worked, last week"\n'
    )
    result = run_cli("init", tmp_path / "t.csv", "--labels", tmp_path / "labels.csv")
    assert result.code == 0, result.stderr
    text = (tmp_path / "t.policy.yaml").read_text()
    doc = yaml.safe_load(text)
    roles = {c: s["role"] for c, s in doc["columns"].items()}
    assert roles == {"q1": "quasi_identifier", "q2": "quasi_identifier", "q3": "sensitive", "q4": "other"}
    assert "its label 'Age of respondent in years'" in text and "not a key variable: hours" in text
    assert doc["columns"]["q3"]["special_category"] == "health"


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "no labels (expected lines of column,label)"),
        ("column,label\n", "no labels (expected lines of column,label)"),
        ("age,Age\nsalary,Yearly salary\n", "has no column 'salary'"),
        ("age,Age\nage,Age again\n", "the column 'age' is labelled twice"),
        ("age\n", "label 1 is not column,label (1 fields)"),
    ],
)
def test_bad_labels_files_are_refused_in_one_line(tmp_path, content, message):
    pd.DataFrame({"age": [30, 40, 50], "sex": ["1", "2", "1"]}).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "labels.csv").write_text(content)
    result = run_cli("init", tmp_path / "t.csv", "--labels", tmp_path / "labels.csv")
    assert result.code == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert "labels.csv" in result.stderr and not (tmp_path / "t.policy.yaml").exists()


def test_the_policy_is_never_written_over_the_labels(tmp_path):
    pd.DataFrame({"age": [30, 40], "sex": ["1", "2"]}).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "labels.csv").write_text("age,Age\n")
    result = run_cli(
        "init", tmp_path / "t.csv", "--labels", tmp_path / "labels.csv", "--out", tmp_path / "labels.csv", "--force"
    )
    assert result.code == 2 and "would overwrite an input file" in result.stderr
    assert (tmp_path / "labels.csv").read_text() == "age,Age\n"


def test_a_missing_labels_file_is_refused(tmp_path):
    pd.DataFrame({"age": [30, 40], "sex": ["1", "2"]}).to_csv(tmp_path / "t.csv", index=False)
    result = run_cli("init", tmp_path / "t.csv", "--labels", tmp_path / "nope.csv")
    assert result.code == 2 and "--labels" in result.stderr and result.stderr.count("\n") == 1


def test_survey_labels_file_names_every_fertil2_column():
    labels = pd.read_csv(DATA / "surveys" / "fertil2.labels.csv")
    assert list(labels["column"]) == list(pd.read_csv(DATA / "surveys" / "fertil2.csv", nrows=1).columns)


def test_identifiers_below_the_recognizers_share_are_found_only_when_valid():
    """Half a column of valid phone numbers is published phone numbers; random 16-digit codes, a tenth of
    which pass the Luhn check by chance, are no payment cards."""
    from privaudit.discovery.scan import scan_column

    rng = np.random.default_rng(10)
    phones = [f"+49 30 {rng.integers(1000000, 9999999)}" for _ in range(300)]
    mixed = [p if rng.random() < 0.5 else "unknown" for p in phones]
    found = scan_column("contact", pd.Series(mixed))
    assert found is not None and found.kind.startswith("phone") and found.confidence == "high"
    assert any("fewer than 60%" in e for e in found.evidence)
    codes = pd.Series([str(rng.integers(4 * 10**15, 5 * 10**15)) for _ in range(300)])
    assert scan_column("code", codes) is None
