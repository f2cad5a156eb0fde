"""``privaudit init``: key variables and special categories by header in six languages and by
content, ``--role`` hints and their bad input, and the reports naming the special categories present."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import DATA

from privaudit.discovery.draft import draft
from privaudit.discovery.key_variables import key_variable
from privaudit.discovery.special_categories import special_by_values, special_category
from privaudit.testing import run_cli

FAIR = DATA / "surveys" / "fair.csv"


@pytest.mark.parametrize(
    "header, category",
    [
        ("educ", "education"),
        ("Bildungsabschluss", "education"),
        ("niveau_etudes", "education"),
        ("nivel_estudios", "education"),
        ("titolo_studio", "education"),
        ("opleidingsniveau", "education"),
        ("yrs_married", "marital"),
        ("marstat", "marital"),
        ("Familienstand", "marital"),
        ("etat_civil", "marital"),
        ("estado_civil", "marital"),
        ("stato_civile", "marital"),
        ("burgerlijke_staat", "marital"),
        ("hhcivil", "marital"),
        ("nchild", "household"),
        ("hhsize", "household"),
        ("hh_size", "household"),
        ("Kinderzahl", "household"),
        ("nb_enfants", "household"),
        ("num_hijos", "household"),
        ("aantal_kinderen", "household"),
        ("urbrur", "geography"),
        ("Gemeinde", "geography"),
        ("commune", "geography"),
        ("provincia", "geography"),
        ("woonplaats", "geography"),
        ("ethnic", "ethnicity"),
        ("ethn", "ethnicity"),
        ("rank", "career"),
        ("discipline", "career"),
        ("yrs.service", "career"),
        ("years_of_service", "career"),
        ("exper", "career"),
        ("Dienstalter", "career"),
        ("anciennete", "career"),
        ("antiguedad", "career"),
        ("yrs.since.phd", "education"),
        ("Beruf", "occupation"),
        ("profession", "occupation"),
        ("ocupacion", "occupation"),
        ("occupazione", "occupation"),
        ("beroep", "occupation"),
        ("workclass", "occupation"),
        ("Geschlecht", "sex"),
        ("sexe", "sex"),
        ("sesso", "sex"),
        ("geslacht", "sex"),
        ("leeftijd", "age"),
        ("date_of_birth", "age"),
        ("Staatsangehörigkeit", "citizenship"),
        ("nacionalidad", "citizenship"),
        ("roof", "dwelling"),
        ("electcon", "dwelling"),
        ("Konfession", "religion"),
    ],
)
def test_key_variables_by_header_in_six_languages(header, category):
    found = key_variable(header)
    assert found is not None and found.key == category, header


@pytest.mark.parametrize(
    "header", ["rate_marriage", "job_satisfaction", "income", "affairs", "weight", "V3", "schulden", "idle_time"]
)
def test_not_key_variables(header):
    assert key_variable(header) is None, header


@pytest.mark.parametrize(
    "header, category",
    [
        ("affairs", "sex_life"),
        ("sexual_orientation", "sex_life"),
        ("Seitensprung", "sex_life"),
        ("religious", "religion"),
        ("Konfession", "religion"),
        ("diagnosis", "health"),
        ("Krankheit", "health"),
        ("maladie", "health"),
        ("enfermedad", "health"),
        ("malattia", "health"),
        ("ziekte", "health"),
        ("party_id", "political"),
        ("Wahlabsicht", "political"),
        ("union_member", "trade_union"),
        ("Gewerkschaft", "trade_union"),
        ("syndicat", "trade_union"),
        ("vakbond", "trade_union"),
        ("race", "ethnicity"),
        ("genotype", "genetic"),
        ("fingerprint", "biometric"),
        ("convicted", "criminal"),
        ("Vorstrafen", "criminal"),
        ("casier_judiciaire", "criminal"),
        ("income", "economic"),
        ("Einkommen", "economic"),
        ("salaire", "economic"),
        ("ingresos", "economic"),
        ("reddito", "economic"),
        ("inkomen", "economic"),
        ("debt", "economic"),
        ("benefits", "economic"),
        ("schulden", "economic"),
    ],
)
def test_special_categories_by_header_in_six_languages(header, category):
    found = special_category(header)
    assert found is not None and found.key == category, header


def test_special_categories_by_value_labels():
    labels = np.array(["Catholic", "Protestant", "None", "Muslim"], dtype=object)
    found = special_by_values(labels, np.array([40, 30, 20, 10]))
    assert found is not None and found[0].key == "religion" and found[1] == pytest.approx(0.8)
    assert special_by_values(np.array(["1", "2", "3"], dtype=object), np.array([1, 1, 1])) is None
    frame = pd.DataFrame({"q1": ["Democrat", "Republican", "Independent"] * 30, "q2": list("abc") * 30})
    frame["car_colour"] = ["white", "black", "white"] * 30  # the header says what the labels are
    columns = {c.name: c for c in draft(frame, "t.csv").columns}
    assert columns["q1"].role == "sensitive" and columns["q1"].special_category == "political"
    assert columns["car_colour"].role == "other" and columns["car_colour"].special_category is None


def _coded(n=600, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "V1": rng.integers(1, 8, n).astype(str),
            "V2": rng.integers(1, 6, n).astype(str),
            "V3": rng.integers(1, 9, n).astype(str),
            "V4": ["1"] * n,  # a constant makes nobody unique
            "amount": rng.uniform(0, 1e4, n).round(2).astype(str),
            "sex": rng.choice(["1", "2"], n),
        }
    )


def test_confidential_amounts_win_over_the_key_variable_their_header_also_names():
    amounts = [str(100 + 7 * i) for i in range(40)]
    frame = pd.DataFrame({"employment_income": amounts, "employment": ["a", "b", "c", "d"] * 10})
    columns = {c.name: c.role for c in draft(frame, "t.csv").columns}
    assert columns == {"employment_income": "sensitive", "employment": "quasi_identifier"}


def test_income_bands_are_key_variables_and_amounts_are_confidential():
    """A few income brackets (codes 1..12, or midpoints) are known roughly from elsewhere: a key variable, as
    the IHSN guide lists income; amounts stay the sensitive attribute."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "faminc_band": rng.integers(1, 13, 300).astype(str),
            "wage": rng.uniform(100, 5000, 300).round(2).astype(str),
            "sex": rng.choice(["1", "2"], 300),
        }
    )
    columns = {c.name: c for c in draft(frame, "t.csv").columns}
    assert columns["faminc_band"].role == "quasi_identifier" and columns["wage"].role == "sensitive"
    assert "income, wealth or benefits in 12 bands" in columns["faminc_band"].notes[-1]


