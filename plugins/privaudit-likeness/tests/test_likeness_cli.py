"""End to end: the installed plugin through privaudit's CLI, reports, policy checks and remediation."""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import likeness_reference as ref
import pandas as pd
import pytest
from conftest import policy

import privaudit_likeness
from privaudit.pipeline.audit import run_audit
from privaudit.testing import assert_section_renders, audit_frame, check_result, registry_with, report_section, run_cli
from privaudit_likeness import beta_likeness, delta_disclosure, report

PLUGIN = Path(__file__).resolve().parents[1]
REPO = PLUGIN.parents[1]
SMALL_CSV = "zip,disease\n" + "".join(
    f"{z},{d}\n" for z, d in zip(["z1"] * 3 + ["z2"] * 3 + ["z3"] * 4, "AAAAABABBB", strict=False)
)
POLICY_YAML = """version: 1
name: likeness end to end
columns:
  zip: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {id: beta, assessor: beta_likeness, sensitive: disease, beta: 0.8}
  - {id: enhanced, assessor: beta_likeness, sensitive: disease, beta: 0.9, variant: enhanced, severity: warning}
  - {id: delta, assessor: delta_disclosure, sensitive: disease, delta: 2, log_base: "2", severity: warning}
"""


def privaudit_cmd(*args, cwd=None) -> subprocess.CompletedProcess:
    """The real command in a fresh interpreter: entry points are discovered from the installed metadata."""
    return subprocess.run(
        [sys.executable, "-m", "privaudit", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_plugins_lists_the_assessors_with_package_and_version():
    version = metadata.version("privaudit-likeness")
    assert version == privaudit_likeness.__version__
    done = privaudit_cmd("plugins")
    assert done.returncode == 0, done.stderr
    rows = {tuple(line.split()[:2]): line.split() for line in done.stdout.splitlines()[1:]}
    for name in ("beta_likeness", "delta_disclosure"):
        assert rows["assessor", name][2:4] == ["privaudit-likeness", version]
        assert rows["assessor", name][4] == name  # the entry point's name
        # its report section, registered by the report module's own entry point
        assert rows["section", name][2:5] == ["privaudit-likeness", version, "report"]


def test_cli_audit_with_beta_likeness_policy(tmp_path):
    (tmp_path / "data.csv").write_text(SMALL_CSV)
    (tmp_path / "policy.yaml").write_text(POLICY_YAML)
    done = privaudit_cmd("audit", "data.csv", "--policy", "policy.yaml", "--json", "report.json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # the error-severity β check fails
    assert done.stderr == ""
    checks = {c["id"]: c for c in json.loads((tmp_path / "report.json").read_text())["checks"]}
    frame = pd.read_csv(tmp_path / "data.csv")
    prior, classes = ref.distributions(frame, ["zip"], "disease")
    beta = checks["beta"]
    assert beta["assessor"] == "beta_likeness" and beta["status"] == "fail" and beta["threshold"] == 0.8
    assert beta["value"] == pytest.approx(ref.basic_beta(prior, classes))
    assert beta["params"] == {"sensitive": "disease", "beta": 0.8, "variant": "basic"}
    assert checks["enhanced"]["value"] == "inf" and checks["enhanced"]["severity"] == "warning"
    assert checks["delta"]["value"] == "inf"
    assert checks["delta"]["details"]["delta_present_values"] == pytest.approx(
        ref.delta(prior, classes, base=2, present_only=True)
    )
    assert "FAIL   beta" in done.stdout and "WARN   enhanced" in done.stdout


def test_example_policy_on_the_adult_release(tmp_path):
    release = REPO / "examples" / "adult" / "release.csv"
    if not release.exists():
        pytest.skip("privaudit's examples/adult/release.csv is not beside this plugin")
    example = PLUGIN / "examples" / "adult-likeness.yaml"
    result = run_audit(release, example)
    frame = pd.read_csv(release, sep=";", dtype=str, keep_default_na=False)
    qis = [c for c, spec in result.policy.columns.items() if spec.role == "quasi_identifier"]
    for check in result.checks:
        if check.assessor not in ("beta_likeness", "delta_disclosure"):
            continue
        col = check.params.sensitive
        prior, classes = ref.distributions(frame, qis, col)
        if check.assessor == "delta_disclosure":
            expected = ref.delta(prior, classes)
        elif check.params.variant == "basic":
            expected = ref.basic_beta(prior, classes)
        else:
            expected = ref.enhanced_beta(prior, classes)
        value = float(check.value)  # the JSON form: "inf" for infinity
        assert value == expected or math.isclose(value, expected, rel_tol=1e-12), check.id
        assert_section_renders(result, check.id)
    cli = run_cli("audit", release, "--policy", example, "--json", tmp_path / "r.json", "--quiet")
    assert cli.code == 0 and cli.stderr == ""  # the error-severity checks pass; the others warn


SMALL = pd.DataFrame({"zip": ["z1"] * 3 + ["z2"] * 3 + ["z3"] * 4, "disease": list("AAAAABABBB")})


@pytest.mark.parametrize(
    "check",
    [
        {"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.8},
        {"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.5, "variant": "enhanced"},
        {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 0.7},
        {"assessor": "beta_likeness", "sensitive": "disease", "beta": 3},  # passes
        {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 0.7, "log_base": "2"},
    ],
)
def test_report_section_renders_with_chart_and_worst_classes(check):
    result = audit_frame(SMALL, policy(checks=[check], report={"show_sensitive_values": True}))
    c = check_result(result, check["assessor"])
    section = report_section(result, check["assessor"])
    html = assert_section_renders(result, check["assessor"])
    d = c["details"]
    failing = d["classes_failing"]
    threshold = check.get("beta", check.get("delta"))
    # the chart: bins never straddle the threshold; failing bins + infinite bar == failing classes
    hist = d["per_class_histogram"]
    assert threshold in hist["edges"]
    assert (
        sum(n for lo, n in zip(hist["edges"][:-1], hist["counts"], strict=False) if lo >= threshold) + hist["infinite"]
        == failing
    )
    assert len(section.figures) == 1 and "<svg" in str(section.figures[0].svg)
    symbol = "β ≤" if check["assessor"] == "beta_likeness" else "δ <"
    assert section.threshold_text == f"{symbol} {threshold:g}"
    assert section.value_text == ("∞" if c["value"] == "inf" else section.value_text)
    if failing:
        assert section.summary.startswith(f"{sum(w['size'] for w in d['worst_classes'])} people")
        assert len(section.tables) == 1 and f"All {failing} classes that break" in section.tables[0].caption
        assert "A (" in html  # sensitive values shown (the policy allows it)
    else:
        assert section.summary.startswith("In every group") and not section.tables


def test_small_classes_keep_their_sensitive_values_out_of_the_report():
    check = {"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.8}
    result = audit_frame(SMALL, policy(checks=[check, {"assessor": "k_anonymity", "k": 5}]))
    worst = check_result(result, "beta_likeness")["details"]["worst_classes"]
    assert worst and all("sensitive_values" not in w for w in worst)  # z3 has 4 < k = 5 records
    assert "withheld" in assert_section_renders(result, "beta_likeness")


@pytest.mark.parametrize(
    "check, message",
    [
        ({"assessor": "beta_likeness", "sensitive": "zip", "beta": 1}, "column 'zip' has role 'quasi_identifier'"),
        ({"assessor": "beta_likeness", "sensitive": "disease", "betta": 1}, "did you mean 'beta'"),
        ({"assessor": "beta_likeness", "sensitive": "disease", "beta": 0}, "greater than 0"),
        ({"assessor": "beta_likeness", "sensitive": "disease", "beta": 1, "variant": "strong"}, "variant"),
        ({"assessor": "delta_disclosure", "sensitive": "nope", "delta": 1}, "'nope' is not a column of the policy"),
        ({"assessor": "delta_disclosure", "sensitive": "disease", "delta": 1, "log_base": "10"}, "log_base"),
    ],
)
def test_bad_parameters_are_one_line_policy_errors(tmp_path, check, message):
    (tmp_path / "data.csv").write_text(SMALL_CSV)
    import yaml

    (tmp_path / "p.yaml").write_text(yaml.safe_dump({**policy(checks=[check]), "version": 1, "name": "bad"}))
    cli = run_cli("audit", tmp_path / "data.csv", "--policy", tmp_path / "p.yaml", "--json", tmp_path / "r.json")
    assert cli.code == 2 and message in cli.stderr and len(cli.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r.json").exists()


def test_policy_schema_lists_the_plugin_parameters():
    cli = run_cli("policy", "schema")
    assert cli.code == 0
    text = cli.stdout
    assert "beta_likeness" in text and "delta_disclosure" in text and "log_base" in text


def test_remediation_uses_class_violations(tmp_path):
    (tmp_path / "data.csv").write_text(SMALL_CSV)
    (tmp_path / "policy.yaml").write_text(POLICY_YAML.split("  - {id: enhanced")[0])
    cli = run_cli(
        "remediate",
        tmp_path / "data.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--method",
        "suppress",
        "--option",
        "max_suppression=0.8",
        "--out",
        tmp_path / "out.csv",
        "--quiet",
    )
    assert cli.code == 0, cli.stderr
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    # z3 breaks β = 0.8; blanking it alone leaves it alone, so the smallest class z1 joins it
    assert out.zip.tolist() == ["*"] * 3 + ["z2"] * 3 + ["*"] * 4
    prior, classes = ref.distributions(out, ["zip"], "disease")
    assert ref.basic_beta(prior, classes) <= 0.8


def test_works_uninstalled_through_registry_with():
    registry = registry_with(beta_likeness, delta_disclosure, report, entry_points=False)
    check = {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 0.7}
    result = audit_frame(SMALL, policy(checks=[check]), registry=registry)
    assert check_result(result, "delta_disclosure")["status"] == "fail"
    assert_section_renders(result, "delta_disclosure", registry=registry)
    # the plugin's own section (its threshold as "δ < 0.7"), not the generic one
    assert report_section(result, "delta_disclosure", registry=registry).threshold_text == "δ < 0.7"


def test_check_modules_do_not_import_the_report_module():
    """The check computes, the section presents: only report.py imports the drawing helpers or report.py."""
    for name in ("beta_likeness", "delta_disclosure", "likeness", "binning"):
        tree = ast.parse((PLUGIN / "privaudit_likeness" / f"{name}.py").read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                imported |= {node.module or ""} | {f"{node.module or ''}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
        drawing = {"privaudit.plugin.sections", "privaudit.plugin.figures", "report", ".report"}
        assert not {m for m in imported if m in drawing or m.endswith(".report")}, name


ALLOWED = {
    "privaudit",
    "privaudit.plugin",
    "privaudit.plugin.sections",
    "privaudit.plugin.text",
    "privaudit.plugin.figures",
    "privaudit.plugin.binning",
    "privaudit.plugin.helpers",
    "privaudit.plugin.details",
}  # the plugin API, report-section API, helpers, shared details models


def test_plugin_uses_only_the_public_plugin_api():
    """Imports from privaudit are limited to the public names of ``privaudit`` and ``privaudit.plugin`` (what
    plugin authors program against) and the report-section helpers."""
    import privaudit.plugin

    for path in (PLUGIN / "privaudit_likeness").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "privaudit":
                modules = {node.module} if node.module in ALLOWED else {f"{node.module}.{a.name}" for a in node.names}
                assert modules <= ALLOWED, f"{path.name} imports {node.module}"
                if node.module == "privaudit":
                    assert {a.name for a in node.names} <= set(privaudit.__all__), path.name
                if node.module == "privaudit.plugin":
                    public = set(privaudit.plugin.__all__) | set(dir(privaudit.plugin))
                    assert {a.name for a in node.names} <= public, path.name
                assert not any(a.name.startswith("_") for a in node.names), f"{path.name}: private name"
            if isinstance(node, ast.Import):
                for a in node.names:
                    assert a.name.split(".")[0] != "privaudit" or a.name in ALLOWED, f"{path.name} imports {a.name}"
