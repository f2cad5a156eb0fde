"""Report sections: what one check contributes to the HTML/PDF report, and helpers to build them.

A plugin adds its own section through the ``privaudit_report_section(check, audit)`` hook (see
:mod:`privaudit.core.hookspecs`): it returns a :class:`ReportSection` for checks of its own assessors and
``None`` otherwise. A check no plugin answers for gets :func:`generic_section` (value, threshold,
message and the ``details`` as a key/value table). A check that ended in ``error`` always gets the
error block (its message), without calling the hook: there are no figures to show.

Everything in a section is plain text except :attr:`Figure.svg`, which must be
:class:`markupsafe.Markup` made by :mod:`privaudit.report.charts` (or built with
:func:`markupsafe.escape` around every label): the templates escape all other values. A figure whose
markup could load anything (``href``, ``<image``, ``<script``, ``url(``, ``<foreignObject``) is refused.

Example of a plugin section::

    from privaudit import hookimpl
    from privaudit.report.sections import ReportSection, Figure, histogram_figure

    @hookimpl
    def privaudit_report_section(check, audit):
        if check["assessor"] != "likeness":
            return None
        return ReportSection(summary="...", figures=[histogram_figure(check["details"]["hist"], ...)])
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from markupsafe import Markup

from privaudit.report import charts

#: Markup that could make a viewer or WeasyPrint fetch or run something; refused in figures.
_UNSAFE_SVG = re.compile(r"href|<\s*image|<\s*script|<\s*foreignobject|url\s*\(|<\s*style|\bon\w+\s*=",
                         re.IGNORECASE)
MISSING = "—"
_WIDTH = re.compile(r"\d{1,3}(\.\d+)?(%|em|rem|mm|pt)")


@dataclass(frozen=True)
class Figure:
    """An inline SVG chart and its caption."""

    svg: Markup
    caption: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.svg, Markup):
            raise TypeError("Figure.svg must be markupsafe.Markup (use privaudit.report.charts)")
        if _UNSAFE_SVG.search(str(self.svg)):
            raise ValueError("Figure.svg may not reference external resources, styles, scripts or handlers")


@dataclass(frozen=True)
class KeyValues:
    """A table cell listing ``name: value`` pairs, one per line (many QI values in one cell)."""

    pairs: tuple[tuple[str, str], ...]


@dataclass
class Table:
    """A table of plain values. ``numeric`` holds the positions of right-aligned columns; ``kind`` is
    a CSS class: ``classes`` (lists of equivalence classes: smaller type) and ``details`` (key/value
    pairs) get a fixed layout, so that a long unbroken value wraps instead of widening the table."""

    columns: list[str]
    rows: list[list[Any]]
    caption: str = ""
    note: str = ""
    numeric: frozenset[int] = frozenset()
    kind: str = ""
    widths: tuple[str | None, ...] = ()  # CSS widths of the first columns ("55%", "6em"), for fixed layouts

    def __post_init__(self) -> None:
        for w in self.widths:
            if w is not None and not _WIDTH.fullmatch(w):
                raise ValueError(f"Table.widths: {w!r} is not a length like '40%' or '6em'")


@dataclass
class ReportSection:
    """One check's part of the report.

    Attributes:
        summary: the plain-language sentence: what the figure means for a person in this data.
        value_text, threshold_text: how the summary table and the check's header show the measured
            value and the threshold ("0.375", "t ≤ 0.2"); None = formatted generically.
        paragraphs: further plain-text paragraphs.
        facts: (label, value) pairs of supporting figures.
        figures, tables: charts and tables, in order.
        limitations: what this model does not protect against (the attacker-model chapter lists it).
    """

    summary: str
    value_text: str | None = None
    threshold_text: str | None = None
    paragraphs: list[str] = field(default_factory=list)
    facts: list[tuple[str, str]] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    limitations: str = ""


# ----------------------------------------------------------------------------------------- formatting
def fmt(value: Any, digits: int = 4) -> str:
    """A number for people: integers with thousands separators, others with ``digits`` significant
    digits; ``"inf"`` / infinity as ∞, None as a dash; other values as text."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value in ("inf", "-inf"):
        return "∞" if value == "inf" else "−∞"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:.{digits}g}"
    return str(value)


def percent(part: float, whole: float) -> str:
    """``part`` as a share of ``whole`` ("2.3%"; "<0.1%" for tiny non-zero shares)."""
    if not whole:
        return "0%"
    share = 100.0 * part / whole
    if 0 < share < 0.1:
        return "<0.1%"
    return f"{share:.1f}%" if share < 99.95 or part == whole else "99.9%"


