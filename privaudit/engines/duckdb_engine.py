"""The ``duckdb`` engine: the class summary by DuckDB SQL straight over the CSV or Parquet file.

DuckDB scans the file in parallel and spills its hash tables to disk when they outgrow memory, so
the table is never loaded whole. CSV files are read with every column as VARCHAR, the delimiter the
policy gives or ``data.py`` sniffs, ``"`` quotes, and strict field counts (a ragged row is an error);
Parquet files with their own types (value texts are then made by Arrow, as ``data.py`` makes them).
The two SQL passes are described in :mod:`privaudit.engines._sql`.

Options: ``threads``, ``memory_limit`` (e.g. ``"4GB"``), ``temp_directory`` (where DuckDB spills). A
directory, glob or object-store URI is registered as an Arrow dataset DuckDB scans (so object stores need
no DuckDB extension: pyarrow reads them). ``table`` audits a table, view or relation of ``connection``
(the Python API: a user's DuckDB session) or of the database file ``database`` (the CLI:
``--table NAME --engine-option database=FILE``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa

from privaudit.common.duckdb_sql import arrow_table, quote_identifier
from privaudit.core.errors import DataError, first_line
from privaudit.core.policy import Policy
from privaudit.engines._sql import SPACE_CLASS, summarize_sql
from privaudit.io.data import block_for_long_rows
from privaudit.io.dataset import DatasetSource, catalog_source, open_input
from privaudit.io.source import Source

NAME = "duckdb"
MAX_LINE_BYTES = 1 << 24  # data.py reads CSV in 16 MiB blocks: a row must fit
DUCKDB_ENCODINGS = {"utf-8": "utf-8", "iso8859-1": "latin-1"}  # the encodings DuckDB reads without an extension


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DuckDBDialect:
    name = NAME

    def __init__(self, con, source: Source, relation: str | None = None):
        self.con = con
        self.source = source
        self.max_line = MAX_LINE_BYTES
        if relation is not None:  # a table of the connection, or a registered Arrow dataset
            self.relation = relation
        elif source.file_format == "parquet":
            self.relation = f"read_parquet({_literal(str(source.path))})"
        else:
            self.relation = self._read_csv()

    def _read_csv(self) -> str:
        source = self.source
        encoding = getattr(source, "encoding", "utf-8")
        if encoding not in DUCKDB_ENCODINGS:  # also a file the linkage pairs in DuckDB under another engine
            raise DataError(
                f"{source.path}: data.encoding {encoding!r}: DuckDB reads CSV in UTF-8 or Latin-1; convert the file "
                "to UTF-8 (iconv) or use --engine in-process"
            )
        columns = ", ".join(f"{_literal(c)}: 'VARCHAR'" for c in source.columns)
        return (
            f"read_csv({_literal(str(source.path))}, delim={_literal(source.delimiter)}, quote='\"', "
            f"escape='\"', header=false, skip=1, columns={{{columns}}}, auto_detect=false, strict_mode=true, "
            f"null_padding=false, max_line_size={self.max_line}, "
            f"encoding={_literal(DUCKDB_ENCODINGS[encoding])})"
        )

    @staticmethod
    def ident(name: str) -> str:
        return quote_identifier(name)

    @staticmethod
    def strip_spaces(expr: str) -> str:
        return f"regexp_replace({expr}, '{SPACE_CLASS}', '', 'g')"

    def register(self, name: str, table: pa.Table) -> None:
        self.con.register(name, table)

    def aggregate(self, sql: str, space: int, rows: int) -> pa.Table:
        return self.query(sql)

    def query(self, sql: str) -> pa.Table:
        import duckdb

        try:
            return arrow_table(self.con.sql(sql))
        except duckdb.Error as exc:
            if self.source.file_format == "csv" and not isinstance(self.source, DatasetSource):
                bigger = block_for_long_rows(self.source.path, self.max_line)
                if bigger > self.max_line:  # a row longer than DuckDB's line limit: read as data.py reads it
                    old, self.max_line = self.relation, bigger
                    self.relation = self._read_csv()
                    return self.query(sql.replace(old, self.relation))
            if self.source.file_format == "csv":
                self.source.raise_parse_error(str(exc))
            raise


def summarize(
    path: str | Path | None,
    policy: Policy,
    *,
    threads: int | None = None,
    memory_limit: str | None = None,
    temp_directory: str | None = None,
    connection=None,
    database: str | None = None,
    table: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    what: str = "released table",
):
    """Summarise ``path`` (a file, directory, glob or URI) with DuckDB, or ``table`` (a table, view or
    relation name of ``connection``, or of the database file ``database`` opened read-only); returns an
    :class:`~privaudit.plugin.engine.EngineResult`."""
    import duckdb

    if table is not None:
        con = connection if connection is not None else _open_database(database, table)
        try:
            source = _catalog(con, table, policy)
            return summarize_sql(source, policy, DuckDBDialect(con, source, _quoted_name(table)), source.types)
        finally:
            if connection is None:
                con.close()
    if policy.data.encoding not in DUCKDB_ENCODINGS:
        raise DataError(
            f"data.encoding {policy.data.encoding!r}: the duckdb engine reads CSV in UTF-8 or Latin-1; use "
            "--engine in-process or chunked for this file"
        )
    source = open_input(path, policy, what)
    types = {}
    if isinstance(source, DatasetSource):
        types = {f.name: f.type for f in source.dataset.schema} if source.file_format == "parquet" else {}
    elif source.file_format == "parquet":
        import pyarrow.parquet as pq

        schema = pq.ParquetFile(source.path).schema_arrow
        types = {name: schema.field(name).type for name in schema.names}
    if temp_directory is not None and not Path(temp_directory).is_dir():
        raise DataError(f"--engine-option temp_directory={temp_directory}: folder not found")
    with tempfile.TemporaryDirectory(prefix="privaudit-duckdb-", dir=temp_directory) as spill:
        config = {"temp_directory": spill, "preserve_insertion_order": False}
        if threads:
            config["threads"] = int(threads)
        if memory_limit:
            config["memory_limit"] = str(memory_limit)
        try:
            con = connection if connection is not None else duckdb.connect(":memory:", config=config)
        except duckdb.Error as exc:
            raise DataError(
                f"--engine-option memory_limit={memory_limit}: DuckDB refuses it ({first_line(exc)})"
            ) from None
        relation = None
        if isinstance(source, DatasetSource):  # DuckDB scans the Arrow dataset, file by file, as it goes
            con.register("privaudit_release", source.dataset)
            relation = "privaudit_release"
        try:
            return summarize_sql(source, policy, DuckDBDialect(con, source, relation), types)
        finally:
            if relation is not None:
                con.unregister(relation)
            if connection is None:
                con.close()


def _quoted_name(name: str) -> str:
    return ".".join('"' + part.replace('"', '""') + '"' for part in name.split("."))


def _open_database(database: str | None, table: str):
    import duckdb

    if not database:
        raise DataError(
            f"--table {table}: the duckdb engine needs the database holding it: --engine-option database=FILE.duckdb"
        )
    if not Path(database).is_file():
        raise DataError(f"{database}: DuckDB database not found")
    try:
        return duckdb.connect(database, read_only=True)
    except duckdb.Error as exc:
        raise DataError(f"{database}: cannot be opened as a DuckDB database ({first_line(exc)})") from None


def _catalog(con, table: str, policy: Policy):
    import duckdb

    try:
        schema = arrow_table(con.sql(f"SELECT * FROM {_quoted_name(table)} LIMIT 0")).schema
    except duckdb.Error as exc:
        raise DataError(f"table {table!r}: not found in the DuckDB connection ({first_line(exc)})") from None

    def batches(columns, batch_rows):
        cols = ", ".join(DuckDBDialect.ident(c) for c in columns)
        reader = con.execute(f"SELECT {cols} FROM {_quoted_name(table)}").fetch_record_batch(batch_rows)
        yield from reader

    return catalog_source(f"duckdb table {table}", schema, batches, "duckdb table", policy)
