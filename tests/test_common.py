"""The shared leaf package (privaudit.common) and the small helpers every package now uses once: the
first line of an exception, the tie tolerance of distances, the Parquet suffixes, the worker count, and
the engines' table behind --engine."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from privaudit.common.formats import PARQUET_SUFFIXES, is_parquet
from privaudit.common.thresholds import TIE_ATOL, TIE_RTOL, exceeds, reaches, tie_bound
from privaudit.core.errors import first_line


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("", "fallback"),
        ("\n", "fallback"),
        ("  \n\n", "fallback"),
        ("one\ntwo", "one"),
        ("\n  second line \n", "second line"),
    ],
)
def test_first_line_never_crashes(message, expected):
    assert first_line(ValueError(message), "fallback") == expected


def test_ties_and_thresholds():
    d = np.array([0.0, 1.0, 1e6])
    assert np.array_equal(tie_bound(d), d * (1 + TIE_RTOL) + TIE_ATOL)
    assert (tie_bound(d) > d).all()
    assert not exceeds(0.1 + 0.2, 0.3) and reaches(0.1 + 0.2, 0.3)


def test_parquet_suffixes():
    assert PARQUET_SUFFIXES == (".parquet", ".pq")
    assert is_parquet("a/B.PARQUET") and is_parquet("x.pq") and not is_parquet("x.csv")


def test_workers_come_from_the_machine(monkeypatch):
    import privaudit.runtime.concurrency as concurrency

    monkeypatch.setenv("PRIVAUDIT_WORKERS", "3")
    assert concurrency.available_processors() == 3
    monkeypatch.setenv("PRIVAUDIT_WORKERS", "zero")
    assert concurrency.available_processors() >= 1
    monkeypatch.delenv("PRIVAUDIT_WORKERS")
    importlib.reload(concurrency)
    assert concurrency.WORKERS == concurrency.available_processors()


def test_engine_choices_come_from_the_registered_engines(capsys):
    from privaudit.cli import _parser
    from privaudit.common.extensions import using
    from privaudit.engines import engines
    from privaudit.plugin.engine import Engine
    from privaudit.plugin.hookspecs import hookimpl
    from privaudit.testing import registry_with

    with pytest.raises(SystemExit):
        _parser().parse_args(["audit", "x.csv", "--policy", "p.yaml", "--engine", "no-such-engine"])
    err = capsys.readouterr().err
    assert "no-such-engine" in err and all(repr(name) in err for name in engines())

    class Mine:  # one registration: a choice
        @hookimpl
        def privaudit_engines(self):
            return [Engine("my-engine", "mine", "privaudit.engines.chunked:summarize")]

    with using(registry_with(Mine(), entry_points=False).of):
        args = _parser().parse_args(["audit", "x.csv", "--policy", "p.yaml", "--engine", "my-engine"])
    assert args.engine == "my-engine"


def test_common_imports_nothing_else_of_privaudit():
    import ast
    from pathlib import Path

    import privaudit.common

    for path in Path(privaudit.common.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("privaudit") or node.module.startswith("privaudit.common"), path


def test_report_does_not_import_assessors():
    """The report reads what assessors declare through the registry; it imports none of their modules."""
    import ast
    from pathlib import Path

    import privaudit.report

    for path in Path(privaudit.report.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("privaudit.assessors"), path
