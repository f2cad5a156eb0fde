"""Writing tables for people and spreadsheets: CSV/Parquet bytes with spreadsheet formulas neutralised.

A text cell that starts with ``=``, ``+``, ``-``, ``@``, tab or carriage return would be run as a formula
by a spreadsheet (``=cmd|' /C calc'!A0``); such cells -- and such column headers and index labels -- are
written with a leading apostrophe. Numeric columns are left alone (``-5`` stays a number), and so is a text
cell that is a plain number (``-5``, ``+3.5``, ``-1e-3``): a spreadsheet reads it as that number, not as a
formula, and a hierarchy's leaf ``-5`` must stay ``-5``. Every CSV privaudit writes goes through
:func:`neutralise`; :func:`as_written` is a table as a reader gets it back from those bytes, which is what
a remediation's re-audit audits.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from privaudit.common.formats import is_parquet

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
MISSING = "*"
#: a plain decimal number, as a spreadsheet reads it: no formula
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER_RE = re.compile(_NUMBER)


def formula_like(value) -> bool:
    """Whether a text cell would be taken for a formula: it starts with a formula prefix and is not a plain
    number."""
    return isinstance(value, str) and value.startswith(FORMULA_PREFIXES) and _NUMBER_RE.fullmatch(value) is None


def safe_text(value):
    """A header or label with a formula prefix neutralised (other values unchanged)."""
    return "'" + value if formula_like(value) else value


def neutralise(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell, column header and index label that starts like a formula prefixed
    by an apostrophe."""
    out = {}
    for name, column in frame.items():
        if pd.api.types.is_numeric_dtype(column.dtype):
            out[name] = column
            continue
        out[name] = _neutralised_column(column)
    result = pd.DataFrame(out)
    result.columns = [safe_text(c) for c in frame.columns]
    result.index = frame.index if pd.api.types.is_numeric_dtype(frame.index) else frame.index.map(safe_text)
    result.index.name = safe_text(frame.index.name)
    return result


