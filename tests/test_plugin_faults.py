"""A third-party plugin that misbehaves: it raises (``SystemExit`` and
``KeyboardInterrupt`` included), hangs, lies (NaN, a string, details its model rejects), writes to what
the checks share, or prints. Each check it runs is ``error`` naming its package and version, every other
check still runs and is reported, the exit code is 2, and standard output holds only the report.

The plugin (``tests/data/misbehaving_plugin/privaudit_misbehaving.py``) is installed for real, through
its ``privaudit`` entry point: a dist-info folder beside a copy of it, on the ``PYTHONPATH`` of a
subprocess (or on ``sys.path`` of this process, with the registry rebuilt) -- never in site-packages.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT

from privaudit.testing import run_cli

PLUGIN = ROOT / "tests" / "data" / "misbehaving_plugin" / "privaudit_misbehaving.py"
LABEL = "privaudit-misbehaving 6.6.6"


def install(folder: Path) -> Path:
    """The plugin as an installed distribution in ``folder`` (a dist-info with its entry point)."""
    site = folder / "site"
    site.mkdir()
    shutil.copy(PLUGIN, site)
    info = site / "privaudit_misbehaving-6.6.6.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: privaudit-misbehaving\nVersion: 6.6.6\n")
    (info / "entry_points.txt").write_text("[privaudit]\nmisbehaving = privaudit_misbehaving\n")
    return site


def workspace(folder: Path, hows: list[str], extra: list[dict] | None = None) -> tuple[Path, Path]:
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "zip": rng.choice(["100", "200", "300"], 300),
            "age": rng.choice(["20", "30"], 300),
            "disease": rng.choice(["flu", "cold", "cancer"], 300),
        }
    )
    frame.to_csv(folder / "data.csv", index=False)
    checks = [{"id": how, "assessor": "misbehave", "how": how} for how in hows] + (extra or [])
    policy = {
        "version": 1,
        "name": "faults",
        "columns": {
            "zip": {"role": "quasi_identifier"},
            "age": {"role": "quasi_identifier"},
            "disease": {"role": "sensitive"},
        },
        "checks": checks,
    }
    (folder / "policy.yaml").write_text(yaml.safe_dump(policy, sort_keys=False))
    return folder / "data.csv", folder / "policy.yaml"


def pythonpath(*first: Path) -> str:
    """A subprocess's PYTHONPATH: ``first``, this tree, then what this process was given."""
    return os.pathsep.join([*map(str, first), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])


