"""What a hostile or careless input still did: outputs onto inputs, devices, symlinks, FIFOs and
stdout; spreadsheet formulas in written CSVs; control characters in what is printed; thresholds that let
anything pass; resource exhaustion through policy-side files; YAML merge keys; Ctrl-C while writing."""

from __future__ import annotations

import csv
import io
import os
import shutil
import stat
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.testing import run_cli

RELEASE = ROOT / "examples" / "adult" / "release.csv"


@pytest.fixture
def workspace(tmp_path) -> Path:
    """The example's policy, hierarchies and release in a folder of their own."""
    shutil.copytree(ROOT / "policies" / "hierarchies", tmp_path / "hierarchies")
    shutil.copy(ROOT / "policies" / "adult.yaml", tmp_path / "adult.yaml")
    shutil.copy(RELEASE, tmp_path / "release.csv")
    return tmp_path


def audit(folder: Path, *extra):
    return run_cli("audit", folder / "release.csv", "--policy", folder / "adult.yaml", "--quiet", *extra)


def one_line(result, phrase: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1 and phrase in lines[0], result.stderr


# ------------------------------------------------------------------------------------------- data loss
def test_an_output_onto_a_policy_side_file_is_refused(workspace):
    hierarchy = workspace / "hierarchies" / "adult" / "sex.csv"
    before = hierarchy.read_bytes()
    one_line(audit(workspace, "--json", hierarchy), "an output would overwrite an input file")
    assert hierarchy.read_bytes() == before
    via_link = workspace / "sex-link.csv"
    via_link.symlink_to(hierarchy)  # the same file under another name: compared by inode too
    one_line(audit(workspace, "--json", via_link), "an output would overwrite an input file")


def test_two_outputs_on_one_path_are_refused(workspace):
    one_line(audit(workspace, "--json", workspace / "r.out", "--html", workspace / "r.out"), "given for two outputs")
    one_line(audit(workspace, "--json", "-", "--html", "-"), "- (standard output) is given for two outputs")
    one_line(
        run_cli(
            "remediate",
            workspace / "release.csv",
            "--policy",
            workspace / "adult.yaml",
            "--method",
            "suppress",
            "--out",
            workspace / "x.csv",
            "--json",
            workspace / "x.csv",
        ),
        "given for two outputs",
    )
    assert not (workspace / "x.csv").exists() and not (workspace / "r.out").exists()


def test_an_output_that_is_a_directory_is_refused(workspace):
    one_line(audit(workspace, "--json", workspace / "hierarchies"), "is a directory, not an output file")


def test_a_policy_side_path_to_a_directory_is_refused(workspace):
    policy = workspace / "adult.yaml"
    policy.write_text(policy.read_text().replace("hierarchy: hierarchies/adult/sex.csv", "hierarchy: hierarchies"))
    one_line(audit(workspace), "columns.sex.hierarchy: 'hierarchies' is a directory")


def test_randomize_artefacts_never_overwrite_an_input(tmp_path):
    frame = pd.DataFrame({"zip": ["1", "2"] * 20, "disease": ["flu", "cold"] * 20})
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "policy.yaml").write_text(
        "version: 1\nname: rr\ncolumns:\n  zip: {role: quasi_identifier}\n  disease: {role: sensitive}\n"
        "checks:\n  - {assessor: rr_attribute_disclosure, sensitive: disease, max_risk: 0.9}\n"
    )
    # randomize writes <out stem>.rr-<column>.csv (here it randomizes zip): that name is the released input
    victim = tmp_path / "fixed.rr-zip.csv"
    frame.to_csv(victim, index=False)
    before = victim.read_bytes()
    result = run_cli(
        "remediate",
        victim,
        "--policy",
        tmp_path / "policy.yaml",
        "--method",
        "randomize",
        "--option",
        "seed=1",
        "--out",
        tmp_path / "fixed.csv",
    )
    assert result.code == 2 and "an output would overwrite an input file" in result.stderr, result.stderr
    assert victim.read_bytes() == before and not (tmp_path / "fixed.csv").exists()


# -------------------------------------------------------------------------------- special output paths
def test_dev_null_and_symlinks_are_written_through(workspace):
    assert audit(workspace, "--json", "/dev/null").code == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)  # still the device, not a regular file
    target = workspace / "target.json"
    target.write_text("old")
    link = workspace / "link.json"
    link.symlink_to(target)
    assert audit(workspace, "--json", link).code == 0
    assert link.is_symlink() and target.read_text().startswith("{")


def test_a_fifo_is_written_through(workspace):
    fifo = workspace / "report.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert audit(workspace, "--json", fifo).code == 0
    reader.join(timeout=30)
    assert received and received[0].startswith(b"{") and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_dash_is_standard_output(workspace, monkeypatch):
    monkeypatch.chdir(workspace)
    result = run_cli("audit", "release.csv", "--policy", "adult.yaml", "--json", "-", "--quiet")
    assert result.code == 0 and not (workspace / "-").exists()
    assert result.stdout.startswith("{") and '"schema_version": 1' in result.stdout


