"""The statistical offices' own files (SPSS, Stata, SAS, Excel) are read as released tables: an audit of one
equals the audit of the same table as CSV, the file's variable labels are evidence for ``privaudit init``, and
bad files are one line (privaudit/io/office.py).

The table is the NHIS 2009 sample of tests/data/surveys/mm_nhis.csv (tests/data/surveys/PROVENANCE.md:
stevedata::mm_nhis, Angrist and Pischke, *Mastering 'Metrics*), written with pyreadstat's writers (the
ReadStat library's) and openpyxl; its labels are the codebook's in PROVENANCE.md. iris.sas7bdat is R haven's
example file (tests/data/office/PROVENANCE.md).
"""

from __future__ import annotations

import json
import shutil
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

import privaudit
from privaudit.io.data import load_table
from privaudit.io.labels import ColumnLabels
from privaudit.testing import load_policy

pyreadstat = pytest.importorskip("pyreadstat")
openpyxl = pytest.importorskip("openpyxl")

DATA = Path(__file__).parent / "data"
NHIS = DATA / "surveys" / "mm_nhis.csv"
LABELS = {
    "fml": "Female",
    "hi": "Has health insurance",
    "hlth": "Health index",
    "nwhite": "Non-white",
    "age": "Age in years",
    "yedu": "Years of education",
    "famsize": "Family size",
    "empl": "Employed",
    "inc": "Family income",
    "perweight": "Person weight",
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
  - {id: l, assessor: l_diversity, sensitive: hlth, l: 2, quasi_identifiers: [fml, nwhite, age]}
  - {id: u, assessor: uniqueness, max_share: 0.05}
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """mm_nhis.csv as CSV, SPSS (.sav, .zsav), Stata, SAS transport and Excel files, with its labels."""
    folder = tmp_path_factory.mktemp("office")
    frame = pd.read_csv(NHIS)
    values = {"fml": {0: "Male", 1: "Female"}, "hlth": {1: "Poor", 5: "Excellent"}}
    shutil.copy(NHIS, folder / "nhis.csv")
    pyreadstat.write_sav(frame, folder / "nhis.sav", column_labels=LABELS, variable_value_labels=values)
    pyreadstat.write_sav(frame, folder / "nhis.zsav", column_labels=LABELS, compress=True)
    pyreadstat.write_dta(frame, folder / "nhis.dta", column_labels=LABELS, variable_value_labels=values)
    pyreadstat.write_xport(frame, folder / "nhis.xpt", column_labels=LABELS)
    frame.to_excel(folder / "nhis.xlsx", index=False)
    (folder / "policy.yaml").write_text(POLICY)
    return folder


def _audit(run_cli, data: Path, policy: Path, out: Path) -> dict:
    code, _, err = run_cli("audit", data, "--policy", policy, "--json", out, "--quiet")
    assert code in (0, 1), err
    return json.loads(out.read_text())


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, file_format",
    [
        ("nhis.sav", "spss"),
        ("nhis.zsav", "spss"),
        ("nhis.dta", "stata"),
        ("nhis.xpt", "sas-xport"),
        ("nhis.xlsx", "xlsx"),
    ],
)
def test_an_audit_of_the_file_equals_the_audit_of_its_csv_export(files, run_cli, tmp_path, name, file_format):
    """The codes come in as the codes (``1``, not ``1.0``: the ordinal hlth's order is ``"1"`` .. ``"5"``), so
    every check and figure equals the CSV's; only the input's description differs."""
    expected = _audit(run_cli, files / "nhis.csv", files / "policy.yaml", tmp_path / "csv.json")
    found = _audit(run_cli, files / name, files / "policy.yaml", tmp_path / "office.json")
    assert found["input"]["rows"] == expected["input"]["rows"] == 4000
    assert load_table(files / name, load_policy(files / "policy.yaml")).file_format == file_format
    assert found["checks"] == expected["checks"]
    assert found["summary"] == expected["summary"]
    statuses = {c["id"]: c["status"] for c in expected["checks"]}
    assert statuses["k"] == statuses["l"] == statuses["u"] == "fail"  # figures worth comparing: small classes


