"""``privaudit init DATA --from-muargus FILE.rda``: µ-ARGUS's metadata imported into a policy, and µ-ARGUS's
fixed-width data read through its ``.rda``.

Fixtures: µ-ARGUS's demonstration files (github.com/sdcTools/muargus at 18ba145, ``data/`` and ``hhdata/``;
EUPL 1.1; tests/data/muargus/PROVENANCE.md). Figures: the µ-ARGUS 5.1 user's manual
(``resources/MUmanual5.1.3.pdf`` of the same commit), section 3.4 on the DEMODATA file with the key variables
Region, Sex, Age and Marital status: "182*2*60*4 classes" (3.4.2); a re-identification rate of 1.956 %, "about
78 expected re-identifications", and 3968 records whose risk is above the threshold r* = 0.00125 (3.4.3.3 and
Figure 10); after recoding Region and Age with REGION.GRC and AGE.GRC "to 6 and 18 classes", 0.125 % ("5
expected re-identifications") and "less than 400" unsafe records (Figure 11). The shipped report
``hhdata/SamhhSafe.html`` gives town "7 (1)": seven categories, one missing code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import ROOT

from privaudit.core.errors import DataError
from privaudit.core.hierarchy import Hierarchy
from privaudit.discovery.muargus import tables_for_id, truncation_hierarchy
from privaudit.io.muargus import read_grc, read_rda, read_table
from privaudit.testing import run_cli

DATA = ROOT / "tests" / "data" / "muargus"


def test_rda_is_read_as_muargus_reads_it():
    """MetaReader.readMetadata: NAME START LENGTH MISSING1 MISSING2, then the keywords."""
    rda = read_rda(DATA / "Demodata.rda")
    assert len(rda.variables) == 33 and rda.fixed
    region = rda.variable("REGION")
    assert (region.start, region.length, region.missing) == (1, 4, ("9999", "9998"))
    assert (region.idlevel, region.priority, region.truncable, region.codelist) == (1, 50, True, "Regio.cdl")
    weight = rda.variable("WEIGHT")
    assert (weight.start, weight.length, weight.weight, weight.decimals, weight.missing) == (44, 6, True, 2, ())
    hh = read_rda(DATA / "Samhh.rda")
    assert hh.variable("hhnum").house_id and hh.variable("agehh").household
    assert hh.variable("town").missing == ("X",) and hh.variable("province").idlevel == 0


def test_tables_for_id_follow_the_muc_rule():
    """SelectCombinationsController.calculateTablesForID: Demodata's levels 1 (REGION), 2 (SEX), 3 (27 more)
    give REGION x SEX x each level-3 variable; Samhh's (1: town, MarStat; 2: sex; 3: age, employed, agehh)
    the ten tables enumerated by hand from the recursion."""
    demo = [v for v in read_rda(DATA / "Demodata.rda").variables if v.idlevel > 0]
    tables = tables_for_id(demo)
    assert len(tables) == 27 and all(t[:2] == ["REGION", "SEX"] for t in tables)
    assert [t[2] for t in tables] == [v.name for v in demo if v.idlevel == 3]
    hh = [v for v in read_rda(DATA / "Samhh.rda").variables if v.idlevel > 0]
    assert tables_for_id(hh) == [
        ["town", "MarStat", "sex"],
        ["town", "MarStat", "age"],
        ["town", "MarStat", "employed"],
        ["town", "MarStat", "agehh"],
        ["town", "sex", "age"],
        ["town", "sex", "employed"],
        ["town", "sex", "agehh"],
        ["MarStat", "sex", "age"],
        ["MarStat", "sex", "employed"],
        ["MarStat", "sex", "agehh"],
    ]


def test_grc_sets_as_the_manual_defines_them(tmp_path):
    """Manual 4.2.1: "7:-4,6,8-10,13-" recodes 0-4, 6, 8-10 and 13 upwards to 7; a code on no line stays."""
    grc = tmp_path / "x.grc"
    grc.write_text("7:-4,6,8-10,13-\n\n<MISSING> 98 99\n<CODELIST>\nx.cdl\n")
    recode = read_grc(grc)
    assert [c for c in map(str, range(16)) if recode.new_code(c) == "7"] == [
        "0", "1", "2", "3", "4", "6", "8", "9", "10", "13", "14", "15"
    ]  # fmt: skip
    assert recode.new_code("5") is None and recode.missing == ("98", "99") and recode.codelist == "x.cdl"
    age = read_grc(DATA / "Age.grc")
    assert [age.new_code(a) for a in ("15", "20", "21", "60", "61", "97")] == ["1", "1", "2", "5", "6", "6"]


def test_truncation_chops_trailing_digits(tmp_path):
    text = truncation_hierarchy(["36", "136"])
    assert text.splitlines() == ["36;3*;*;", "136;13*;1**;*"]
    (tmp_path / "t.csv").write_text(text)
    hierarchy = Hierarchy.from_csv(tmp_path / "t.csv")
    assert hierarchy.depth == {"36": 2, "136": 3}


def test_fixed_width_data_read_through_the_rda():
    """4000 records; the manual's 182*2*60*4 classes of Region, Sex, Age and Marital status; missing codes
    made missing per column; the .cdl labels on the fields."""
    table = read_table(DATA / "Demodata.asc", read_rda(DATA / "Demodata.rda"))
    frame = table.to_pandas()
    assert frame.shape == (4000, 33)
    assert [frame[c].nunique() for c in ("REGION", "SEX", "AGE", "MARSTAT")] == [182, 2, 60, 4]
    assert frame["WEIGHT"].iloc[0] == "118.30" and frame["AGEYOUNG"].isna().sum() == 0
    labels = json.loads(table.schema.field("SEX").metadata[b"privaudit:value_labels"])
    assert labels == {"1": "male", "2": "female"}
    town = read_table(DATA / "Samhh.asc", read_rda(DATA / "Samhh.rda")).to_pandas()["town"]
    assert town.nunique() == 7  # SamhhSafe.html: town "7 (1)", with the one missing code X


def _demo(tmp_path: Path) -> Path:
    for f in DATA.iterdir():
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


@pytest.mark.slow
def test_init_from_demodata_maps_the_rda(tmp_path):
    folder = _demo(tmp_path)
    result = run_cli("init", folder / "Demodata.asc", "--from-muargus", folder / "Demodata.rda")
    assert result.code == 0, result.stderr
    policy = yaml.safe_load((folder / "Demodata.policy.yaml").read_text())
    columns = policy["columns"]
    qis = [n for n, c in columns.items() if c["role"] == "quasi_identifier"]
    assert len(qis) == 29 and columns["WEIGHT"]["role"] == "weight"
    assert {columns[q]["importance"] for q in qis} == {1}  # every <SUPPRESSWEIGHT> is 50
    assert sorted(policy["data"]["missing"]) == ["999", "9998", "9999", "99999", "99999999"]
    scenario_checks = [c for c in policy["checks"] if c["assessor"] == "k_anonymity"]
    assert len(scenario_checks) == 27 and scenario_checks[0]["quasi_identifiers"] == ["REGION", "SEX", "AGE"]
    text = (folder / "Demodata.policy.yaml").read_text()
    assert "#   1: REGION\n#   2: SEX\n" in text
    assert "not mapped: REGION: <TRUNCABLE>" in result.stdout  # Region.grc is used; one hierarchy per column
    age = Hierarchy.from_csv(folder / columns["AGE"]["hierarchy"])
    assert list(age.generalize(["15", "20", "21", "61"], 1)) == ["age under 20"] * 2 + ["age 21-30", "age 61 and over"]
    assert columns["COMPCODE"]["hierarchy"] == "hierarchies/COMPCODE.csv"  # <TRUNCABLE>, no recoding
    check = run_cli("policy", "check", folder / "Demodata.policy.yaml", "--data", folder / "Demodata.asc")
    assert check.code == 0, check.stderr


def _four_keys(policy: dict) -> dict:
    """The manual's risk table: Region, Sex, Age and Marital status the only key variables."""
    keep = {"REGION", "SEX", "AGE", "MARSTAT"}
    for name, spec in list(policy["columns"].items()):
        if spec["role"] == "quasi_identifier" and name not in keep:
            policy["columns"][name] = {"role": "other", "type": "nominal"}
    policy["checks"] = [{"id": "risk", "assessor": "uniqueness", "max_share": 1.0}]
    return policy


