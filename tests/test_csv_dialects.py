"""A European CSV (``;`` and a decimal comma) in Latin-1: the one-line errors say how to read it
(``data.decimal``, ``data.encoding``), and with them every engine that reads CSV audits it to the same report;
the Spark engine, and a dataset of several files, refuse another encoding in one line. A remediated table is
written back in the policy's decimal mark and encoding, and audits again under the same policy."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privaudit.core.errors import PolicyError
from privaudit.testing import run_cli

TOWNS = ["München", "Köln", "Düsseldorf", "Görlitz"]
POLICY = """version: 1
name: european
data: {delimiter: ";"%s}
columns:
  Geschlecht: {role: quasi_identifier}
  Alter: {role: quasi_identifier, type: numeric}
  Gemeinde: {role: quasi_identifier}
  Einkommen: {role: sensitive, type: numeric}
checks:
  - {assessor: k_anonymity, k: 2}
  - {assessor: t_closeness, sensitive: Einkommen, t: 0.3}
"""


@pytest.fixture
def european(tmp_path):
    rng = np.random.default_rng(2)
    lines = ["Geschlecht;Alter;Gemeinde;Einkommen"]
    for i in range(300):
        income = f"{rng.integers(1000, 9000)},{rng.integers(0, 100):02d}"
        lines.append(f"{'MW'[i % 2]};{rng.integers(18, 40)};{TOWNS[i % 4]};{income}")
    data = tmp_path / "eu.csv"
    data.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    return data


def _policy(tmp_path, extra: str = "", checks: str | None = None):
    path = tmp_path / "policy.yaml"
    text = POLICY % extra
    if checks is not None:
        text = text.split("checks:")[0] + "checks:\n" + checks
    path.write_text(text)
    return path


def _one_line(result, *phrases):
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1, result.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]


def test_each_problem_is_one_line_that_names_the_setting(tmp_path, european):
    latin = run_cli("audit", european, "--policy", _policy(tmp_path))
    _one_line(latin, "eu.csv: line 2: not valid UTF-8 (byte 0xfc", "set data.encoding: latin-1")
    comma = run_cli("audit", european, "--policy", _policy(tmp_path, ", encoding: latin-1"))
    _one_line(
        comma, "column 'Einkommen', line 2:", "is not a number (a decimal comma? set data.decimal: ',' in the policy)"
    )


@pytest.mark.parametrize("engine", ["chunked", "duckdb"])
def test_every_csv_engine_reads_latin_1_and_a_decimal_comma_alike(tmp_path, european, engine):
    policy = _policy(tmp_path, ", encoding: latin-1, decimal: ','")
    reports = {}
    for name in ("in-process", engine):
        result = run_cli("audit", european, "--policy", policy, "--engine", name, "--json", tmp_path / f"{name}.json")
        assert result.code == 1, result.stderr  # classes of one: a failed audit, read
        reports[name] = json.loads((tmp_path / f"{name}.json").read_text())
    values = {name: [(c["id"], c["value"]) for c in r["checks"]] for name, r in reports.items()}
    assert values["in-process"] == values[engine]
    t = dict(values[engine])["t_closeness"]
    assert 0 < t < 1  # incomes were read as numbers (1,5 as 1.5), not refused


def test_the_same_problems_on_the_chunked_and_duckdb_engines(tmp_path, european):
    for engine in ("chunked", "duckdb"):
        latin = run_cli("audit", european, "--policy", _policy(tmp_path), "--engine", engine)
        _one_line(latin, "not valid UTF-8 (byte 0xfc", "set data.encoding: latin-1")
        comma = run_cli("audit", european, "--policy", _policy(tmp_path, ", encoding: latin-1"), "--engine", engine)
        _one_line(comma, "'Einkommen', line 2:", "set data.decimal: ','")


def test_an_engine_that_cannot_read_the_encoding_says_so(tmp_path, european):
    cp1252 = _policy(tmp_path, ", encoding: cp1252, decimal: ','")
    _one_line(
        run_cli("audit", european, "--policy", cp1252, "--engine", "duckdb"),
        "the duckdb engine reads CSV in UTF-8 or Latin-1",
    )
    assert run_cli("audit", european, "--policy", cp1252, "--engine", "chunked", "--quiet").code == 1
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.csv").write_bytes(european.read_bytes())
    latin = _policy(tmp_path, ", encoding: latin-1, decimal: ','")
    _one_line(run_cli("audit", folder, "--policy", latin), "data.encoding 'iso8859-1' applies to a single CSV file")


@pytest.mark.slow
@pytest.mark.spark
def test_spark_refuses_another_encoding_in_one_line(tmp_path, european):
    pytest.importorskip("pyspark")
    latin = _policy(tmp_path, ", encoding: latin-1, decimal: ','")
    _one_line(run_cli("audit", european, "--policy", latin, "--engine", "spark"), "the spark engine reads CSV in UTF-8")


def test_a_remediated_table_is_written_in_the_policys_dialect(tmp_path, european):
    policy = _policy(tmp_path, ", encoding: latin-1, decimal: ','", checks="  - {assessor: k_anonymity, k: 2}\n")
    out = tmp_path / "fixed.csv"
    fixed = run_cli(
        "remediate", european, "--policy", policy, "--method", "suppress", "--option", "max_suppression=0.9",
        "--out", out, "--quiet",
    )  # fmt: skip
    assert fixed.code == 0, fixed.stderr
    text = out.read_bytes().decode("latin-1")
    assert "München" in text and ";" in text.splitlines()[0]
    assert any("," in line.split(";")[3] for line in text.splitlines()[1:])  # 1234,56 as read
    assert run_cli("audit", out, "--policy", policy, "--quiet").code == 0


def test_policy_settings_are_validated(tmp_path):
    from privaudit.core.policy import policy_from_dict
    from privaudit.pipeline.plugins import get_registry

    base = {"columns": {"sex": {"role": "quasi_identifier"}}, "checks": [{"assessor": "k_anonymity", "k": 2}]}
    cases = [
        ({"encoding": "utf-16"}, "privaudit reads UTF-8 or a single-byte encoding"),
        ({"encoding": "shift_jis"}, "privaudit reads UTF-8 or a single-byte encoding"),
        ({"encoding": "klingon"}, "unknown encoding 'klingon'"),
        ({"decimal": ";"}, "data.decimal"),
        ({"decimal": ",", "delimiter": ","}, "is also the delimiter"),
    ]
    for data, problem in cases:
        with pytest.raises(PolicyError, match=problem):
            policy_from_dict({**base, "data": data}, get_registry())
    assert policy_from_dict({**base, "data": {"encoding": "Latin-1"}}, get_registry()).data.encoding == "iso8859-1"


def test_init_drafts_the_encoding_it_was_told(tmp_path, european):
    out = tmp_path / "drafted.yaml"
    refused = run_cli("init", european, "--out", out)
    _one_line(refused, "not valid UTF-8", "(privaudit init: --encoding latin-1)")
    assert run_cli("init", european, "--out", out, "--encoding", "latin-1").code == 0
    assert 'data: {delimiter: ";", encoding: "latin-1"}' in out.read_text()
    assert run_cli("audit", european, "--policy", out, "--quiet").code in (0, 1)  # the draft reads its table
    _one_line(
        run_cli("init", european, "--out", out, "--encoding", "utf-16", "--force"), "--encoding: encoding 'utf-16'"
    )
