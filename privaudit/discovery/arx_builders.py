"""ARX's hierarchy builders with ARX's parameters and semantics, for hierarchies that must equal ARX's.

privaudit's own builders (:mod:`privaudit.discovery.hierarchies`) read widths and bottom/top codes from the
distribution. These reproduce ARX 3.9's (``org.deidentifier.arx.aggregates``, github:arx-deidentifier/arx
commit aacd487) given the parameters ARX asks for, labels included (the interval function
``AggregateFunction.createIntervalFunction(true, false)``, ``[20, 30[``; the set function ``{a, b}``):

* ``intervals`` -- ``HierarchyBuilderIntervalBased.prepareGroups``: base intervals ``[min, max)`` tiled over the
  line with the period of their total width (``getInterval``), ARX's two ``Range`` s (snap from, bottom/top
  coding from, minimum/maximum: ``getAdjustedRanges``; values below the coding bound ``<b``, at or above the
  top one ``>=t``; beyond the minimum/maximum refused), the snap intervals (``getIntervalUpperSnap``), and each
  level grouping the previous level's intervals by its group sizes (both cases of step 5, in a recursive
  builder); ``*`` once the levels are used up with more than one group left;
* ``order`` -- ``HierarchyBuilderOrderBased.prepareGroups``: the values in their natural order or an order given,
  grouped by each level's sizes, then ``*``;
* ``redaction`` -- ``HierarchyBuilderRedactionBased.prepareResult``: values padded to one length (aligned left
  or right), one more character redacted per level; its last level is all redaction characters (``*****``);
* ``dates`` -- ``HierarchyBuilderDate.generalize`` for ISO dates (``yyyy-MM-dd``): ``day_month_year``
  (``dd.MM.yyyy``), ``month_year`` (``MM/yyyy``), ``quarter_year`` (``Q1 2020``), ``year``, and ``decade``,
  ``century``, ``millennium`` (``[1990, 2000[``), ordered as ARX's ``Granularity`` enum; ``*`` above them when
  the last level has more than one label (ARX adds none: its hierarchies may have several top values).

One departure, documented in docs/hierarchies.md: an interval builder without ``lower``/``upper`` repeats its
intervals without bound (ARX's default ranges refuse every value outside the base intervals); it equals ARX
given ranges whose three bounds lie below (above) every value, far enough that the snap interval holds none
(ARX casts the number of periods to an ``int``, so not ``Long.MIN_VALUE / 4`` itself).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric

BUILDERS = ("intervals", "order", "redaction", "dates")
#: ARX's ``Granularity`` enum, in its order (the levels are sorted by it), for the ones built here.
GRANULARITIES = ("day_month_year", "month_year", "quarter_year", "year", "decade", "century", "millennium")
_KEYS = {
    "intervals": {
        "builder",
        "type",
        "width",
        "start",
        "intervals",
        "levels",
        "lower",
        "upper",
        "bottom_coding",
        "top_coding",
    },
    "order": {"builder", "levels", "order"},
    "redaction": {"builder", "align", "redact", "padding", "char"},
    "dates": {"builder", "granularities"},
}


def java_double(x: float) -> str:
    """Java's ``Double.toString`` (ARX's ``DataType.DECIMAL.format`` without a format): ``5.0``, ``1.0E7``."""
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        return repr(float(x))
    mantissa, exponent = np.format_float_scientific(x, unique=True, trim="0").split("e")
    return f"{mantissa}E{int(exponent)}"


class _Number:
    """ARX's ``DataType.INTEGER`` (Long arithmetic) or ``DataType.DECIMAL`` (double) for one builder."""

    def __init__(self, integer: bool):
        self.integer = integer

    def fmt(self, x: float) -> str:
        return str(int(x)) if self.integer else java_double(x)