# ------------------------------------------------------------------------------- formula injection
def test_written_csv_headers_and_labels_are_neutralised(tmp_path):
    from privaudit.remediation.export import table_bytes
    from privaudit.remediation.methods.randomize import matrix_csv
    from privaudit.risk.randomized_response import load_distortion_matrix

    frame = pd.DataFrame({'=HYPERLINK("http://x")': ["a", "=1+1"], "ok": [1, -2]})
    text = table_bytes(frame, tmp_path / "out.csv").decode()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ['\'=HYPERLINK("http://x")', "ok"] and rows[2] == ["'=1+1", "-2"]
    labels = ["+x", "=HYPERLINK(1)", "@cold", "flu"]
    (tmp_path / "m.csv").write_bytes(matrix_csv(labels, __import__("numpy").eye(4)))
    written = (tmp_path / "m.csv").read_text()
    assert "'+x" in written and "'=HYPERLINK(1)" in written and "'@cold" in written
    assert not any(line.startswith(("=", "+", "@")) for line in written.splitlines())
    assert load_distortion_matrix(tmp_path / "m.csv")[0] == labels  # read back as the labels they were


_CELL = st.text(alphabet=st.sampled_from(list("ab;,\"'=+-@ \n\r\t*0.5")), max_size=4)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    cells=st.lists(
        st.tuples(_CELL, _CELL, st.one_of(st.none(), st.floats(allow_nan=False, width=32)), st.integers(-3, 3)),
        min_size=0,
        max_size=12,
    ),
    delimiter=st.sampled_from([",", ";", "\t", "|"]),
    categorical=st.booleans(),
    missing=st.lists(st.booleans(), min_size=12, max_size=12),
)
def test_written_csv_is_pandas_text_exactly(cells, delimiter, categorical, missing):
    """table_bytes builds CSV text from each column's distinct values (a speed trick): the bytes must be
    exactly pandas' ``to_csv`` of the neutralised frame -- quoting, doubled quotes, newlines in cells,
    missing values, floats, whole numbers, formula prefixes, every delimiter."""
    from privaudit.remediation.export import neutralise, table_bytes

    frame = pd.DataFrame(cells, columns=["=text", "other", "x", "n"]).astype({"x": float, "n": int})
    frame["other"] = frame["other"].where(~pd.Series(missing[: len(frame)], dtype=bool), None)
    if categorical:
        frame["=text"] = frame["=text"].astype("category")
    frame["whole"] = np.arange(len(frame), dtype=float)  # written as whole numbers ("3", not "3.0")
    expected = frame.copy()
    for name in ("x", "whole"):  # float columns of whole numbers are written as integers
        values = expected[name].dropna()
        if (values == values.round()).all() and values.abs().max() < 2**53:
            expected[name] = expected[name].astype("Int64")
    expected = neutralise(expected)
    if expected["x"].dtype.kind == "f":  # other float columns: shortest text, whole values without ".0"
        expected["x"] = expected["x"].map(lambda v: v if pd.isna(v) else repr(v).removesuffix(".0"))
    want = expected.to_csv(sep=delimiter, index=False, na_rep="*", lineterminator="\n")
    assert table_bytes(frame, "out.csv", delimiter).decode() == want


# ---------------------------------------------------------------------------- terminal and log injection
def test_control_characters_are_escaped_in_what_is_printed(workspace):
    policy = workspace / "adult.yaml"
    policy.write_text(
        policy.read_text().replace(
            "- {assessor: k_anonymity, k: 5}", '- {id: "k\\nverdict: PASS\\e]0;owned\\a", assessor: k_anonymity, k: 50}'
        )
    )
    result = run_cli("audit", workspace / "release.csv", "--policy", policy)
    assert result.code == 1
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert [ln for ln in result.stdout.splitlines() if ln.startswith("verdict:")] == [
        ln for ln in result.stdout.splitlines() if ln.startswith("verdict: FAIL")
    ]
    assert "k\\nverdict: PASS\\x1b]0;owned\\x07" in result.stdout


# ------------------------------------------------------------------------------ a gate that passes too much
@pytest.mark.parametrize(
    "check, phrase",
    [
        ("{assessor: l_diversity, sensitive: occupation, l: .inf}", "checks[0]: l: inf is not a finite number"),
        ("{assessor: k_anonymity, k: true}", "checks[0]: k: a number is expected, not true"),
        ("{assessor: uniqueness, max_share: .nan}", "checks[0]: max_share: nan is not a finite number"),
    ],
)
def test_non_finite_and_boolean_thresholds_are_refused(workspace, check, phrase):
    policy = workspace / "adult.yaml"
    text = policy.read_text()
    start = text.index("checks:")
    policy.write_text(text[:start] + f"checks:\n  - {check}\n")
    one_line(audit(workspace), phrase)


