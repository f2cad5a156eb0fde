"""Coding one column as the policy types it, shared by loading (:mod:`privaudit.io.data`) and the engines.

A column becomes dictionary codes over its distinct trimmed, non-missing texts (:func:`dictionary_parts`);
the policy's type is applied to the distinct values only (:func:`typed`: numbers parsed and checked,
ordinal values placed in the policy's ``order``, nominal values in sorted text order), then one gather
goes over the rows. Every refusal is a one-line :class:`~privaudit.core.errors.DataError` naming the file,
column and first row (``table.path`` and ``table.row_label``), so that an engine that codes the column in
pieces raises exactly the message the in-process load raises.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from privaudit.common.numeric import to_numbers, to_numeric
from privaudit.core.errors import DataError, HierarchyError
from privaudit.core.policy import Policy
from privaudit.core.summary import narrowest_int

if TYPE_CHECKING:
    from privaudit.io.data import Table


def dictionary_parts(column: pa.ChunkedArray, missing: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A column as ``(indices, remap, values)``: ``values`` are its distinct trimmed, non-missing texts
    (unsorted); ``remap[indices]`` is each row's index into them (-1 = missing; ``remap`` ends in -1, which
    null indices pick). Work on the dictionary, not the rows, wherever possible: Parquet columns often
    arrive dictionary-encoded already, and CSV text is hashed once by Arrow. ``indices`` keeps Arrow's
    narrow integer type (int8 for a column of a few values)."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if not pa.types.is_dictionary(column.type):
        if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
            column = column.cast(pa.string())
        column = column.dictionary_encode()
    dictionary = column.dictionary
    if not (pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type)):
        dictionary = dictionary.cast(pa.string())
    texts = pc.utf8_trim_whitespace(dictionary).to_numpy(zero_copy_only=False).astype(object)
    raw_indices = column.indices
    if not pa.types.is_signed_integer(raw_indices.type):
        raw_indices = raw_indices.cast(pa.int64())
    if raw_indices.null_count:
        raw_indices = raw_indices.fill_null(-1)
    indices = raw_indices.to_numpy(zero_copy_only=False)
    is_missing = np.array([t is None or t in missing for t in texts], dtype=bool)
    # trimming or missing tokens can make several dictionary entries one value: re-unify
    kept = np.where(is_missing, None, texts)
    remap, values = pd.factorize(pd.Series(kept, dtype=object), use_na_sentinel=True)
    remap = np.append(remap, -1).astype(narrowest_int(len(values)))  # index -1 (null) stays -1
    return indices, remap, np.asarray(values, dtype=object)


def dictionary(column: pa.ChunkedArray, missing: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """A column as (codes, values): ``values`` are its distinct trimmed, non-missing texts (unsorted),
    ``codes`` (int64) index them per row (-1 = missing)."""
    indices, remap, values = dictionary_parts(column, missing)
    return remap.astype(np.int64)[indices], values


def is_numeric_spec(spec) -> bool:
    return spec is not None and spec.type == "numeric" and spec.role not in ("identifier", "record_id")


def load_column(column: pa.ChunkedArray, name: str, spec, missing: Sequence[str], table: Table):
    """One Arrow column typed by the policy. Numbers stored as numbers (Parquet) skip the text round
    trip; everything else is dictionary-coded and typed on its distinct values, with one gather over the
    rows at the end."""
    if is_numeric_spec(spec) and (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        return native_numbers(column, name, spec, missing, table)
    indices, remap, values = dictionary_parts(column, missing)
    if is_numeric_spec(spec):
        return typed(remap[indices], values, name, spec, table)
    return categorical(indices, remap, values, name, spec, table)


def categorical(
    indices: np.ndarray, remap: np.ndarray, values: np.ndarray, name: str, spec, table: Table
) -> pd.Categorical:
    """An ordinal or nominal column from ``remap[indices]``, each row's index into ``values`` (-1 =
    missing): the categories are placed on the distinct values, then one gather goes over the rows."""
    target, categories, ordered = category_order(values, name, spec, table, lambda: remap[indices])
    lookup = np.append(target, -1).astype(narrowest_int(len(categories)))[remap]
    dtype = pd.CategoricalDtype(categories=categories, ordered=ordered)
    return pd.Categorical.from_codes(lookup[indices], dtype=dtype, validate=False)


def native_numbers(column: pa.ChunkedArray, name: str, spec, missing: Sequence[str], table: Table) -> pd.Series:
    """A numeric column stored as integers or floats: the same checks and result as through its text
    (``data.missing`` tokens that spell a number, here read as numbers, mean missing)."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    out = np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64)
    if pa.types.is_floating(column.type):  # NaN stored as a number (a null is missing, not NaN)
        nan = np.flatnonzero(~pc.is_finite(column).fill_null(True).to_numpy(zero_copy_only=False))
        if len(nan):
            raise not_a_number(table, name, int(nan[0]), str(out[nan[0]]))
    tokens = [t for t in _number_texts(column, missing) if t.strip() in missing]
    if tokens:
        drop = pa.array(tokens).cast(column.type)
        hit = np.asarray(pc.is_in(column, value_set=drop).to_numpy(zero_copy_only=False), dtype=bool)
        out[hit] = np.nan
    if spec.role == "weight":
        bad = np.flatnonzero(out <= 0)
        if len(bad):
            raise not_positive(table, name, int(bad[0]))
    return pd.Series(out, name=name, copy=False)