# --------------------------------------------------------------------------------------------- intervals
def _locate(v: np.ndarray, mins: np.ndarray, maxs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``getInterval(IndexNode, type, value)``: the base interval holding each value, tiled with the period of
    the intervals' total width; (min, max) of the shifted interval."""
    imin, imax = mins[0], maxs[-1]
    period = imax - imin
    shift = np.floor((v - imin) / period)
    offset = period * shift
    shifted = v - offset
    edge = shifted == imax  # "Fix case when shifted value equals interval-max"
    offset = np.where(edge, period * (shift + 1), offset)
    shifted = np.where(edge, imin, shifted)
    idx = np.clip(np.searchsorted(mins, shifted, side="right") - 1, 0, len(mins) - 1)
    if not ((mins[idx] <= shifted) & (shifted < maxs[idx])).all():
        raise ValueError("no interval found for a value (intervals must be adjacent)")
    return mins[idx] + offset, maxs[idx] + offset


def _upper_snap(t: float, mins: np.ndarray, maxs: np.ndarray) -> tuple[float, float]:
    """``getIntervalUpperSnap``: the interval ending at (or holding) the upper snap bound ``t``."""
    imin, period = mins[0], maxs[-1] - mins[0]
    shift = math.floor((t - imin) / period)
    offset = period * shift
    value = t - offset
    for j in range(len(mins)):
        if mins[j] <= value < maxs[j]:
            if value == mins[j]:
                if j > 0:
                    return mins[j - 1] + offset, maxs[j - 1] + offset
                offset = period * (shift - 1)
                return mins[-1] + offset, maxs[-1] + offset
            return mins[j] + offset, maxs[j] + offset
    if len(mins) == 1:
        return mins[0] + offset, maxs[0] + offset
    raise ValueError(f"upper snap bound {t}: no interval")


def _level(v: np.ndarray, intervals, low, up, num: _Number, column: str) -> list[str]:
    """Step 4 of ``prepareGroups``: the label of every value on the level of these base intervals."""
    mins = np.array([a for a, _ in intervals], dtype=float)
    maxs = np.array([b for _, b in intervals], dtype=float)
    lo, hi = _locate(v, mins, maxs)
    labels = np.array([f"[{num.fmt(a)}, {num.fmt(b)}[" for a, b in zip(lo.tolist(), hi.tolist(), strict=True)])
    snap_l = snap_u = None
    if low[0] is not None:
        s_lo, s_hi = _locate(np.array([float(low[0])]), mins, maxs)
        snap_l = (float(low[1]), float(s_hi[0]))
    if up[0] is not None:
        u_lo, _ = _upper_snap(float(up[0]), mins, maxs)
        snap_u = (float(u_lo), float(up[1]))
    if snap_l is not None and snap_u is not None and snap_l[1] > snap_u[0]:  # overlapping snaps: one interval
        snap_l = snap_u = (snap_l[0], snap_u[1])
    if snap_l is not None:
        labels = np.where(lo < snap_l[1], f"[{num.fmt(snap_l[0])}, {num.fmt(snap_l[1])}[", labels)
    if snap_u is not None:
        below = lo < snap_l[1] if snap_l is not None else np.zeros(len(v), dtype=bool)
        labels = np.where(~below & (hi > snap_u[0]), f"[{num.fmt(snap_u[0])}, {num.fmt(snap_u[1])}[", labels)
    for bound, sign, name in ((low, "<", "minimum"), (up, ">=", "maximum")):
        if bound[0] is None:
            continue
        if bound[2] is not None:
            out = v < bound[2] if sign == "<" else v >= bound[2]
            if out.any():
                extreme = v[out].min() if sign == "<" else v[out].max()
                raise ValueError(f"value {num.fmt(extreme)} is {sign} the {name} {num.fmt(bound[2])} of the range")
        coded = v < bound[1] if sign == "<" else v >= bound[1]
        labels = np.where(coded, sign + num.fmt(bound[1]), labels)
    return labels.tolist()


def _grouped(intervals: list[tuple[float, float]], sizes: list[int]) -> list[tuple[float, float]]:
    """Step 5 of ``prepareGroups``: the next level's base intervals, the previous ones merged by ``sizes``."""
    merged: list[tuple[float, float]] = []
    n = len(intervals)
    if sum(sizes) >= n:  # case 1: more grouped than there are intervals -> shift them round robin
        width, offset, i = intervals[-1][1] - intervals[0][0], 0.0, 0
        for size in sizes:
            chunk = []
            for _ in range(size):
                chunk.append((intervals[i][0] + offset, intervals[i][1] + offset))
                i += 1
                if i == n:
                    i, offset = 0, offset + width
            merged.append((min(a for a, _ in chunk), max(b for _, b in chunk)))
        return merged
    i = 0
    while i < n:  # case 2: the groups repeated over the intervals, the last one possibly short
        for size in sizes:
            if i == n:
                raise ValueError(
                    f"groups {sizes} leave a last group empty over {n} intervals (ARX 3.9 fails there: "
                    "HierarchyBuilderIntervalBased reads past its intervals)"
                )
            chunk = intervals[i : min(i + size, n)]
            i += len(chunk)
            merged.append((chunk[0][0], chunk[-1][1]))
    return merged


def _levels(spec: Any) -> list[list[int]]:
    """``levels: [2, 2]`` (one group size per level) or ``[[2, 3], [2]]`` (ARX's groups of each level)."""
    out = []
    for level in spec or []:
        sizes = [level] if isinstance(level, int) else list(level)
        if not sizes or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes):
            raise ValueError(f"levels: {level!r} is not a group size > 0 or a list of them")
        out.append(sizes)
    return out


