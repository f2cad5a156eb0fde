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
driver (:func:`privaudit.pipeline.audit.run_audit`) picks the engine; checks that need the whole table
(``needs`` "table"), ``--original`` and ``--control`` are refused there for engines that are not
``in_memory``; ``missing_qi: wildcard`` with a missing quasi-identifier value is refused by the SQL
engines.

    from privaudit.pipeline.audit import run_audit
    result = run_audit("big.parquet", "policy.yaml", engine="chunked")

A new engine is a module here with ``summarize`` and one entry in :data:`ENGINES`.
"""

from __future__ import annotations

import importlib
import numbers
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privaudit.core.errors import PrivauditError, did_you_mean, shortened

if TYPE_CHECKING:  # the engines' table is read by the command line's parser: importing it stays light
    from privaudit.core.summary import ClassSummary
    from privaudit.io.data import Table


@dataclass
class EngineResult:
    """What an engine computed from a released table."""

    summary: ClassSummary | None  # None: built lazily from ``table.frame`` by the audit context
    table: Table  # file facts; ``frame`` is None unless the engine loaded the table
    column_counts: dict[str, int] | None  # non-missing values per column the engine read (None: ask the frame)


#: Integer engine options for which 0 means nothing (others: 0 is the engine's default or "none").
POSITIVE_OPTIONS = frozenset({"batch_rows", "block_bytes", "partition_rows", "shuffle_partitions"})


@dataclass(frozen=True)
class Engine:
    name: str
    module: str  # the module whose ``summarize(path, policy, **options)`` computes the summary
    description: str
    requires: str | None = None  # the optional package it needs, and the extra that installs it
    in_memory: bool = False  # it loads the whole table (checks that need it, --original and --control can run)

    def load(self):
        if self.requires:
            try:
                importlib.import_module(self.requires)
            except ImportError:
                raise PrivauditError(
                    f"the {self.name} engine needs the {self.requires} package: "
                    f"pip install 'privaudit[{self.requires.replace('pyspark', 'spark')}]'"
                ) from None
        return importlib.import_module(f"{__name__}.{self.module}")

    def check_options(self, options: dict[str, Any]) -> None:
        """Refuse, in one line, an option the engine's ``summarize`` does not take."""
        import inspect

        params = {
            name: p
            for name, p in inspect.signature(self.load().summarize).parameters.items()
            if p.kind == p.KEYWORD_ONLY and name not in ("progress", "what")
        }
        taken = list(params)
        for name, value in options.items():
            if name not in taken:
                raise PrivauditError(
                    f"--engine-option {name}: the {self.name} engine takes "
                    f"{', '.join(taken) if taken else 'no options'}{did_you_mean(name, taken)}"
                )
            # a count or a size (batch_rows, threads, dense_cells ...): a whole number, at least 0 (or 1)
            kind, least = str(params[name].annotation), 1 if name in POSITIVE_OPTIONS else 0
            if (
                kind.startswith("int")
                and not (value is None and "None" in kind)
                and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least)
            ):
                raise PrivauditError(
                    f"--engine-option {name}={shortened(value)}: expected a whole number of at least {least}"
                )

    @property
    def available(self) -> bool:
        return self.requires is None or importlib.util.find_spec(self.requires) is not None


ENGINES: dict[str, Engine] = {
    "in-process": Engine("in-process", "inprocess", "the whole table in memory (default)", in_memory=True),
    "chunked": Engine("chunked", "chunked", "row groups / CSV blocks one at a time, partial summaries merged"),
    "duckdb": Engine("duckdb", "duckdb_engine", "DuckDB SQL over the file, spilling to disk", "duckdb"),
    "spark": Engine("spark", "spark_engine", "PySpark DataFrame/SQL (local mode by default)", "pyspark"),
}


def get_engine(name: str) -> Engine:
    try:
        return ENGINES[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name
        raise PrivauditError(
            f"unknown engine {name!r}{did_you_mean(name, ENGINES)} (available: {', '.join(ENGINES)})"
        ) from None


def summarize(path: str | Path, policy, engine: str = "in-process", **options: Any) -> EngineResult:
    """The class summary of ``path`` under ``policy`` (a :class:`~privaudit.core.policy.Policy`) by ``engine``,
    built even where the engine leaves it to the audit (in-process). ``options`` go to the engine
    (``batch_rows`` for chunked, ``spark`` session for spark ...)."""
    result = get_engine(engine).load().summarize(path, policy, **options)
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
