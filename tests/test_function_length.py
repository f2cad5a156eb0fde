"""No function in ``privaudit/`` runs over :data:`LIMIT` lines: a longer one is split into named helpers, each
a step a reader can take in at once (McConnell, *Code Complete*, 2nd ed., section 7.4, "How Long Can a
Routine Be?"; pylint's ``too-many-statements``, R0915, and ruff's ``PLR0915`` check the same habit by
counting statements). A function's length is its ``def`` line to its last line, decorators aside; a nested
function counts on its own and inside the function that holds it.

Only tabular or generated code may be exempted, in :data:`ALLOWLIST`, each entry with its reason."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "privaudit"

#: most lines a function may span
LIMIT = 80

#: "path relative to privaudit/::qualified name" -> why the function may run long. Only a table written out
#: as code (one line per row of data) or generated code belongs here; an entry that no longer runs long
#: fails :func:`test_every_exemption_is_still_needed`. Nothing needs one today.
ALLOWLIST: dict[str, str] = {}


def long_functions(root: Path, limit: int = LIMIT) -> dict[str, int]:
    """``"path::qualified.name" -> lines`` for every function (``def`` or ``async def``, methods and nested
    functions included) under ``root`` that spans more than ``limit`` lines."""
    found: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") + 1 > limit:  # no function is longer than its file: parse only the long files
            _visit(ast.parse(text, str(path)), path.relative_to(root).as_posix(), "", limit, found)
    return found


def _visit(node: ast.AST, where: str, prefix: str, limit: int, found: dict[str, int]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = prefix + child.name
            if not isinstance(child, ast.ClassDef):
                lines = (child.end_lineno or child.lineno) - child.lineno + 1
                if lines > limit:
                    found[f"{where}::{name}"] = lines
            _visit(child, where, name + ".", limit, found)
        else:
            _visit(child, where, prefix, limit, found)


@cache
def _package_long_functions() -> dict[str, int]:
    return long_functions(PACKAGE)


@pytest.mark.slow  # parses every long module of the package
def test_no_function_runs_over_the_limit():
    over = {name: lines for name, lines in _package_long_functions().items() if name not in ALLOWLIST}
    assert not over, f"functions over {LIMIT} lines (split them into named helpers): " + ", ".join(
        f"{name} ({lines} lines)" for name, lines in sorted(over.items())
    )


@pytest.mark.slow
def test_every_exemption_is_still_needed():
    stale = sorted(set(ALLOWLIST) - set(_package_long_functions()))
    assert not stale, f"no longer over {LIMIT} lines (or gone): drop from ALLOWLIST: {stale}"


def _function(name: str, lines: int, keyword: str = "def", indent: str = "") -> str:
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 2))
    return f"{indent}{keyword} {name}():\n{body}{indent}    return None\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (_function("at_limit", LIMIT), {}),
        (_function("over", LIMIT + 1), {"m.py::over": LIMIT + 1}),
        (_function("coroutine", LIMIT + 1, "async def"), {"m.py::coroutine": LIMIT + 1}),
        ("class Table:\n" + _function("method", LIMIT + 5, indent="    "), {"m.py::Table.method": LIMIT + 5}),
        (
            "@decorated\n" + "def outer():\n" + _function("inner", LIMIT + 1, indent="    ") + "    return inner\n",
            {"m.py::outer": LIMIT + 3, "m.py::outer.inner": LIMIT + 1},
        ),
    ],
    ids=["at the limit", "over", "async", "method", "nested"],
)
def test_the_scan(tmp_path, source, expected):
    (tmp_path / "m.py").write_text(source)
    assert long_functions(tmp_path) == expected