@pytest.mark.slow
def test_the_api_reads_a_stata_file_by_its_content_whatever_its_suffix(files, tmp_path):
    """A file whose suffix no reader claims goes to the reader whose magic number it carries."""
    odd = tmp_path / "nhis.release"
    shutil.copy(files / "nhis.dta", odd)
    report = privaudit.audit(odd, files / "policy.yaml")
    expected = privaudit.audit(files / "nhis.csv", files / "policy.yaml")
    assert report.to_dict()["checks"] == expected.to_dict()["checks"]
    assert load_table(odd, load_policy(files / "policy.yaml")).file_format == "stata"


def test_labels_and_user_missing_codes_are_kept_on_the_loaded_table(tmp_path):
    """Variable labels, value labels (keyed by the code as read: ``1``) and SPSS user-missing codes (kept as
    values, as the CSV export writes them) are the loaded table's."""
    frame = pd.DataFrame({"sex": [1.0, 2.0, 2.0, 9.0], "score": [0.5, 1.5, 2.5, 3.5]})
    path = tmp_path / "t.sav"
    pyreadstat.write_sav(
        frame,
        path,
        column_labels={"sex": "Sex of respondent"},
        variable_value_labels={"sex": {1: "Male", 2: "Female", 9: "Refused"}},
        missing_ranges={"sex": [9], "score": [{"lo": 90.0, "hi": 99.0}]},
    )
    policy_path = tmp_path / "p.yaml"
    policy_path.write_text(
        "version: 1\nname: t\ncolumns:\n  sex: {role: quasi_identifier, type: nominal}\n"
        "  score: {role: other, type: numeric}\nchecks:\n  - {id: k, assessor: k_anonymity, k: 1}\n"
    )
    table = load_table(path, load_policy(policy_path))
    assert table.file_format == "spss"
    assert list(table.frame["sex"].astype(str)) == ["1", "2", "2", "9"]
    assert table.labels["sex"] == ColumnLabels(
        "Sex of respondent", {"1": "Male", "2": "Female", "9": "Refused"}, ("9",)
    )
    assert table.labels["score"].missing == ("90 thru 99",)
    assert table.labels["sex"].shown("2") == "2 (Female)"


def test_statas_extended_missing_values_are_missing_and_listed():
    """tagged.dta (R haven's tagged_na): ``.a`` and ``.b`` are missing values (Stata manual [U] 12.2.1), the
    codes stay whole numbers, and the extended missing codes met are the column's user-missing codes."""
    policy = load_policy(
        {
            "version": 1,
            "name": "t",
            "columns": {
                "sex": {"role": "quasi_identifier", "type": "nominal"},
                "age": {"role": "other", "type": "numeric"},
            },
            "checks": [{"id": "k", "assessor": "k_anonymity", "k": 1}],
        }
    )
    table = load_table(DATA / "office" / "tagged.dta", policy)
    assert table.file_format == "stata"
    assert list(table.frame["sex"].astype(object).where(table.frame["sex"].notna(), None)) == [
        "1",
        "2",
        "2",
        "1",
        None,
        "2",
    ]
    assert table.frame["age"].isna().tolist() == [False, False, False, True, False, False]
    assert table.labels["sex"] == ColumnLabels("Sex of respondent", {"1": "Male", "2": "Female"}, (".a",))
    assert table.labels["age"].missing == (".b",)


