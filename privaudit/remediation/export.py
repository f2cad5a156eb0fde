"""Writing tables for people and spreadsheets: CSV/Parquet bytes with spreadsheet formulas neutralised.

A text cell that starts with ``=``, ``+``, ``-``, ``@``, tab or carriage return would be run as a formula
by a spreadsheet (``=cmd|' /C calc'!A0``); such cells -- and such column headers and index labels -- are
written with a leading apostrophe. Numeric columns are left alone (``-5`` stays a number). Every CSV
privaudit writes goes through :func:`neutralise`.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
MISSING = "*"


def safe_text(value):
    """A header or label with a formula prefix neutralised (other values unchanged)."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) else value


def neutralise(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell, column header and index label that starts like a formula prefixed
    by an apostrophe."""
    out = {}
    for name, column in frame.items():
        if pd.api.types.is_numeric_dtype(column.dtype):
            out[name] = column
            continue
        text = column.astype("string")
        risky = text.str.startswith(FORMULA_PREFIXES, na=False)
        out[name] = text.where(~risky, "'" + text) if risky.any() else column
    result = pd.DataFrame(out)
    result.columns = [safe_text(c) for c in frame.columns]
    result.index = frame.index if pd.api.types.is_numeric_dtype(frame.index) else frame.index.map(safe_text)
    result.index.name = safe_text(frame.index.name)
    return result


def table_bytes(frame: pd.DataFrame, path: str | Path, delimiter: str = ",", na_rep: str = MISSING) -> bytes:
    """The file content for ``frame`` written to ``path`` (Parquet by suffix, else CSV; a missing value is
    ``na_rep`` in CSV, the suppression marker by default)."""
    if Path(path).suffix.lower() in (".parquet", ".pq"):
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        return buffer.getvalue()
    frame = frame.copy()
    for name, column in frame.items():  # whole numbers stay whole ("39", not "39.0")
        if pd.api.types.is_float_dtype(column.dtype):
            values = column.dropna()
            if len(values) and (values == values.round()).all() and values.abs().max() < 2**53:
                frame[name] = column.astype("Int64")
    text = neutralise(frame).to_csv(sep=delimiter, index=False, na_rep=na_rep, lineterminator="\n")
    return text.encode("utf-8")