def _risk(folder: Path, data: Path, policy: Path) -> tuple[dict, pd.Series]:
    result = run_cli("audit", data, "--policy", policy, "--json", folder / "r.json", "--records", folder / "r.csv")
    assert result.code in (0, 1), result.stderr
    report = json.loads((folder / "r.json").read_text())
    details = next(c for c in report["checks"] if c["id"] == "risk")["details"]
    return details, pd.read_csv(folder / "r.csv")["risk"]


@pytest.mark.slow
def test_audit_agrees_with_the_manual_before_and_after_recoding(tmp_path):
    folder = _demo(tmp_path)
    assert run_cli("init", folder / "Demodata.asc", "--from-muargus", folder / "Demodata.rda").code == 0
    policy = _four_keys(yaml.safe_load((folder / "Demodata.policy.yaml").read_text()))
    (folder / "four.yaml").write_text(yaml.safe_dump(policy))
    details, risk = _risk(folder, folder / "Demodata.asc", folder / "four.yaml")
    assert round(details["global_risk"] * 100, 3) == 1.956 and round(details["expected_reidentifications"]) == 78
    assert int((risk >= 0.00125).sum()) == 3968
    frame = read_table(folder / "Demodata.asc", read_rda(folder / "Demodata.rda")).to_pandas()
    for column in ("REGION", "AGE"):  # the drafted hierarchies' first level is REGION.GRC's and AGE.GRC's recoding
        hierarchy = Hierarchy.from_csv(folder / policy["columns"][column]["hierarchy"])
        frame[column] = hierarchy.generalize(frame[column], 1).to_numpy()
    assert (frame["REGION"].nunique(), frame["AGE"].nunique()) == (18, 6)
    frame.to_csv(folder / "recoded.csv", index=False)
    details, risk = _risk(folder, folder / "recoded.csv", folder / "four.yaml")
    assert round(details["global_risk"] * 100, 3) == 0.125 and round(details["expected_reidentifications"]) == 5
    assert int((risk >= 0.00125).sum()) < 400