def test_yaml_merge_keys_are_supported(workspace):
    policy = workspace / "adult.yaml"
    text = (
        policy.read_text()
        .replace(
            "  sex:            {role: quasi_identifier, type: nominal, hierarchy: hierarchies/adult/sex.csv}",
            "  sex: &qi {role: quasi_identifier, type: nominal, hierarchy: hierarchies/adult/sex.csv}",
        )
        .replace(
            "  race:           {role: quasi_identifier, type: nominal, hierarchy: hierarchies/adult/race.csv}",
            "  race: {<<: *qi, hierarchy: hierarchies/adult/race.csv}",
        )
    )
    policy.write_text(text)
    assert audit(workspace).code == 0
    duplicate = text.replace(
        "  race: {<<: *qi, hierarchy: hierarchies/adult/race.csv}", "  race: {<<: *qi, role: sensitive, role: other}"
    )
    policy.write_text(duplicate)
    one_line(audit(workspace), "duplicate key 'role'")  # explicit duplicates are still refused


# ------------------------------------------------------------------------------------- Ctrl-C while writing
def test_interrupt_while_writing_removes_what_was_written(workspace, monkeypatch):
    from privaudit.cli import outputs

    calls = []
    real = outputs.stage_output

    def interrupted(path, data):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(path, data)

    monkeypatch.setattr(outputs, "stage_output", interrupted)
    json_out, html_out = workspace / "r.json", workspace / "r.html"
    result = audit(workspace, "--json", json_out, "--html", html_out)
    assert result.code == 130 and "no output was written" in result.stderr
    assert not json_out.exists() and not html_out.exists()


# ------------------------------------------------------------------------- inputs that crashed an engine
@pytest.mark.parametrize("engine", ["in-process", "chunked", "duckdb"])
def test_a_field_over_128_kib_loads_on_every_engine(tmp_path, engine):
    data = tmp_path / "data.csv"
    data.write_bytes(b"sex,age,disease\nM,30," + b"x" * 200_000 + b"\nF,40,cold\n")
    (tmp_path / "policy.yaml").write_text(
        "version: 1\nname: big\ncolumns:\n  sex: {role: quasi_identifier}\n"
        "  disease: {role: sensitive}\nchecks:\n  - {assessor: k_anonymity, k: 1}\n"
    )
    result = run_cli("audit", data, "--policy", tmp_path / "policy.yaml", "--engine", engine, "--quiet")
    assert result.code == 0, result.stderr


@pytest.mark.parametrize("engine", ["in-process", "chunked", "duckdb"])
def test_a_file_name_that_is_not_utf8_is_one_line(tmp_path, engine):
    name = os.fsdecode(b"rel\xffease.csv")
    shutil.copy(ROOT / "tests" / "data" / "bad" / "k-zero" / "data.csv", tmp_path / name)
    (tmp_path / "policy.yaml").write_text("version: 1\nname: x\ncolumns:\n  sex: {role: quasi_identifier}\n")
    result = run_cli("audit", tmp_path / name, "--policy", tmp_path / "policy.yaml", "--engine", engine)
    one_line(result, "rel\\xffease.csv: the file name is not valid UTF-8; rename the file")


def test_header_names_match_after_unicode_normalisation(tmp_path):
    """A header typed with a combining accent (NFD) matches the policy's precomposed name (NFC)."""
    data = tmp_path / "data.csv"
    data.write_bytes("cafe\u0301,disease\n1,flu\n2,cold\n".encode())
    (tmp_path / "policy.yaml").write_text(
        "version: 1\nname: x\ncolumns:\n  caf\u00e9: {role: quasi_identifier}\n"
        "  disease: {role: sensitive}\nchecks:\n  - {assessor: k_anonymity, k: 1}\n",
        encoding="utf-8",
    )
    for engine in ("in-process", "chunked", "duckdb"):
        result = run_cli("audit", data, "--policy", tmp_path / "policy.yaml", "--engine", engine, "--quiet")
        assert result.code == 0, (engine, result.stderr)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["in-process", "chunked", "duckdb"])
def test_a_header_of_100000_columns_is_read_whole(tmp_path, engine):
    data = tmp_path / "wide.csv"
    data.write_text(",".join(f"c{i}" for i in range(100_000)) + "\n" + ",".join("1" for _ in range(100_000)) + "\n")
    (tmp_path / "policy.yaml").write_text("version: 1\nname: x\ncolumns:\n  sex: {role: quasi_identifier}\n")
    result = run_cli("audit", data, "--policy", tmp_path / "policy.yaml", "--engine", engine)
    one_line(result, "policy column 'sex' is absent from the data; columns found: 'c0', 'c1'")
