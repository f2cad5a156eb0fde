"""Reading DuckDB results into numpy, shared by the linkages that pair records in DuckDB
(:mod:`.fellegi_sunter.sql`, :mod:`.distance_sql`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from privaudit.common.duckdb_sql import arrow_table, quote_identifier

#: a quoted DuckDB identifier (the engine's quoting)
ident = quote_identifier


def fetch(con, sql: str) -> pa.Table:
    """The result of ``sql`` as an Arrow table."""
    return arrow_table(con.sql(sql))


def scalar(con, sql: str) -> int:
    """The single integer ``sql`` returns."""
    return int(con.sql(sql).fetchall()[0][0])


def int64_column(table: pa.Table, column: str) -> np.ndarray:
    """One column of a fetched result as int64."""
    return np.asarray(table.column(column).to_numpy(), dtype=np.int64)
