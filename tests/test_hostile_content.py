"""Hostile content that costs time or memory, and the red team's remaining defects (its parts 3
and 4): adversarial 100 kB values and headers for the identifier scan, huge or deep hierarchies, a policy
of 10^4 scenarios, SOURCE_DATE_EPOCH out of range, a quoted field over 64 KiB on the last line, an ASCII
terminal with non-ASCII names."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pandas as pd
import pytest
from test_plugin_faults import pythonpath

from privaudit.discovery.headers import HEADER_KINDS, header_kinds
from privaudit.discovery.recognizers import RECOGNIZERS
from privaudit.discovery.scan import mask, scan_column
from privaudit.testing import run_cli

#: values of 100 kB built to make a backtracking matcher try every split: long runs of what a pattern's
#: repeated parts accept, ending in a character that makes the match fail
ADVERSARIAL = [
    "a" * 100_000 + "!",
    "1" * 100_000 + "x",
    "1 " * 50_000 + "x",
    "1-" * 50_000 + "x",
    "a." * 50_000 + "@",
    "a@" + "a." * 50_000 + "1",
    "00" + "1 (" * 33_333 + "x",
    "www." + "a-" * 50_000 + "!",
    "http://" + "a" * 100_000 + " !",
    "1 " + "abc " * 25_000 + "x",
    "ab" + "12" * 50_000,
    "12:" * 33_333 + "g",
    "straße " * 14_000 + "x",
    "calle " + "a, " * 33_000 + "x",
]

#: headers that make every recognizer run (weak ones need their header), and one hostile header
HEADERS = [
    "email",
    "phone",
    "national_id",
    "street_address",
    "iban",
    "ip_address",
    "url",
    "licence_plate",
    "vin",
    "device_id",
    "mac_address",
]


def test_a_100_kb_header_is_read_within_a_second():
    """Runs of tokens were joined every way (1,600 tokens took minutes): now only runs no longer than the
    longest known word."""
    started = time.process_time()
    assert header_kinds("a_" * 50_000) == set() and header_kinds("e_" * 50_000 + "mail") == {"email"}
    assert time.process_time() - started < 1.0


def test_the_headers_cover_every_recognizer():
    wanted = {kind for h in HEADERS for hk in header_kinds(h) for kind in HEADER_KINDS.get(hk, ())}
    assert {r.kind for r in RECOGNIZERS if not r.strong} <= wanted


@pytest.mark.parametrize("header", HEADERS, ids=lambda h: h[:12])
def test_each_recognizer_returns_within_a_second_on_100_kb_adversarial_values(header):
    series = pd.Series(ADVERSARIAL + ["x"] * 20)
    started = time.process_time()  # CPU time: the machine's load does not count
    scan_column(header, series)
    for value in ADVERSARIAL[:3]:
        mask(value, "email")
    assert time.process_time() - started < 1.0


def test_a_hierarchy_of_a_million_leaves_or_100000_levels_is_one_line(tmp_path):
    pd.DataFrame({"a": ["v0", "v1"] * 10, "s": ["x", "y"] * 10}).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "wide.csv").write_text("".join(f"v{i};g{i % 1000};*\n" for i in range(1_000_000)))
    (tmp_path / "deep.csv").write_text(
        "".join(f"v{i};" + ";".join(f"l{j}" for j in range(1, 100_000)) + "\n" for i in range(2))
    )
    for name, phrase in (
        ("wide", "1,000,000 leaves of 3 labels each; a hierarchy holds at most 1,000,000 labels"),
        ("deep", "99,999 levels; a hierarchy has at most 1,000"),
    ):
        (tmp_path / "policy.yaml").write_text(
            f"version: 1\nname: h\ncolumns:\n  a: {{role: quasi_identifier, "
            f"hierarchy: {name}.csv}}\n  s: {{role: sensitive}}\n"
        )
        started = time.process_time()
        result = run_cli("audit", tmp_path / "data.csv", "--policy", tmp_path / "policy.yaml")
        assert result.code == 2 and len(result.stderr.splitlines()) == 1, result.stderr
        assert f"hierarchy {name}.csv: {phrase}" in result.stderr
        assert time.process_time() - started < 3.0


@pytest.mark.slow
def test_ten_thousand_scenarios_are_refused_in_one_line(tmp_path):
    pd.DataFrame({"a": ["1", "2"] * 5, "b": ["x", "y"] * 5}).to_csv(tmp_path / "data.csv", index=False)
    checks = "".join(f"  - {{id: s{i}, assessor: k_anonymity, k: 2, quasi_identifiers: [a]}}\n" for i in range(10_000))
    (tmp_path / "policy.yaml").write_text(
        "version: 1\nname: many\ncolumns:\n  a: {role: quasi_identifier}\n"
        "  b: {role: quasi_identifier}\nchecks:\n" + checks
    )
    result = run_cli("audit", tmp_path / "data.csv", "--policy", tmp_path / "policy.yaml")
    assert result.code == 2 and "10,000 checks; a policy holds at most 1,000" in result.stderr, result.stderr


# ----------------------------------------------------------------------------------- red-team defects
@pytest.mark.parametrize("value", ["99999999999999999", "-5", "1e9", "2023-11-14", "253402300800"])
def test_a_malformed_source_date_epoch_is_one_line(tmp_path, monkeypatch, value):
    pd.DataFrame({"a": ["1", "2"] * 5}).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "policy.yaml").write_text("version: 1\nname: x\ncolumns:\n  a: {role: quasi_identifier}\n")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    result = run_cli(
        "audit", tmp_path / "data.csv", "--policy", tmp_path / "policy.yaml", "--json", tmp_path / "r.json"
    )
    assert result.code == 2 and not (tmp_path / "r.json").exists()
    assert result.stderr.strip() == (
        f"privaudit: error: SOURCE_DATE_EPOCH={value!r}: expected whole seconds since "
        "1970-01-01 UTC, from 0 to 253402300799 (year 9999)"
    )
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "253402300799")  # the last second of year 9999 is fine
    assert run_cli("audit", tmp_path / "data.csv", "--policy", tmp_path / "policy.yaml", "--quiet").code == 0


@pytest.mark.parametrize("engine", ["in-process", "chunked", "duckdb"])
@pytest.mark.parametrize("ending", ["\n", ""])
def test_a_quoted_field_over_64_kib_on_the_last_line_is_read(tmp_path, engine, ending):
    (tmp_path / "policy.yaml").write_text(
        "version: 1\nname: big\ncolumns:\n  sex: {role: quasi_identifier}\n"
        "  disease: {role: sensitive}\nchecks:\n  - {assessor: k_anonymity, k: 1}\n"
    )
    data = tmp_path / "data.csv"
    data.write_text('sex,age,disease\nM,30,flu\nF,40,"' + "x" * 70_000 + '"' + ending)
    result = run_cli("audit", data, "--policy", tmp_path / "policy.yaml", "--engine", engine, "--quiet")
    assert result.code == 0, result.stderr
    data.write_text('sex,age,disease\nM,30,flu\nF,40,"a\nb"' + ending)  # a quoted line break on the last line
    assert run_cli("audit", data, "--policy", tmp_path / "policy.yaml", "--engine", engine, "--quiet").code == 0
    data.write_text('sex,age,disease\nM,30,flu\nF,40,"' + "x" * 70_000 + ending)  # truly cut off
    result = run_cli("audit", data, "--policy", tmp_path / "policy.yaml", "--engine", engine, "--quiet")
    assert result.code == 2 and "line 3: unterminated quoted field (is the file truncated?)" in result.stderr


@pytest.mark.slow
def test_an_ascii_terminal_with_non_ascii_names(tmp_path):
    (tmp_path / "data.csv").write_text("café,disease\né,flu\né,cold\nü,x\n", encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(
        "version: 1\nname: ünï\ncolumns:\n  café: {role: quasi_identifier}\n"
        "  disease: {role: sensitive}\nchecks:\n  - {id: kü, assessor: k_anonymity, "
        "k: 2}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": pythonpath(), "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}
    proc = subprocess.run(
        [sys.executable, "-m", "privaudit", "audit", "data.csv", "--policy", "policy.yaml", "--markdown", "summary.md"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
    )
    assert proc.returncode == 1, proc.stderr
    assert b"FAIL" in proc.stdout and b"k\\xfc" in proc.stdout and proc.stderr == b""
    assert "kü" in (tmp_path / "summary.md").read_text(encoding="utf-8")  # files stay UTF-8