def _base_intervals(spec: Mapping[str, Any]) -> list[tuple[float, float]]:
    if "intervals" in spec:
        pairs = [tuple(float(x) for x in pair) for pair in spec["intervals"]]
        if not pairs or any(len(p) != 2 for p in pairs):
            raise ValueError("intervals: a list of [min, max] pairs")
    elif "width" in spec:
        start = float(spec.get("start", 0))
        pairs = [(start, start + float(spec["width"]))]
    else:
        raise ValueError("intervals builder: give width (and start) or intervals")
    for (a, b), nxt in zip(pairs, [*pairs[1:], None], strict=True):
        if not a < b:
            raise ValueError(f"interval [{a}, {b}): min must be below max")
        if nxt is not None and nxt[0] != b:
            raise ValueError(f"gap between [{a}, {b}) and [{nxt[0]}, {nxt[1]}): ARX's intervals are adjacent")
    return [(a, b) for a, b in pairs]


def _range(spec: Mapping[str, Any], key: str, shorthand: str) -> tuple | None:
    """ARX's ``Range(snapFrom, bottomTopCodingFrom, minMaxValue)`` from ``lower``/``upper`` (the three bounds) or
    ``bottom_coding``/``top_coding`` (snap and coding from that bound, no minimum/maximum), else None."""
    if key in spec:
        triple = spec[key]
        if not isinstance(triple, list | tuple) or len(triple) != 3:
            raise ValueError(f"{key}: [snap from, coding from, {'minimum' if key == 'lower' else 'maximum'}]")
        return tuple(float(x) for x in triple)
    if shorthand in spec:
        b = float(spec[shorthand])
        return (b, b, None)
    return None