def test_a_column_of_dates_is_a_date_of_an_event():
    frame = pd.DataFrame({"c1": ["2021-03-04", "2021-05-06", "2022-01-02"] * 10, "c2": list("xyz") * 10})
    column = draft(frame, "t.csv").columns[0]
    assert column.role == "quasi_identifier" and "a date of an event (its values are dates)" in column.notes[-1]


def test_key_variables_by_content_when_headers_say_nothing():
    result = draft(_coded(), "t.csv")
    columns = {c.name: c for c in result.columns}
    assert {n for n, c in columns.items() if c.role == "quasi_identifier"} == {"V1", "V2", "V3", "sex"}
    assert columns["V4"].role == "other" and columns["amount"].role == "other"
    assert any(n.startswith("by content: 7 codes whose combination") for n in columns["V1"].notes)
    assert result.scenarios == {"demographics": ["sex"], "all_key_variables": ["V1", "V2", "V3", "sex"]}


def test_role_hints_fix_a_role_and_the_rest_is_drafted_around_it(tmp_path):
    shutil.copy(FAIR, tmp_path / "fair.csv")
    result = run_cli(
        "init", tmp_path / "fair.csv", "--role", "occupation_husb=other", "--role", "rate_marriage=sensitive"
    )
    assert result.code == 0, result.stderr
    text = (tmp_path / "fair.policy.yaml").read_text()
    doc = yaml.safe_load(text)
    assert doc["columns"]["occupation_husb"]["role"] == "other"
    assert doc["columns"]["rate_marriage"]["role"] == "sensitive"
    assert "occupation_husb" not in " ".join(c for c in doc["checks"][0].get("quasi_identifiers", []))
    assert "# the role given by --role" in text and "#   occupation_husb" not in text  # not ranked
    assert {c["sensitive"] for c in doc["checks"] if "sensitive" in c} == {"rate_marriage", "affairs"}
    assert "quasi_identifier: age, yrs_married, children, religious, educ, occupation\n" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--role", "nope=quasi_identifier"], "fair.csv has no column 'nope'"),
        (["--role", "educ=key"], "--role educ=key: unknown role 'key' (roles: identifier, quasi_identifier,"),
        (
            ["--role", "educ=quasi_identifier", "--role", "educ=other"],
            "--role educ=other: the column 'educ' is given twice (already --role educ=quasi_identifier)",
        ),
        (["--role", "educ"], "--role educ: expected COLUMN=ROLE"),
        (["--role", "educatoin=other"], "(did you mean 'educ'?)"),
        (["--role", "affairs=weight"], "--role affairs=weight: a weight must be a positive number in every row of"),
    ],
)
def test_bad_role_hints_are_one_line(tmp_path, args, message):
    shutil.copy(FAIR, tmp_path / "fair.csv")
    result = run_cli("init", tmp_path / "fair.csv", *args)
    assert result.code == 2 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not result.stdout
    assert not (tmp_path / "fair.policy.yaml").exists() and not (tmp_path / "hierarchies").exists()