@pytest.mark.slow
def test_init_drafts_sex_race_and_education_from_the_files_labels_alone(files, run_cli, tmp_path):
    """Headers that say nothing (v1 .. v10) and the codebook's labels in the .sav file: the drafted key
    variables name sex, race, education and employment by the labels; the same file without labels drafts none of them."""
    frame = pd.read_csv(NHIS)
    names = {c: f"v{i + 1}" for i, c in enumerate(frame.columns)}
    labelled, bare = tmp_path / "labelled.sav", tmp_path / "bare.sav"
    pyreadstat.write_sav(
        frame.rename(columns=names), labelled, column_labels={names[c]: text for c, text in LABELS.items()}
    )
    pyreadstat.write_sav(frame.rename(columns=names), bare)
    drafted = {}
    for path in (labelled, bare):
        (tmp_path / path.stem).mkdir()
        out = tmp_path / path.stem / "policy.yaml"
        code, _, err = run_cli("init", path, "--out", out)
        assert code == 0, err
        drafted[path.stem] = out.read_text()
    lines = {line.split(":")[0].strip(): line for line in drafted["labelled"].splitlines() if line.startswith("  v")}
    assert "sex or gender (its label 'Female')" in lines[names["fml"]]
    assert "ethnicity or race (its label 'Non-white')" in lines[names["nwhite"]]
    assert "education (its label 'Years of education')" in lines[names["yedu"]]
    assert "quasi_identifier" in lines[names["yedu"]]
    assert "employment status (its label 'Employed')" in lines[names["empl"]]
    assert all("quasi_identifier" in lines[names[c]] for c in ("fml", "nwhite", "yedu", "empl"))
    for said in ("sex or gender", "ethnicity or race", "education ("):
        assert said not in drafted["bare"]
    codebook = tmp_path / "codebook.csv"  # --labels overrides the file's label of a column
    codebook.write_text(f"column,label\n{names['fml']},Region of residence\n")
    code, _, err = run_cli("init", labelled, "--labels", codebook, "--out", tmp_path / "override.yaml")
    assert code == 0, err
    text = (tmp_path / "override.yaml").read_text()
    assert "its label 'Region of residence'" in text and "its label 'Female'" not in text
    assert "its label 'Non-white'" in text


def test_a_sas_data_set_is_read(run_cli, tmp_path):
    """R haven's iris.sas7bdat: 150 rows, three species of 50."""
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "version: 1\nname: t\ncolumns:\n  Species: {role: quasi_identifier, type: nominal}\n"
        "  Sepal_Length: {role: other, type: numeric}\nchecks:\n  - {id: k, assessor: k_anonymity, k: 50}\n"
    )
    report = _audit(run_cli, DATA / "office" / "iris.sas7bdat", policy, tmp_path / "r.json")
    assert report["input"]["rows"] == 150
    assert next(c for c in report["checks"] if c["id"] == "k")["status"] == "pass"


