"""File formats by name: the one list of Parquet suffixes every reader and writer goes by."""

from __future__ import annotations

from pathlib import PurePath

__all__ = ["PARQUET_SUFFIXES", "is_parquet"]

#: a file with one of these suffixes (any case) is Parquet; any other is read or written as CSV
PARQUET_SUFFIXES = (".parquet", ".pq")


def is_parquet(path: str | PurePath) -> bool:
    """Whether ``path`` names a Parquet file (by :data:`PARQUET_SUFFIXES`)."""
    return PurePath(str(path)).suffix.lower() in PARQUET_SUFFIXES
