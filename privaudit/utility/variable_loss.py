"""What a release lost, variable by variable: the table a person reads before any index.

Summary measures (discernibility, ARX's granularity) fold every variable into one figure, and a figure of
0.98 can hide a variable whose every value was suppressed. This module compares a release with the table
it was made from, one column at a time, and says in words what became of each: kept, recoded (how many
distinct values before and after, and, where the released labels are intervals, their width and the
top and bottom codes), or deleted (no value left below the top of its hierarchy), with the cells changed and
suppressed. Records suppressed are those whose every compared column became missing.

Interval labels are read as ``a-b`` (integers or decimals, ``20-29``), ``[a, b[`` / ``[a, b)`` and top or
bottom codes ``80+``, ``>=80``, ``≥80``, ``<20``; an interval ``a-b`` of integers is ``b - a + 1`` wide.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

_RANGE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:-|–|\.\.)\s*(-?\d+(?:\.\d+)?)\s*$")
_HALF_OPEN = re.compile(r"^\s*\[\s*(-?\d+(?:\.\d+)?)\s*[,;]\s*(-?\d+(?:\.\d+)?)\s*[\[)]\s*$")
_TOP = re.compile(r"^\s*(?:(-?\d+(?:\.\d+)?)\s*\+|(?:>=|≥)\s*(-?\d+(?:\.\d+)?))\s*$")
_BOTTOM = re.compile(r"^\s*(?:<|under\s+)\s*(-?\d+(?:\.\d+)?)\s*$")


def _width(low: str, high: str, closed: bool) -> float:
    a, b = float(low), float(high)
    integers = float(low).is_integer() and float(high).is_integer() and "." not in low + high
    return b - a + (1 if closed and integers else 0)


def describe_labels(labels: Sequence[str]) -> dict[str, Any]:
    """What the released labels of one column are: intervals (their usual width, top and bottom codes)
    or plain groups."""
    widths: Counter[float] = Counter()
    top = bottom = None
    intervals = 0
    for label in labels:
        if m := _RANGE.match(label):
            widths[_width(m.group(1), m.group(2), True)] += 1
        elif m := _HALF_OPEN.match(label):
            widths[_width(m.group(1), m.group(2), False)] += 1
        elif m := _TOP.match(label):
            top = label.strip()
        elif m := _BOTTOM.match(label):
            bottom = label.strip()
        else:
            continue
        intervals += 1
    out: dict[str, Any] = {"intervals": bool(labels) and intervals == len(labels)}
    if widths:
        width = widths.most_common(1)[0][0]
        out["width"] = int(width) if float(width).is_integer() else width
    if top:
        out["top_code"] = top
    if bottom:
        out["bottom_code"] = bottom
    return out


def _text(values: pd.Series) -> list[str | None]:
    """Distinct values as text, missing as None, numbers without a trailing ``.0`` (23 and 23.0 agree)."""
    out: list[str | None] = []
    for v in values.tolist():
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA or v is pd.NaT:
            out.append(None)
        elif isinstance(v, (float, np.floating)) and float(v).is_integer():
            out.append(str(int(v)))
        else:
            out.append(str(v))
    return out


def _values(count: int, n: int) -> str:
    return f"{count:,} value{'' if count == 1 else 's'} ({100 * count / n:.1f} %)" if n else f"{count:,} values"


def text_codes(column: pd.Series) -> tuple[np.ndarray, list[str]]:
    """``(codes, labels)``: each record's value as an index into ``labels`` (its distinct values as text), -1
    where missing. Categories and distinct values are turned into text once, never record by record."""
    if isinstance(column.dtype, pd.CategoricalDtype):  # the codes as stored (int8 for a few categories)
        codes, uniques = column.cat.codes.to_numpy(), pd.Series(column.cat.categories)
    else:
        codes, found = pd.factorize(column, use_na_sentinel=True)
        uniques = pd.Series(found)
    text = _text(uniques)
    labels = sorted({t for t in text if t is not None})
    index = {t: i for i, t in enumerate(labels)}
    # the narrowest type that holds the labels: a table of ten million records is read, not widened
    dtype = np.int16 if len(labels) < 2**15 else np.int32 if len(labels) < 2**31 else np.int64
    remap = np.array([index[t] if t is not None else -1 for t in text] + [-1], dtype=dtype)
    return remap[codes], labels  # a missing code (-1) reads remap's last slot, -1


#: A variable that lost more than this share of its values to suppression is deleted in effect: what is left is
#: no longer a variable a user can analyse (and explore's recommendation treats it as deleted).
MOSTLY_SUPPRESSED = 0.5


def column_changes(
    before: pd.Series | tuple[np.ndarray, list[str]],
    after: pd.Series,
    roots: set[str] | frozenset[str] = frozenset(),
    gone: np.ndarray | None = None,
) -> dict:
    """What became of one column: ``status`` (kept, suppressed: some values
    missing, recoded, deleted), distinct values before and after,
    cells changed and suppressed (missing in ``after``, or at a root label, where ``before`` held a value),
    and the words that say it. ``roots`` are the labels that mean "any value" (``*``, a hierarchy's root): a
    column left with nothing else is deleted. ``before`` may be given as :func:`text_codes` already; ``gone``,
    when given, is and-ed in place with "missing in ``after``, not in ``before``" (records suppressed).

    Every count comes from one ``bincount`` of the (before, after) label pairs: the records are read once,
    and the comparisons are made on the pairs' table, whose size is the product of the two label counts
    (:func:`_pair_counts`; a column with too many labels for that is compared record by record)."""
    a_codes, a_labels = before if isinstance(before, tuple) else text_codes(before)
    b_codes, b_labels = text_codes(after)
    n = len(a_codes)
    if gone is not None:
        gone &= (b_codes < 0) & (a_codes >= 0)
    union = sorted(set(a_labels) | set(b_labels))
    where = {t: i for i, t in enumerate(union)}
    # label indices into the union, with the missing code (-1) first: row/column 0 of the pairs' table
    ua = np.array([-1] + [where[t] for t in a_labels], dtype=np.int64)
    ub = np.array([-1] + [where[t] for t in b_labels], dtype=np.int64)
    root_b = np.array([True] + [t in roots or t == "*" for t in b_labels], dtype=bool)
    rows, cols, counts = _pair_counts(a_codes, b_codes, len(a_labels), len(b_labels))
    differs = ua[rows] != ub[cols]
    held = rows > 0
    changed = int(counts[differs].sum())
    suppressed = int(counts[differs & held & root_b[cols]].sum())
    distinct_before = len(np.unique(rows[held]))
    after_counts = np.bincount(cols, weights=counts, minlength=len(b_labels) + 1)
    labels = [b_labels[j - 1] for j in np.flatnonzero((after_counts > 0) & ~root_b)]
    out: dict[str, Any] = {
        "distinct_before": distinct_before,
        "distinct_after": len(labels),
        "cells_changed": changed,
        "cells_suppressed": suppressed,
        "share_changed": changed / n if n else 0.0,
    }
    rooted = bool(after_counts[1:][root_b[1:]].sum() > 0)
    return _judged(out, labels, n, int(counts[held].sum()), rooted)


def _pair_counts(a: np.ndarray, b: np.ndarray, ka: int, kb: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (before, after) label pairs present, missing as label 0, and how many records hold each: one
    ``bincount`` of the packed pair when the ``(ka + 1) x (kb + 1)`` table is small (at most 2**24 cells), else
    ``np.unique`` of the packed pairs (a column of many distinct values)."""
    width = kb + 1
    cells = (ka + 1) * width
    packed = np.multiply(a, width, dtype=np.intp)  # the one full-width array: the codes stay narrow
    packed += b
    packed += width + 1  # (a + 1) * width + (b + 1)
    if cells <= 1 << 24:
        table = np.bincount(packed, minlength=cells)
        keys = np.flatnonzero(table)
        counts = table[keys]
    else:
        keys, counts = np.unique(packed, return_counts=True)
    return keys // width, keys % width, counts


def _judged(out: dict[str, Any], labels: list[str], n: int, held: int, rooted: bool) -> dict[str, Any]:
    """``out`` with its status and the words that say it."""
    changed, suppressed, distinct_before = out["cells_changed"], out["cells_suppressed"], out["distinct_before"]
    if changed == 0:
        out["status"], out["description"] = "kept", "kept"
        return out
    if not labels and distinct_before:
        out["status"] = "deleted"
        out["description"] = "deleted: every value suppressed" + (" or generalized to *" if rooted else "")
        return out
    if held and suppressed > MOSTLY_SUPPRESSED * held:
        out["status"] = "deleted"
        out["description"] = f"deleted in effect: {_values(suppressed, n)} suppressed"
        return out
    if changed == suppressed:
        out["status"] = "suppressed"
        out["description"] = f"kept; {_values(suppressed, n)} suppressed"
        return out
    out["status"] = "recoded"
    shape = describe_labels(labels)
    what = "values"
    if shape["intervals"] and "width" in shape:
        what = f"bands {shape['width']} wide"
    elif len(labels) < distinct_before:
        what = "groups"
    words = f"{distinct_before:,} exact values → {len(labels):,} {what}"
    codes = [f"top-coded {shape['top_code']}"] if "top_code" in shape else []
    codes += [f"bottom-coded {shape['bottom_code']}"] if "bottom_code" in shape else []
    if codes:
        words += ", " + ", ".join(codes)
    if what == "values":
        words = f"{_values(changed - suppressed, n)} changed"
    if suppressed:
        words += f"; {_values(suppressed, n)} suppressed"
    out["description"] = words
    return out


def variable_changes(
    before: pd.DataFrame,
    after: pd.DataFrame,
    columns: Sequence[str],
    roots: Mapping[str, set[str]] | None = None,
    cache: dict | None = None,
) -> dict[str, Any]:
    """Per column of ``columns`` (the quasi-identifiers, then any other column the release changed), what it
    lost; with the totals: cells changed, and records suppressed (every one of ``columns`` missing in the
    release, not in the input). ``before`` and ``after`` hold the same records in the same order; ``cache``
    keeps ``before``'s columns as text codes between calls on the same input."""
    roots = roots or {}
    cache = {} if cache is None else cache
    if len(before) != len(after):
        raise ValueError("the release and its input hold different numbers of records")
    from privaudit.runtime.concurrency import available_processors, ordered_map

    cols = list(columns)
    n = len(after)

    def one(column: str) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
        if column not in cache:  # each column's key is written by one thread only
            cache[column] = text_codes(before[column])
        codes = cache[column][0]
        missing_now = np.ones(n, dtype=bool)
        entry = column_changes(cache[column], after[column], roots.get(column, set()), missing_now)
        missing_now |= codes < 0
        return {"column": column, **entry}, missing_now, codes >= 0

    rows = []
    gone = np.full(n, bool(cols))
    any_before = np.zeros(n, dtype=bool)
    # columns side by side: numpy releases the GIL in the passes over the records
    workers = min(available_processors(), len(cols)) if n >= 1_000_000 else 1
    for entry, missing_now, had in ordered_map(one, cols, workers=workers, ahead=max(workers, 1)):
        rows.append(entry)
        gone &= missing_now
        any_before |= had
    gone &= any_before
    return {
        "variables": rows,
        "cells_changed": int(sum(r["cells_changed"] for r in rows)),
        "cells": int(len(after) * len(cols)),
        "records_suppressed": int(gone.sum()),
        "records": int(len(after)),
        "deleted": [r["column"] for r in rows if r["status"] == "deleted"],
    }
