"""Summary engines: who computes the equivalence-class summary of a released table.

The class summary (class sizes, per-class sensitive value counts, weight sums) is the only part of an
audit whose cost grows with the number of records, and it is additive, so it can be computed away from
the in-memory table:

==============  =======================================================================================
``in-process``  the default: the whole typed table in memory (:mod:`.inprocess`)
``chunked``     Parquet row groups or CSV blocks one at a time, partial summaries merged (:mod:`.chunked`)
``duckdb``      DuckDB SQL straight over the CSV or Parquet file, spilling to disk (:mod:`.duckdb_engine`)
``spark``       PySpark DataFrame/SQL, local mode unless given a session (:mod:`.spark_engine`)
==============  =======================================================================================

Every engine yields the same figures as ``in-process``: classes are numbered in the same order, the
same values are refused with the same one-line errors. An engine returns an :class:`EngineResult`:
the summary (``class_of`` is None and ``frame`` holds one representative row per class, except
in-process), the file's facts as a :class:`~privaudit.core.data.Table` (``frame`` None), and non-missing
counts per policy column. Checks that need the whole table (``needs`` "table") and ``--original`` are
refused by engines other than in-process; so is ``missing_qi: wildcard`` when a quasi-identifier value is
missing.

    from privaudit.engines import run_engine_audit
    result = run_engine_audit("big.parquet", "policy.yaml", engine="chunked")
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from privaudit.core.data import Table
from privaudit.core.errors import DataError, PrivauditError
from privaudit.core.summary import ClassSummary


@dataclass
class EngineResult:
    """What an engine computed from a released table."""

    summary: ClassSummary
    table: Table  # file facts; ``frame`` is None unless the engine loaded the table
    column_counts: dict[str, int]  # non-missing values per column the engine read


@dataclass(frozen=True)
class Engine:
    name: str
    module: str  # the module whose ``summarize(path, policy, **options)`` computes the summary
    description: str
    requires: str | None = None  # the optional package it needs, and the extra that installs it

    def load(self):
        if self.requires:
            try:
                importlib.import_module(self.requires)
            except ImportError:
                raise PrivauditError(f"the {self.name} engine needs the {self.requires} package: "
                                     f"pip install 'privaudit[{self.requires.replace('pyspark', 'spark')}]'") from None
        return importlib.import_module(f"{__name__}.{self.module}")

    @property
    def available(self) -> bool:
        return self.requires is None or importlib.util.find_spec(self.requires) is not None


ENGINES: dict[str, Engine] = {
    "in-process": Engine("in-process", "inprocess", "the whole table in memory (default)"),
    "chunked": Engine("chunked", "chunked", "row groups / CSV blocks one at a time, partial summaries merged"),
    "duckdb": Engine("duckdb", "duckdb_engine", "DuckDB SQL over the file, spilling to disk", "duckdb"),
    "spark": Engine("spark", "spark_engine", "PySpark DataFrame/SQL (local mode by default)", "pyspark"),
}


def get_engine(name: str) -> Engine:
    try:
        return ENGINES[name]
    except KeyError:
        raise PrivauditError(f"unknown engine {name!r} (available: {', '.join(ENGINES)})") from None


def summarize(path: str | Path, policy, engine: str = "in-process", **options: Any) -> EngineResult:
    """The class summary of ``path`` under ``policy`` (a :class:`~privaudit.core.policy.Policy`) by ``engine``.
    ``options`` go to the engine (``batch_rows`` for chunked, ``spark`` session for spark ...)."""
    return get_engine(engine).load().summarize(path, policy, **options)


def refuse_whole_table_checks(policy, registry, engine: str) -> None:
    """Before any work: the checks an engine without the table in memory cannot run (the same message
    :func:`privaudit.core.audit.audit_context` gives)."""
    from privaudit.core.audit import checks_to_run

    for check in checks_to_run(policy, registry):
        if "table" in check.assessor.needs:
            raise DataError(f"check {check.id!r} ({check.assessor.name}) needs the whole table in memory: "
                            f"use --engine in-process (this audit uses {engine})")


def run_engine_audit(released: str | Path, policy, engine: str = "chunked", original: str | Path | None = None,
                     registry=None, progress: Callable[[str, int, int], None] | None = None,
                     allow_outside_paths: bool = False, **options: Any):
    """Audit ``released`` with the class summary computed by ``engine``; returns an
    :class:`~privaudit.core.audit.AuditResult` whose ``engine`` names it."""
    from privaudit.core.audit import audit_context, run_audit
    from privaudit.core.context import AuditContext
    from privaudit.core.plugins import get_registry
    from privaudit.core.policy import Policy, load_policy

    if engine == "in-process":
        return run_audit(released, policy, original=original, registry=registry, progress=progress,
                         allow_outside_paths=allow_outside_paths)
    spec = get_engine(engine)
    registry = registry or get_registry()
    if not isinstance(policy, Policy):
        policy = load_policy(policy, registry, allow_outside_paths=allow_outside_paths)
    if original is not None:
        raise DataError(f"--original needs the whole tables in memory: use --engine in-process "
                        f"(this audit uses {engine})")
    refuse_whole_table_checks(policy, registry, engine)
    result = spec.load().summarize(released, policy, progress=progress, **options)
    ctx = AuditContext(policy, result.table.frame, progress=progress, precomputed=result.summary,
                       column_counts=result.column_counts)
    return audit_context(ctx, result.table, policy, registry, None, engine=engine)