def privaudit(site: Path, *args, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": pythonpath(site)}
    return subprocess.run(
        [sys.executable, "-m", "privaudit", *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout
    )


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The plugin installed for this process too: its entry point found on ``sys.path``, the registry
    rebuilt, and both undone afterwards (other tests must not see it)."""
    from privaudit.pipeline.plugins import get_registry

    site = install(tmp_path)
    monkeypatch.syspath_prepend(str(site))
    get_registry.cache_clear()
    yield site
    get_registry.cache_clear()


RAISING = {
    "exit0": "called sys.exit(0)",
    "exit1": "called sys.exit(1)",
    "raise": "raised LookupError: the plugin lost its key",
    "interrupt": "raised KeyboardInterrupt",
    "memory": "ran out of memory (MemoryError)",
    "allocate": "ran out of memory (MemoryError)",
    "nan": "returned NaN as its value",
    "string": "returned a value of type str (a number is expected)",
    "bool_value": "returned a value of type bool (a number is expected)",
    "truthy_verdict": "returned a verdict (passed) of type str, not a boolean",
    "not_a_measurement": "returned dict, not a Measurement",
    "details": "returned details its model MisbehaveDetails rejects",
    "not_json": "returned details or a threshold that are not JSON",
    "write_sizes": "raised ValueError: assignment destination is read-only",
    "write_counts": "raised ValueError: assignment destination is read-only",
    "write_table": "raised ValueError: assignment destination is read-only",
}
FINE = ["print", "print_fd", "replace_column", "pass"]


@pytest.mark.slow
def test_a_misbehaving_plugin_never_passes_and_never_stops_the_audit(tmp_path):
    site = install(tmp_path)
    data, policy = workspace(
        tmp_path,
        [*RAISING, *FINE, "inf"],
        [
            {"id": "k", "assessor": "k_anonymity", "k": 2},
            {"id": "l", "assessor": "l_diversity", "sensitive": "disease", "l": 2},
        ],
    )
    proc = privaudit(site, "audit", data, "--policy", policy, "--json", "-", "--quiet")
    assert proc.returncode == 2, proc.stderr
    report = json.loads(proc.stdout)  # what the plugin printed did not corrupt the report on stdout
    assert '{"verdict": "PASS"}' in proc.stderr and proc.stdout.count('"verdict"') == 0
    checks = {c["id"]: c for c in report["checks"]}
    for how, phrase in RAISING.items():
        c = checks[how]
        assert c["status"] == "error", (how, c)
        assert c["message"].startswith(f"assessor 'misbehave' of {LABEL} ") and phrase in c["message"], c["message"]
        assert "\n" not in c["message"]
    for how in FINE:
        assert checks[how]["status"] == "pass", checks[how]
    assert checks["inf"]["status"] == "fail" and checks["inf"]["value"] == "inf"  # infinity stays a value
    assert checks["k"]["status"] == "pass" and checks["l"]["status"] == "pass"  # the others still ran


@pytest.mark.slow
def test_a_check_that_hangs_ends_at_its_time_limit(tmp_path):
    site = install(tmp_path)
    data, policy = workspace(tmp_path, ["hang", "busy"], [{"id": "k", "assessor": "k_anonymity", "k": 2}])
    out = tmp_path / "r.json"
    proc = privaudit(
        site,
        "audit",
        data,
        "--policy",
        policy,
        "--check-timeout",
        "0.5",
        "--sarif",
        "-",
        "--json",
        out,
        "--quiet",
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    sarif = json.loads(proc.stdout)
    assert sarif["runs"][0]["results"]  # standard output is the SARIF document, whole
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    for how in ("hang", "busy"):
        assert checks[how]["status"] == "error"
        assert checks[how]["message"] == (
            f"assessor 'misbehave' of {LABEL} did not finish within the time limit of "
            "0.5 s (--check-timeout, or the policy's check_timeout)"
        )
    assert checks["k"]["status"] == "pass"


def test_the_policy_sets_the_time_limit_too(tmp_path, installed):
    data, policy = workspace(tmp_path, ["busy"], [{"id": "k", "assessor": "k_anonymity", "k": 2}])
    policy.write_text(policy.read_text() + "check_timeout: 0.3\n")
    out = tmp_path / "r.json"
    result = run_cli("audit", data, "--policy", policy, "--json", out, "--quiet")
    assert result.code == 2, result.stderr
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    assert checks["busy"]["status"] == "error" and "time limit of 0.3 s" in checks["busy"]["message"]
    assert checks["k"]["status"] == "pass"


def test_bad_time_limits_are_one_line(tmp_path, capsys):
    from privaudit.cli import main

    data, policy = workspace(tmp_path, [], [{"id": "k", "assessor": "k_anonymity", "k": 2}])
    for bad in ("0", "-1", "nan", "inf", "soon"):
        with pytest.raises(SystemExit) as exc:
            main(["audit", str(data), "--policy", str(policy), "--check-timeout", bad])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and "--check-timeout: expected a number of seconds" in err, err
        assert len(err.splitlines()) == 1
    policy.write_text(policy.read_text() + "check_timeout: .inf\n")
    result = run_cli("audit", data, "--policy", policy)
    assert result.code == 2 and "check_timeout" in result.stderr and len(result.stderr.splitlines()) == 1


def test_writes_to_shared_arrays_leave_other_checks_figures_unchanged(tmp_path, installed, monkeypatch):
    """The writers run first, one by one (a single worker), then the built-in checks that read the same
    summary and table: their figures are those of an audit without the writers."""
    from privaudit.pipeline import audit as audit_module

    monkeypatch.setattr(audit_module, "CHECK_WORKERS", 1)
    builtin = [
        {"id": "k", "assessor": "k_anonymity", "k": 2},
        {"id": "l", "assessor": "l_diversity", "sensitive": "disease", "l": 2},
        {"id": "t", "assessor": "t_closeness", "sensitive": "disease", "t": 0.5},
        {"id": "u", "assessor": "uniqueness", "max_share": 0.5},
    ]
    data, policy = workspace(tmp_path, ["write_sizes", "write_counts", "write_table", "replace_column"], builtin)
    spoiled = audit_module.run_audit(data, policy)
    clean = audit_module.run_audit(data, workspace(tmp_path, [], builtin)[1])
    figures = {c.id: (c.status, c.value, c.details) for c in clean.checks}
    for c in spoiled.checks:
        if c.id in figures:
            assert (c.status, c.value, c.details) == figures[c.id], c.id
    statuses = {c.id: c.status for c in spoiled.checks}
    assert [statuses[h] for h in ("write_sizes", "write_counts", "write_table", "replace_column")] == [
        "error",
        "error",
        "error",
        "pass",
    ]
    assert spoiled.context.table["zip"].nunique() == 3  # the table itself was not changed


@pytest.mark.parametrize(
    "how, phrase",
    [
        ("exit0", "called sys.exit(0)"),
        ("raise", "raised RuntimeError: the remediator broke"),
        ("extra_column", "changed the table's columns"),
        ("extra_rows", "returned 301 records for 300 in, 0 removed"),
        ("not_a_remediation", "returned DataFrame, not a Remediation holding a table"),
        ("write_table", ": assignment destination is read-only"),
    ],
)
def test_a_misbehaving_remediator_leaves_no_output_and_names_itself(tmp_path, installed, how, phrase):
    data, policy = workspace(tmp_path, [], [{"id": "k", "assessor": "k_anonymity", "k": 200}])
    before = data.read_bytes()
    out, report = tmp_path / "fixed.csv", tmp_path / "r.json"
    result = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "misremediate",
        "--option",
        f"how={how}",
        "--out",
        out,
        "--json",
        report,
        "--quiet",
    )
    assert result.code == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"remediation 'misremediate' of {LABEL}" in lines[0] and phrase in lines[0], lines
    assert not out.exists() and not report.exists() and data.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "policy.yaml", "site"]


BROKEN = {
    "exits_on_import": (
        "import sys\nsys.exit(0)\n",
        "called sys.exit(0) while loading (fix or uninstall that package)",
    ),
    "hook_raises": (
        "from privaudit import hookimpl\n\n@hookimpl\ndef privaudit_assessors():\n"
        "    raise RuntimeError('no list today')\n",
        "the privaudit_assessors hook of plugin 'hook_raises' of privaudit-broken-hook-raises 0.9 raised "
        "RuntimeError: no list today",
    ),
    "lists_garbage": (
        "from privaudit import hookimpl\n\n@hookimpl\ndef privaudit_assessors():\n"
        "    print('garbage')\n    return ['k_anonymity']\n",
        "listed str, not an Assessor (fix or uninstall that package)",
    ),
}


@pytest.mark.parametrize("name", BROKEN)
def test_a_plugin_that_fails_while_loading_is_one_line_never_exit_0(tmp_path, monkeypatch, name):
    """Installed through its entry point; the audit refuses to run at all (exit 2), naming the package."""
    from privaudit.pipeline.plugins import get_registry

    source, phrase = BROKEN[name]
    module = f"privaudit_broken_{name}"
    (tmp_path / f"{module}.py").write_text(source)
    info = tmp_path / f"{module}-0.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 0.9\n")
    (info / "entry_points.txt").write_text(f"[privaudit]\n{name} = {module}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    data, policy = workspace(tmp_path, [], [{"id": "k", "assessor": "k_anonymity", "k": 2}])
    get_registry.cache_clear()
    try:
        result = run_cli("audit", data, "--policy", policy, "--json", "-", "--quiet")
    finally:
        get_registry.cache_clear()
        sys.modules.pop(module, None)
    assert result.code == 2 and result.stdout == "", (result.stdout, result.stderr)
    lines = [ln for ln in result.stderr.splitlines() if ln != "garbage"]  # what it printed went to stderr
    assert len(lines) == 1 and phrase in lines[0] and module.replace("_", "-") in lines[0], result.stderr


def test_the_python_api_takes_a_time_limit_and_names_the_plugin(tmp_path, installed):
    import privaudit

    data, policy = workspace(tmp_path, ["busy", "exit0", "nan"], [{"id": "k", "assessor": "k_anonymity", "k": 2}])
    report = privaudit.audit(data, policy, check_timeout=0.3)
    assert not report.passed and report.exit_code == 2
    checks = {c["id"]: c for c in report.to_dict()["checks"]}
    assert {i: checks[i]["status"] for i in checks} == {
        "direct_identifiers": "pass",
        "refining_columns": "pass",
        "undeclared_key_variables": "pass",
        "busy": "error",
        "exit0": "error",
        "nan": "error",
        "k": "pass",
    }
    assert all(LABEL in checks[i]["message"] for i in ("busy", "exit0", "nan"))


def test_plugin_code_at_policy_load_and_in_its_report_section_cannot_exit_0(tmp_path, installed):
    data, policy = workspace(tmp_path, [], [{"assessor": "exits_in_validation"}])
    result = run_cli("audit", data, "--policy", policy, "--json", tmp_path / "r.json")
    assert result.code == 2 and not (tmp_path / "r.json").exists()
    assert result.stderr.strip() == (
        f"privaudit: error: {policy}: checks[0]: assessor 'exits_in_validation''s "
        f"validate_policy of {LABEL} called sys.exit(0)"
    )
    data, policy = workspace(tmp_path, [], [{"assessor": "exits_in_section"}])
    result = run_cli("audit", data, "--policy", policy, "--html", tmp_path / "r.html", "--quiet")
    assert result.code == 0, result.stderr  # the check passed; its section falls back to the generic one
    html = (tmp_path / "r.html").read_text()
    assert "The section of plugin &#39;privaudit-misbehaving&#39; 6.6.6 for this check failed: SystemExit" in html
