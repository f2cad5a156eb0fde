"""Hand-written SVG charts for the audit report: histograms with a threshold line.

Why not matplotlib's SVG backend: the charts here are a handful of bars, two axes and one line. Writing
the SVG directly keeps them

* small: a chart is 3-6 kB of markup inlined in the HTML (matplotlib writes every glyph as a path and
  embeds ids and metadata, tens of kB per chart);
* deterministic: the same numbers give the same bytes (coordinates are rounded to 0.1 unit; there are
  no generated ids, dates or hash salts), so the HTML is byte-identical across runs;
* identical in HTML and PDF: only basic elements (``rect``, ``line``, ``text``, ``g``) and one font
  family (DejaVu Sans, which the PDF embeds) are used, which browsers and WeasyPrint draw alike;
* safe: no ``href``, ``image``, ``style`` URL or script: the chart cannot fetch anything, and every
  label goes through :func:`markupsafe.escape`.

Every function returns :class:`markupsafe.Markup` (trusted markup for the autoescaping templates).
Axis ticks are "nice" numbers (1, 2, 2.5, 5 x 10^n); with ``log_y`` the y axis has one tick per decade
and a bar of height 1 still shows (the axis starts at 0.5).

Three kinds of chart: :func:`category_chart` (one bar per category, e.g. class sizes),
:func:`histogram_chart` (bins over a continuous axis; a bin holding values on both sides of the
threshold is drawn split at the threshold line when its failing count is known, in a third colour
when it is not) and :func:`share_bars_chart` (horizontal bars of shares, e.g. per attribute, against
a limit).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from privaudit.common.numbers import nice_step, number_label

WIDTH, HEIGHT = 640.0, 236.0
LEFT, RIGHT, TOP, BOTTOM = 66.0, 18.0, 40.0, 46.0
MAX_SLOT = 56.0  # widest slot of a categorical bar, so that one or two bars do not fill the plot
FONT = "DejaVu Sans, sans-serif"
FONT_SIZE = 11.0
CHAR_WIDTH = 6.6  # average advance of DejaVu Sans at FONT_SIZE, for label spacing
PASS_FILL = "#4a78a8"
FAIL_FILL = "#d0553f"
MIXED_FILL = "#9a86c2"  # a bin known to hold passing and failing values, in unknown proportion
EXTRA_SLOT = 46.0  # width of a bar drawn beside the continuous axis (e.g. "∞", "≥ 40")
MIN_PART = 3.0  # narrowest part of a bin split at the threshold, so that both parts show
THRESHOLD_STROKE = "#1d1d1d"
GRID = "#dddddd"


@dataclass(frozen=True)
class Bar:
    """One bar: its x extent in data units (continuous axis) or slot (categorical), count and colour."""

    lo: float
    hi: float
    count: float
    failing: bool | None  # None: holds passing and failing values in unknown proportion
    label: str = ""


def _n(x: float) -> str:
    """A coordinate with one decimal, without a trailing ``.0``."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def linear_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    step = nice_step(hi - lo, target)
    first = math.ceil(lo / step - 1e-9) * step
    ticks, x = [], first
    while x <= hi + step * 1e-9:
        ticks.append(round(x, 12))
        x += step
    return ticks