def intervals(column: str, texts: np.ndarray, spec: Mapping[str, Any]) -> list[list[str]]:
    """ARX's ``HierarchyBuilderIntervalBased`` on the distinct ``texts``: one row per text (leaf first). ``type``
    is ARX's data type, which writes the labels: ``integer`` (``[20, 25[``), ``decimal`` (``[20.0, 25.0[``) or
    ``auto`` (integer when every value and bound is whole)."""
    base = _base_intervals(spec)
    levels = _levels(spec.get("levels"))
    low, up = _range(spec, "lower", "bottom_coding"), _range(spec, "upper", "top_coding")
    v = to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(v).all():
        raise ValueError(f"{texts[~np.isfinite(v)][0]!r} is not a number")
    bounds = [x for pair in base for x in pair] + [x for r in (low, up) if r for x in r if x is not None]
    kind = spec.get("type", "auto")
    if kind not in ("auto", "integer", "decimal"):
        raise ValueError(f"type {kind!r}: integer (ARX's DataType.INTEGER), decimal (DECIMAL) or auto")
    whole = bool((v == np.round(v)).all()) and all(float(x).is_integer() for x in bounds)
    if kind == "integer" and not whole:
        raise ValueError("type integer: a value or a bound is no whole number")
    num = _Number(whole if kind == "auto" else kind == "integer")
    low, up = low or (None, None, None), up or (None, None, None)
    if low[0] is not None and low[1] > low[0] or up[0] is not None and up[1] < up[0]:
        raise ValueError("a coding bound must lie beyond its snap bound (lower: coding <= snap; upper: >=)")
    columns = [list(map(str, texts))]
    current, remaining = base, levels
    while True:
        labels = _level(v, current, low, up, num, column)
        columns.append(labels)
        distinct = len(set(labels))
        if distinct > 1 and remaining:
            current, remaining = _grouped(current, remaining[0]), remaining[1:]
            continue
        if distinct > 1:
            columns.append(["*"] * len(texts))
        break
    return [list(row) for row in zip(*columns, strict=True)]


# ------------------------------------------------------------------------------------ order, redaction, dates
def order(column: str, texts: np.ndarray, spec: Mapping[str, Any], numeric: bool) -> list[list[str]]:
    """ARX's ``HierarchyBuilderOrderBased``: sorted (``create(type, true)``: the type's order; ``create(type,
    String[])``: ``order`` given), grouped by each level's sizes, labels ``{a, b}``, then ``*``."""
    data = [str(t) for t in texts]
    given = spec.get("order", "natural")
    if given == "natural":
        data = sorted(data, key=float) if numeric else sorted(data)
    else:
        rank = {str(x): i for i, x in enumerate(given)}
        missing = next((d for d in data if d not in rank), None)
        if missing is not None:
            raise ValueError(f"{missing!r} is not in the order given")
        data = sorted(data, key=rank.__getitem__)
    levels = _levels(spec.get("levels"))
    columns = [data]
    groups: list[list[str]] = [[d] for d in data]  # each value's group, as lists of values
    member = list(range(len(data)))  # the group of each row
    for sizes in levels:
        if len(groups) == 1:
            break
        merged, owner, i = [], [0] * len(groups), 0
        while i < len(groups):
            for size in sizes:
                chunk = list(range(i, min(i + size, len(groups))))
                for g in chunk:
                    owner[g] = len(merged)
                merged.append([v for g in chunk for v in groups[g]])
                i += len(chunk)
                if i == len(groups):
                    break
        member = [owner[m] for m in member]
        groups = merged
        columns.append(["{" + ", ".join(groups[m]) + "}" for m in member])
    if len(groups) > 1:
        columns.append(["*"] * len(data))
    return [list(row) for row in zip(*columns, strict=True)]


def redaction(texts: np.ndarray, spec: Mapping[str, Any]) -> list[list[str]]:
    """ARX's ``HierarchyBuilderRedactionBased.prepareResult``: padded to the longest value (``align: left``:
    LEFT_TO_RIGHT, the padding after the value), then ``redact: right`` (RIGHT_TO_LEFT) one more character
    replaced from the end per level, down to every character redacted."""
    align, redact = spec.get("align", "left"), spec.get("redact", "right")
    pad, char = str(spec.get("padding", "*")), str(spec.get("char", "*"))
    if align not in ("left", "right") or redact not in ("left", "right") or len(pad) != 1 or len(char) != 1:
        raise ValueError("redaction: align and redact are left or right; padding and char one character each")
    data = [str(t) for t in texts]
    length = max(len(d) for d in data)
    rows = []
    for d in data:
        base = d + pad * (length - len(d)) if align == "left" else pad * (length - len(d)) + d
        levels = [
            base[: length - j] + char * j if redact == "right" else char * j + base[j:] for j in range(1, 1 + length)
        ]
        rows.append([d, *levels])
    return rows


