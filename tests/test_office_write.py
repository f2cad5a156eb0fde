"""A remediated SPSS, Stata or SAS table is written back in its own format with its labels, user-missing codes,
formats and measures (privaudit/io/office_write.py); the policy says which user-missing codes mean a
suppression (µ-ARGUS's first missing code, µ-ARGUS 4.2 manual section 6.1) and which a refusal; a workbook's
sheet is chosen by name, and OpenDocument spreadsheets are read (privaudit/io/office.py).

The table is the NHIS 2009 sample of tests/data/surveys/mm_nhis.csv (tests/data/surveys/PROVENANCE.md), written
with pyreadstat's writers (ReadStat's) with the codebook's labels, a "Refused" code 9 of fml declared
user-missing, and education codes 97-99 declared missing as a range (SPSS's MISSING VALUES).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest

import privaudit
from privaudit.io.data import load_table
from privaudit.testing import load_policy

pyreadstat = pytest.importorskip("pyreadstat")
pytest.importorskip("odf")

NHIS = Path(__file__).parent / "data" / "surveys" / "mm_nhis.csv"
LABELS = {"fml": "Female", "age": "Age in years", "yedu": "Years of education", "hlth": "Health index"}
VALUES = {
    "fml": {0: "Male", 1: "Female", 9: "Refused"},
    "hlth": {1: "Poor", 5: "Excellent"},
    "yedu": {99: "Not applicable"},
}
POLICY = """\
version: 1
name: nhis
columns:
  fml: {role: quasi_identifier, type: nominal}
  nwhite: {role: quasi_identifier, type: nominal}
  age: {role: quasi_identifier, type: numeric}
  yedu: {role: quasi_identifier, type: numeric}
  hlth: {role: sensitive, type: ordinal, order: ["1", "2", "3", "4", "5"]}
  inc: {role: other, type: numeric}
  perweight: {role: weight, type: numeric}
checks:
  - {id: k, assessor: k_anonymity, k: 5, quasi_identifiers: [fml, nwhite, age, yedu]}
"""


def _frame() -> pd.DataFrame:
    frame = pd.read_csv(NHIS)
    frame.loc[frame.index[:40], "fml"] = 9  # refused
    frame.loc[frame.index[40:60], "yedu"] = 99  # not applicable
    return frame


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("office_write")
    frame = _frame()
    frame.to_csv(folder / "nhis.csv", index=False)
    pyreadstat.write_sav(
        frame,
        folder / "nhis.sav",
        column_labels=LABELS,
        variable_value_labels=VALUES,
        missing_ranges={"fml": [9], "yedu": [{"lo": 97, "hi": 99}]},
        variable_measure={"age": "scale", "fml": "nominal"},
        variable_format={"age": "F3.0", "inc": "F10.2"},
        file_label="NHIS 2009 sample",
    )
    pyreadstat.write_dta(frame, folder / "nhis.dta", column_labels=LABELS, variable_value_labels=VALUES)
    (folder / "policy.yaml").write_text(POLICY)
    return folder


def _json(run_cli, data: Path, policy: Path, out: Path, *extra: str) -> tuple[int, dict]:
    code, _, err = run_cli("audit", data, "--policy", policy, "--json", out, "--quiet", *extra)
    assert code in (0, 1), err
    return code, json.loads(out.read_text())


@pytest.mark.slow
def test_a_remediated_sav_keeps_its_labels_and_missing_codes_and_audits_again(files, run_cli, tmp_path):
    """Generalization bands age and yedu ("14-15"): those columns become string variables (their bands are the
    re-audit's hierarchy's text), keeping their labels, the value label of code 99 keyed "99", and measure
    scale turned ordinal; the columns left numbers keep every value label, user-missing code, format and
    measure, and the file its label. The written file audits again with the policy written beside it: exit
    0, the verdict and figures of remediate's re-audit."""
    out = tmp_path / "fixed.sav"
    report = tmp_path / "remediate.json"
    code, _, err = run_cli(
        "remediate", files / "nhis.sav", "--policy", files / "policy.yaml", "--method", "generalize",
        "--option", "max_suppression=0.05", "--out", out, "--json", report, "--quiet",
    )  # fmt: skip
    assert code == 0, err
    before_meta = pyreadstat.read_sav(files / "nhis.sav", metadataonly=True, user_missing=True)[1]
    frame, meta = pyreadstat.read_sav(out, user_missing=True)
    assert meta.file_label == "NHIS 2009 sample"
    assert meta.column_names_to_labels == before_meta.column_names_to_labels
    assert meta.readstat_variable_types["age"] == meta.readstat_variable_types["yedu"] == "string"
    assert meta.readstat_variable_types["fml"] == "double"
    assert meta.variable_value_labels["fml"] == {0.0: "Male", 1.0: "Female", 9.0: "Refused"}
    assert meta.variable_value_labels["hlth"] == {1.0: "Poor", 5.0: "Excellent"}
    assert meta.variable_value_labels["yedu"] == {"99": "Not applicable"}  # keyed by the code's text
    assert meta.missing_ranges["fml"] == [{"lo": 9.0, "hi": 9.0}]
    assert "yedu" not in meta.missing_ranges  # a range cannot be declared on a string variable: said in a note
    assert meta.original_variable_types["inc"] == "F10.2"
    assert meta.variable_measure["fml"] == "nominal" and meta.variable_measure["age"] == "ordinal"
    remediated = json.loads(report.read_text())
    notes = remediated["remediation"]["notes"]
    assert any("'yedu' is text after the remediation" in n and "97 thru 99" in n for n in notes)
    again_code, again = _json(run_cli, out, tmp_path / "fixed.reaudit.policy.yaml", tmp_path / "again.json")
    assert again_code == 0
    assert again["checks"] == remediated["checks"]
    assert again["summary"] == remediated["summary"]
    assert again["input"]["labels"]["fml"] == {
        "label": "Female",
        "values": {"0": "Male", "1": "Female", "9": "Refused"},
        "user_missing": ["9"],
    }