def share(x: float) -> str:
    """A proportion as a percentage with at most two decimals ("2.31%", "0%")."""
    text = f"{100.0 * float(x):.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def people(n: int) -> str:
    return f"{fmt(n)} {'person' if n == 1 else 'people'}"


def qi_phrase(names: Sequence[str], limit: int = 3) -> str:
    """``"their age, sex and race"`` / ``"their age, sex, race, …"``: what an intruder must know."""
    names = list(names)
    if not names:
        return "nothing"
    if len(names) == 1:
        return f"their {names[0]}"
    if len(names) <= limit:
        return f"their {', '.join(names[:-1])} and {names[-1]}"
    return f"their {', '.join(names[:limit])}, …"


def threshold_text(threshold: Any) -> str:
    """A threshold of any shape as text: scalars as numbers, mappings as ``k = 3, p = 2``."""
    if isinstance(threshold, dict):
        return ", ".join(f"{k} = {fmt(v)}" for k, v in threshold.items() if v is not None) or MISSING
    if isinstance(threshold, (list, tuple)):
        return ", ".join(fmt(v) for v in threshold) or MISSING
    return fmt(threshold)


# ---------------------------------------------------------------------------------- shared content
def _flatten(prefix: str, value: Any, out: list[tuple[str, str]], max_items: int) -> None:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out, max_items)
        return
    if isinstance(value, list) and len(value) > max_items:
        shown = ", ".join(fmt(v) if not isinstance(v, (dict, list)) else "…" for v in value[:max_items])
        out.append((prefix, f"[{shown}, … ({fmt(len(value))} items)]"))
        return
    if isinstance(value, list):
        out.append((prefix, "[" + ", ".join(_short(v) for v in value) + "]"))
        return
    out.append((prefix, fmt(value)))


def _short(value: Any, limit: int = 80) -> str:
    text = fmt(value) if not isinstance(value, (dict, list)) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def details_table(details: dict, max_rows: int = 60, max_items: int = 10) -> Table | None:
    """The ``details`` mapping as a two-column key/value table (nested keys dotted, long lists cut)."""
    pairs: list[tuple[str, str]] = []
    _flatten("", details or {}, pairs, max_items)
    if not pairs:
        return None
    note = f"first {max_rows} of {len(pairs)} entries" if len(pairs) > max_rows else ""
    return Table(["detail", "value"], [[k, _short(v, 200)] for k, v in pairs[:max_rows]], note=note, kind="details")


def generic_section(check: dict) -> ReportSection:
    """The section of a check no plugin drew: the message, value, threshold and details table.

    (The report adds the assessor's ``measures`` sentence to every section, this one included.)"""
    table = details_table(check.get("details") or {})
    return ReportSection(summary=check.get("message") or "", tables=[table] if table else [])


def max_classes(audit: Any) -> int:
    return int(audit.policy.report.max_classes)


def worst_classes_table(check: dict, audit: Any, figures: Sequence[tuple[str, str]] = (),
                        failing: int | None = None, what: str = "classes that fail",
                        sensitive: bool = False) -> Table | None:
    """The worst classes of a check (``details.worst_classes``): QI values, size, the per-class
    figures named in ``figures`` (key, column title) and the sensitive values when the audit left them
    in (large enough classes, or ``report.show_sensitive_values``). Capped at ``report.max_classes``.
    ``sensitive`` says the assessor lists sensitive values at all (a note then explains withheld ones).

    With more than four quasi-identifiers the values share one column (one ``name: value`` per line)
    so that the table fits the page.
    """
    rows_in = (check.get("details") or {}).get("worst_classes") or []
    if not rows_in:
        return None
    cap = max_classes(audit)
    rows_in = rows_in[:cap]
    qis = list(rows_in[0].get("values", {}).keys())
    wide = len(qis) <= 4
    wildcard = audit.policy.data.missing_qi == "wildcard"
    has_sensitive = any("sensitive_values" in r for r in rows_in)
    columns = (qis if wide else ["quasi-identifier values"]) + ["records"]
    if wildcard:
        columns.append("f_k")
    columns += [title for _, title in figures]
    if has_sensitive:
        columns.append("sensitive values (count)")
    first_numeric = len(qis) if wide else 1
    numeric = frozenset(range(first_numeric, first_numeric + 1 + wildcard + len(figures)))
    rows = []
    withheld = 0
    for r in rows_in:
        values = r.get("values", {})
        row: list[Any] = [values.get(q, MISSING) for q in qis] if wide else [
            KeyValues(tuple((q, str(values.get(q, MISSING))) for q in qis))]
        row.append(fmt(r.get("size")))
        if wildcard:
            row.append(fmt(r.get("record_size")))
        row += [fmt(r.get(key)) for key, _ in figures]
        if has_sensitive:
            sv = r.get("sensitive_values")
            if sv is None:
                withheld += 1
                row.append("withheld")
            else:
                row.append(", ".join(f"{k} ({fmt(v)})" for k, v in sv.items()))
        rows.append(row)
    total = failing if failing is not None else len(rows_in)
    caption = (f"The {fmt(len(rows))} worst of {fmt(total)} {what}" if total > len(rows)
               else f"All {fmt(total)} {what}")
    notes = []
    if total > len(rows):
        notes.append(f"The policy's report.max_classes ({fmt(cap)}) caps this list.")
    if withheld or (sensitive and not has_sensitive):
        notes.append("Sensitive values of classes smaller than the policy's largest k are withheld "
                     "(report.show_sensitive_values is false).")
    if wildcard:
        notes.append("f_k counts the records a class's records match when a missing value matches any value.")
    widths = () if wide else ("58%" if has_sensitive else None,)
    return Table(columns, rows, caption=caption, note=" ".join(notes), numeric=numeric, kind="classes",
                 widths=widths)


