"""Text parsed into numbers without handing pandas' C parser an exponent it cannot hold: :func:`to_numeric`.

pandas 2.x (``precise_xstrtod``) reads the exponent of ``<digits>e<exponent>`` into a C ``int``; an exponent
past its range (``1e505006074516``, which SHA-256, MD5 or SHA-1 hex digests spell often enough) overflows
it and the process dies with SIGSEGV instead of returning NaN (pandas issue 63650, fixed in pandas 3.0).
Every parse of untrusted text into numbers goes through :func:`to_numeric`: values whose exponent has six
or more significant digits (any such number is 0 or beyond a float's range, the mantissa aside) are found
first with one vectorised regular-expression match and handed to pandas with that exponent cut to 400, so
that they get exactly the value the running pandas gives any other number of their size (0, or its NaN or
infinity for an overflow) and a text that is no number stays none.

``decimal`` reads another decimal mark (``","``: ``1,5`` is 1.5; a ``.`` then makes the text no number).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["LONG_EXPONENT", "to_numbers", "to_numeric"]

Array = np.ndarray[Any, Any]

#: an exponent of six or more significant digits, anywhere in a text (the C parser's crash)
LONG_EXPONENT = r"[eE][+-]?0*[1-9][0-9]{5,}"
_LONG = re.compile(LONG_EXPONENT)
_LONG_GROUPS = re.compile(r"([eE][+-]?)0*[1-9][0-9]{5,}")


def _risky(values: Array) -> Array:
    """Which entries of an object array are texts holding a long exponent. Texts are joined once and
    searched at C speed: a column without an ``e`` (most numbers) costs one join and two scans."""
    none = np.zeros(len(values), dtype=bool)
    try:
        joined = "\x00".join(values.tolist())
    except TypeError:  # not all texts (None, NaN, numbers among them)
        joined = None
    if joined is not None and (("e" not in joined and "E" not in joined) or _LONG.search(joined) is None):
        return none
    try:
        arr = pa.array(values, type=pa.large_string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return np.fromiter(
            (isinstance(v, str) and _LONG.search(v) is not None for v in values), dtype=bool, count=len(values)
        )
    return np.asarray(pc.match_substring_regex(arr, LONG_EXPONENT).fill_null(False).to_numpy(zero_copy_only=False))


def _safe_text(text: str) -> str:
    """``text`` with every long exponent cut to 400 (sign kept): the same number for pandas (an overflow, or
    0), or the same non-number."""
    return _LONG_GROUPS.sub(r"\g<1>400", text)


def _as_objects(arg: Any) -> tuple[Array | None, Any]:
    """The object array of texts ``arg`` holds (None when it holds no text: numbers parse safely)."""
    if isinstance(arg, str):
        return np.array([arg], dtype=object), arg
    if isinstance(arg, pd.Series | pd.Index):
        if _numbers_already(arg.dtype):
            return None, arg
        return arg.to_numpy(dtype=object), arg  # text, categories of text (pandas parses those too), objects
    if hasattr(arg, "dtype"):  # a numpy or pandas array
        return (None, arg) if _numbers_already(arg.dtype) else (np.asarray(arg, dtype=object).copy(), arg)
    if isinstance(arg, list | tuple):
        values = np.array(list(arg), dtype=object)
        return values, values
    return None, arg


def _numbers_already(dtype: Any) -> bool:
    """Whether values of ``dtype`` are numbers, booleans or times (nothing pandas parses as text)."""
    if isinstance(dtype, pd.CategoricalDtype):
        return _numbers_already(dtype.categories.dtype)
    return bool(pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype) or dtype.kind in "mM")


def to_numeric(arg: Any, errors: str = "coerce", decimal: str = ".") -> Any:
    """:func:`pandas.to_numeric` of ``arg`` (a text, a list, an array, a Series or an Index), safe on any
    text. ``errors`` is ``"coerce"`` (NaN where a text is no number) or ``"raise"`` (a ValueError naming
    the first text that is none)."""
    values, _ = _as_objects(arg)
    if values is None:
        return pd.to_numeric(arg, errors=errors)
    changed = False
    if decimal != ".":
        table = str.maketrans({decimal: ".", ".": "x"})
        values = np.array([v.translate(table) if isinstance(v, str) else v for v in values], dtype=object)
        changed = True
    risky = _risky(values) if len(values) else np.zeros(0, dtype=bool)
    if risky.any():
        values = values.copy() if not changed else values
        for i in np.flatnonzero(risky):
            values[i] = _safe_text(values[i])
        changed = True
    if not changed:
        return pd.to_numeric(arg, errors=errors)
    try:
        return _parse(arg, values, errors)
    except ValueError as exc:  # name the text as given, not as rewritten
        at = re.search(r"at position (\d+)", str(exc))
        texts = _as_objects(arg)[0]
        if texts is None or (at is None and len(texts) != 1):
            raise
        original = texts[int(at.group(1)) if at else 0]
        raise ValueError(f"Unable to parse string {str(original)!r}") from None


def _parse(arg: Any, values: Array, errors: str) -> Any:
    """pandas' parse of the rewritten ``values``, shaped as ``arg``."""
    if isinstance(arg, str):
        return pd.to_numeric(values[0], errors=errors)
    if isinstance(arg, pd.Series):
        return pd.to_numeric(pd.Series(values, index=arg.index, name=arg.name, dtype=_text_dtype(arg)), errors=errors)
    if isinstance(arg, pd.Index):
        return pd.to_numeric(pd.Index(values, name=arg.name, dtype=_text_dtype(arg)), errors=errors)
    return pd.to_numeric(values, errors=errors)


def _text_dtype(arg: pd.Series | pd.Index) -> Any:
    """The dtype rewritten texts keep: pandas' string type if ``arg`` has it, else object."""
    return arg.dtype if isinstance(arg.dtype, pd.StringDtype) else object


def to_numbers(values: Any, decimal: str = ".") -> Array:
    """Texts (or numbers) as a float64 array, NaN where a value is no number: :func:`to_numeric` coerced."""
    out = to_numeric(pd.Series(np.asarray(values, dtype=object), dtype=object), "coerce", decimal)
    return np.asarray(out.to_numpy(dtype=float, na_value=np.nan), dtype=float)