@pytest.mark.slow
def test_the_audit_of_a_sav_with_missing_codes_equals_its_csv_export(files, run_cli, tmp_path):
    """User-missing codes are values by default (the released file shows them, as its CSV export holds them):
    every figure equals the CSV's; the JSON adds the file's labels under input.labels."""
    _, sav = _json(run_cli, files / "nhis.sav", files / "policy.yaml", tmp_path / "sav.json")
    _, csv = _json(run_cli, files / "nhis.csv", files / "policy.yaml", tmp_path / "csv.json")
    assert sav["checks"] == csv["checks"] and sav["summary"] == csv["summary"]
    assert sav["input"]["labels"]["yedu"]["user_missing"] == ["97 thru 99"]
    assert "labels" not in csv["input"]
    api = privaudit.audit(files / "nhis.sav", files / "policy.yaml").to_dict()
    assert api["checks"] == csv["checks"] and api["input"]["labels"] == sav["input"]["labels"]


def _policy_with(tmp_path: Path, missing_codes: str) -> Path:
    path = tmp_path / "codes.yaml"
    path.write_text(
        POLICY.replace("fml: {role: quasi_identifier, type: nominal}", f"fml: {{role: quasi_identifier, type: nominal, missing_codes: {missing_codes}}}")
    )  # fmt: skip
    return path


@pytest.mark.parametrize("named", ["[9]", "[Refused]"])
def test_a_code_the_policy_calls_suppressed_is_read_as_missing(files, tmp_path, named):
    """missing_codes.suppressed names the code 9 (or its label "Refused"): its 40 cells are missing, as ``*``."""
    policy = load_policy(_policy_with(tmp_path, f"{{suppressed: {named}}}"))
    table = load_table(files / "nhis.sav", policy)
    assert int(table.frame["fml"].isna().sum()) == 40
    plain = load_table(files / "nhis.sav", load_policy(files / "policy.yaml"))
    assert int(plain.frame["fml"].isna().sum()) == 0 and (plain.frame["fml"].astype(str) == "9").sum() == 40


@pytest.mark.parametrize(
    "codes, data, said",
    [
        ("{suppressed: [Refsued]}", "nhis.sav", "missing_codes.suppressed 'Refsued' is neither a code nor a value label"),
        ("{suppressed: [9]}", "nhis.csv", "missing_codes applies to SPSS, Stata and SAS files"),
        ("{suppressed: [9], refused: ['9']}", "nhis.sav", "code '9' is both suppressed and refused"),
    ],
)  # fmt: skip
def test_bad_missing_codes_are_one_line(files, run_cli, tmp_path, codes, data, said):
    out = tmp_path / "r.json"
    code, _, err = run_cli("audit", files / data, "--policy", _policy_with(tmp_path, codes), "--json", out)
    assert code == 2 and err.count("\n") == 1 and said in err, err
    assert not out.exists()


