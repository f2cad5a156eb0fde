"""The built-in remediation methods register without the numerical stack.

Their modules are listed in ``privaudit.pipeline.plugins.DEFAULT_PLUGINS``, so loading the registry (for
``privaudit policy check`` or ``--help``) imports them; numpy, pandas, pyarrow and scipy must then load only
when a remediation runs. The rule every module of ``DEFAULT_PLUGINS`` follows: heavy imports inside the
functions that use them, annotations under ``if TYPE_CHECKING:`` (PEP 563 postponed annotations).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import privaudit

METHODS = (
    "generalize",
    "local_suppression",
    "microaggregate",
    "noise",
    "pram",
    "randomize",
    "rank_swap",
    "record_swap",
    "suppress",
    "top_bottom_coding",
)
HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "sklearn")


@pytest.mark.parametrize("method", METHODS)
def test_method_module_imports_no_numerical_library(method: str) -> None:
    code = (
        f"import sys, privaudit.remediation.methods.{method} as m\n"
        f"assert m.REMEDIATOR.name\n"
        f"print(','.join(x for x in {HEAVY!r} if x in sys.modules))"
    )
    root = str(Path(privaudit.__file__).resolve().parent.parent)  # the privaudit under test, not an installed one
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "", f"{method} loads {out.stdout.strip()} at import"
