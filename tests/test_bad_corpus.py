"""The malformed-input corpus in tests/data/bad/: every case is answered by one clear line naming the
problem and exit 2 — never a traceback, never an output file, never a modified input.

Each case folder holds ``data.csv`` (or ``data.parquet``), ``policy.yaml``, the hierarchy ``sex.csv``
and ``expect.txt``, a phrase the error line must contain.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import DATA

CORPUS = DATA / "bad"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


def test_corpus_is_large_enough():
    assert len(CASES) >= 30


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_bad_case(name, tmp_path, run_cli):
    folder = tmp_path / name
    shutil.copytree(CORPUS / name, folder)
    expect = (folder / "expect.txt").read_text().strip()
    data = next(p for p in folder.iterdir() if p.name.startswith("data."))
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    out = tmp_path / "out"
    out.mkdir()
    code, stdout, stderr = run_cli(
        "audit", data, "--policy", folder / "policy.yaml", "--json", out / "r.json", "--html", out / "r.html"
    )
    lines = stderr.strip().splitlines()
    assert code == 2, (stdout, stderr)
    assert len(lines) == 1 and lines[0].startswith("privaudit: error: "), stderr
    assert expect in lines[0], lines[0]
    assert "Traceback" not in stderr and "internal error" not in stderr
    assert list(out.iterdir()) == []
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_huge_field_is_handled(tmp_path, run_cli):
    """A 3 MB field (made here rather than stored) loads; the audit runs and says what it found."""
    data = tmp_path / "data.csv"
    data.write_text("sex,age,disease\nM,30," + "x" * 3_000_000 + "\nF,40,cold\n")
    (tmp_path / "sex.csv").write_text("M;*\nF;*\n")
    (tmp_path / "policy.yaml").write_text((CORPUS / "k-zero" / "policy.yaml").read_text().replace("k: 0}", "k: 1}"))
    code, stdout, stderr = run_cli("audit", data, "--policy", tmp_path / "policy.yaml")
    assert code in (0, 1) and "verdict" in stdout, stderr


def test_formula_cells_are_data_not_errors(tmp_path, run_cli):
    """Formula-looking cells are ordinary values in an audit; exported tables neutralise them."""
    data = tmp_path / "data.csv"
    data.write_text("sex,age,disease\nM,30,=cmd|' /C calc'!A0\nF,40,@SUM(A1)\nM,30,flu\n")
    (tmp_path / "sex.csv").write_text("M;*\nF;*\n")
    (tmp_path / "policy.yaml").write_text((CORPUS / "k-zero" / "policy.yaml").read_text().replace("k: 0}", "k: 1}"))
    code, _, stderr = run_cli(
        "remediate",
        data,
        "--policy",
        tmp_path / "policy.yaml",
        "--method",
        "suppress",
        "--out",
        tmp_path / "fixed.csv",
        "--even-if-passing",  # k = 1 passes already: written only when asked
    )
    assert code == 0, stderr
    text = (tmp_path / "fixed.csv").read_text()
    assert "'=cmd|' /C calc'!A0" in text and "'@SUM(A1)" in text
