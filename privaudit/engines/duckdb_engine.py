"""The ``duckdb`` engine: the class summary by DuckDB SQL straight over the CSV or Parquet file.

DuckDB scans the file in parallel and spills its hash tables to disk when they outgrow memory, so
the table is never loaded whole. CSV files are read with every column as VARCHAR, the delimiter the
policy gives or ``data.py`` sniffs, ``"`` quotes, and strict field counts (a ragged row is an error);
Parquet files with their own types (value texts are then made by Arrow, as ``data.py`` makes them).
The two SQL passes are described in :mod:`privaudit.engines._sql`.

Options: ``threads``, ``memory_limit`` (e.g. ``"4GB"``), ``temp_directory`` (where DuckDB spills).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable

import pyarrow as pa

from privaudit.core.policy import Policy
from privaudit.engines._source import Source, open_source
from privaudit.engines._sql import SPACE_CLASS, summarize_sql

NAME = "duckdb"
MAX_LINE_BYTES = 1 << 24  # data.py reads CSV in 16 MiB blocks: a row must fit


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DuckDBDialect:
    name = NAME

    def __init__(self, con, source: Source):
        self.con = con
        self.source = source
        path = _literal(str(source.path))
        if source.file_format == "parquet":
            self.relation = f"read_parquet({path})"
        else:
            columns = ", ".join(f"{_literal(c)}: 'VARCHAR'" for c in source.columns)
            self.relation = (f"read_csv({path}, delim={_literal(source.delimiter)}, quote='\"', escape='\"', "
                             f"header=false, skip=1, columns={{{columns}}}, auto_detect=false, strict_mode=true, "
                             f"null_padding=false, max_line_size={MAX_LINE_BYTES})")

    @staticmethod
    def ident(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    @staticmethod
    def strip_spaces(expr: str) -> str:
        return f"regexp_replace({expr}, '{SPACE_CLASS}', '', 'g')"

    def register(self, name: str, table: pa.Table) -> None:
        self.con.register(name, table)

    def materialize(self, name: str, sql: str) -> None:
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {sql}")

    def query(self, sql: str) -> pa.Table:
        import duckdb

        try:
            relation = self.con.sql(sql)
            fetch = getattr(relation, "to_arrow_table", None) or relation.arrow  # duckdb 2 / 1.x
            return fetch()
        except duckdb.Error as exc:
            if self.source.file_format == "csv":
                self.source.raise_parse_error(str(exc))
            raise


def summarize(path: str | Path, policy: Policy, *, threads: int | None = None, memory_limit: str | None = None,
              temp_directory: str | None = None, progress: Callable[[str, int, int], None] | None = None,
              what: str = "released table"):
    """Summarise ``path`` with DuckDB; returns an :class:`~privaudit.engines.EngineResult`."""
    import duckdb

    source = open_source(path, policy, what)
    types = {}
    if source.file_format == "parquet":
        import pyarrow.parquet as pq

        schema = pq.ParquetFile(source.path).schema_arrow
        types = {name: schema.field(name).type for name in schema.names}
    with tempfile.TemporaryDirectory(prefix="privaudit-duckdb-", dir=temp_directory) as spill:
        config = {"temp_directory": spill, "preserve_insertion_order": False}
        if threads:
            config["threads"] = int(threads)
        if memory_limit:
            config["memory_limit"] = str(memory_limit)
        con = duckdb.connect(":memory:", config=config)
        try:
            return summarize_sql(source, policy, DuckDBDialect(con, source), types)
        finally:
            con.close()