@pytest.mark.slow
def test_a_suppression_is_written_back_as_the_suppressed_code(files, run_cli, tmp_path):
    """With fml's code 9 meaning "suppressed", the cells local suppression blanks in fml are written as 9 (declared
    missing), as µ-ARGUS writes its first missing code, and read back as missing: the file audits again."""
    policy = _policy_with(tmp_path, "{suppressed: [Refused]}")
    text = policy.read_text().replace("nominal, missing_codes", "nominal, importance: 3, missing_codes")
    policy.write_text(text.replace("nwhite: {role: quasi_identifier, type: nominal}", "nwhite: {role: quasi_identifier, type: nominal, importance: 2}"))  # fmt: skip
    out = tmp_path / "fixed.sav"
    code, _, err = run_cli(
        "remediate", files / "nhis.sav", "--policy", policy, "--method", "local_suppression", "--out", out, "--quiet"
    )
    assert code == 0, err
    frame, meta = pyreadstat.read_sav(out, user_missing=True)
    assert meta.missing_ranges["fml"] == [{"lo": 9.0, "hi": 9.0}]
    assert int(frame["fml"].isna().sum()) == 0 and (frame["fml"] == 9).sum() >= 40  # suppressions are the code
    again, _ = _json(run_cli, out, policy, tmp_path / "again.json")
    assert again == 0


@pytest.mark.slow
def test_a_stata_file_is_written_back_as_stata(files, run_cli, tmp_path):
    """A .dta output keeps its variable labels and the value labels of the columns still numbers."""
    out = tmp_path / "fixed.dta"
    code, _, err = run_cli(
        "remediate", files / "nhis.dta", "--policy", files / "policy.yaml", "--method", "local_suppression",
        "--out", out, "--quiet",
    )  # fmt: skip
    assert code == 0, err
    frame, meta = pyreadstat.read_dta(out)
    assert meta.column_names_to_labels["age"] == "Age in years"
    assert meta.variable_value_labels["fml"] == {0: "Male", 1: "Female", 9: "Refused"}
    assert _json(run_cli, out, files / "policy.yaml", tmp_path / "again.json")[0] == 0


def test_a_sas_data_set_cannot_be_written_and_says_so(files, run_cli, tmp_path):
    out = tmp_path / "fixed.sas7bdat"
    code, _, err = run_cli("remediate", files / "nhis.sav", "--policy", files / "policy.yaml", "--method", "suppress", "--out", out)  # fmt: skip
    assert code == 2 and err.count("\n") == 1
    assert "cannot write SAS data sets; write a SAS transport file (.xpt)" in err
    assert not out.exists()


def _workbooks(folder: Path) -> dict[str, Path]:
    frame = pd.read_csv(NHIS)
    cover = pd.DataFrame({"note": ["NHIS 2009 sample"]})
    out = {}
    for suffix, engine in ((".xlsx", "openpyxl"), (".ods", "odf")):
        path = folder / f"book{suffix}"
        with pd.ExcelWriter(path, engine=engine) as writer:
            cover.to_excel(writer, sheet_name="Cover", index=False)
            frame.head(400).to_excel(writer, sheet_name="Persons", index=False)
        out[suffix] = path
    frame.head(400).to_csv(folder / "persons.csv", index=False)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".xlsx", ".ods"])
def test_the_sheet_is_chosen_by_name(files, run_cli, tmp_path, suffix):
    """--sheet Persons reads the second sheet (the first is a cover page); the audit equals the CSV's; a sheet
    name with a typo is one line with the sheets and a did-you-mean, nothing written."""
    book = _workbooks(tmp_path)[suffix]
    _, found = _json(run_cli, book, files / "policy.yaml", tmp_path / "book.json", "--sheet", "Persons")
    _, expected = _json(run_cli, tmp_path / "persons.csv", files / "policy.yaml", tmp_path / "csv.json")
    assert found["checks"] == expected["checks"]
    out = tmp_path / "typo.json"
    code, _, err = run_cli("audit", book, "--policy", files / "policy.yaml", "--json", out, "--sheet", "Person")
    assert code == 2 and err.count("\n") == 1 and not out.exists()
    assert f"{book}: no sheet named 'Person' (did you mean 'Persons'?); its sheets: 'Cover', 'Persons'" in err
    code, _, err = run_cli("audit", book, "--policy", files / "policy.yaml", "--json", out)  # the cover page
    assert code == 2 and "absent from the data (wrong sheet? give --sheet NAME or the policy's data.sheet)" in err


