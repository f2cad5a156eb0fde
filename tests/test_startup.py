"""``privaudit policy check`` and ``privaudit --help`` start without the table machinery: validating a YAML file
loads the plugin registry (every built-in plugin module and what it imports at module level) but never
pandas nor pyarrow. Measured from the outside, in a fresh interpreter, with CPython's own import trace
(``python -X importtime``: one line per module, nested by who imported it; CPython docs, "-X importtime")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
POLICY = ROOT / "tests" / "data" / "golden" / "class_checks.yaml"
HEAVY = ("pandas", "pyarrow")

#: Built-in plugin modules still importing the table machinery at module level while other branches make them
#: light (the assessors' checks and sections, the remediators): a heavy import is allowed only when one of these
#: is among its importers. The integrator empties this once those branches are merged.
ALLOWED_THROUGH: tuple[str, ...] = ()


#: run in the child before the command: reports, for each heavy package, the modules whose top-level code was
#: running when it was first imported (innermost first). CPython's ``-X importtime`` nests only imports made by
#: ``import`` statements, not those of ``importlib.import_module`` (how the registry loads plugins), so the
#: importers are read from the stack instead (PEP 451 finders: ``find_spec`` is asked before every import).
OBSERVER = """
import runpy, sys
class Observer:
    def find_spec(self, name, path=None, target=None):
        if name in HEAVY and name not in sys.modules:
            frame, chain = sys._getframe(1), []
            while frame is not None:
                if frame.f_code.co_name == "<module>":
                    chain.append(str(frame.f_globals.get("__name__")))
                frame = frame.f_back
            sys.stderr.write(f"heavy: {name} <- {' <- '.join(chain)}\\n")
        return None
sys.meta_path.insert(0, Observer())
sys.argv = ["privaudit", *ARGS]
runpy.run_module("privaudit", run_name="__main__", alter_sys=True)
"""


def _run(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The command's result and the modules it imported (``-X importtime``'s lines)."""
    code = f"HEAVY = {HEAVY!r}\nARGS = {list(args)!r}\n{OBSERVER}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=env, cwd=ROOT
    )
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return done, imported


def heavy_imports(stderr: str) -> list[str]:
    """The heavy packages imported, each with its importers, unless an allowed module is among them."""
    found = []
    for line in stderr.splitlines():
        if line.startswith("heavy: "):
            chain = line.removeprefix("heavy: ").split(" <- ")[1:]
            if not any(m.startswith(ALLOWED_THROUGH) for m in chain):
                found.append(line.removeprefix("heavy: "))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("args", [("policy", "check", str(POLICY)), ("--help",)], ids=["policy-check", "help"])
def test_the_command_imports_neither_pandas_nor_pyarrow(args):
    done, imported = _run(*args)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "privaudit.cli" in imported  # the trace is read
    assert not heavy_imports(done.stderr), "\n".join(heavy_imports(done.stderr))
    if not ALLOWED_THROUGH:
        assert not imported & set(HEAVY)


def test_the_observer_names_who_imported_a_package():
    """The reading of the observer's lines: every heavy import is named with the modules that led to it."""
    stderr = (
        "heavy: pandas <- privaudit.core.hierarchy <- privaudit.cli.policy <- __main__\n"
        "heavy: pyarrow <- pandas <- privaudit.discovery.scan <- privaudit.assessors.direct_identifiers\n"
        "import time: 1 | 1 | pandas\n"
    )
    assert heavy_imports(stderr) == [
        "pandas <- privaudit.core.hierarchy <- privaudit.cli.policy <- __main__",
        "pyarrow <- pandas <- privaudit.discovery.scan <- privaudit.assessors.direct_identifiers",
    ]


#: the contract a plugin imports and the command line's start-up: light whatever the built-in plugins import
LIGHT = (
    "privaudit.cli",
    "privaudit.cli.policy",
    "privaudit.cli.plugins",
    "privaudit.core.policy",
    "privaudit.core.hierarchy",
    "privaudit.core.schema",
    "privaudit.core.registry",
    "privaudit.pipeline.plugins",
    "privaudit.plugin",
    "privaudit.plugin.assessor",
    "privaudit.plugin.details",
    "privaudit.plugin.helpers",
    "privaudit.plugin.hookspecs",
    "privaudit.plugin.remediator",
    "privaudit.plugin.sections",
    "privaudit.plugin.view",
    "privaudit.common.thresholds",
)


def test_the_contract_modules_import_nothing_heavy():
    """Each module a plugin or the command line's start-up imports, alone in a fresh interpreter, loads none of
    numpy, pandas, pyarrow, scipy: heavy imports sit inside the functions that compute."""
    code = (
        "import importlib, sys\n"
        f"for m in {LIGHT!r}:\n"
        "    importlib.import_module(m)\n"
        "print(' '.join(sorted(p for p in ('numpy', 'pandas', 'pyarrow', 'scipy') if p in sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, cwd=ROOT)
    assert done.stdout.strip() == ""