def test_reports_name_the_special_categories_present(tmp_path):
    shutil.copy(FAIR, tmp_path / "fair.csv")
    assert run_cli("init", tmp_path / "fair.csv").code == 0
    doc = yaml.safe_load((tmp_path / "fair.policy.yaml").read_text())
    doc["columns"]["rate_marriage"] = {"role": "other"}
    doc["columns"]["affairs"].pop("special_category")  # a hand-written policy: the header still names it
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    result = run_cli(
        "audit", tmp_path / "fair.csv", "--policy", tmp_path / "p.yaml", "--json", out, "--html", html, "--quiet"
    )
    assert result.code == 1, result.stderr
    special = json.loads(out.read_text())["scope"]["special_categories"]
    assert special == [
        {
            "column": "religious",
            "category": "religion",
            "label": "religious or philosophical beliefs",
            "article": "GDPR Art. 9",
            "by": "policy",
        },
        {
            "column": "affairs",
            "category": "sex_life",
            "label": "sex life or sexual orientation",
            "article": "GDPR Art. 9",
            "by": "header",
        },
    ]
    page = html.read_text()
    assert (
        "<th>special categories</th><td>religious (religious or philosophical beliefs, GDPR Art. 9); affairs "
        "(sex life or sexual orientation, GDPR Art. 9)</td>"
    ) in page
    assert "affairs (sex life or sexual orientation, GDPR Art. 9, by its header)." in page


