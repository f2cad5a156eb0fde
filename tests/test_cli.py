"""The CLI gate end to end: exit codes, the JSON report's schema and determinism, plugin listing,
policy schema and check."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from conftest import DATA, ROOT
from pydantic import Field

from privaudit import Assessor, Params, hookimpl
from privaudit.testing import audit_frame, check_result, registry_with

T = DATA / "tcloseness"
EXAMPLE = ROOT / "examples" / "adult" / "release.csv"
ADULT_POLICY = ROOT / "policies" / "adult.yaml"


def test_exit_codes_and_report_keys(audit_json):
    code, report = audit_json(T / "table5.csv", T / "policy.yaml")
    assert code == 1
    assert list(report) == [
        "schema_version",
        "tool",
        "generated_at",
        "engine",
        "input",
        "original",
        "policy",
        "scope",
        "summary",
        "checks",
        "utility",
    ]
    assert report["schema_version"] == 1
    assert report["tool"]["name"] == "privaudit"
    assert report["input"]["rows"] == 9 and len(report["input"]["sha256"]) == 64
    assert report["input"]["columns"] == ["ZIPCode", "Age", "Salary", "Disease"]
    assert report["policy"]["name"].startswith("t-closeness paper example")
    assert report["summary"] == {
        "passed": False,
        "checks_total": 7,  # with the three that always run
        "checks_failed": 1,
        "checks_warned": 0,
        "checks_errored": 0,
    }
    for check in report["checks"]:
        assert set(check) == {
            "id",
            "assessor",
            "status",
            "severity",
            "value",
            "threshold",
            "params",
            "message",
            "details",
            "better",
        }  # better: which way the value improves (privaudit diff)
    assert report["checks"][0]["id"] == "direct_identifiers"  # always run


def test_warning_severity_does_not_fail_the_gate(tmp_path, audit_json):
    policy = tmp_path / "p.yaml"
    policy.write_text((T / "policy.yaml").read_text().replace("t: 0.2}", "t: 0.2, severity: warning}"))
    (tmp_path / "disease_hierarchy.csv").write_text((T / "disease_hierarchy.csv").read_text())
    code, report = audit_json(T / "table5.csv", policy)
    assert code == 0
    assert report["summary"]["passed"] is True and report["summary"]["checks_warned"] == 1


def test_example_passes_and_console_output(run_cli):
    code, out, err = run_cli("audit", EXAMPLE, "--policy", ADULT_POLICY)
    assert code == 0, err
    assert "verdict: PASS" in out and "WARN" in out


def test_json_is_byte_identical_and_infinity_is_a_string(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    run_cli("audit", EXAMPLE, "--policy", ADULT_POLICY, "--json", a)
    run_cli("audit", EXAMPLE, "--policy", ADULT_POLICY, "--json", b)
    assert a.read_bytes() == b.read_bytes()
    text = a.read_text()
    assert "Infinity" not in text and "NaN" not in text
    report = json.loads(text)
    assert report["generated_at"] == "2023-11-14T22:13:20Z"


def test_infinity_written_as_string(tmp_path):
    frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", "x", "x", "y"]})
    result = audit_frame(
        frame,
        {
            "columns": {"q": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
            "checks": [{"assessor": "l_diversity", "sensitive": "s", "variant": "recursive", "l": 2, "c": 2}],
        },
    )
    assert check_result(result, "l_diversity")["value"] == "inf"


class BoomParams(Params):
    fuse: int = Field(default=1)


class BoomPlugin:
    @hookimpl
    def privaudit_assessors(self):
        def run(ctx, params):
            raise RuntimeError("the fuse blew")

        return [Assessor("boom", BoomParams, run, "Boom", "identity", "nothing")]


def test_assessor_that_raises_is_reported_as_error_and_audit_goes_on():
    frame = pd.DataFrame({"q": ["a", "a"], "s": ["x", "y"]})
    result = audit_frame(
        frame,
        {
            "columns": {"q": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
            "checks": [{"assessor": "boom"}, {"assessor": "k_anonymity", "k": 2}],
        },
        registry=registry_with(BoomPlugin()),
    )
    boom = check_result(result, "boom")
    assert boom["status"] == "error" and boom["message"] == (
        "assessor 'boom' of test_cli (not installed) raised RuntimeError: the fuse blew"
    )
    assert check_result(result, "k_anonymity")["status"] == "pass"
    assert result.exit_code == 2


def test_duplicate_assessor_names_are_refused():
    class Twin:
        @hookimpl
        def privaudit_assessors(self):
            return [Assessor("k_anonymity", BoomParams, lambda c, p: None, "x", "identity", "x")]

    import pytest

    from privaudit.core.errors import PrivauditError

    with pytest.raises(PrivauditError, match="'k_anonymity' is provided twice"):
        registry_with(Twin())


def test_check_ids_made_unique():
    frame = pd.DataFrame({"q": ["a", "a"], "s": ["x", "y"]})
    result = audit_frame(
        frame,
        {
            "columns": {"q": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
            "checks": [{"assessor": "k_anonymity", "k": 1}, {"assessor": "k_anonymity", "k": 2}],
        },
    )
    assert [c.id for c in result.checks] == [
        "direct_identifiers",
        "k_anonymity",
        "k_anonymity-2",
        "refining_columns",
        "undeclared_key_variables",
    ]


def test_direct_identifiers_fail(tmp_path):
    frame = pd.DataFrame({"name": ["Ann", ""], "q": ["a", "a"]})
    result = audit_frame(
        frame, {"columns": {"name": {"role": "identifier"}, "q": {"role": "quasi_identifier"}}, "checks": []}
    )
    d = check_result(result, "direct_identifiers")
    assert d["status"] == "fail" and d["value"] == 1 and d["details"]["present"] == ["name"]


def test_plugins_lists_builtins_with_package(run_cli):
    code, out, _ = run_cli("plugins")
    assert code == 0
    line = next(ln for ln in out.splitlines() if " k_anonymity " in ln)
    assert "privaudit 0.1.0" in line and "privaudit.assessors.k_anonymity" in line


def test_policy_schema_includes_assessor_parameters(run_cli):
    code, out, _ = run_cli("policy", "schema")
    schema = json.loads(out)
    k = schema["$defs"]["check_k_anonymity"]
    assert k["properties"]["k"]["minimum"] == 1 and "k" in k["required"]
    assert k["additionalProperties"] is False
    assert schema["$defs"]["check_t_closeness"]["properties"]["t"]["maximum"] == 1


def test_policy_check(run_cli):
    code, out, _ = run_cli("policy", "check", ADULT_POLICY, "--data", EXAMPLE)
    assert code == 0 and "valid" in out and "30,162 rows" in out
    code, _, err = run_cli("policy", "check", ADULT_POLICY, "--data", T / "table4.csv")
    assert code == 2 and "absent from the data" in err


def test_original_joined_by_record_id(tmp_path):
    released = pd.DataFrame({"rid": ["3", "1", "2"], "q": ["a", "a", "a"], "s": ["x", "y", "z"]})
    original = pd.DataFrame({"rid": ["1", "2", "3"], "q": ["a1", "a2", "a3"], "s": ["y", "z", "x"]})
    result = audit_frame(
        released,
        {
            "columns": {"rid": {"role": "record_id"}, "q": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
            "checks": [],
        },
        original=original,
    )
    assert list(result.context.original["q"].astype(str)) == ["a3", "a1", "a2"]


@pytest.mark.slow
def test_console_script_runs():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "privaudit",
            "audit",
            str(T / "table4.csv"),
            "--policy",
            str(T / "policy.yaml"),
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and proc.stdout == "" and proc.stderr == ""


@pytest.mark.slow
def test_a_broken_installed_plugin_is_named(tmp_path):
    """An installed distribution whose ``privaudit`` entry point does not import: one line naming the entry
    point and the package to fix or uninstall, exit 2 (pluggy's own error names neither)."""
    info = tmp_path / "privaudit_broken-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: privaudit-broken\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text("[privaudit]\nbroken = privaudit_broken_plugin\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "privaudit", "plugins"], capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert (
        "plugin 'broken' (privaudit_broken_plugin) of the installed package privaudit-broken 1.2 failed to load: "
        "No module named 'privaudit_broken_plugin'"
    ) in proc.stderr