def _formula_workbook(path: Path, saved: bool) -> Path:
    """A workbook whose column b is a formula (=A2*2); ``saved``: with the value a spreadsheet program saves
    beside it (written into the sheet's XML, as Excel does: ECMA-376 Part 1, 18.3.1.4 c, v)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["a", "b"])
    for i in range(1, 7):
        sheet.append([i % 2, f"=A{i + 1}*2"])
    raw = tmp = path.with_suffix(".tmp.xlsx")
    book.save(raw)
    with zipfile.ZipFile(tmp) as source, zipfile.ZipFile(path, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml" and saved:
                for i in range(1, 7):
                    for empty in ("<v />", "<v></v>"):  # as openpyxl before and since 3.1.5 writes it
                        data = data.replace(
                            f"<f>A{i + 1}*2</f>{empty}".encode(), f"<f>A{i + 1}*2</f><v>{i % 2 * 2}</v>".encode()
                        )
            target.writestr(item, data)
    tmp.unlink()
    return path


def test_a_formula_is_read_as_its_saved_value_never_evaluated(run_cli, tmp_path):
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "version: 1\nname: t\ncolumns:\n  a: {role: quasi_identifier, type: nominal}\n"
        "  b: {role: quasi_identifier, type: nominal}\nchecks:\n  - {id: k, assessor: k_anonymity, k: 3}\n"
    )
    report = _audit(run_cli, _formula_workbook(tmp_path / "saved.xlsx", True), policy, tmp_path / "r.json")
    assert next(c for c in report["checks"] if c["id"] == "k")["status"] == "pass"  # (0, 0), (1, 2): 3 rows each


def _bad_files(folder: Path, files: Path) -> dict[str, Path]:
    sav = (files / "nhis.sav").read_bytes()
    book = (files / "nhis.xlsx").read_bytes()
    made = {
        "truncated.sav": sav[: len(sav) // 2],
        "notstata.dta": b"fml,age\n1,40\n0,41\n",
        "locked.xlsx": bytes.fromhex("d0cf11e0a1b11ae1") + bytes(1024),  # an encrypted workbook is OLE2 (MS-OFFCRYPTO)
        "cut.xlsx": book[: len(book) // 2],
    }
    for name, data in made.items():
        (folder / name).write_bytes(data)
    archive = folder / "plain.xlsx"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("notes.txt", "not a workbook")
    out = {name: folder / name for name in made}
    out["plain.xlsx"] = archive
    out["unsaved.xlsx"] = _formula_workbook(folder / "unsaved.xlsx", False)
    twice = openpyxl.Workbook()
    for row in (["age", "sex", "age"], [30, 1, 31]):
        twice.active.append(row)
    twice.save(folder / "twice.xlsx")
    out["twice.xlsx"] = folder / "twice.xlsx"
    return out


@pytest.mark.parametrize(
    "name, said",
    [
        ("truncated.sav", "cannot be read as an SPSS file (truncated or damaged?)"),
        ("notstata.dta", "not a Stata file"),
        ("locked.xlsx", "the workbook is encrypted (password-protected)"),
        ("cut.xlsx", "not an Excel workbook (not a zip archive"),
        ("plain.xlsx", "the zip archive holds no xl/workbook.xml"),
        ("unsaved.xlsx", "cell B2: a formula saved without its value"),
        ("twice.xlsx", "duplicate column name 'age' in the header (row 1)"),
    ],
)
def test_a_bad_file_is_one_line_naming_it_and_nothing_is_written(files, run_cli, tmp_path, name, said):
    bad = _bad_files(tmp_path, files)[name]
    out = tmp_path / "report.json"
    code, stdout, err = run_cli("audit", bad, "--policy", files / "policy.yaml", "--json", out)
    assert code == 2
    assert err.count("\n") == 1 and str(bad) in err and said in err, err
    assert not out.exists()


def test_a_missing_format_library_is_one_line_saying_how_to_install_it(files, run_cli, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyreadstat", None)  # import pyreadstat raises ImportError
    code, _, err = run_cli(
        "audit", files / "nhis.sav", "--policy", files / "policy.yaml", "--json", tmp_path / "r.json"
    )
    assert code == 2
    assert err.strip() == (
        f"privaudit: error: {files / 'nhis.sav'}: reading .sav files needs pyreadstat: pip install 'privaudit[office]'"
    )


@pytest.mark.slow
def test_worst_classes_show_a_codes_value_label_beside_it(files, run_cli, tmp_path):
    """The HTML report's worst classes read ``0 (Male)`` where the .sav file labels the code (fml: 0 Male,
    1 Female); the JSON report keeps the code alone, as the CSV's."""
    html, out = tmp_path / "r.html", tmp_path / "r.json"
    code, _, err = run_cli(
        "audit", files / "nhis.sav", "--policy", files / "policy.yaml", "--html", html, "--json", out, "--quiet"
    )
    assert code == 1, err
    page = html.read_text()
    assert "<td>0 (Male)</td>" in page  # the 20 smallest classes of fml, nwhite, age, yedu are men's
    worst = next(c for c in json.loads(out.read_text())["checks"] if c["id"] == "k")["details"]["worst_classes"]
    assert {row["values"]["fml"] for row in worst} <= {"0", "1"}