class _Canvas:
    def __init__(self, title: str, height: float = HEIGHT):
        self.parts: list[str] = []
        self.title = title
        self.height = height

    def add(self, markup: str) -> None:
        self.parts.append(markup)

    def text(
        self,
        x: float,
        y: float,
        content: str,
        anchor: str = "middle",
        size: float = FONT_SIZE,
        weight: str = "normal",
        fill: str = "#222",
        rotate: bool = False,
    ) -> None:
        transform = f' transform="rotate(-90 {_n(x)} {_n(y)})"' if rotate else ""
        bold = ' font-weight="bold"' if weight == "bold" else ""
        self.add(
            f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" font-size="{_n(size)}"{bold} '
            f'fill="{fill}"{transform}>{escape(content)}</text>'
        )

    def line(
        self, x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 1.0, dash: str | None = None
    ) -> None:
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(
            f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}" '
            f'stroke-width="{_n(width)}"{dashing}/>'
        )

    def rect(self, x: float, y: float, w: float, h: float, fill: str) -> None:
        self.add(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(max(w, 0.0))}" height="{_n(max(h, 0.0))}" fill="{fill}"/>')

    def markup(self) -> Markup:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {_n(WIDTH)} {_n(self.height)}" '
            f'width="{_n(WIDTH)}" height="{_n(self.height)}" role="img" aria-label="{escape(self.title)}" '
            f'font-family="{FONT}"><title>{escape(self.title)}</title>'
        )
        return Markup(head + "".join(self.parts) + "</svg>")


class _YAxis:
    """Maps counts to pixel rows, linear from 0 or logarithmic from 0.5."""

    def __init__(self, max_count: float, log: bool):
        self.log = log
        self.bottom, self.top = HEIGHT - BOTTOM, TOP
        if log:
            self.lo = math.log10(0.5)
            self.hi = math.log10(max(max_count, 1.0)) + 0.15
            decades = range(0, math.floor(self.hi) + 1)
            self.ticks = [10.0**d for d in decades]
        else:
            top = max(max_count, 1.0) * 1.08  # headroom for the counts printed above the bars
            step = max(nice_step(top, 4), 1.0)  # counts: whole-number ticks
            self.ticks = [i * step for i in range(int(math.ceil(top / step - 1e-9)) + 1)]
            self.lo, self.hi = 0.0, self.ticks[-1]

    def y(self, count: float) -> float:
        if self.log:
            v = math.log10(count) if count > 0 else self.lo
        else:
            v = count
        frac = (v - self.lo) / (self.hi - self.lo)
        return self.bottom - frac * (self.bottom - self.top)

    def draw(self, canvas: _Canvas, label: str) -> None:
        for t in self.ticks:
            y = self.y(t)
            canvas.line(LEFT, y, WIDTH - RIGHT, y, GRID)
            canvas.text(LEFT - 6, y + 4, number_label(t), anchor="end")
        scale = " (log scale)" if self.log else ""
        canvas.text(15, (TOP + HEIGHT - BOTTOM) / 2, label + scale, rotate=True)


def _legend(canvas: _Canvas, fail_text: str, pass_text: str, mixed_text: str | None = None) -> None:
    """Colour keys (failing, passing and, when given, mixed) at the top right, above the threshold
    label's row."""
    entries = [(FAIL_FILL, fail_text), (PASS_FILL, pass_text)] + ([(MIXED_FILL, mixed_text)] if mixed_text else [])
    widths = [14 + CHAR_WIDTH * 0.92 * len(t) for _, t in entries]
    x = WIDTH - RIGHT - sum(widths) - 16 * (len(entries) - 1)
    for (fill, text), w in zip(entries, widths, strict=False):
        canvas.rect(x, 4, 10, 10, fill)
        canvas.text(x + 14, 13, text, anchor="start", size=10)
        x += w + 16


def _threshold(canvas: _Canvas, x: float, label: str) -> None:
    """The dashed threshold line from the plot's top margin down to the axis, labelled above the plot."""
    canvas.line(x, TOP - 16, x, HEIGHT - BOTTOM, THRESHOLD_STROKE, 1.6, "5 3")
    width = CHAR_WIDTH * 1.05 * len(label)
    if WIDTH - RIGHT - x >= width + 6:
        canvas.text(x + 5, TOP - 6, label, anchor="start", weight="bold")
    else:
        canvas.text(x - 5, TOP - 6, label, anchor="end", weight="bold")


