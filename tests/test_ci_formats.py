"""CI-native outputs: JUnit XML, a Markdown summary, GitHub annotations and
``--fail-on warning``, each saying what the JSON report says."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT

from privaudit.testing import run_cli


@pytest.fixture
def workspace(tmp_path):
    shutil.copytree(ROOT / "policies" / "hierarchies", tmp_path / "hierarchies")
    shutil.copy(ROOT / "examples" / "adult" / "release.csv", tmp_path / "release.csv")
    text = (
        (ROOT / "policies" / "adult.yaml")
        .read_text()
        .replace("- {assessor: k_anonymity, k: 5}", '- {id: "k-10", assessor: k_anonymity, k: 10}')
    )
    (tmp_path / "policy.yaml").write_text(text)
    return tmp_path


def test_junit_markdown_and_json_agree(workspace):
    out = workspace
    result = run_cli(
        "audit",
        out / "release.csv",
        "--policy",
        out / "policy.yaml",
        "--json",
        out / "r.json",
        "--junit",
        out / "r.xml",
        "--markdown",
        out / "r.md",
        "--quiet",
    )
    assert result.code == 1, result.stderr
    report = json.loads((out / "r.json").read_text())
    suites = ET.parse(out / "r.xml").getroot()
    assert suites.tag == "testsuites" and suites.get("tests") == str(len(report["checks"]))
    suite = suites.find("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {c["id"] for c in report["checks"]}
    assert cases["k-10"].find("failure") is not None and suite.get("failures") == "1"
    assert cases["k-10"].get("classname") == "privaudit.k_anonymity"
    warned = [c["id"] for c in report["checks"] if c["status"] == "fail" and c["severity"] == "warning"]
    assert warned and all(cases[w].find("system-out").text.startswith("WARNING") for w in warned)
    md = (out / "r.md").read_text()
    assert md.startswith("## privaudit: FAIL") and "| ❌ fail | `k-10` | k_anonymity |" in md
    assert md.count("\n| ") == len(report["checks"]) + 1  # header and one row per check


def test_fail_on_warning_and_github_annotations(workspace):
    policy = workspace / "policy.yaml"
    policy.write_text(
        policy.read_text().replace('- {id: "k-10", assessor: k_anonymity, k: 10}', "- {assessor: k_anonymity, k: 5}")
    )
    plain = run_cli("audit", workspace / "release.csv", "--policy", policy, "--quiet", "--annotations", "github")
    assert plain.code == 0
    lines = plain.stdout.splitlines()
    assert lines and all(line.startswith("::warning file=") for line in lines)
    assert any("title=privaudit tclose-occupation (t_closeness)::" in line for line in lines)
    strict = run_cli(
        "audit",
        workspace / "release.csv",
        "--policy",
        policy,
        "--quiet",
        "--fail-on",
        "warning",
        "--annotations",
        "github",
        "--junit",
        workspace / "strict.xml",
    )
    assert strict.code == 1 and all(line.startswith("::error ") for line in strict.stdout.splitlines())
    assert ET.parse(workspace / "strict.xml").getroot().get("failures") == str(len(lines))


def test_control_characters_and_markup_stay_data(workspace):
    policy = workspace / "policy.yaml"
    policy.write_text(policy.read_text().replace('id: "k-10"', 'id: "k<&>\\e[31m\\nx|y"'))
    result = run_cli(
        "audit",
        workspace / "release.csv",
        "--policy",
        policy,
        "--quiet",
        "--junit",
        workspace / "r.xml",
        "--markdown",
        workspace / "r.md",
        "--annotations",
        "github",
    )
    assert result.code == 1
    case = [c for c in ET.parse(workspace / "r.xml").getroot().iter("testcase") if c.find("failure") is not None][0]
    assert case.get("name") == "k<&>\\x1b[31m\\nx|y"
    assert "x\\|y" in (workspace / "r.md").read_text()
    assert all(line.startswith("::") for line in result.stdout.splitlines())  # a newline cannot fake a command
    assert "%0Ax|y" in result.stdout


# --- validation against the formats' own schemas (copies in tests/data/schemas, see PROVENANCE.md there) -----

SCHEMAS = ROOT / "tests" / "data" / "schemas"


def test_junit_validates_against_the_junit_xsd(workspace):
    import xmlschema

    schema = xmlschema.XMLSchema(SCHEMAS / "junit-10.xsd")
    for extra in ((), ("--fail-on", "warning")):
        out = workspace / f"r{len(extra)}.xml"
        run_cli(
            "audit", workspace / "release.csv", "--policy", workspace / "policy.yaml", "--junit", out, "--quiet", *extra
        )
        schema.validate(out)  # raises on any deviation


def test_sarif_validates_and_agrees_with_the_json(workspace):
    import jsonschema

    out = workspace
    result = run_cli(
        "audit",
        out / "release.csv",
        "--policy",
        out / "policy.yaml",
        "--json",
        out / "r.json",
        "--sarif",
        out / "r.sarif",
        "--quiet",
    )
    assert result.code == 1
    log = json.loads((out / "r.sarif").read_text())
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    report = json.loads((out / "r.json").read_text())
    run = log["runs"][0]
    assert log["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "privaudit"
    assert (
        run["invocations"][0]["exitCode"] == 1 and run["artifacts"][0]["hashes"]["sha-256"] == report["input"]["sha256"]
    )
    by_check = {r["properties"]["check"]: r for r in run["results"]}
    assert set(by_check) == {c["id"] for c in report["checks"]}
    assert by_check["k-10"]["kind"] == "fail" and by_check["k-10"]["level"] == "error"
    rules = run["tool"]["driver"]["rules"]
    assert rules[by_check["k-10"]["ruleIndex"]]["id"] == "k_anonymity"
    assert rules[by_check["k-10"]["ruleIndex"]]["shortDescription"]["text"] == "k-anonymity"
    for c in report["checks"]:
        r = by_check[c["id"]]
        expected = {"pass": ("pass", "none"), "error": ("fail", "error")}.get(
            c["status"], ("fail", "error" if c["severity"] == "error" else "warning")
        )
        assert (r["kind"], r["level"]) == expected and r["message"]["text"] == c["message"]


def test_sarif_to_stdout(workspace):
    result = run_cli(
        "audit", workspace / "release.csv", "--policy", workspace / "policy.yaml", "--sarif", "-", "--quiet"
    )
    assert json.loads(result.stdout)["runs"][0]["invocations"][0]["exitCode"] == result.code == 1