@pytest.mark.slow
def test_household_file_roles_and_what_does_not_map(tmp_path):
    folder = _demo(tmp_path)
    result = run_cli("init", folder / "Samhh.asc", "--from-muargus", folder / "Samhh.rda")
    assert result.code == 0, result.stderr
    columns = yaml.safe_load((folder / "Samhh.policy.yaml").read_text())["columns"]
    assert (columns["hhnum"]["role"], columns["weight"]["role"], columns["province"]["role"]) == (
        "household_id",
        "weight",
        "other",
    )
    assert columns["agehh"]["role"] == "quasi_identifier"
    assert "not mapped: agehh: <HOUSEHOLD>" in result.stdout


def test_bad_input_is_one_line_and_writes_nothing(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("region,sex\n1,2\n3,4\n")
    rda = tmp_path / "t.rda"
    rda.write_text("REGION 1 4 9999\n  <IDLEVEL> 1\n")
    result = run_cli("init", data, "--from-muargus", rda)
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert f"{rda}: names the variable 'REGION', which {data} lacks" in result.stderr
    rda.write_text("region 1 1 9\n  <IDLEVEL> 7\n")
    result = run_cli("init", data, "--from-muargus", rda)
    assert result.code == 2 and "identification level of region is 7" in result.stderr
    assert not (tmp_path / "t.policy.yaml").exists()
    asc = tmp_path / "lonely.asc"
    asc.write_text("1 2\n")
    result = run_cli("init", asc)
    assert result.code == 2 and "no lonely.rda beside it" in result.stderr


def test_free_format_data_with_names_in_front(tmp_path):
    """Manual 6.1: ``<SEPARATOR> ","`` then ``<NAMESINFRONT>``; a variable line without a starting position."""
    (tmp_path / "f.rda").write_text(
        '<SEPARATOR> ","\n<NAMESINFRONT>\nREGION 4 9999\n  <IDLEVEL> 1\nSEX 1 9\n  <IDLEVEL> 2\n'
    )
    (tmp_path / "f.asc").write_text("REGION,SEX\n36, 1\n9999,2\n12,9\n")
    frame = read_table(tmp_path / "f.asc", read_rda(tmp_path / "f.rda")).to_pandas()
    assert frame.to_dict("list") == {"REGION": ["36", None, "12"], "SEX": ["1", "2", None]}
    (tmp_path / "f.asc").write_text("REGION,SEX\n36,1,5\n")
    with pytest.raises(DataError, match="3 fields per record, but f.rda describes 2"):
        read_table(tmp_path / "f.asc", read_rda(tmp_path / "f.rda"))


def test_short_fixed_records_are_padded(tmp_path):
    (tmp_path / "s.rda").write_text("A 1 2 99\nB 3 3 999\n")
    (tmp_path / "s.asc").write_text(" 1123\n 2\n99  7\n")
    frame = read_table(tmp_path / "s.asc", read_rda(tmp_path / "s.rda")).to_pandas()
    assert frame.to_dict("list") == {"A": ["1", "2", None], "B": ["123", None, "7"]}


def test_spss_description_reads_its_starting_position(tmp_path):
    """MetaReader.readMetadata reads (and may miss) a starting position for ``<SPSS>`` files too."""
    (tmp_path / "p.rda").write_text("<SPSS>\nAGE 1 2 99\n  <IDLEVEL> 3\n")
    age = read_rda(tmp_path / "p.rda").variable("AGE")
    assert (age.start, age.length, age.missing, age.idlevel) == (1, 2, ("99",), 3)