def size_histogram_figure(hist: Sequence[Sequence[int]], k: int | None, title: str,
                          max_bins: int = 60) -> Figure | None:
    """Class-size histogram (``[[size, classes], ...]``) with the k line; the last bin may pool the
    largest sizes (then labelled ``≥ size``). Sizes below k are drawn in the failing colour."""
    if not hist:
        return None
    sizes = [int(s) for s, _ in hist]
    counts = [int(c) for _, c in hist]
    labels = [fmt(s) for s in sizes]
    if len(hist) >= max_bins:
        labels[-1] = f"≥{fmt(sizes[-1])}"
    failing = [k is not None and s < k for s in sizes]
    after = sum(failing) if k is not None else None
    legend = (f"smaller than k = {k}", "k or larger") if k is not None and any(failing) else None
    svg = charts.category_chart(labels, counts, failing, title=title, x_label="class size (records sharing "
                                "the same quasi-identifier values)", y_label="classes",
                                threshold_after=after, threshold_label=f"k = {k}" if k is not None else "",
                                legend=legend)
    scale = " The vertical axis is logarithmic." if charts.should_use_log(counts) else ""
    return Figure(svg, f"Number of classes of each size; the dashed line marks k.{scale}")


def integer_bins(hist: dict) -> tuple[list[int], list[int]] | None:
    """Per-class counts that are whole numbers (distinct values) binned narrower than 1 back into one
    bar per integer; None when the bins are too wide to tell integers apart."""
    edges, counts = hist.get("edges") or [], hist.get("counts") or []
    if len(edges) < 2 or (edges[1] - edges[0]) >= 1:
        return None
    values: dict[int, int] = {}
    for lo, hi, c in zip(edges[:-1], edges[1:], counts):
        if c:
            v = math.ceil(lo - 1e-9)
            values[v] = values.get(v, 0) + int(c)
    if not values:
        return None
    span = range(min(values), max(values) + 1)
    return list(span), [values.get(v, 0) for v in span]


def reciprocal_bins_failing(edges: Sequence[float], threshold: float) -> list[bool]:
    """Which bins of a histogram of 1/f (f = 1, 2, ...; bins [lo, hi), the last one closed) hold a
    value above ``threshold``. Record risk 1/f_k takes only these values, so a bin starting exactly at
    the threshold (risk 0.2 = 1/5 in [0.2, 0.25)) passes, which a bin-centre rule would get wrong."""
    out = []
    last = len(edges) - 2
    for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:])):
        # the largest 1/f in the bin: the smallest f with 1/f < hi (<= hi in the last bin)
        f = max(1, math.ceil(1.0 / hi - 1e-12)) if i == last else math.floor(1.0 / hi + 1e-12) + 1
        out.append(bool(lo - 1e-12 <= 1.0 / f and 1.0 / f > threshold + 1e-12))
    return out