def _draw_bars(canvas: _Canvas, yaxis: _YAxis, boxes: Sequence[tuple[float, float, Bar]], show_counts: bool) -> None:
    """Draw each bar; ``Bar.failing`` True/False picks the failing/passing colour, None the mixed one."""
    base = HEIGHT - BOTTOM
    for x0, x1, bar in boxes:
        if bar.count <= 0:
            continue
        y = yaxis.y(bar.count)
        fill = MIXED_FILL if bar.failing is None else (FAIL_FILL if bar.failing else PASS_FILL)
        canvas.rect(x0, y, x1 - x0, base - y, fill)
        if show_counts:
            canvas.text((x0 + x1) / 2, y - 3, number_label(bar.count), size=9, fill="#444")


def _frame(canvas: _Canvas, x_label: str) -> None:
    base = HEIGHT - BOTTOM
    canvas.line(LEFT, base, WIDTH - RIGHT, base, "#333")
    canvas.line(LEFT, TOP - 4, LEFT, base, "#333")
    canvas.text((LEFT + WIDTH - RIGHT) / 2, HEIGHT - 8, x_label)


def _counts_fit(slot: float, counts: Sequence[float]) -> bool:
    """Print the count above each bar only when every label fits in the narrowest slot ``slot``."""
    if not counts:
        return False
    widest = max(len(number_label(c)) for c in counts)
    return widest * CHAR_WIDTH * 0.82 <= slot - 2


def should_use_log(counts: Sequence[float], ratio: float = 100.0) -> bool:
    """A log y axis when the largest non-zero bar is more than ``ratio`` times the smallest."""
    positive = [c for c in counts if c > 0]
    return bool(positive) and max(positive) / min(positive) > ratio


def category_chart(
    labels: Sequence[str],
    counts: Sequence[float],
    failing: Sequence[bool],
    *,
    title: str,
    x_label: str,
    y_label: str,
    threshold_after: int | None = None,
    threshold_label: str = "",
    log_y: bool | None = None,
    legend: tuple[str, str] | None = None,
) -> Markup:
    """Bars for discrete categories (e.g. class sizes 1, 2, 3, ... with a pooled ``>= 60`` last bar).

    ``threshold_after`` puts the threshold line after that many bars (0 = before the first bar).
    ``log_y=None`` chooses a log axis when the counts span more than two orders of magnitude.
    """
    if not (len(labels) == len(counts) == len(failing)):
        raise ValueError("labels, counts and failing must have the same length")
    log = should_use_log(counts) if log_y is None else log_y
    canvas = _Canvas(title)
    yaxis = _YAxis(max(counts, default=1.0), log)
    yaxis.draw(canvas, y_label)
    n = max(len(labels), 1)
    slot = min((WIDTH - LEFT - RIGHT) / n, MAX_SLOT)
    start = LEFT + ((WIDTH - LEFT - RIGHT) - n * slot) / 2  # few bars sit in the middle of the plot
    pad = min(slot * 0.15, 6.0)
    boxes = [
        (start + i * slot + pad, start + (i + 1) * slot - pad, Bar(i, i + 1, c, f, lab))
        for i, (lab, c, f) in enumerate(zip(labels, counts, failing, strict=False))
    ]
    _draw_bars(canvas, yaxis, boxes, _counts_fit(slot, counts) and not log)
    # x tick labels: every step-th label so that none overlap, always the first and the last
    widest = max((len(lab) for lab in labels), default=1) * CHAR_WIDTH + 6
    step = max(1, math.ceil(widest / slot))
    shown = list(range(0, len(labels), step))
    if labels and shown[-1] != len(labels) - 1:
        if len(shown) > 1 and len(labels) - 1 - shown[-1] < step:
            shown[-1] = len(labels) - 1  # the last label replaces a neighbour it would overlap
        else:
            shown.append(len(labels) - 1)
    base = HEIGHT - BOTTOM
    for i in shown:
        cx = start + (i + 0.5) * slot
        canvas.line(cx, base, cx, base + 4, "#333")
        canvas.text(cx, base + 16, labels[i])
    _frame(canvas, x_label)
    if threshold_after is not None:
        _threshold(canvas, start + threshold_after * slot, threshold_label)
    if legend:
        _legend(canvas, *legend)
    return canvas.markup()


