"""The three tables of a synthetic audit encoded once and shared by its attacks (compute once, share:
docs/architecture.md; the same idea as the class summary every class-based check reads from ``ctx.summary``).

Singling out, linkability and inference each encode the synthetic, training and control tables in one code
space (:func:`.linkability.encode`), and singling out first drops repeated records. Within one audit they
encode the same tables: :class:`EncodedTables` encodes each column once (codes of a categorical column in
order of first appearance over the three tables, numeric columns as floats -- what :func:`.encode` gives),
assembles the matrices an attack asks for from the cached columns, and keeps each column set's distinct rows.
:func:`tables_of` hands one instance per audit context to the checks (a slot in the context's ``__dict__``,
as :meth:`privaudit.core.context.AuditContext.for_scenario` keeps its scenarios).

Distinct rows are those ``DataFrame.drop_duplicates()`` keeps -- each frame's first occurrence of every row,
in order, records equal when every column's pandas factorization is (missing equal to missing) -- found on
integer codes packed into one key (:func:`privaudit.core.summary.pack_keys`). The encoded rows of a
de-duplicated frame are the full frame's encoded rows at the kept positions: codes in order of first
appearance do not change when later repeats are dropped, since the first occurrence of a value is the first
occurrence of its row.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.core.summary import pack_keys

__all__ = ["EncodedTables", "encode_column", "tables_of"]


def encode_column(columns: Sequence[pd.Series], numeric: bool) -> np.ndarray:
    """One column of several frames, concatenated, as floats in one code space: a numeric column's values,
    otherwise category codes in order of first appearance over all frames; missing values NaN."""
    if numeric:
        return (
            np.concatenate([to_numeric(c, errors="coerce").to_numpy(dtype=float, na_value=np.nan) for c in columns])
            if columns
            else np.zeros(0)
        )
    dtypes = {c.dtype for c in columns}
    same = len(dtypes) == 1 and isinstance(next(iter(dtypes)), (pd.CategoricalDtype, pd.StringDtype))
    # one categorical or string dtype: factorized as it is (codes in order of appearance all the same),
    # without the slow conversion to Python objects
    joined = pd.concat([c if same else c.astype(object) for c in columns], ignore_index=True)
    codes, _ = pd.factorize(joined, use_na_sentinel=True)
    return np.where(codes < 0, np.nan, codes.astype(float))


class EncodedTables:
    """``frames`` (synthetic, training, control, in the attacks' order) encoded column by column on first use.

    ``encoded_columns`` counts the columns encoded so far (a test reads it to see the sharing)."""

    def __init__(self, *frames: pd.DataFrame):
        self.frames = frames
        self.bounds = np.cumsum([0, *(len(f) for f in frames)])
        self._columns: dict[tuple[str, bool], np.ndarray] = {}
        self._distinct: dict[tuple, list[np.ndarray]] = {}
        self._lock = threading.RLock()
        self.encoded_columns = 0

    def holds(self, *frames: pd.DataFrame) -> bool:
        """Whether ``frames`` hold the data these tables encoded: the same frames, or shallow copies of them
        (each check reads its own copy of the audit's tables) whose columns are the same arrays."""
        return len(frames) == len(self.frames) and all(
            _same_data(a, b) for a, b in zip(frames, self.frames, strict=True)
        )

    def column(self, name: str, numeric: bool) -> np.ndarray:
        """Column ``name`` of every frame, concatenated and encoded (see :func:`encode_column`)."""
        key = (name, bool(numeric))
        with self._lock:
            if key not in self._columns:
                self._columns[key] = encode_column([f[name] for f in self.frames], bool(numeric))
                self.encoded_columns += 1
            return self._columns[key]

    def matrices(self, columns: Sequence[str], numeric: Mapping[str, bool]) -> list[np.ndarray]:
        """Per frame, the ``columns`` as one float matrix (what :func:`.linkability.encode` returns)."""
        out = [np.empty((len(f), len(columns)), dtype=float) for f in self.frames]
        for j, col in enumerate(columns):
            values = self.column(col, numeric[col])
            for i, m in enumerate(out):
                m[:, j] = values[self.bounds[i] : self.bounds[i + 1]]
        return out

    def distinct_matrices(self, columns: Sequence[str], numeric: Mapping[str, bool]) -> list[np.ndarray]:
        """Per frame, the encoded ``columns`` of the rows ``frame[columns].drop_duplicates()`` keeps, in order
        (computed once per column set; the matrices are shared: read them, do not write to them)."""
        columns = list(columns)
        key = (tuple(columns), tuple(bool(numeric[c]) for c in columns))
        with self._lock:
            if key not in self._distinct:
                kept = self._first_rows(columns, numeric)
                self._distinct[key] = [m[rows] for m, rows in zip(self.matrices(columns, numeric), kept, strict=False)]
            return list(self._distinct[key])

    def _first_rows(self, columns: list[str], numeric: Mapping[str, bool]) -> list[np.ndarray]:
        out = []
        for i, frame in enumerate(self.frames):
            n = len(frame)
            parts = [
                self._dedup_codes(
                    frame[c], self.column(c, numeric[c])[self.bounds[i] : self.bounds[i + 1]], bool(numeric[c])
                )
                for c in columns
            ]
            packed = pack_keys(parts, n)
            out.append(np.flatnonzero(~pd.Series(packed).duplicated(keep="first").to_numpy()))
        return out

    @staticmethod
    def _dedup_codes(raw: pd.Series, encoded: np.ndarray, numeric: bool) -> tuple[np.ndarray, int]:
        """Codes equal exactly where pandas' ``duplicated`` deems two values of ``raw`` equal (missing: -1)."""
        if not numeric:  # category codes of the three frames: one per distinct value, missing NaN
            codes = np.where(np.isnan(encoded), -1, encoded).astype(np.int64)
            return codes, int(codes.max()) + 1 if len(codes) else 0
        if raw.dtype.kind == "f":  # the encoded values are the frame's own floats
            codes, uniques = pd.factorize(encoded, use_na_sentinel=True)
        else:  # text or integers read as numbers: equal as the frame holds them
            codes, uniques = pd.factorize(raw, use_na_sentinel=True)
        return codes.astype(np.int64), len(uniques)


def _same_data(a: pd.DataFrame | None, b: pd.DataFrame | None) -> bool:
    if a is b:
        return True
    if a is None or b is None or a.shape != b.shape or not a.columns.equals(b.columns):
        return False
    return all(_same_array(a[c].array, b[c].array) for c in a.columns)


def _same_array(x: object, y: object) -> bool:
    """The same column data: one array object, or arrays over the same buffer (numpy columns of a shallow copy
    are new wrappers of the same memory; categorical and string columns are the same object)."""
    if x is y:
        return True
    bx, by = getattr(x, "_ndarray", None), getattr(y, "_ndarray", None)
    if not isinstance(bx, np.ndarray) or not isinstance(by, np.ndarray):
        return False
    return (
        bx.__array_interface__["data"][0] == by.__array_interface__["data"][0]
        and bx.shape == by.shape
        and bx.strides == by.strides
        and bx.dtype == by.dtype
    )


_CONTEXT_LOCK = threading.Lock()


def tables_of(ctx) -> EncodedTables:
    """The encoded (synthetic, training, control) tables of an audit context, built once per context and
    shared by its synthetic checks (rebuilt if the context's tables were replaced)."""
    frames = (ctx.table, ctx.training, ctx.control)
    with _CONTEXT_LOCK:
        tables = ctx.__dict__.get("_synthetic_tables")
        if tables is None or not tables.holds(*frames):
            tables = ctx.__dict__["_synthetic_tables"] = EncodedTables(*frames)
        return tables
