"""`privaudit remediate` used as a demanding data owner would: the written file is what was re-audited,
numbers are written as they were read, bad options are one line and nothing is written, and a
randomized output can be audited again with the figures the remediation printed."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
from conftest import write_rr_table

from privaudit.testing import run_cli

FRANCDAT = """Num1,Key1,Num2,Num3,w
0.3,1,0.4,4,18
0.12,1,0.22,22,45.5
0.18,1,0.8,8,39
1.9,3,9,91,17
1,4,1.3,13,541
1,4,1.4,14,8
0.1,6,0.01,1,5
0.15,1,0.5,5,92
"""

FRANCDAT_POLICY = """version: 1
name: francdat
columns:
  Num1: {role: quasi_identifier, type: numeric}
  Key1: {role: other, type: numeric}
  Num2: {role: quasi_identifier, type: numeric}
  Num3: {role: sensitive, type: numeric}
  w: {role: weight, type: numeric}
checks:
  - {assessor: k_anonymity, k: 3}
"""

TEST2 = """ZIPCode;Age;Disease
47677;29;gastric ulcer
47602;22;gastritis
47678;27;stomach cancer
47905;43;gastritis
47909;52;flu
47906;47;bronchitis
47605;30;bronchitis
47673;36;pneumonia
47607;32;stomach cancer
"""

TEST2_POLICY = """version: 1
name: test2
data: {delimiter: ";"}
columns:
  ZIPCode: {role: quasi_identifier, type: nominal, hierarchy: zip.csv}
  Age: {role: quasi_identifier, type: nominal, hierarchy: age.csv}
  Disease: {role: sensitive, type: nominal}
REMEDIATION
checks:
  - {assessor: k_anonymity, k: 3}