def bin_failing_counts(edges: Sequence[float], counts: Sequence[float], threshold: float, fail_side: str,
                       failing_total: float | None = None, failing_beside: float = 0.0) -> list[float | None]:
    """How many of each bin's values fail the threshold, as far as the histogram tells.

    A bin that ends at or below ``threshold`` holds only values below it, one that starts at or above it
    only values above it (edges within 1e-9 relative of the threshold count as equal); ``fail_side`` says
    which side fails. A bin with the threshold strictly inside holds both, in a proportion the histogram
    does not tell: ``None``. ``failing_total`` (the assessor's count of failing values, including the
    ``failing_beside`` ones drawn beside the axis: infinite or overflow values) settles it: the failing
    values not accounted for by the bins wholly on the failing side are in the straddling bin; with no
    straddling bin they are values equal to the threshold, in the bin that starts or ends there.
    An inconsistent total is ignored (the bins keep what their position says)."""
    edges = [float(e) for e in edges]
    eps = 1e-9 * max(1.0, abs(threshold), abs(edges[-1] - edges[0]))
    out: list[float | None] = []
    for lo, hi, c in zip(edges[:-1], edges[1:], counts):
        if hi <= threshold + eps:
            side = "below"
        elif lo >= threshold - eps:
            side = "above"
        else:
            out.append(None if c else 0.0)
            continue
        out.append(float(c) if side == fail_side else 0.0)
    if failing_total is None:
        return out
    diff = float(failing_total) - float(failing_beside) - sum(f for f in out if f is not None)
    unknown = [i for i, f in enumerate(out) if f is None]
    if len(unknown) == 1:
        i = unknown[0]
        if -0.5 < diff < counts[i] + 0.5:
            out[i] = min(max(diff, 0.0), float(counts[i]))
    elif not unknown and abs(diff) >= 0.5:
        # values equal to the threshold sit in the bin that starts there, or (an edge a rounding error
        # above it) in the bin that ends there
        at = [i for i, lo in enumerate(edges[:-1]) if abs(lo - threshold) <= eps]
        at += [i for i, hi in enumerate(edges[1:]) if abs(hi - threshold) <= eps]
        for i in at:
            if 0 <= (out[i] or 0.0) + diff <= counts[i]:
                out[i] = (out[i] or 0.0) + diff
                break
    return out


def threshold_histogram(values: Any, threshold: float, fail_side: str, fails_at_threshold: bool, *,
                        bins: int = 20, lo: float | None = None, tail: float = 0.9,
                        weights: Any = None) -> dict:
    """A histogram of per-class (or per-record) figures whose bins never straddle ``threshold``.

    The bin width is a nice number (1, 2, 2.5, 5 x 10^n) giving about ``bins`` bins, and the threshold is
    an edge, so every bin passes or fails as a whole; bins are closed on the side that keeps a value equal
    to the threshold with its own verdict (``fails_at_threshold``: does a value equal to it fail?).
    Heavy tails do not squash the picture: when the largest value lies more than 1.5 times as far from the
    start as the ``tail`` quantile, the axis ends at that quantile (but at least as far beyond the
    threshold as the smallest value is below it) and the values past it are pooled in an ``overflow``
    bar. Infinite values are counted apart (``infinite``), NaN ones ignored.

    Returns ``{edges, counts, infinite, overflow, overflow_label}``, the shape
    :func:`value_histogram_figure` draws.
    """
    import numpy as np

    v = np.asarray(values, dtype=float)
    w = np.ones(len(v)) if weights is None else np.asarray(weights, dtype=float)
    finite = np.isfinite(v)
    infinite = int(round(w[np.isinf(v)].sum()))
    t = float(threshold)
    if not finite.any():
        return {"edges": [t - 1.0, t, t + 1.0], "counts": [0, 0], "infinite": infinite, "overflow": 0,
                "overflow_label": ""}
    x, wx = v[finite], w[finite]
    vmin, vmax = float(x.min()), float(x.max())
    start = min(vmin, t) if lo is None else min(float(lo), vmin, t)
    cap = max(float(np.quantile(x, tail)), t + (t - start), t)
    if max(vmax, t) - start <= 1.5 * (cap - start):
        cap = max(vmax, t)  # no heavy tail: show every value on the axis
    span = cap - start
    step = charts.nice_step(span if span > 1e-9 * max(1.0, abs(t)) else 1.0, bins)
    left_closed = (fail_side == "above") == fails_at_threshold
    k_lo = math.floor((start - t) / step + 1e-9)
    if not left_closed and t + k_lo * step >= start:
        k_lo -= 1  # (a, b] bins: the first edge lies below the smallest value
    k_hi = math.ceil((cap - t) / step - 1e-9)
    if left_closed and t + k_hi * step <= cap and cap >= vmax:
        k_hi += 1  # [a, b) bins: the largest value needs a bin of its own
    k_hi = max(k_hi, 1)
    edges = np.array([t + k * step for k in range(k_lo, k_hi + 1)])
    if lo is not None and edges[0] < float(lo) <= start:
        edges[0] = float(lo)  # no bin reaches below the figure's natural floor (0 for ratios)
    side = "right" if left_closed else "left"
    index = np.maximum(np.searchsorted(edges, x, side=side) - 1, 0)  # a value on a clamped first edge: bin 0
    beyond = index >= len(edges) - 1
    counts = np.bincount(index[~beyond], weights=wx[~beyond], minlength=len(edges) - 1)
    top = charts.number_label(float(edges[-1]))
    return {"edges": [float(e) for e in edges], "counts": [int(round(c)) for c in counts], "infinite": infinite,
            "overflow": int(round(wx[beyond].sum())), "overflow_label": ("≥" if left_closed else ">") + top}


