"""Shared fixtures: paths to the bundled data and a helper that runs the CLI in-process."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI (the CI variable set) tests the same examples on every run; a developer's run explores new ones
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

from privaudit.testing import run_cli as _run_cli  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"


def cli(*args: str) -> tuple[int, str, str]:
    """Run ``privaudit ARGS`` in-process (:func:`privaudit.testing.run_cli`); return (exit code, stdout, stderr)."""
    result = _run_cli(*args)
    return result.code, result.stdout, result.stderr


@pytest.fixture
def run_cli():
    """:func:`cli` as a fixture."""
    return cli


@pytest.fixture
def audit_json(run_cli, tmp_path):
    """Audit RELEASED with POLICY through the CLI and return (exit code, JSON report)."""

    def run(released, policy, *extra):
        out = tmp_path / "report.json"
        code, _, err = run_cli("audit", released, "--policy", policy, "--json", out, *extra)
        assert out.exists(), err
        return code, json.loads(out.read_text())

    return run


def write_policy(folder: Path, text: str, name: str = "policy.yaml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def write_rr_table(path: Path, n: int, seed: int = 3) -> Path:
    """The randomized-response tests' table: sex and region (quasi-identifiers), disease (sensitive), with
    women in the east all 'cancer', so randomizing sex and region is what lowers the disclosure risk."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    region = rng.choice(["north", "south", "east"], n, p=[0.5, 0.3, 0.2])
    disease = np.where((sex == "F") & (region == "east"), "cancer", rng.choice(["flu", "cold", "cancer"], n))
    pd.DataFrame({"sex": sex, "region": region, "disease": disease}).to_csv(path, index=False)
    return path


@pytest.fixture(autouse=True)
def _reports_follow_their_schema(request):
    """Every JSON report a test leaves in its tmp_path follows ``privaudit report schema``."""
    tmp = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if tmp is None:
        return
    from privaudit.testing import assert_valid_report

    for path in sorted(tmp.rglob("*.json"))[:50]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError, OSError):
            continue
        if isinstance(data, dict) and "schema_version" in data and "checks" in data and "tool" in data:
            assert_valid_report(data)


def pytest_collection_modifyitems(config, items):
    """Tests that start a JVM (the ``spark`` fixture, the Spark modules) are marked ``spark`` and ``slow``, so
    ``pytest -m "not slow"`` is the quick run and ``-m "not spark"`` runs without Java."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()) or item.path.name.startswith("test_spark_"):
            item.add_marker(pytest.mark.spark)
            item.add_marker(pytest.mark.slow)


@contextlib.contextmanager
def builtin_plugins():
    """The process-wide registry with privaudit's own extensions only, whatever plugins are installed (CI
    installs the example plugins, plugins/privaudit-likeness and plugins/privaudit-extras): for tests whose
    expected figures and layout are privaudit's own (golden reports; recommendations among the built-in
    methods; the order of the report's chapters). An installed measure runs by default, an installed
    remediator joins ``--explore`` and an installed chapter joins the report, by design."""
    from privaudit.pipeline import plugins

    real = plugins.make_manager
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            plugins, "make_manager", lambda load_entry_points=True, extra_plugins=(): real(False, extra_plugins)
        )
        plugins.get_registry.cache_clear()
        try:
            yield
        finally:
            plugins.get_registry.cache_clear()  # rebuilt with the installed plugins on next use


@pytest.fixture
def builtin_plugins_only():
    """:func:`builtin_plugins` for one test."""
    with builtin_plugins():
        yield
