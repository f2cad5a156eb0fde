"""The packages are layered: each imports only the packages before it in :data:`LAYERS`, at run time
(imports inside functions included; only ``if TYPE_CHECKING:`` blocks are exempt, as they never run).
So no two packages import each other, and the maths (``risk``, ``utility``) know nothing of policies'
drivers, reports or assessors. Type-only imports may not close a cycle either: a lower package types what it
is handed from above by a protocol it owns (``core/registry.py``, ``plugin/view.py``; PEP 544), so the
packages stay a hierarchy for type checkers and readers too (Lakos, *Large-Scale C++ Software Design*,
ch. 4: levelization)."""

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
    "sections",
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


def _imported_modules(path: Path, package_dir: Path = PACKAGE, *, typing_too: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path`` (a module under ``package_dir``) that runs
    (``typing_too``: and those under ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set() if typing_too else _type_checking_only(tree)
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
def _edges(typing_too: bool = False) -> list[tuple[str, str, str]]:
    """(importing file:line, its layer, the imported layer) for every import across packages (with
    ``typing_too``, the ``if TYPE_CHECKING:`` ones included)."""
    edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = _layer_of(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
        if layer is None:
            continue
        for line, module in _imported_modules(path, typing_too=typing_too):
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


def _cycles(edges: list[tuple[str, str, str]]) -> list[str]:
    """The imports that close a cycle between packages: ``a`` importing ``b`` while ``b`` reaches ``a``."""
    reach = {layer: {layer} for layer in LAYERS}
    for _, layer, target in edges:
        reach[layer].add(target)
    changed = True
    while changed:  # transitive closure over at most len(LAYERS) packages
        changed = False
        for seen in reach.values():
            grown = set().union(*(reach[t] for t in seen))
            if grown - seen:
                seen |= grown
                changed = True
    return [f"{where}: {layer} imports {target}" for where, layer, target in edges if layer in reach[target]]


def test_no_cycle_between_packages_even_counting_type_only_imports():
    """A ``TYPE_CHECKING`` import never runs, but it still ties the lower package to the upper one's names:
    the core types the registry it is handed by ``core/registry.py``'s protocols, sections the audit by
    ``plugin/view.py``'s, never by importing ``pipeline``."""
    cycles = _cycles(_edges(typing_too=True))
    assert not cycles, "\n".join(cycles)


def test_the_cycle_scan_finds_a_type_only_cycle(tmp_path):
    """The scan counts a ``TYPE_CHECKING`` import upward as closing a cycle with a run-time import down."""
    for layer, source in (
        ("core", "if TYPE_CHECKING:\n    from privaudit.pipeline.plugins import Registry\n"),
        ("pipeline", "from privaudit.core import policy\n"),
    ):
        (tmp_path / "privaudit" / layer).mkdir(parents=True)
        (tmp_path / "privaudit" / layer / "probe.py").write_text(source)
    edges = [
        (f"{layer}:{line}", layer, _layer_of(module))
        for layer in ("core", "pipeline")
        for line, module in _imported_modules(
            tmp_path / "privaudit" / layer / "probe.py", tmp_path / "privaudit", typing_too=True
        )
    ]
    assert sorted(set(_cycles([e for e in edges if e[2] is not None]))) == [
        "core:2: core imports pipeline",
        "pipeline:1: pipeline imports core",
    ]


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


#: What a check module may not import: the report and the drawing builders (the section module draws).
DRAWING = (
    "privaudit.report",
    "privaudit.sections",
    "privaudit.plugin.sections",
    "privaudit.plugin.figures",
    "privaudit.plugin.binning",
    "privaudit.plugin.charts",
    "privaudit.plugin.membership_section",
)
HEAVY = ("numpy", "pandas", "pyarrow", "scipy")
#: privaudit's own modules that import the heavy stack at module level: a check module imports them in ``run``
HEAVY_PRIVAUDIT = (
    "privaudit.risk",
    "privaudit.io",
    "privaudit.discovery",
    "privaudit.engines",
    "privaudit.utility",
    "privaudit.core.summary",
)


def _names(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_check_modules_do_not_draw():
    """An assessor's module computes; its section (privaudit/sections/<name>.py) presents: no check module
    imports the report, the built-in sections or the drawing builders, anywhere in it (DESIGN: compute apart
    from presentation)."""
    drawing = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: imports {module}"
        for path in sorted((PACKAGE / "assessors").glob("*.py"))
        for line, module in _imported_modules(path, typing_too=True)
        if _names(module, DRAWING)
    ]
    assert not drawing, "\n".join(drawing)


def _module_level_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of the imports that run when ``path`` is imported: outside functions and outside
    ``if TYPE_CHECKING:`` blocks (class bodies and other top-level blocks included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    found: list[tuple[int, str]] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if id(node) in skipped or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.append((node.lineno, node.module or ""))
        pending.extend(ast.iter_child_nodes(node))
    return sorted(found)


def test_default_plugins_import_nothing_heavy_at_module_level():
    """``privaudit policy check`` and ``--help`` load every built-in plugin: those modules import numpy, pandas,
    pyarrow and scipy only inside the functions that compute (DESIGN: registry without the heavy stack)."""
    from privaudit.pipeline.plugins import DEFAULT_PLUGINS

    heavy = [
        f"{module}:{line}: imports {imported} at module level"
        for module in DEFAULT_PLUGINS
        for line, imported in _module_level_imports(PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py"))
        if _names(imported, HEAVY)
    ]
    assert not heavy, "\n".join(heavy)


@pytest.mark.parametrize(
    ("source", "heavy"),
    [
        ("import numpy as np\n", ["numpy"]),
        ("from pandas import DataFrame\n", ["pandas"]),
        ("if TYPE_CHECKING:\n    import numpy as np\n", []),
        ("def f():\n    import scipy.stats\n", []),
        ("class A:\n    import pyarrow\n", ["pyarrow"]),
        ("try:\n    import numpy\nexcept ImportError:\n    pass\n", ["numpy"]),
    ],
)
def test_the_module_level_scan(tmp_path, source, heavy):
    """The lightness scan itself: top-level, class-body and try-block imports count; function-level and
    TYPE_CHECKING ones do not."""
    (tmp_path / "probe.py").write_text(source)
    assert [m for _, m in _module_level_imports(tmp_path / "probe.py") if _names(m, HEAVY)] == heavy


def test_check_and_section_modules_leave_the_maths_to_run_time():
    """A check module (and its section) loads privaudit's mathematics and readers (``risk``, ``io`` ...: numpy
    and pandas at their top) inside the functions that compute, so that listing the registry stays light."""
    heavy = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: imports {imported} at module level"
        for folder in ("assessors", "sections")
        for path in sorted((PACKAGE / folder).glob("*.py"))
        for line, imported in _module_level_imports(path)
        if _names(imported, HEAVY_PRIVAUDIT)
    ]
    assert not heavy, "\n".join(heavy)
