"""``privaudit init DATA --from-ddi CODEBOOK.xml``: a DDI Codebook imported into a policy.

Fixtures (tests/data/ddi/PROVENANCE.md): ``dct_codebook.xml``, a real DDI Codebook 2.5 export of Dataverse
(github.com/IQSS/dataverse ``src/test/resources/xml/dct_codebook.xml``, Apache 2.0): three variables, gender
(Male 1537, Female 1508), age_rollup (four categories, 0 "Under 18") and a weight declared by ``wgt="wgt"``;
the table here is built from its category frequencies (``catStat type="freq"``, 3045 cases, ``caseQnty``),
since the codebook ships without its ``dct.tab``. ``missing_codebook.xml`` is built from the DDI Codebook 2.5
documentation's examples of ``<invalrng>`` (the range 98-99, "98 DK 99 Inappropriate") and of
``<catgry missing="Y">``.
"""

from __future__ import annotations

import pandas as pd
import yaml
from conftest import ROOT

from privaudit.discovery.ddi import decided_from_ddi
from privaudit.testing import run_cli

DDI = ROOT / "tests" / "data" / "ddi"


def _dct_table(path):
    """3045 records with the codebook's category frequencies (gender 1: 1537, 2: 1508; age_rollup 2: 691,
    3: 1262, 4: 1092) and a positive weight."""
    gender = ["1"] * 1537 + ["2"] * 1508
    age = ["2"] * 691 + ["3"] * 1262 + ["4"] * 1092
    frame = pd.DataFrame({"Var1": gender, "Var2": age, "Var3": [0.5, 1.0, 1.5] * 1015})
    frame.to_csv(path, index=False)
    return frame


def test_dataverse_codebook_maps_labels_values_and_the_weight(tmp_path):
    data = tmp_path / "dct.csv"
    frame = _dct_table(data)
    decided = decided_from_ddi(DDI / "dct_codebook.xml", list(frame.columns))
    assert decided.labels == {"Var1": "gender", "Var2": "age_rollup", "Var3": "weight"}
    assert decided.value_labels["Var1"] == {"2": "Female", "1": "Male"}
    assert decided.value_labels["Var2"] == {"3": "35-54", "1": "Under 18", "4": "55+", "2": "18-34"}
    assert decided.roles == {"Var3": "weight"} and decided.column_missing == {}
    assert "Var1: wgt-var=v3070 (the weight its statistics used)" in decided.unmapped
    result = run_cli("init", data, "--from-ddi", DDI / "dct_codebook.xml")
    assert result.code == 0, result.stderr
    columns = yaml.safe_load((tmp_path / "dct.policy.yaml").read_text())["columns"]
    # the labels are the evidence: "gender" and "age_rollup" name key variables, the headers say nothing
    assert [columns[c]["role"] for c in ("Var1", "Var2", "Var3")] == ["quasi_identifier", "quasi_identifier", "weight"]
    assert "not mapped: Var1: wgt-var=v3070" in result.stdout


def test_missing_codes_and_stated_roles(tmp_path):
    data = tmp_path / "survey.csv"
    data.write_text("region,q1,v3,pw\n1,1950,1,10\n2,98,2,20\n9,99,-1,30\n1,1951,2,10\n2,1950,1,20\n")
    decided = decided_from_ddi(DDI / "missing_codebook.xml", ["region", "q1", "v3", "pw"])
    assert decided.column_missing == {"region": ["9"], "q1": ["98", "99"], "v3": ["-1"]}
    assert decided.roles == {"region": "quasi_identifier", "pw": "weight"}
    assert decided.unmapped == ["1 codebook variables the data lack: notinfile"]
    result = run_cli("init", data, "--from-ddi", DDI / "missing_codebook.xml")
    assert result.code == 0, result.stderr
    policy = yaml.safe_load((tmp_path / "survey.policy.yaml").read_text())
    assert policy["data"]["missing"] == ["-1", "9", "98", "99"]
    assert policy["columns"]["q1"]["role"] == "quasi_identifier"  # its label: Year of birth
    assert run_cli("policy", "check", tmp_path / "survey.policy.yaml", "--data", data).code == 0


def test_not_ddi_is_one_line(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("a,b\n1,2\n3,4\n")
    cases = {
        "html.xml": ("<html><body/></html>", "not a DDI codebook (its root element is <html>"),
        "broken.xml": ("<codeBook><dataDscr>", "not a DDI codebook: not well-formed XML"),
        "empty.xml": ('<codeBook xmlns="ddi:codebook:2_5"/>', "a DDI codebook without variables"),
        "entity.xml": (
            '<?xml version="1.0"?>\n<!DOCTYPE c [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<codeBook>&e;</codeBook>',
            "refused: the XML declares entities",
        ),
        "other.xml": ('<codeBook><dataDscr><var name="zz"/></dataDscr></codeBook>', "none of its 1 variables"),
    }
    for name, (text, said) in cases.items():
        (tmp_path / name).write_text(text)
        result = run_cli("init", data, "--from-ddi", tmp_path / name)
        assert result.code == 2 and said in result.stderr and result.stderr.count("\n") == 1, (name, result.stderr)
        assert str(tmp_path / name) in result.stderr
    assert not (tmp_path / "t.policy.yaml").exists()


def test_a_weight_with_zeros_is_left_to_the_draft(tmp_path):
    """The Dataverse codebook's weight has ``sumStat min`` 0.0: a policy's weight must be positive."""
    data = tmp_path / "dct.csv"
    frame = _dct_table(data)
    frame["Var3"] = [0.0, 1.0, 2.0] * 1015
    frame.to_csv(data, index=False)
    result = run_cli("init", data, "--from-ddi", DDI / "dct_codebook.xml")
    assert result.code == 0, result.stderr
    assert "not mapped: Var3: named a weight, but not a positive number in every row" in result.stdout
    assert yaml.safe_load((tmp_path / "dct.policy.yaml").read_text())["columns"]["Var3"]["role"] != "weight"