def test_an_unknown_special_category_is_one_line(tmp_path):
    pd.DataFrame({"a": ["1", "2"], "b": ["x", "y"]}).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "p.yaml").write_text(
        "version: 1\nname: t\ncolumns:\n  a: {role: quasi_identifier}\n"
        "  b: {role: sensitive, special_category: wealth}\nchecks: []\n"
    )
    result = run_cli("policy", "check", tmp_path / "p.yaml", "--data", tmp_path / "d.csv")
    assert result.code == 2 and "columns.b.special_category" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_table_without_key_variables_says_so_and_drafts_no_vacuous_check(tmp_path):
    """CASC's reference file (tests/data/casc: income and tax amounts of the US CPS, a weight): confidential
    economics by the CPS codebook's names, no key variable; the draft must still pass ``policy check``."""
    shutil.copy(DATA / "casc" / "CASCrefmicrodata.csv", tmp_path / "casc.csv")
    result = run_cli("init", tmp_path / "casc.csv")
    assert result.code == 0, result.stderr
    assert "no quasi-identifier drafted" in result.stdout and "weight: AFNLWGT" in result.stdout
    doc = yaml.safe_load((tmp_path / "casc.policy.yaml").read_text())
    assert doc["checks"] == [] and doc["columns"]["FEDTAX"]["role"] == "sensitive"
    assert run_cli("policy", "check", tmp_path / "casc.policy.yaml", "--data", tmp_path / "casc.csv").code == 0


def test_init_prints_headers_without_their_control_characters(tmp_path):
    frame = pd.DataFrame({"sex\x1b[2J": ["1", "2"] * 10, "age": [str(20 + i) for i in range(20)]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    result = run_cli("init", tmp_path / "t.csv")
    assert result.code == 0 and "\x1b" not in result.stdout and "sex\\x1b[2J" in result.stdout, result.stdout


ARRESTS = DATA / "surveys" / "Arrests.csv"
GSSVOCAB = DATA / "surveys" / "GSSvocab.csv"


def test_a_bare_colour_header_is_read_by_its_value_labels():
    # carData::Arrests (tests/data/surveys/PROVENANCE.md): "colour" is the arrestee's skin colour, Black or
    # White, as early US censuses asked a person's "color"; drafted "other", a race column was neither a
    # key variable nor a special category. car_colour above still names a thing, not a person.
    frame = pd.read_csv(ARRESTS, dtype=str, keep_default_na=False)
    columns = {c.name: c for c in draft(frame, "Arrests.csv").columns}
    assert columns["colour"].role == "quasi_identifier"
    assert columns["colour"].special_category == "ethnicity"


def test_native_born_is_country_of_birth_not_age():
    # carData::GSSvocab's nativeBorn (born in the US: yes/no) read as "age or date of birth" by its part "born",
    # which ranked it with age among the demographics; the compound is of citizenship, as nativeborn is
    assert key_variable("nativeBorn").key == "citizenship"
    assert key_variable("native_born").key == "citizenship"
    assert key_variable("birth_year").key == "age"
    frame = pd.read_csv(GSSVOCAB, dtype=str, keep_default_na=False)
    result = draft(frame, "GSSvocab.csv")
    assert "nativeBorn" not in result.scenarios["demographics"]
    assert "nativeBorn" in result.scenarios["all_key_variables"]


PSID7682 = DATA / "surveys" / "PSID7682.csv"


def test_a_panels_repeating_person_id_is_its_cluster():
    # AER::PSID7682: 7 yearly records (1976-82) per person, linked by `id`; drafted "other", the records
    # were counted as 7 people, so a person alone in a class looked k=7. sdcMicro's hhId is the cluster of
    # records of one household or person (createSdcObj's hhId, its cluster id), as the uniqueness check reads it
    frame = pd.read_csv(PSID7682, dtype=str, keep_default_na=False)
    columns = {c.name: c for c in draft(frame, "PSID7682.csv").columns}
    assert columns["id"].role == "household_id"
    assert "several records per person" in columns["id"].notes[0]
    # one record per id is no cluster; nor is a coded column of a few values
    single = frame.drop_duplicates("id")
    assert {c.name: c.role for c in draft(single, "t.csv").columns}["id"] != "household_id"
    coded = frame.assign(id=frame["id"].astype(int).mod(7).astype(str))
    assert {c.name: c.role for c in draft(coded, "t.csv").columns}["id"] != "household_id"