def _split_bin(x0: float, x1: float, xt: float, bar: Bar, failing: float, fail_side: str | None) -> list:
    """A bin holding ``failing`` of its ``bar.count`` values on the failing side of the threshold (at
    pixel ``xt``), drawn as two bars that meet at the threshold line: the failing part on the failing
    side, each part at its own height and at least :data:`MIN_PART` wide."""
    split = min(max(xt, x0 + MIN_PART), x1 - MIN_PART) if x1 - x0 >= 2 * MIN_PART else (x0 + x1) / 2
    passing = bar.count - failing
    low, high = (passing, failing) if fail_side == "above" else (failing, passing)
    return [
        (x0, split, Bar(bar.lo, bar.hi, low, fail_side != "above")),
        (split, x1, Bar(bar.lo, bar.hi, high, fail_side == "above")),
    ]


def histogram_chart(
    edges: Sequence[float],
    counts: Sequence[float],
    *,
    title: str,
    x_label: str,
    y_label: str,
    threshold: float | None = None,
    threshold_label: str = "",
    fail_side: str | None = None,
    infinite: int = 0,
    log_y: bool | None = None,
    legend: tuple[str, str] | None = None,
    failing: Sequence[bool] | None = None,
    failing_counts: Sequence[float | None] | None = None,
    extra_bars: Sequence[tuple[str, float, bool]] = (),
    mixed_text: str = "",
) -> Markup:
    """A histogram over equal- or unequal-width bins ``edges`` (len(counts) + 1 values).

    Colours: ``fail_side`` ("above" or "below") colours the bars on the failing side of ``threshold``,
    judging a bin by its centre, unless ``failing`` gives each bin's verdict, or ``failing_counts``
    gives how many of each bin's values fail. With ``failing_counts`` a bin whose count is partly
    failing is drawn split at the threshold line (the failing part on the failing side, each part at
    its own height); a ``None`` entry (a bin that straddles the threshold, split unknown) is drawn in
    :data:`MIXED_FILL`, keyed in the legend as ``mixed_text``.

    Bars beside the axis: ``infinite`` adds one labelled ``∞`` (e.g. classes whose recursive (c,l) ratio
    is unbounded; failing when ``fail_side == "above"``); ``extra_bars`` adds ``(label, count, failing)``
    bars (e.g. an overflow bin "≥ 40") in that order, before the ``∞`` one.
    """
    _check_bins(edges, counts, failing, failing_counts)
    extras = list(extra_bars) + ([("∞", float(infinite), fail_side == "above")] if infinite else [])
    lo, hi = float(edges[0]), float(edges[-1])
    if threshold is not None:
        lo, hi = min(lo, threshold), max(hi, threshold)
    if hi <= lo:
        hi = lo + 1.0
    all_counts = list(counts) + [c for _, c, _ in extras]
    log = should_use_log([c for c in all_counts if c]) if log_y is None else log_y
    canvas = _Canvas(title)
    yaxis = _YAxis(max(all_counts, default=1.0), log)
    yaxis.draw(canvas, y_label)
    slots = [max(EXTRA_SLOT, len(label) * CHAR_WIDTH + 18) for label, _, _ in extras]
    right = WIDTH - RIGHT - sum(slots)

    def x_of(v: float) -> float:
        return LEFT + (v - lo) / (hi - lo) * (right - LEFT)

    boxes = _bin_boxes(edges, counts, x_of, threshold, fail_side, failing, failing_counts)
    x = right
    for (label, count, bad), slot in zip(extras, slots, strict=False):
        boxes.append((x + 14, x + slot - 4, Bar(math.inf, math.inf, float(count), bool(bad), label)))
        x += slot
    narrowest = min((x1 - x0 + 3.0 for x0, x1, b in boxes if b.count > 0), default=0.0)  # + the gaps
    _draw_bars(canvas, yaxis, boxes, _counts_fit(narrowest, [b.count for *_, b in boxes]) and not log)
    _x_axis(canvas, x_of, lo, hi, [label for label, _, _ in extras], slots, right)
    _frame(canvas, x_label)
    if threshold is not None:
        _threshold(canvas, x_of(threshold), threshold_label)
    if legend:
        mixed = mixed_text if any(b.failing is None and b.count > 0 for *_, b in boxes) else None
        _legend(canvas, *legend, mixed_text=mixed)
    return canvas.markup()