@pytest.mark.slow
def test_the_api_reads_the_sheet_the_policy_names(files, tmp_path):
    book = _workbooks(tmp_path)[".ods"]
    policy = load_policy(files / "policy.yaml").model.model_dump(mode="json", exclude_none=True)
    policy["data"] = {**policy.get("data", {}), "sheet": "Persons"}
    report = privaudit.audit(book, policy)
    assert report.to_dict()["input"]["rows"] == 400


def _ods_with_formula(path: Path, encrypted: bool = False) -> Path:
    """A one-sheet OpenDocument spreadsheet whose column b is the formula of:=[.A2]*2 with the value the
    program saved beside it (OpenDocument 1.2 Part 1, 19.642 table:formula, 19.386 office:value)."""
    rows = "".join(
        f'<table:table-row><table:table-cell office:value-type="float" office:value="{a}"/>'
        f'<table:table-cell table:formula="of:=[.A{i + 2}]*2" office:value-type="float" office:value="{a * 2}"/>'
        "</table:table-row>"
        for i, a in enumerate([0, 1, 0, 1, 0, 1])
    )
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body>'
        '<office:spreadsheet><table:table table:name="S"><table:table-row>'
        '<table:table-cell office:value-type="string"><text:p>a</text:p></table:table-cell>'
        '<table:table-cell office:value-type="string"><text:p>b</text:p></table:table-cell></table:table-row>'
        f"{rows}</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    entry = '<manifest:encryption-data manifest:checksum-type="SHA1"/>' if encrypted else ""
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        f'<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{entry}'
        "</manifest:file-entry></manifest:manifest>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", zipfile.ZIP_STORED)
        archive.writestr("content.xml", content)
        archive.writestr("META-INF/manifest.xml", manifest)
    return path


def test_an_ods_formula_is_read_as_its_saved_value(run_cli, tmp_path):
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "version: 1\nname: t\ncolumns:\n  a: {role: quasi_identifier, type: nominal}\n"
        "  b: {role: quasi_identifier, type: nominal}\nchecks:\n  - {id: k, assessor: k_anonymity, k: 3}\n"
    )
    _, report = _json(run_cli, _ods_with_formula(tmp_path / "f.ods"), policy, tmp_path / "r.json")
    assert next(c for c in report["checks"] if c["id"] == "k")["status"] == "pass"  # (0, 0), (1, 2): 3 rows each


def _stata_119_header(path: Path, release: int) -> Path:
    path.write_bytes(f"<stata_dta><header><release>{release}</release><byteorder>LSF</byteorder>".encode() + bytes(64))
    return path


@pytest.mark.parametrize(
    "name, said",
    [
        ("locked.ods", "the spreadsheet is encrypted (password-protected)"),
        ("future.dta", "Stata file format 121 is not supported (formats 104 to 119 are read)"),
        ("ancient.dta", "Stata file format 103 is not supported"),
    ],
)
def test_a_bad_office_file_is_one_line(files, run_cli, tmp_path, name, said):
    bad = {
        "locked.ods": lambda p: _ods_with_formula(p, encrypted=True),
        "future.dta": lambda p: _stata_119_header(p, 121),
        "ancient.dta": lambda p: p.write_bytes(bytes([103, 2, 1, 0]) + bytes(200)) and p,
    }[name](tmp_path / name)
    out = tmp_path / "r.json"
    code, _, err = run_cli("audit", bad, "--policy", files / "policy.yaml", "--json", out)
    assert code == 2 and err.count("\n") == 1 and str(bad) in err and said in err, err
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".zsav", ".xpt"])
def test_a_compressed_spss_or_sas_transport_output_keeps_the_variable_labels(files, run_cli, tmp_path, suffix):
    """.zsav (zlib-compressed SPSS, $FL3) keeps value labels too; a SAS transport file holds variable labels and
    formats only (SAS keeps value labels in a format catalog): both audit again."""
    out = tmp_path / f"fixed{suffix}"
    code, _, err = run_cli(
        "remediate", files / "nhis.sav", "--policy", files / "policy.yaml", "--method", "local_suppression",
        "--out", out, "--quiet",
    )  # fmt: skip
    assert code == 0, err
    read = pyreadstat.read_sav if suffix == ".zsav" else pyreadstat.read_xport
    _, meta = read(out)
    assert meta.column_names_to_labels["yedu"] == "Years of education"
    if suffix == ".zsav":
        assert out.read_bytes()[:4] == b"$FL3"
        assert meta.variable_value_labels["fml"] == {0.0: "Male", 1.0: "Female", 9.0: "Refused"}
    assert _json(run_cli, out, files / "policy.yaml", tmp_path / "again.json")[0] == 0


