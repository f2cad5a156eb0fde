"""The package as privaudit sees it: ``privaudit plugins --json`` lists one extension of each kind from
privaudit-extras, under its entry points; loading its modules (what ``--help`` and ``policy check`` do)
imports no table machinery; and it imports from privaudit only the plugin API and the few internals its
README names ("What the engine needed")."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from importlib import metadata

import privaudit_extras
from conftest import PLUGIN, privaudit_cmd

#: kind -> (name, entry point): one extension of each kind the first example plugin does not add
EXPECTED = {
    "engine": ("sqlite", "sqlite"),
    "reader": ("jsonl", "jsonl"),
    "measure": ("distinct_kept", "distinct_kept"),
    "chapter": ("release_card", "release_card"),
    "output": ("checks-csv", "checks_csv"),
    "remediator": ("round", "round"),
}
ENTRY_MODULES = [
    "privaudit_extras.sqlite_engine",
    "privaudit_extras.jsonl",
    "privaudit_extras.distinct_kept",
    "privaudit_extras.release_card",
    "privaudit_extras.checks_csv",
    "privaudit_extras.rounding",
]


def test_plugins_lists_one_extension_of_each_kind():
    version = metadata.version("privaudit-extras")
    assert version == privaudit_extras.__version__
    done = privaudit_cmd("plugins", "--json")
    assert done.returncode == 0, done.stderr
    mine = {
        e["kind"]: (e["name"], e["module"])
        for e in json.loads(done.stdout)["extensions"]
        if e["package"] == "privaudit-extras" and e["version"] == version
    }
    assert mine == EXPECTED


def test_the_entry_points_name_the_modules():
    points = {p.name: p.value for p in metadata.distribution("privaudit-extras").entry_points if p.group == "privaudit"}
    assert sorted(points.values()) == sorted(ENTRY_MODULES)


def test_loading_the_plugin_imports_no_table_machinery():
    """privaudit loads every plugin module for ``--help`` and ``policy check``: the records name their
    functions as "module:function" or import numpy, pandas, pyarrow and scipy inside them."""
    code = (
        "import importlib, sys\n"
        f"for name in {ENTRY_MODULES!r}:\n"
        "    module = importlib.import_module(name)\n"
        "    hooks = [getattr(module, h) for h in dir(module) if h.startswith('privaudit_')]\n"
        "    assert hooks and all(h() for h in hooks), name\n"
        "heavy = ('numpy', 'pandas', 'pyarrow', 'scipy', 'sklearn', 'jinja2', 'duckdb', 'sqlite3')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


#: the plugin API, and the internals the engine and the reader need (see the README)
ALLOWED = {
    "privaudit",
    "privaudit.plugin",
    "privaudit.plugin.chapter",
    "privaudit.plugin.engine",
    "privaudit.plugin.remediator",
    "privaudit.plugin.output",
}
INTERNAL = {
    "privaudit.core.errors.DataError": {"sqlite_engine.py", "jsonl.py"},
    "privaudit.io.dataset.open_input": {"sqlite_engine.py"},
    "privaudit.io.data.Table": {"sqlite_engine.py"},
    "privaudit.io.data.type_table": {"sqlite_engine.py"},
}


def test_only_the_plugin_api_and_the_named_internals():
    import privaudit.plugin

    public = set(privaudit.plugin.__all__) | set(dir(privaudit.plugin))
    for path in (PLUGIN / "privaudit_extras").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] != "privaudit" for a in node.names), path.name
            if not (isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "privaudit"):
                continue
            assert not any(a.name.startswith("_") for a in node.names), f"{path.name}: a private name"
            if node.module in ALLOWED:
                if node.module == "privaudit.plugin":
                    assert {a.name for a in node.names} <= public, path.name
                continue
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                assert path.name in INTERNAL.get(name, ()), f"{path.name} imports {name}"