def _neutralised_column(column: pd.Series) -> pd.Series:
    """One non-numeric column with its formula-like cells prefixed. Only the distinct values are tested
    (a category's categories, or the column's factorized values): a column with no such cell is returned as
    it is, and a categorical one keeps its categories (renamed) -- far cheaper than testing every cell."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        distinct = pd.Series(column.cat.categories)
    else:
        distinct = pd.Series(pd.unique(column.dropna()))
    risky = _risky(distinct.astype("string"))
    if not risky.any():
        return column
    if isinstance(column.dtype, pd.CategoricalDtype):
        renamed = distinct.astype("string").where(~risky, "'" + distinct.astype("string"))
        if renamed.is_unique:
            return column.cat.rename_categories(list(renamed))
    text = column.astype("string")
    return text.where(~_risky(text), "'" + text)


def _risky(text: pd.Series) -> pd.Series:
    """Per cell of a string Series: formula-like (see :func:`formula_like`)."""
    prefixed = text.str.startswith(FORMULA_PREFIXES, na=False)
    if not prefixed.any():
        return prefixed
    return prefixed & ~text.str.fullmatch(_NUMBER, na=False)


def as_written(frame: pd.DataFrame, path: str | Path) -> pd.DataFrame:
    """``frame`` as a reader of the file :func:`table_bytes` writes to ``path`` gets its values back: Parquet
    holds them as they are; a CSV holds its formula-like text cells with the apostrophe :func:`neutralise`
    adds (headers and numbers are unchanged)."""
    if is_parquet(path):
        return frame
    out = {}
    changed = False
    for name, column in frame.items():
        if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
            out[name] = column
            continue
        guarded = _neutralised_column(column)
        changed |= guarded is not column
        out[name] = guarded
    if not changed:
        return frame
    result = pd.DataFrame(out, index=frame.index)
    result.columns = frame.columns
    return result


def guarded_values(column: pd.Series) -> list[str]:
    """The distinct text values of ``column`` the CSV writer prefixes with an apostrophe."""
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        return []
    if isinstance(column.dtype, pd.CategoricalDtype):
        distinct = pd.Series(column.cat.categories[np.unique(column.cat.codes[column.cat.codes >= 0])])
    else:
        distinct = pd.Series(pd.unique(column.dropna()))
    text = distinct.astype("string")
    return [str(v) for v in text[_risky(text)]]


def table_bytes(
    frame: pd.DataFrame,
    path: str | Path,
    delimiter: str = ",",
    na_rep: str = MISSING,
    decimal: str = ".",
    encoding: str = "utf-8",
) -> bytes:
    """The file content for ``frame`` written to ``path`` (Parquet by suffix, else CSV; a missing value is
    ``na_rep`` in CSV, the suppression marker by default; numbers with the policy's ``decimal`` mark, the text
    in its ``encoding``, so that the file reads again under the policy it was audited with)."""
    if is_parquet(path):
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        return buffer.getvalue()
    frame = frame.copy()
    fractional = []
    for i, (name, column) in enumerate(frame.items()):  # whole numbers stay whole ("39", not "39.0")
        if pd.api.types.is_float_dtype(column.dtype):
            values = column.dropna()
            if len(values) and (values == values.round()).all() and values.abs().max() < 2**53:
                frame[name] = column.astype("Int64")
            elif len(values):
                fractional.append(i)
    frame = neutralise(frame)
    for i in fractional:  # after neutralise (which may rename headers): these texts are numbers, never formulas
        texts = _float_texts(frame.iloc[:, i])
        frame.isetitem(i, texts.str.replace(".", decimal, regex=False) if decimal != "." else texts)
    text = _csv_by_distinct_values(frame, delimiter, na_rep)
    if text is None:
        text = frame.to_csv(sep=delimiter, index=False, na_rep=na_rep, lineterminator="\n")
    return text.encode(encoding)


def _float_texts(column: pd.Series) -> pd.Series:
    """A float column with whole and fractional values as the texts a person would write: each value's
    shortest round-tripping text (numpy's ``str`` of a float64 is Python's ``repr``: Dragon4, shortest
    digits), whole values without a spurious ``.0`` (``18`` and ``45.5``, as read, not ``18.0``; ``-0.0`` is
    ``-0``). Missing values stay missing (``na_rep``)."""
    values = column.to_numpy(dtype=float, na_value=np.nan)
    texts = pd.Series(values.astype(str), index=column.index, name=column.name, dtype=object).str.removesuffix(".0")
    return texts.where(~np.isnan(values))


def _csv_by_distinct_values(frame: pd.DataFrame, delimiter: str, na_rep: str) -> str | None:
    """The exact text of ``frame.to_csv(sep=delimiter, index=False, na_rep=na_rep, lineterminator="\\n")``,
    built faster for released tables, or None where this shortcut does not apply.

    Speed trick, isolated here: pandas formats and quotes every cell in Python. A released table has few distinct values per column (generalized, coded), so each column's
    distinct values are formatted once -- numbers by pandas itself, every value quoted by the ``csv``
    module exactly as pandas' writer quotes it --, each distinct row is joined once from those texts, and the
    lines are picked from the distinct rows by index.
    Applies to frames of two or more columns of category, text, integer or float dtype (one column has a
    special rule for empty fields); ``tests/test_hardening.py`` checks it against ``to_csv`` property-wise.
    """
    if frame.shape[1] < 2 or not frame.columns.map(lambda c: isinstance(c, str)).all():
        return None
    codes_of, texts_of = [], []
    for name in frame.columns:
        column = frame[name]
        dtype = column.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            codes, uniques = column.cat.codes.to_numpy(), pd.Series(column.cat.categories)
        elif isinstance(dtype, np.dtype) and dtype.kind == "f":  # by bit pattern: -0.0 is written "-0.0"
            values = column.to_numpy()
            codes, bits = pd.factorize(values.view(f"i{dtype.itemsize}"))
            codes[np.isnan(values)] = -1
            uniques = pd.Series(bits.view(dtype))
        elif (
            pd.api.types.is_string_dtype(dtype) or pd.api.types.is_integer_dtype(dtype)
        ) and not pd.api.types.is_bool_dtype(dtype):
            codes, values = pd.factorize(column, use_na_sentinel=True)
            uniques = pd.Series(values)
        else:
            return None
        if uniques.dtype == object and not uniques.map(lambda v: isinstance(v, str)).all():
            return None  # mixed objects: leave their formatting to pandas
        texts = np.append(_field_texts(uniques, delimiter), _field_texts(pd.Series([na_rep]), delimiter))
        codes_of.append(np.where(codes < 0, len(texts) - 1, codes).astype(np.int64))  # -1: missing
        texts_of.append(texts)
    header = delimiter.join(_field_texts(pd.Series(list(frame.columns)), delimiter))
    rows, lines = _distinct_rows(codes_of, [len(t) for t in texts_of])
    if rows is None:  # too many distinct values to pack: join every row
        body = map(delimiter.join, zip(*(t[c] for t, c in zip(texts_of, codes_of, strict=False)), strict=False))
    else:  # each distinct row joined once, then the lines picked by index
        distinct = [
            delimiter.join(parts)
            for parts in zip(*(t[c[rows]] for t, c in zip(texts_of, codes_of, strict=False)), strict=False)
        ]
        body = np.array(distinct, dtype=object)[lines]
    return "\n".join([header, *body]) + "\n"


def _distinct_rows(codes: list[np.ndarray], radices: list[int]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(first row of each distinct row of ``codes``, distinct row of every row), or (None, None) when the
    packed key would not fit in int64. A generalized release repeats few distinct rows: joining each once
    is what makes the trick fast on large tables."""
    if float(np.prod(np.array(radices, dtype=float))) >= 2.0**62:
        return None, None
    key = np.zeros(len(codes[0]), dtype=np.int64)
    for column, radix in zip(codes, radices, strict=False):
        key *= radix
        key += column
    lines, _ = pd.factorize(key)  # numbered in order of first appearance
    rising = np.maximum.accumulate(lines) if len(lines) else lines
    is_first = np.empty(len(lines), dtype=bool)
    is_first[:1] = True
    np.greater(rising[1:], rising[:-1], out=is_first[1:])
    return np.flatnonzero(is_first), lines


def _field_texts(values: pd.Series, delimiter: str) -> np.ndarray:
    """Each value as one CSV field of a multi-field row: numbers formatted by pandas' CSV writer, then
    quoted by the ``csv`` module under pandas' settings (minimal quoting, ``"`` doubled)."""
    if pd.api.types.is_numeric_dtype(values.dtype):
        text = values.to_frame().to_csv(header=False, index=False, lineterminator="\n", sep="|")
        values = pd.Series(text.split("\n")[:-1], dtype=object)  # numbers hold no newline
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values.tolist()):  # once per distinct value, not per row
        buffer.seek(0)
        buffer.truncate()
        writer.writerow([value, ""])  # a second field: a lone empty field would be quoted
        out[i] = buffer.getvalue()[: -len(delimiter) - 1]
    return out
