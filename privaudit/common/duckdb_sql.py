"""DuckDB's SQL spelling, shared by the DuckDB engine and the linkages that pair records in DuckDB: a quoted
identifier, and a relation's result as an Arrow table. Imports no other privaudit package."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

__all__ = ["arrow_table", "quote_identifier"]


def quote_identifier(name: str) -> str:
    """``name`` as a DuckDB identifier: double-quoted, inner double quotes doubled."""
    return '"' + name.replace('"', '""') + '"'


def arrow_table(relation: Any) -> pa.Table:
    """A DuckDB relation's result as an Arrow table (``to_arrow_table`` in duckdb 2, ``arrow`` in 1.x)."""
    fetch = getattr(relation, "to_arrow_table", None) or relation.arrow
    return fetch()
