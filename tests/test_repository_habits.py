"""The repository's own habits: the commit-message hook of .pre-commit-config.yaml, and the typed marker."""

from __future__ import annotations

import subprocess
import sys

import yaml
from conftest import ROOT

SCRIPT = ROOT / "scripts" / "check_commit_subject.py"


def _check(tmp_path, message: str) -> subprocess.CompletedProcess:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message)
    return subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True)


def test_a_short_subject_with_a_body_passes(tmp_path):
    assert _check(tmp_path, "Fix the parser\n\nThe detail goes here, as long as it needs.\n").returncode == 0


def test_a_long_subject_or_a_glued_body_fails(tmp_path):
    long = _check(tmp_path, "x" * 73 + "\n")
    assert long.returncode == 1 and "73 characters long; at most 72" in long.stderr
    glued = _check(tmp_path, "Subject\nbody on the second line\n")
    assert glued.returncode == 1 and "second line must be blank" in glued.stderr
    assert _check(tmp_path, "# only a comment\n").returncode == 1


def test_pre_commit_runs_the_ci_linters_and_the_subject_hook():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert {"ruff-check", "ruff-format", "mypy", "check-commit-subject"} <= set(hooks)
    assert hooks["check-commit-subject"]["stages"] == ["commit-msg"]
    assert (ROOT / "privaudit" / "py.typed").exists()
