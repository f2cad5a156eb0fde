"""Output formats are registered extensions (privaudit/plugin/output.py): the built-in ones (--json, --html, --pdf,
--junit, --sarif, --markdown) and a third party's, which adds its own flag to ``privaudit audit`` and is written
with the same refusals and atomic writes. The plugin is installed as pluggy finds a distribution's entry point
(pluggy's ``load_setuptools_entrypoints``, https://pluggy.readthedocs.io): a dist-info folder on ``sys.path``."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from privaudit.plugin.output import OutputFormat, OutputRequest
from privaudit.testing import registry_with, run_cli

BUILT_IN = ["json", "html", "pdf", "junit", "sarif", "markdown"]

TOML_PLUGIN = """
from privaudit import hookimpl
from privaudit.plugin.output import OutputFormat

def _toml(result, request):
    report = request.report()
    lines = [f'verdict = "{"pass" if report.summary.passed else "fail"}"', f'fail_on = "{request.fail_on}"']
    lines += [f'{c.id} = "{c.status}"' for c in report.checks]
    return "\\n".join(lines) + "\\n"

def _broken(result, request):
    raise LookupError("the format lost its key")

@hookimpl
def privaudit_output_formats():
    return [
        OutputFormat("toml", "write the verdict as TOML here", _toml, suffix=".toml"),
        OutputFormat("broken", "a format that fails", _broken, stdout=False),
        OutputFormat("quiet", "a format named after an option of the command", _toml),
        OutputFormat("records", "a format named after an option of audit", _toml),
    ]
"""


@pytest.fixture
def toml_installed(tmp_path, monkeypatch):
    """A third-party package providing ``--toml`` (and a failing ``--broken``), installed for this process."""
    from privaudit.pipeline.plugins import get_registry

    site = tmp_path / "site"
    site.mkdir()
    (site / "privaudit_toml.py").write_text(TOML_PLUGIN)
    info = site / "privaudit_toml-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: privaudit-toml\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text("[privaudit]\ntoml = privaudit_toml\n")
    monkeypatch.syspath_prepend(str(site))
    get_registry.cache_clear()
    yield site
    get_registry.cache_clear()
    sys.modules.pop("privaudit_toml", None)


def workspace(folder: Path) -> tuple[Path, Path]:
    # two records alone in their class: suppressing both makes one class of two (missing values form a class)
    frame = pd.DataFrame({"age": ["20", "20", "30", "30", "40", "50"], "disease": ["a", "b", "a", "b", "a", "b"]})
    frame.to_csv(folder / "data.csv", index=False)
    policy = {
        "version": 1,
        "name": "formats",
        "columns": {"age": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}},
        "checks": [{"id": "k2", "assessor": "k_anonymity", "k": 2}],
    }
    (folder / "policy.yaml").write_text(yaml.safe_dump(policy, sort_keys=False))
    return folder / "data.csv", folder / "policy.yaml"


def test_the_built_in_formats_are_registered_in_order():
    from privaudit.pipeline.plugins import get_registry

    registry = get_registry()  # an installed plugin's formats come after the built-ins
    assert [n for n in registry.of("output") if registry.origin[f"output:{n}"].package == "privaudit"] == BUILT_IN
    assert list(registry.of("output"))[: len(BUILT_IN)] == BUILT_IN
    assert all(registry.origin[f"output:{name}"].package == "privaudit" for name in BUILT_IN)


def test_audit_help_lists_every_registered_format(toml_installed, capsys):
    from privaudit.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["audit", "--help"])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    for flag in [*(f"--{n}" for n in BUILT_IN), "--toml", "--annotations", "--records"]:
        assert f"{flag} OUT" in out or f"{flag} {{" in out, flag
    assert "write the verdict as TOML here" in out
    assert "named after an option" not in out  # the command's own options win: --quiet, --records stay theirs


def test_a_third_party_format_is_written_through_the_cli(tmp_path, toml_installed):
    data, policy = workspace(tmp_path)
    out = tmp_path / "verdict.toml"
    result = run_cli("audit", data, "--policy", policy, "--toml", out, "--json", tmp_path / "r.json", "--quiet")
    assert result.code == 1, result.stderr  # the classes of ages 40 and 50 hold one record each: k = 2 fails
    written = tomllib.loads(out.read_text())
    assert (written["verdict"], written["fail_on"], written["k2"]) == ("fail", "error", "fail")
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["passed"] is False


def test_remediate_writes_the_same_formats(tmp_path, toml_installed):
    data, policy = workspace(tmp_path)
    out = tmp_path / "verdict.toml"
    result = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "suppress",
        "--option",
        "max_suppression=0.5",
        "--out",
        tmp_path / "fixed.csv",
        "--toml",
        out,
    )
    assert result.code == 0, result.stderr
    assert tomllib.loads(out.read_text())["verdict"] == "pass"


def test_a_third_party_format_may_not_overwrite_an_input(tmp_path, toml_installed):
    data, policy = workspace(tmp_path)
    before = policy.read_bytes()
    result = run_cli("audit", data, "--policy", policy, "--toml", policy, "--quiet")
    assert result.code == 2 and "an output would overwrite an input file" in result.stderr
    assert policy.read_bytes() == before


def test_a_failing_format_is_one_line_naming_its_package_and_writes_nothing(tmp_path, toml_installed):
    data, policy = workspace(tmp_path)
    out, report = tmp_path / "x.broken", tmp_path / "r.json"
    result = run_cli("audit", data, "--policy", policy, "--broken", out, "--json", report, "--quiet")
    assert result.code == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "privaudit-toml 1.2" in lines[0] and "the format lost its key" in lines[0]
    assert "--broken" in lines[0]
    assert not out.exists() and not report.exists()  # rendered before anything is written


def test_a_format_that_cannot_go_to_stdout_is_refused_before_any_work(tmp_path, toml_installed):
    data, policy = workspace(tmp_path)
    result = run_cli("audit", data, "--policy", policy, "--broken", "-", "--quiet")
    assert result.code == 2 and "--broken: this format cannot be written to standard output" in result.stderr


def test_an_in_process_format_renders_from_the_result():
    """The record as a third party's tests use it (privaudit.testing.registry_with), without the command line."""
    from privaudit.plugin.hookspecs import hookimpl

    class Plugin:
        @hookimpl
        def privaudit_output_formats(self):
            return [OutputFormat("count", "the number of checks", lambda result, req: str(len(req.report().checks)))]

    registry = registry_with(Plugin(), entry_points=False)
    fmt = registry.of("output")["count"]
    assert (fmt.flag, fmt.dest) == ("--count", "count_out")
    calls = []

    def reporter(result):  # what the command hands every request: the run's typed report
        calls.append(result)
        return SimpleNamespace(checks=[1, 2, 3])

    cache: dict = {}
    first, second = (OutputRequest("-", result="run", cache=cache, reporter=reporter) for _ in range(2))
    assert fmt.render("run", first) == fmt.render("run", second) == "3"
    assert calls == ["run"]  # computed once for the run's formats


def test_a_format_name_must_make_a_flag():
    with pytest.raises(ValueError, match="lower-case"):
        OutputFormat("To ML", "help", lambda result, request: "")