def _number_texts(column: pa.Array, missing: Sequence[str]) -> list[str]:
    """The texts (as Arrow writes them) of the distinct values of a number column that may be ``missing``
    tokens: only those equal to a token read as a number (the text of a value equals a token only if the
    token reads as that value, Arrow writing numbers so that they read back), so that a column of a million
    distinct numbers is not written out as text value by value."""
    numbers = []
    for token in missing:
        try:
            number = float(token.strip())
        except ValueError:
            continue
        if math.isfinite(number):
            numbers.append(number)
    if not numbers:
        return []
    distinct = pc.unique(column.drop_null())
    near = pc.is_in(distinct.cast(pa.float64(), safe=False), value_set=pa.array(numbers, pa.float64()))
    texts: list[str] = distinct.filter(near).cast(pa.string()).to_pylist()
    return texts


def decimal_of(spec) -> str:
    """The decimal mark of a column's numbers written as text (the policy's ``data.decimal``)."""
    return getattr(spec, "_decimal", ".") if spec is not None else "."


_OTHER_MARK = {".": re.compile(r"\s*[+-]?[0-9]*,[0-9]+\s*"), ",": re.compile(r"\s*[+-]?[0-9]*\.[0-9]+\s*")}


def not_a_number(table: Table, name: str, row: int, value: str, decimal: str = ".") -> DataError:
    """A numeric column's value that is not a number, or not a finite one (``inf``); a number written with the
    other decimal mark says how to read it."""
    finite = "" if pd.isna(to_numeric(value, errors="coerce", decimal=decimal)) else "finite "
    hint = ""
    if _OTHER_MARK[decimal].fullmatch(str(value)):
        other, mark = (",", "comma") if decimal == "." else (".", "point")
        hint = f" (a decimal {mark}? set data.decimal: {other!r} in the policy)"
    return DataError(f"{table.path}: column {name!r}, {table.row_label(row)}: {value!r} is not a {finite}number{hint}")


def not_positive(table: Table, name: str, row: int) -> DataError:
    return DataError(f"{table.path}: column {name!r}, {table.row_label(row)}: weights must be positive numbers")


def first_row_with(codes: np.ndarray, code: int) -> int:
    return int(np.flatnonzero(codes == code)[0])


def typed(codes: np.ndarray, values: np.ndarray, name: str, spec, table: Table) -> pd.Series | pd.Categorical:
    """Apply the policy's type to a dictionary-coded column (checks run on the distinct values only)."""
    if is_numeric_spec(spec):
        numbers = to_numbers(values, decimal_of(spec))
        bad = np.flatnonzero(~np.isfinite(numbers))  # "inf" parses, but is no measurement (nor is "nan")
        if len(bad):
            raise not_a_number(table, name, first_row_with(codes, int(bad[0])), values[bad[0]], decimal_of(spec))
        if spec.role == "weight" and (numbers <= 0).any():
            raise not_positive(table, name, first_row_with(codes, int(np.flatnonzero(numbers <= 0)[0])))
        out = np.full(len(codes), np.nan)
        present = codes >= 0
        out[present] = numbers[codes[present]]
        return pd.Series(out, name=name, copy=False)
    return categorical(codes, np.append(np.arange(len(values)), -1), values, name, spec, table)


def category_order(values: np.ndarray, name: str, spec, table: Table, row_codes) -> tuple[np.ndarray, list, bool]:
    """Where each distinct value goes among the categories: the policy's ``order`` (ordinal; an unlisted
    value is an error naming its first row, found through ``row_codes()``), else sorted text."""
    if spec is not None and spec.type == "ordinal":
        position = {v: i for i, v in enumerate(spec.order)}
        target = np.array([position.get(v, -1) for v in values], dtype=np.int64)
        if (target < 0).any():
            bad = int(np.flatnonzero(target < 0)[0])
            i = first_row_with(row_codes(), bad)
            raise DataError(
                f"{table.path}: column {name!r}, {table.row_label(i)}: {values[bad]!r} is not in the "
                f"policy's 'order' for this column{_order_of_labels(spec.order, table.labels.get(name))}"
            )
        return target, list(spec.order), True
    order = np.argsort(values.astype(str), kind="stable")
    target = np.empty(len(values), dtype=np.int64)
    target[order] = np.arange(len(values))
    return target, list(values[order]), False


def _order_of_labels(order: list[str], found) -> str:
    """When an ordinal's ``order`` lists the file's value labels rather than its codes (``Poor`` for ``1``):
    the codes to write instead, in that order (the values are the codes the file stores:
    :mod:`privaudit.io.labels`)."""
    if found is None or not found.values:
        return ""
    code_of = {label: code for code, label in found.values.items()}
    if not any(v in code_of and v not in found.values for v in order):
        return ""
    codes = [code_of.get(v, v) for v in order]
    return f" (it lists the file's value labels; list their codes instead: order: {codes})"


def check_hierarchies(table: Table, policy: Policy) -> None:
    for column, hierarchy in policy.hierarchies.items():
        if column not in table.frame:
            continue
        values = table.frame[column]
        if policy.columns[column].type == "numeric":
            present = pd.Series(values.dropna().unique()).map(lambda v: f"{v:g}")
        else:
            codes = values.cat.codes.to_numpy()
            used = np.bincount(codes[codes >= 0], minlength=len(values.cat.categories)) > 0  # O(rows), no sort
            present = pd.Series(values.cat.categories[used].astype(str))
        leaves_only = policy.columns[column].role == "sensitive"
        try:
            hierarchy.check_values(present, column, leaves_only=leaves_only)
        except HierarchyError as exc:
            found = table.labels.get(column)
            named = [v for v in hierarchy.leaves if found is not None and v in found.values.values()]
            if not named or any(v in found.values for v in hierarchy.leaves):
                raise
            codes = {label: code for code, label in found.values.items()}
            raise HierarchyError(
                f"{exc} (its leaves are the file's value labels, such as {named[0]!r}; write the codes the file "
                f"stores, {codes[named[0]]!r} for {named[0]!r})"
            ) from None
