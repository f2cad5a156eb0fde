"""Bad input: one clear line naming the problem, exit 2, no traceback, no output file left."""

from __future__ import annotations

import pytest
from conftest import write_policy

GOOD_POLICY = """version: 1
name: bad-input tests
columns:
  sex: {role: quasi_identifier, type: nominal, hierarchy: sex.csv}
  age: {role: quasi_identifier, type: numeric}
  disease: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 1}
  - {assessor: l_diversity, sensitive: disease, l: 1}
  - {assessor: t_closeness, sensitive: disease, t: 0.5}
"""
GOOD_DATA = "sex,age,disease\nM,30,flu\nF,40,cold\n"
SEX_HIERARCHY = "M;*\nF;*\n"


def case(tmp_path, *, data=GOOD_DATA, policy=GOOD_POLICY, hierarchy=SEX_HIERARCHY, data_bytes=None):
    d = tmp_path / "data.csv"
    if data_bytes is not None:
        d.write_bytes(data_bytes)
    elif data is not None:
        d.write_text(data)
    (tmp_path / "sex.csv").write_text(hierarchy)
    return d, write_policy(tmp_path, policy)


CASES = {
    "missing file": (dict(data=None), "not found"),
    "empty file": (dict(data=""), "empty"),
    "header only": (dict(data="sex,age,disease\n"), "header but no data rows"),
    "wrong delimiter": (
        dict(data="sex;age;disease\nM;30;flu\n", policy=GOOD_POLICY.replace("name:", "data: {delimiter: ','}\nname:")),
        "'sex' is absent from the data (wrong delimiter? the policy's data.delimiter is ',')",
    ),
    "non-UTF-8": (dict(data_bytes=b"sex,age,disease\nM,30,fl\xff\n"), "line 2: not valid UTF-8"),
    "ragged row": (dict(data="sex,age,disease\nM,30,flu\nF,40\n"), "line 3: expected 3 fields, found 2"),
    "absent policy column": (dict(data="sex,age\nM,30\n"), "policy column 'disease' is absent"),
    "duplicate columns": (dict(data="sex,age,age,disease\nM,1,2,flu\n"), "duplicate column name 'age'"),
    "text in numeric column": (
        dict(data="sex,age,disease\nM,30,flu\nF,forty,cold\n"),
        "column 'age', line 3: 'forty' is not a number",
    ),
    "value absent from hierarchy": (
        dict(data="sex,age,disease\nM,30,flu\nX,40,cold\n"),
        "value 'X' is not in hierarchy sex.csv",
    ),
    "hierarchy with two roots": (dict(hierarchy="M;*\nF;all\n"), "more than one root"),
    "hierarchy of uneven depth": (dict(hierarchy="M;m;*\nF;*\n"), "uneven depth"),
    "YAML syntax error": (dict(policy="version: 1\nname: [unclosed\ncolumns: {}\n"), "YAML syntax error at line"),
    "unknown assessor": (
        dict(policy=GOOD_POLICY + "  - {assessor: k_anon, k: 2}\n"),
        "unknown assessor 'k_anon' (did you mean 'k_anonymity'?) (available:",
    ),
    "unknown parameter": (dict(policy=GOOD_POLICY.replace("k: 1}", "kk: 5}")), "checks[0]: kk: unknown field"),
    "mistyped parameter": (
        dict(policy=GOOD_POLICY.replace("k: 1}", "k: five}")),
        "checks[0]: k: Input should be a valid integer",
    ),
    "k below 1": (
        dict(policy=GOOD_POLICY.replace("k: 1}", "k: 0}")),
        "checks[0]: k: Input should be greater than or equal to 1",
    ),
    "l below 1": (
        dict(policy=GOOD_POLICY.replace("l: 1}", "l: 0.5}")),
        "checks[1]: l: Input should be greater than or equal to 1",
    ),
    "t above 1": (
        dict(policy=GOOD_POLICY.replace("t: 0.5}", "t: 1.5}")),
        "checks[2]: t: Input should be less than or equal to 1",
    ),
    "t below 0": (
        dict(policy=GOOD_POLICY.replace("t: 0.5}", "t: -0.1}")),
        "checks[2]: t: Input should be greater than or equal to 0",
    ),
    "sensitive that is not sensitive": (
        dict(policy=GOOD_POLICY.replace("sensitive: disease, l", "sensitive: age, l")),
        "column 'age' has role 'quasi_identifier'",
    ),
    "unknown role": (dict(policy=GOOD_POLICY.replace("role: sensitive", "role: secret")), "columns.disease.role"),
    "policy not a mapping": (dict(policy="- just\n- a list\n"), "a policy must be a YAML mapping"),
    "missing version": (dict(policy=GOOD_POLICY.replace("version: 1\n", "")), "version: required field is missing"),
    "duplicate YAML key": (
        dict(policy=GOOD_POLICY.replace("name: bad-input tests", "name: a\nname: b")),
        "duplicate key 'name'",
    ),
    "path outside the policy folder": (
        dict(policy=GOOD_POLICY.replace("hierarchy: sex.csv", "hierarchy: ../sex.csv")),
        "leads outside the policy's folder",
    ),
    "ordinal value not in order": (
        dict(policy=GOOD_POLICY.replace("{role: sensitive}", "{role: sensitive, type: ordinal, order: [flu]}")),
        "'cold' is not in the policy's 'order'",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_one_line_exit_2(name, tmp_path, run_cli):
    kwargs, expected = CASES[name]
    data, policy = case(tmp_path, **kwargs)
    out = tmp_path / "out"
    out.mkdir()
    before = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    code, stdout, stderr = run_cli("audit", data, "--policy", policy, "--json", out / "r.json")
    assert code == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("privaudit: error: ")
    assert expected in lines[0], lines[0]
    assert "Traceback" not in stderr
    assert list(out.iterdir()) == []  # no output file, not even a partial one
    assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before  # inputs untouched


def test_missing_policy_file(tmp_path, run_cli):
    data, _ = case(tmp_path)
    code, _, err = run_cli("audit", data, "--policy", tmp_path / "nope.yaml")
    assert code == 2 and "policy file not found" in err


def test_output_folder_missing(tmp_path, run_cli):
    data, policy = case(tmp_path)
    code, _, err = run_cli("audit", data, "--policy", policy, "--json", tmp_path / "no" / "r.json")
    assert code == 2 and "does not exist" in err


def test_usage_error_exit_2(run_cli):
    with pytest.raises(SystemExit) as exc:
        run_cli("audit")
    assert exc.value.code == 2


def test_parquet_input(tmp_path, audit_json):
    import pandas as pd

    data, policy = case(tmp_path)
    frame = pd.read_csv(data)
    frame.to_parquet(tmp_path / "data.parquet")
    code, report = audit_json(tmp_path / "data.parquet", policy)
    assert code == 0 and report["input"]["rows"] == 2
    pd.DataFrame({"sex": ["M"], "age": ["old"], "disease": ["x"]}).to_parquet(tmp_path / "bad.parquet")
    from privaudit.cli import main

    assert main(["audit", str(tmp_path / "bad.parquet"), "--policy", str(policy)]) == 2