"""


def _checks(report: dict) -> dict:
    return {c["id"]: (c["status"], c["value"]) for c in report["checks"]}


def _test2(tmp_path, remediation: str = "") -> tuple:
    data = tmp_path / "test2.csv"
    data.write_text(TEST2)
    zips = pd.read_csv(data, sep=";", dtype=str)["ZIPCode"].unique()
    pd.DataFrame([[z, z[:4] + "*", z[:3] + "**", "*"] for z in zips]).to_csv(
        tmp_path / "zip.csv", sep=";", header=False, index=False
    )
    ages = pd.read_csv(data, sep=";", dtype=str)["Age"].unique()
    pd.DataFrame([[a, f"{int(a) // 10 * 10}-{int(a) // 10 * 10 + 9}", "*"] for a in ages]).to_csv(
        tmp_path / "age.csv", sep=";", header=False, index=False
    )
    policy = tmp_path / "test2.yaml"
    policy.write_text(TEST2_POLICY.replace("REMEDIATION", remediation))
    return data, policy


def test_microaggregated_output_is_written_as_read_and_reaudits_identically(tmp_path):
    data, policy = tmp_path / "francdat.csv", tmp_path / "francdat.yaml"
    data.write_text(FRANCDAT)
    policy.write_text(FRANCDAT_POLICY)
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    run = run_cli("remediate", data, "--policy", policy, "--method", "microaggregate", "--out", out, "--json", report)
    assert run.code == 0, run.stderr
    rows = out.read_text().splitlines()
    assert rows[0] == "Num1,Key1,Num2,Num3,w"
    # the untouched weight column: "18" and "45.5" as read (was "18.0"); centroids without float noise
    # (was 0.16999999999999998 and 3.9000000000000004)
    assert [r.split(",")[4] for r in rows[1:]] == ["18", "45.5", "39", "17", "541", "8", "5", "92"]
    assert {r.split(",")[0] for r in rows[1:]} == {"0.17", "1.3"}
    assert {r.split(",")[2] for r in rows[1:]} == {"0.386", "3.9"}
    assert [r.split(",")[3] for r in rows[1:]] == ["4", "22", "8", "91", "13", "14", "1", "5"]
    fresh = tmp_path / "a.json"
    assert run_cli("audit", out, "--policy", policy, "--json", fresh).code == 0
    assert _checks(json.loads(fresh.read_text())) == _checks(json.loads(report.read_text()))


def test_parquet_output_reads_back_as_the_csv(tmp_path):
    data, policy = tmp_path / "francdat.csv", tmp_path / "francdat.yaml"
    data.write_text(FRANCDAT)
    policy.write_text(FRANCDAT_POLICY)
    for out in ("out.csv", "out.parquet"):
        assert (
            run_cli("remediate", data, "--policy", policy, "--method", "microaggregate", "--out", tmp_path / out).code
            == 0
        )
    csv_frame = pd.read_csv(tmp_path / "out.csv")
    parquet = pd.read_parquet(tmp_path / "out.parquet")
    assert list(parquet.columns) == list(csv_frame.columns)
    np.testing.assert_array_equal(parquet.to_numpy(dtype=float), csv_frame.to_numpy(dtype=float))


def test_bad_options_are_one_line_exit_2_and_nothing_written(tmp_path):
    data, policy = _test2(tmp_path)
    out = tmp_path / "out.csv"
    for method, option in [
        ("generalize", "max_suppression=2"),
        ("generalize", "metric=Nope"),
        ("generalize", "strategy=S9"),
        ("suppress", "max_suppression=2"),
        ("suppress", "mode=nope"),
    ]:
        run = run_cli(
            "remediate",
            data,
            "--policy",
            policy,
            "--method",
            method,
            "--option",
            option,
            "--out",
            out,
            "--json",
            tmp_path / "r.json",
        )
        assert run.code == 2 and len(run.stderr.strip().splitlines()) == 1, (option, run.stderr)
        assert option.split("=")[0] in run.stderr
        assert not out.exists() and not (tmp_path / "r.json").exists()


def test_policy_remediation_block_and_option_override(tmp_path):
    data, policy = _test2(tmp_path, "remediation: {method: generalize, options: {algorithm: gaa, metric: Loss}}")
    report = tmp_path / "r.json"
    assert run_cli("remediate", data, "--policy", policy, "--out", tmp_path / "o.csv", "--json", report).code == 0
    options = json.loads(report.read_text())["remediation"]["options"]
    assert options["algorithm"] == "gaa" and options["metric"] == "Loss"
    assert (
        run_cli(
            "remediate",
            data,
            "--policy",
            policy,
            "--option",
            "algorithm=lattice",
            "--out",
            tmp_path / "o2.csv",
            "--json",
            report,
        ).code
        == 0
    )
    remediation = json.loads(report.read_text())["remediation"]
    assert remediation["options"]["algorithm"] == "lattice" and remediation["options"]["metric"] == "Loss"
    out = pd.read_csv(tmp_path / "o2.csv", sep=";", dtype=str)
    assert len(out) == 9 and list(out["Disease"]) == list(pd.read_csv(data, sep=";", dtype=str)["Disease"])


def test_html_chapter_says_passing_lattice_nodes_include_implied_ones(tmp_path):
    data, policy = _test2(tmp_path)
    report, html = tmp_path / "r.json", tmp_path / "r.html"
    assert (
        run_cli(
            "remediate",
            data,
            "--policy",
            policy,
            "--method",
            "generalize",
            "--out",
            tmp_path / "o.csv",
            "--json",
            report,
            "--html",
            html,
        ).code
        == 0
    )
    changes = json.loads(report.read_text())["remediation"]["changes"]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.read_text()))
    assert f"lattice nodes evaluated {changes['nodes_evaluated']} " in text
    assert f"implied by a finer passing node) {changes['nodes_passing']} " in text


def test_randomized_output_can_be_audited_again_as_the_note_says(tmp_path):
    data = write_rr_table(tmp_path / "rr.csv", 600)
    policy_text = (
        "version: 1\nname: rr\ncolumns:\n  sex: {role: quasi_identifier}\n"
        "  region: {role: quasi_identifier}\n  disease: {role: sensitive}\n"
        "checks:\n  - {id: rr, assessor: rr_attribute_disclosure, sensitive: disease, max_risk: 0.8EXTRA}\n"
    )
    policy = tmp_path / "rr.yaml"
    policy.write_text(policy_text.replace("EXTRA", ""))
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    assert (
        run_cli("remediate", data, "--policy", policy, "--method", "randomize", "--out", out, "--json", report).code
        == 0
    )
    remediated = json.loads(report.read_text())
    note = next(n for n in remediated["remediation"]["notes"] if "to audit the output" in n)
    published = re.search(r"randomized: (\{.*\}), and give", note).group(1)
    policy.write_text(policy_text.replace("EXTRA", ", randomized: " + published))
    fresh = tmp_path / "a.json"
    assert run_cli("audit", out, "--policy", policy, "--original", data, "--json", fresh).code == 0
    assert _checks(json.loads(fresh.read_text())) == _checks(remediated)


def test_removed_records_are_said_in_words_and_the_rest_keep_their_order(tmp_path):
    rows = ["a,x,1", "a,x,2", "a,x,3", "b,y,4", "a,x,5", "b,y,6", "b,y,7", "c,z,8"]
    data, policy = tmp_path / "d.csv", tmp_path / "d.yaml"
    data.write_text("q1,q2,s\n" + "\n".join(rows) + "\n")
    policy.write_text(
        "version: 1\nname: d\ncolumns:\n  q1: {role: quasi_identifier}\n"
        "  q2: {role: quasi_identifier}\n  s: {role: sensitive, type: numeric}\n"
        "checks:\n  - {assessor: k_anonymity, k: 2}\n"
    )
    out, report, html = tmp_path / "o.csv", tmp_path / "r.json", tmp_path / "r.html"
    run = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "suppress",
        "--option",
        "mode=records",
        "--option",
        "max_suppression=0.2",
        "--out",
        out,
        "--json",
        report,
        "--html",
        html,
    )
    assert run.code == 0, run.stderr
    assert "1 records removed: the output has 7 of the input's 8 rows" in run.stdout
    assert out.read_text().splitlines()[1:] == rows[:-1]
    assert json.loads(report.read_text())["remediation"]["changes"]["records_removed"] == 1
    assert "records removed from the output" in html.read_text()