def _check_bins(
    edges: Sequence[float],
    counts: Sequence[float],
    failing: Sequence[bool] | None,
    failing_counts: Sequence[float | None] | None,
) -> None:
    if len(edges) != len(counts) + 1:
        raise ValueError("edges must have one more value than counts")
    if failing is not None and len(failing) != len(counts):
        raise ValueError("failing must have one value per bin")
    if failing_counts is not None and len(failing_counts) != len(counts):
        raise ValueError("failing_counts must have one value per bin")


def _bin_boxes(
    edges: Sequence[float],
    counts: Sequence[float],
    x_of: Callable[[float], float],
    threshold: float | None,
    fail_side: str | None,
    failing: Sequence[bool] | None,
    failing_counts: Sequence[float | None] | None,
) -> list[tuple[float, float, Bar]]:
    """The histogram's bars, each with its verdict (see :func:`histogram_chart`'s colours)."""

    def fails(centre: float) -> bool:
        if threshold is None or fail_side is None:
            return False
        return centre > threshold if fail_side == "above" else centre < threshold

    boxes: list[tuple[float, float, Bar]] = []
    for i, (a, b, c) in enumerate(zip(edges[:-1], edges[1:], counts, strict=False)):
        x0, x1 = x_of(float(a)), x_of(float(b))
        gap = min((x1 - x0) * 0.08, 1.5)
        x0, x1 = x0 + gap, x1 - gap
        if failing_counts is not None:
            f = failing_counts[i]
            if f is not None and 0 < f < c and threshold is not None:
                boxes += _split_bin(
                    x0, x1, x_of(threshold), Bar(float(a), float(b), float(c), None), float(f), fail_side
                )
                continue
            bad = None if f is None else bool(f > 0)
        else:
            bad = bool(failing[i]) if failing is not None else fails((float(a) + float(b)) / 2)
        boxes.append((x0, x1, Bar(float(a), float(b), float(c), bad)))
    return boxes


def _x_axis(
    canvas: _Canvas,
    x_of: Callable[[float], float],
    lo: float,
    hi: float,
    extra_labels: list[str],
    slots: list[float],
    right: float,
) -> None:
    """The x axis's ticks (halved until their labels fit) and the labels of the bars beside it."""
    base = HEIGHT - BOTTOM
    ticks = linear_ticks(lo, hi, 6)
    labels = [number_label(t) for t in ticks]
    while len(ticks) > 2 and max(len(s) for s in labels) * CHAR_WIDTH + 8 > (x_of(ticks[1]) - x_of(ticks[0])):
        ticks, labels = ticks[::2], labels[::2]
    for t, text in zip(ticks, labels, strict=False):
        canvas.line(x_of(t), base, x_of(t), base + 4, "#333")
        canvas.text(x_of(t), base + 16, text)
    x = right
    for label, slot in zip(extra_labels, slots, strict=False):
        canvas.text(x + 5 + slot / 2, base + 16, label)
        x += slot


def text_width(text: str) -> float:
    """An upper estimate of ``text``'s width at FONT_SIZE: capitals and wide letters take more than the
    average advance (a label of 28 capitals ran past the chart's left edge)."""
    wide = sum(1 for ch in text if ch.isupper() or ch in "mwMW@%")
    return (len(text) - wide) * CHAR_WIDTH + wide * CHAR_WIDTH * 1.35


def _fit(label: str, room: float) -> str:
    """``label`` cut with an ellipsis to fit ``room`` (see :func:`text_width`)."""
    if text_width(label) <= room:
        return label
    while label and text_width(label.rstrip("…") + "…") > room:
        label = label.rstrip("…")[:-1]
    return label.rstrip("…") + "…"