def dates(column: str, texts: np.ndarray, spec: Mapping[str, Any]) -> list[list[str]]:
    """ARX's ``HierarchyBuilderDate`` (UTC, ARX's default ``Format``) on ISO dates, one level a granularity."""
    wanted = list(spec.get("granularities") or ["month_year", "year", "decade"])
    unknown = [g for g in wanted if g not in GRANULARITIES]
    if unknown:
        raise ValueError(f"granularity {unknown[0]!r} (known: {', '.join(GRANULARITIES)})")
    when = pd.to_datetime(pd.Series(texts, dtype=object), format="%Y-%m-%d", errors="coerce")
    if when.isna().any():
        raise ValueError(f"{texts[when.isna().to_numpy()][0]!r} is not a date (yyyy-MM-dd)")
    year = when.dt.year
    out = [pd.Series(texts, dtype=object).astype(str)]
    for g in sorted(set(wanted), key=GRANULARITIES.index):
        if g == "day_month_year":
            out.append(when.dt.strftime("%d.%m.%Y"))
        elif g == "month_year":
            out.append(when.dt.strftime("%m/%Y"))
        elif g == "quarter_year":
            out.append("Q" + when.dt.quarter.astype(str) + " " + year.map("{:04d}".format))
        elif g == "year":
            out.append(year.map("{:04d}".format))
        else:
            span = {"decade": 10, "century": 100, "millennium": 1000}[g]
            low = (year // span) * span
            out.append("[" + low.astype(str) + ", " + (low + span).astype(str) + "[")
    return [list(row) for row in zip(*(s.tolist() for s in out), strict=True)]


# ------------------------------------------------------------------------------------------------ entry
def check(spec: Mapping[str, Any]) -> None:
    """A builder spec (``{builder: intervals, width: 5, ...}``) checked for its keys; ValueError names the
    first key its builder does not take."""
    name = spec.get("builder")
    if name not in BUILDERS:
        raise ValueError(f"unknown hierarchy builder {name!r} (ARX builders: {', '.join(BUILDERS)})")
    extra = sorted(set(spec) - _KEYS[name])
    if extra:
        raise ValueError(
            f"{name} builder: unknown key {extra[0]!r} (known: {', '.join(sorted(_KEYS[name] - {'builder'}))})"
        )


def build(column: str, values: pd.Series | np.ndarray, spec: Mapping[str, Any], kind: str) -> tuple[str, str]:
    """The hierarchy (ARX-format CSV text, ``;``) the ARX builder ``spec`` gives the column's ``values`` (one
    per record; missing as None, NaN or ""), and its note. ValueError for a bad spec or a value it refuses."""
    check(spec)
    series = pd.Series(values, dtype=object)
    texts = pd.unique(series[series.notna() & (series.astype(str) != "")].astype(str))
    texts = np.asarray(texts, dtype=object)
    if len(texts) == 0:
        raise ValueError("no values to build a hierarchy from")
    name = spec["builder"]
    if name == "intervals":
        rows = intervals(column, texts, spec)
    elif name == "order":
        rows = order(column, texts, spec, numeric=kind == "numeric")
    elif name == "redaction":
        rows = redaction(texts, spec)
    else:
        rows = dates(column, texts, spec)
    if name == "dates" and len({row[-1] for row in rows}) > 1:  # one root, as privaudit's hierarchies have
        rows = [[*row, "*"] for row in rows]
    if any(";" in cell for row in rows for cell in row):
        raise ValueError("a label holds ';', which an ARX-format hierarchy file cannot")
    note = f"ARX {name} builder ({', '.join(f'{k}={v}' for k, v in spec.items() if k != 'builder')})"
    return "\n".join(";".join(row) for row in rows) + "\n", note
