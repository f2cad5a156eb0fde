"""``--checks-csv OUT``: one row per check from the typed report, read back with the ``csv`` module; text
cells a spreadsheet would run as formulas get privaudit's apostrophe (privaudit/remediation/export.py;
OWASP, "CSV Injection")."""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import privaudit_cmd
from privaudit_extras.checks_csv import HEADER, guarded

from privaudit.testing import run_cli


@pytest.mark.parametrize(
    "text,written",
    [
        ("=1+1", "'=1+1"),
        ("+cmd", "'+cmd"),
        ("-x", "'-x"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("-3", "-3"),  # a plain number is not a formula
        ("1e-5", "1e-5"),
        ("k5", "k5"),
    ],
)
def test_formula_guard(text, written):
    assert guarded(text) == written


def test_one_row_per_check(release):
    policy = release / "policy.yaml"
    policy.write_text(policy.read_text().replace("id: ldiv", 'id: "=HYPERLINK(1)"'))
    out, js = release / "checks.csv", release / "r.json"
    done = run_cli("audit", release / "data.csv", "--policy", policy, "--checks-csv", out, "--json", js)
    assert done.code == 1, done.stderr
    raw = out.read_bytes()
    assert raw.startswith(b"id,assessor,status,severity,value,threshold\r\n")
    rows = list(csv.reader(io.StringIO(raw.decode())))
    assert tuple(rows[0]) == HEADER
    report = json.loads(js.read_text())
    assert len(rows) == 1 + len(report["checks"])
    by_id = {r[0]: r for r in rows[1:]}
    for c in report["checks"]:
        row = by_id[guarded(c["id"])]
        assert row[1:4] == [c["assessor"], c["status"], c["severity"]]
        assert float(row[4]) == pytest.approx(float(c["value"]))
    assert by_id["k5"][2:] == ["fail", "error", "1", "5"]
    assert "'=HYPERLINK(1)" in by_id and by_id["'=HYPERLINK(1)"][1:4] == ["l_diversity", "fail", "warning"]


def test_listed_in_help_and_refused_onto_an_input(release):
    helped = privaudit_cmd("audit", "--help")  # a fresh interpreter: the flag comes from the installed plugin
    assert helped.returncode == 0 and "--checks-csv OUT" in helped.stdout
    assert "one CSV row per check" in " ".join(helped.stdout.split())
    done = run_cli(
        "audit", release / "data.csv", "--policy", release / "policy.yaml", "--checks-csv", release / "data.csv"
    )
    assert done.code == 2 and done.stderr.count("\n") == 1