@pytest.mark.slow
def test_init_drafts_the_sheet_it_read_into_the_policy(files, run_cli, tmp_path):
    book = _workbooks(tmp_path)[".xlsx"]
    out = tmp_path / "book.policy.yaml"
    code, _, err = run_cli("init", book, "--sheet", "Persons", "--out", out)
    assert code == 0, err
    assert 'data: {sheet: "Persons"}' in out.read_text()
    code, _, err = run_cli("audit", book, "--policy", out, "--json", tmp_path / "r.json", "--quiet")
    assert code in (0, 1), err


def test_an_order_of_value_labels_is_one_line_naming_the_codes(files, run_cli, tmp_path):
    """The values are the codes the file stores: an ordinal's order written as its labels (Poor .. Excellent)
    is refused with the codes to write instead."""
    policy = tmp_path / "labels.yaml"
    policy.write_text(
        POLICY.replace("order: [\"1\", \"2\", \"3\", \"4\", \"5\"]", "order: [Poor, \"2\", \"3\", \"4\", Excellent]")
    )  # fmt: skip
    code, _, err = run_cli("audit", files / "nhis.sav", "--policy", policy, "--json", tmp_path / "r.json")
    assert code == 2 and err.count("\n") == 1
    assert "it lists the file's value labels; list their codes instead: order: ['1', '2', '3', '4', '5']" in err


def test_missing_codes_a_string_variable_cannot_hold_are_said_in_a_note(tmp_path):
    """SPSS declares missing values on a string variable of at most 8 bytes, three single codes and no range
    (IBM SPSS Statistics, MISSING VALUES); a numeric column keeps its ranges, LOWEST THRU 0 included."""
    from privaudit.io.labels import ColumnLabels
    from privaudit.io.office_write import Source, office_bytes

    frame = pd.DataFrame({"band": ["[90, 99]", "[100, 109]", "9", None], "debt": [1.0, -3.0, 99.0, None]})
    source = Source(
        labels={
            "band": ColumnLabels("Age band", {"9": "Refused"}, ("9",)),
            "debt": ColumnLabels(None, {}, ("-inf thru 0", "99")),
        }
    )
    data, notes = office_bytes(frame, tmp_path / "t.sav", source)
    (tmp_path / "t.sav").write_bytes(data)
    _, meta = pyreadstat.read_sav(tmp_path / "t.sav", user_missing=True)
    assert "band" not in meta.missing_ranges and meta.variable_value_labels["band"] == {"9": "Refused"}
    assert notes == [
        "column 'band' is text after the remediation: SPSS declares at most three single missing codes on a string "
        "variable of at most 8 bytes, no range; kept none of 9"
    ]
    assert meta.missing_ranges["debt"] == [{"lo": float("-inf"), "hi": 0.0}, {"lo": 99.0, "hi": 99.0}]


def test_a_hierarchy_of_value_labels_is_one_line_naming_the_codes(files, run_cli, tmp_path):
    """A hierarchy's leaves are the values, the codes the file stores: leaves written as the labels (Male,
    Female, Refused) are refused with the code to write for them."""
    (tmp_path / "fml.csv").write_text("Male;*\nFemale;*\nRefused;*\n")
    policy = tmp_path / "h.yaml"
    policy.write_text(POLICY.replace("fml: {role: quasi_identifier, type: nominal}", "fml: {role: quasi_identifier, type: nominal, hierarchy: fml.csv}"))  # fmt: skip
    code, _, err = run_cli("audit", files / "nhis.sav", "--policy", policy, "--json", tmp_path / "r.json")
    assert code == 2 and err.count("\n") == 1
    assert (
        "its leaves are the file's value labels, such as 'Male'; write the codes the file stores, '0' for 'Male'" in err
    )
