"""The plugin's tests need it installed (its entry points are how privaudit finds it)::

pip install ./plugins/privaudit-extras     # or, beside a shared environment:
pip install --no-deps --target /tmp/extras-site ./plugins/privaudit-extras  (then /tmp/extras-site on PYTHONPATH)
"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

PLUGIN = Path(__file__).resolve().parents[1]
REPO = PLUGIN.parents[1]


def pytest_configure(config):
    try:
        metadata.distribution("privaudit-extras")
    except metadata.PackageNotFoundError:
        raise pytest.UsageError(
            "privaudit-extras is not installed: run `pip install ./plugins/privaudit-extras` first"
        ) from None


def privaudit_cmd(*args, cwd=None) -> subprocess.CompletedProcess:
    """The real command in a fresh interpreter: entry points are discovered from the installed metadata."""
    return subprocess.run(
        [sys.executable, "-m", "privaudit", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


POLICY = """version: 1
name: extras
columns:
  age: {role: quasi_identifier, type: numeric}
  zip: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {id: k5, assessor: k_anonymity, k: 5}
  - {id: ldiv, assessor: l_diversity, sensitive: disease, l: 2, severity: warning}
"""


def small_frame(n: int = 400, seed: int = 3) -> pd.DataFrame:
    """Exact ages (18-79), three ZIP areas, a sensitive disease: fails k=5 until age is coarsened."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "zip": rng.choice(["z1", "z2", "z3"], n),
            "disease": rng.choice(["flu", "cold", "hiv"], n),
        }
    )


@pytest.fixture
def release(tmp_path) -> Path:
    """``data.csv`` (``small_frame``) and ``policy.yaml`` in a folder of their own."""
    small_frame().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "policy.yaml").write_text(POLICY)
    return tmp_path
