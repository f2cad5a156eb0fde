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
same values are refused with the same one-line errors. An engine module has one function,
``summarize(source, policy, *, progress=None, **options) -> EngineResult``: the summary (``class_of`` is
None and ``frame`` holds one representative row per class, except in-process, which returns None and lets
the audit build it lazily from the loaded table), the file's facts as a :class:`~privaudit.io.data.Table`
(``frame`` None unless the engine loaded the table), and non-missing counts per policy column. The audit
driver (:func:`privaudit.pipeline.audit.run_audit`) picks the engine from the registry (:func:`get_engine`); checks that need the whole table
(``needs`` "table"), ``--original`` and ``--control`` are refused there for engines that are not
``in_memory``; ``missing_qi: wildcard`` with a missing quasi-identifier value is refused by the SQL
engines.

    from privaudit.pipeline.audit import run_audit
    result = run_audit("big.parquet", "policy.yaml", engine="chunked")

The engines are registered extensions (:class:`privaudit.plugin.engine.Engine`, listed by a
``privaudit_engines`` hook implementation; the built-ins in :mod:`.builtin`): a new engine is one module with
``summarize`` and one registration, here or in a third party's package.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privaudit.common.extensions import registered
from privaudit.core.errors import PrivauditError, did_you_mean
from privaudit.plugin.engine import POSITIVE_OPTIONS, Engine, EngineResult

if TYPE_CHECKING:
    from privaudit.core.policy import Policy


def engines(registry: Any = None) -> Mapping[str, Engine]:
    """The registered engines by name, in registration order: ``registry``'s, else the current one's."""
    return registry.of("engine") if registry is not None else registered("engine")


def get_engine(name: str, registry: Any = None) -> Engine:
    """The engine registered as ``name``; one line naming the engines available otherwise."""
    known = engines(registry)
    try:
        return known[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name
        raise PrivauditError(
            f"unknown engine {name!r}{did_you_mean(name, known)} (available: {', '.join(known)})"
        ) from None


def summarize(
    path: str | Path, policy: Policy, engine: str = "in-process", registry: Any = None, **options: Any
) -> EngineResult:
    """The class summary of ``path`` under ``policy`` (a :class:`~privaudit.core.policy.Policy`) by ``engine``,
    built even where the engine leaves it to the audit (in-process). ``options`` go to the engine
    (``batch_rows`` for chunked, ``spark`` session for spark ...)."""
    result = get_engine(engine, registry).load()(path, policy, **options)
    if result.summary is None:
        from privaudit.core.context import AuditContext

        result.summary = AuditContext(policy, result.table.frame).summary
    if result.column_counts is None:
        frame = result.table.frame
        result.column_counts = {str(c): int(frame[c].notna().sum()) for c in frame.columns}
    return result


def first_rows(source, policy, rows: int):
    """The first ``rows`` rows of a file, directory, glob or URI, typed by ``policy`` as a whole load types
    them (a bounded read: the out-of-memory engines' view of the table's beginning); None for anything else."""
    import pyarrow as pa

    from privaudit.io.data import Table, type_table
    from privaudit.io.dataset import open_input

    if not isinstance(source, (str, Path)):
        return None
    opened = open_input(source, policy)
    batches, n = [], 0
    for _, batch in opened.batches(opened.columns, batch_rows=rows):
        batches.append(batch)
        n += batch.num_rows
        if n >= rows:
            break
    if not batches:
        return None
    raw = pa.Table.from_batches(batches).slice(0, rows)
    return type_table(raw, Table(None, opened.path, "", 0, opened.file_format), policy, required=[]).frame


__all__ = ["POSITIVE_OPTIONS", "Engine", "EngineResult", "engines", "first_rows", "get_engine", "summarize"]
