"""The plugin's tests need it installed (its entry points are how privaudit finds it)::

pip install -e plugins/privaudit-likeness      # or: pip install ./plugins/privaudit-likeness
"""

from __future__ import annotations

import os
from importlib import metadata

import pytest
from hypothesis import settings

# CI (the CI variable set) tests the same examples on every run; a developer's run explores new ones
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_configure(config):
    try:
        metadata.distribution("privaudit-likeness")
    except metadata.PackageNotFoundError:
        raise pytest.UsageError(
            "privaudit-likeness is not installed: run `pip install -e plugins/privaudit-likeness` first"
        ) from None


def policy(qis=("zip",), sensitive=("disease",), checks=(), types=None, **extra) -> dict:
    """A policy dict for privaudit.testing: QIs and sensitive columns (nominal unless ``types`` says)."""
    types = types or {}
    columns = {q: {"role": "quasi_identifier", "type": types.get(q, "nominal")} for q in qis}
    columns.update({s: {"role": "sensitive", "type": types.get(s, "nominal")} for s in sensitive})
    return {"columns": columns, "checks": list(checks), **extra}