def share_bars_chart(
    labels: Sequence[str],
    shares: Sequence[float],
    failing: Sequence[bool],
    *,
    title: str,
    x_label: str,
    limit: float | None = None,
    limit_label: str = "",
    legend: tuple[str, str] | None = None,
    label_chars: int = 28,
    intervals: Sequence[tuple[float, float]] | None = None,
) -> Markup:
    """Horizontal bars of shares in [0, 1] (one per label, e.g. per attribute), printed as percentages,
    with a vertical dashed line at ``limit``. The x axis runs from 0 to a nice value above the largest
    share and the limit (at most 100 %); labels longer than ``label_chars`` are cut with an ellipsis."""
    if not (len(labels) == len(shares) == len(failing)):
        raise ValueError("labels, shares and failing must have the same length")
    row = 24.0
    height = TOP + row * max(len(labels), 1) + BOTTOM - 6
    canvas = _Canvas(title, height)
    names = [_fit(lab if len(lab) <= label_chars else lab[: label_chars - 1] + "…", WIDTH * 0.4 - 14) for lab in labels]
    left = min(max((text_width(n) for n in names), default=4 * CHAR_WIDTH) + 14, WIDTH * 0.4)
    right = WIDTH - RIGHT - 44  # room for the value printed after the longest bar
    top_value = max(
        [float(v) for v in shares]
        + ([float(limit)] if limit is not None else [])
        + [0.01]
        + [float(hi_) for _, hi_ in (intervals or [])]
    )
    step = nice_step(min(top_value * 1.05, 1.0), 5)
    hi = min(math.ceil(min(top_value * 1.05, 1.0) / step - 1e-9) * step, 1.0) or 1.0
    base = TOP + row * len(labels)

    def x_of(v: float) -> float:
        return left + min(max(v, 0.0), hi) / hi * (right - left)

    for t in linear_ticks(0.0, hi, 5):
        canvas.line(x_of(t), TOP - 4, x_of(t), base, GRID)
        canvas.text(x_of(t), base + 16, f"{number_label(round(100 * t, 10))}%")
    for i, (name, v, bad) in enumerate(zip(names, shares, failing, strict=False)):
        y = TOP + i * row
        canvas.text(left - 8, y + row / 2 + 4, name, anchor="end")
        canvas.rect(left, y + 4, x_of(float(v)) - left, row - 8, FAIL_FILL if bad else PASS_FILL)
        value = f"{100 * float(v):.1f}".rstrip("0").rstrip(".") + "%"
        end = x_of(float(v))
        if intervals is not None:  # the confidence interval as a whisker across the bar
            lo_, hi_ = (float(b) for b in intervals[i])
            mid = y + row / 2
            canvas.line(x_of(lo_), mid, x_of(hi_), mid, "#222", 1.4)
            for xb in (x_of(lo_), x_of(hi_)):
                canvas.line(xb, mid - 5, xb, mid + 5, "#222", 1.4)
            end = max(end, x_of(hi_))
        canvas.text(end + 4, y + row / 2 + 4, value, anchor="start", size=10, fill="#444")
    canvas.line(left, TOP - 4, left, base, "#333")
    canvas.line(left, base, right, base, "#333")
    canvas.text((left + right) / 2, height - 8, x_label)
    if limit is not None:
        xl = x_of(float(limit))
        canvas.line(xl, TOP - 16, xl, base, THRESHOLD_STROKE, 1.6, "5 3")
        width = CHAR_WIDTH * 1.05 * len(limit_label)
        if WIDTH - RIGHT - xl >= width + 6:
            canvas.text(xl + 5, TOP - 6, limit_label, anchor="start", weight="bold")
        else:
            canvas.text(xl - 5, TOP - 6, limit_label, anchor="end", weight="bold")
    if legend:
        _legend(canvas, *legend)
    return canvas.markup()
