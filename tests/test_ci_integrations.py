"""The GitHub Action (action.yml) and the pre-commit hooks (.pre-commit-hooks.yaml) shipped with privaudit
: their commands are run here as GitHub's runner and pre-commit would run them, with the
installed ``privaudit`` command."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess

import pytest
import yaml
from conftest import ROOT

from privaudit.testing import assert_valid_report

RELEASE = ROOT / "examples" / "adult" / "release.csv"
POLICY = ROOT / "policies" / "adult.yaml"


@pytest.fixture(scope="module")
def privaudit_command():
    command = shutil.which("privaudit")
    assert command, "the privaudit command is installed (pip install -e .)"
    return command


def _action():
    return yaml.safe_load((ROOT / "action.yml").read_text())


def test_the_action_declares_what_it_uses_and_splices_no_input_into_a_script():
    action = _action()
    declared = set(action["inputs"])
    text = (ROOT / "action.yml").read_text()
    assert set(re.findall(r"inputs\.([\w-]+)", text)) <= declared
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")  # inputs arrive as environment variables


def _run_audit_step(tmp_path, **inputs):
    step = next(s for s in _action()["runs"]["steps"] if s.get("id") == "audit")
    defaults = {name: spec.get("default", "") for name, spec in _action()["inputs"].items()}
    values = {**defaults, **inputs}
    env = dict(os.environ)
    for var, expression in step["env"].items():
        name = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", expression).group(1)
        env[var] = str(values[name])
    env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "summary.md")
    env["GITHUB_OUTPUT"] = str(tmp_path / "outputs")
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    return done, (tmp_path / "outputs").read_text() if (tmp_path / "outputs").exists() else ""


@pytest.mark.slow
def test_the_action_audit_step_passes_the_example(tmp_path, privaudit_command):
    done, outputs = _run_audit_step(tmp_path, data=RELEASE, policy=POLICY, sarif="r.sarif")
    assert done.returncode == 0, done.stderr
    assert "exit-code=0" in outputs
    assert (tmp_path / "summary.md").read_text().startswith("## privaudit: PASS")
    assert_valid_report(tmp_path / "privaudit-report.json")
    assert (tmp_path / "privaudit-report.html").read_text().startswith("<!DOCTYPE html>")
    assert json.loads((tmp_path / "r.sarif").read_text())["version"] == "2.1.0"
    assert all(line.startswith("::warning ") for line in done.stdout.splitlines() if line.startswith("::"))


@pytest.mark.slow
def test_the_action_fails_the_job_on_warnings_when_asked(tmp_path, privaudit_command):
    done, outputs = _run_audit_step(tmp_path, data=RELEASE, policy=POLICY, **{"fail-on": "warning", "html": ""})
    assert done.returncode == 1 and "exit-code=1" in outputs
    assert "::error " in done.stdout and not (tmp_path / "privaudit-report.html").exists()


@pytest.mark.slow
def test_the_action_compares_with_a_baseline(tmp_path, privaudit_command):
    """With a baseline the job passes when the audit passes and nothing regressed, and the comparison joins the
    step summary."""
    from privaudit.testing import run_cli

    (tmp_path / "policy.yaml").write_text(
        "version: 1\nname: small\ncolumns:\n  age: {role: quasi_identifier}\n"
        "  disease: {role: sensitive}\nchecks:\n  - {assessor: k_anonymity, k: 2}\n"
    )
    (tmp_path / "release.csv").write_text("age,disease\n30,a\n30,b\n40,a\n40,b\n")
    assert (
        run_cli(
            "audit", tmp_path / "release.csv", "--policy", tmp_path / "policy.yaml", "--json", tmp_path / "base.json"
        ).code
        == 0
    )
    done, outputs = _run_audit_step(
        tmp_path, data="release.csv", policy="policy.yaml", baseline="base.json", json="", html="", tolerance="1%"
    )
    assert done.returncode == 0 and "exit-code=0" in outputs, done.stderr
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("## privaudit: PASS") and "## privaudit diff: ✅ no regression" in summary


def _hooks():
    return {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}


@pytest.mark.slow
def test_the_policy_check_hook_checks_every_file_it_is_given(tmp_path, privaudit_command):
    hook = _hooks()["privaudit-policy-check"]
    assert re.search(hook["files"], "policies/adult.yaml")
    policies = [ROOT / "policies" / name for name in ("adult.yaml", "public-use-file.yaml")]
    done = subprocess.run(
        [*shlex.split(hook["entry"]), *map(str, policies)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(": valid;") == 2
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "version: 1\nname: x\ncolumns: {a: {role: quasi_identifier}}\nchecks: [{assessor: k_anonymity, kk: 5}]\n"
    )
    done = subprocess.run(
        [*shlex.split(hook["entry"]), str(policies[0]), str(broken)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "broken.yaml" in done.stderr


@pytest.mark.slow
def test_the_audit_hook_gates_on_the_verdict(tmp_path, privaudit_command):
    hook = _hooks()["privaudit-audit"]
    assert hook["pass_filenames"] is False
    done = subprocess.run(
        [*shlex.split(hook["entry"]), str(RELEASE), "--policy", str(POLICY)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    strict = POLICY.read_text().replace("- {assessor: k_anonymity, k: 5}", "- {assessor: k_anonymity, k: 50}")
    assert strict != POLICY.read_text()
    shutil.copytree(ROOT / "policies" / "hierarchies", tmp_path / "hierarchies")
    (tmp_path / "policy.yaml").write_text(strict)
    done = subprocess.run(
        [*shlex.split(hook["entry"]), str(RELEASE), "--policy", str(tmp_path / "policy.yaml")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