def value_histogram_figure(hist: dict, threshold: float, fail_side: str, title: str, x_label: str,
                           threshold_label: str, y_label: str = "classes", caption: str = "",
                           integers: bool = False, failing: Sequence[bool] | None = None,
                           failing_total: float | None = None) -> Figure | None:
    """A per-class (or per-record) histogram ``{edges, counts, infinite[, overflow, overflow_label]}`` with
    its threshold line.

    Bars are coloured by which side of ``threshold`` their values lie on (:func:`bin_failing_counts`) unless
    ``failing`` gives each bin's verdict. A bin straddling the threshold is split at the threshold line
    when ``failing_total`` (the assessor's count of failing classes or records, infinite and overflow ones
    included) tells how many of its values fail, and drawn in a third colour otherwise. ``integers``
    redraws bins narrower than 1 as one bar per whole number. ``overflow`` values (past the last edge,
    see :func:`threshold_histogram`) get a bar of their own labelled ``overflow_label``."""
    if not hist or not (sum(hist.get("counts") or []) or hist.get("infinite") or hist.get("overflow")):
        return None
    pass_text = "passes"
    legend = ("fails the threshold", pass_text)
    ints = integer_bins(hist) if integers else None
    if ints is not None:
        values, counts = ints
        failing = [(v < threshold) if fail_side == "below" else (v > threshold) for v in values]
        after = sum(1 for v in values if v < threshold) if fail_side == "below" else sum(1 for v in values if v <= threshold)
        svg = charts.category_chart([fmt(v) for v in values], counts, failing, title=title, x_label=x_label,
                                    y_label=y_label, threshold_after=after, threshold_label=threshold_label,
                                    legend=legend if any(failing) else None)
        return Figure(svg, caption)
    edges, counts = hist["edges"], hist["counts"]
    infinite, overflow = int(hist.get("infinite") or 0), int(hist.get("overflow") or 0)
    extra = [(hist.get("overflow_label") or f">{charts.number_label(edges[-1])}", overflow, fail_side == "above")] \
        if overflow else []
    beside = (infinite + overflow) if fail_side == "above" else 0
    if failing is not None:
        per_bin = [float(c) if f else 0.0 for c, f in zip(counts, failing)]
    else:
        per_bin = bin_failing_counts(edges, counts, threshold, fail_side, failing_total, beside)
    failing_any = any(f is None or f > 0 for f in per_bin) or beside > 0
    mixed = any(f is None for f in per_bin)
    svg = charts.histogram_chart(edges, counts, title=title, x_label=x_label, y_label=y_label,
                                 threshold=threshold, threshold_label=threshold_label, fail_side=fail_side,
                                 infinite=infinite, failing_counts=per_bin, extra_bars=extra,
                                 legend=legend if failing_any else None, mixed_text="some pass, some fail")
    if mixed:
        caption = (caption + " " if caption else "") + ("A bar in the third colour holds values on both sides "
                                                        "of the threshold.")
    if overflow:
        caption = (caption + " " if caption else "") + (f"Values past {charts.number_label(edges[-1])} share the "
                                                        f"bar labelled {extra[0][0]}.")
    return Figure(svg, caption)


def facts(*pairs: tuple[str, Any]) -> list[tuple[str, str]]:
    """(label, value) pairs with the values formatted; pairs whose value is None are left out."""
    return [(label, v if isinstance(v, str) else fmt(v)) for label, v in pairs if v is not None]
