"""The packages are layered: each imports only the packages before it in :data:`LAYERS`, at run time
(imports inside functions included; only ``if TYPE_CHECKING:`` blocks are exempt, as they never run).
So no two packages import each other, and the maths (``risk``, ``utility``) know nothing of policies'
drivers, reports or assessors."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "privaudit"

#: bottom to top; a package may import those before it, never one after it
LAYERS = (
    "common",
    "core",
    "io",
    "runtime",
    "risk",
    "utility",
    "discovery",
    "plugin",
    "engines",
    "assessors",
    "report",
    "remediation",
    "pipeline",
    "cli",
    "api",
    "testing",
)


def _type_checking_only(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
            if name == "TYPE_CHECKING":
                for statement in node.body:
                    skipped.update(id(n) for n in ast.walk(statement))
    return skipped


def _imported_modules(path: Path, package_dir: Path = PACKAGE) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path`` (a module under ``package_dir``) that runs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    parts = path.relative_to(package_dir.parent).with_suffix("").parts
    package = list(parts[:-1])
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "privaudit" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


@cache
def _edges() -> list[tuple[str, str, str]]:
    """(importing file:line, its layer, the imported layer) for every import across packages."""
    edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = _layer_of(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
        if layer is None:
            continue
        for line, module in _imported_modules(path):
            target = _layer_of(module)
            if target is not None and target != layer:
                edges.append((f"{path.relative_to(PACKAGE.parent)}:{line}", layer, target))
    return edges


def test_every_package_has_its_layer():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()} | {
        p.stem for p in PACKAGE.glob("*.py") if not p.name.startswith("__")
    }
    assert packages == set(LAYERS)


def test_each_package_imports_only_the_layers_below_it():
    upward = [
        f"{where}: {layer} imports {target}"
        for where, layer, target in _edges()
        if LAYERS.index(target) > LAYERS.index(layer)
    ]
    assert not upward, "\n".join(upward)


def test_no_two_packages_import_each_other():
    pairs = {(layer, target) for _, layer, target in _edges()}
    assert not [(a, b) for a, b in pairs if (b, a) in pairs]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import privaudit.pipeline.audit\n", [(1, "privaudit.pipeline.audit")]),
        ("from privaudit.core import policy\n", [(1, "privaudit.core"), (1, "privaudit.core.policy")]),
        ("if TYPE_CHECKING:\n    from privaudit.pipeline import audit\n", []),
        ("def f():\n    from ..pipeline import audit\n", [(2, "privaudit.pipeline"), (2, "privaudit.pipeline.audit")]),
    ],
)
def test_the_scan_sees_runtime_imports_only(tmp_path, source, expected):
    """The scan itself: absolute, relative and function-level imports count; TYPE_CHECKING ones do not."""
    folder = tmp_path / "privaudit" / "risk"
    folder.mkdir(parents=True)
    (folder / "probe.py").write_text(source)
    assert _imported_modules(folder / "probe.py", tmp_path / "privaudit") == expected
