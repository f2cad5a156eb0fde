"""The ROC curve of a membership attack on log-log axes (Carlini et al., S&P 2022, Fig. 1: the low-FPR
corner, where an attacker is sure of a few people, is what a linear ROC plot hides). Drawn by the sections of
membership attacks (:mod:`privaudit.sections.membership`) and by the synthetic-release chapter."""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

WIDTH, HEIGHT = 640.0, 330.0
LEFT, RIGHT, TOP, BOTTOM = 64.0, 150.0, 30.0, 46.0
COLOURS = ("#1f5fa8", "#c0392b", "#2e7d32", "#6a1b9a")


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def roc_loglog_chart(curves: Sequence[tuple[str, Sequence[float], Sequence[float]]], *, title: str) -> Markup:
    """ROC curves (label, fpr, tpr) on log-log axes from the smallest FPR to 1, with the chance diagonal."""
    floor = min([min([f for f in fpr if f > 0] or [1e-3]) for _, fpr, _ in curves] + [1e-3])
    lo = 10 ** math.floor(math.log10(floor))
    span = -math.log10(lo)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(v: float) -> float:
        return LEFT + (math.log10(max(v, lo)) - math.log10(lo)) / span * plot_w

    def y(v: float) -> float:
        return TOP + plot_h - (math.log10(max(v, lo)) - math.log10(lo)) / span * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {_n(WIDTH)} {_n(HEIGHT)}" '
        f'width="{_n(WIDTH)}" height="{_n(HEIGHT)}" role="img" aria-label="{escape(title)}" '
        f'font-family="sans-serif"><title>{escape(title)}</title>'
    ]
    for e in range(int(round(-span)), 1):
        v = 10.0**e
        label = escape(f"{v:g}")
        parts.append(f'<line x1="{_n(x(v))}" y1="{_n(TOP)}" x2="{_n(x(v))}" y2="{_n(TOP + plot_h)}" stroke="#ddd"/>')
        parts.append(f'<line x1="{_n(LEFT)}" y1="{_n(y(v))}" x2="{_n(LEFT + plot_w)}" y2="{_n(y(v))}" stroke="#ddd"/>')
        parts.append(
            f'<text x="{_n(x(v))}" y="{_n(TOP + plot_h + 16)}" text-anchor="middle" font-size="11">{label}</text>'
        )
        parts.append(f'<text x="{_n(LEFT - 6)}" y="{_n(y(v) + 4)}" text-anchor="end" font-size="11">{label}</text>')
    parts.append(
        f'<line x1="{_n(x(lo))}" y1="{_n(y(lo))}" x2="{_n(x(1))}" y2="{_n(y(1))}" stroke="#888" '
        f'stroke-dasharray="5 3"/>'
    )
    for k, (label, fpr, tpr) in enumerate(curves):
        colour = COLOURS[k % len(COLOURS)]
        pts = " ".join(f"{_n(x(f))},{_n(y(t))}" for f, t in zip(fpr, tpr, strict=False) if f > 0)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        ly = TOP + 14 + 18 * k
        parts.append(
            f'<line x1="{_n(WIDTH - RIGHT + 12)}" y1="{_n(ly - 4)}" x2="{_n(WIDTH - RIGHT + 30)}" '
            f'y2="{_n(ly - 4)}" stroke="{colour}" stroke-width="2"/>'
        )
        parts.append(f'<text x="{_n(WIDTH - RIGHT + 34)}" y="{_n(ly)}" font-size="11">{escape(label[:20])}</text>')
    ly = TOP + 14 + 18 * len(curves)
    parts.append(f'<text x="{_n(WIDTH - RIGHT + 12)}" y="{_n(ly)}" font-size="11" fill="#666">dashed: chance</text>')
    parts.append(
        f'<line x1="{_n(LEFT)}" y1="{_n(TOP + plot_h)}" x2="{_n(LEFT + plot_w)}" y2="{_n(TOP + plot_h)}" '
        f'stroke="#333"/><line x1="{_n(LEFT)}" y1="{_n(TOP)}" x2="{_n(LEFT)}" y2="{_n(TOP + plot_h)}" '
        f'stroke="#333"/>'
    )
    parts.append(
        f'<text x="{_n(LEFT + plot_w / 2)}" y="{_n(HEIGHT - 10)}" text-anchor="middle" font-size="12">'
        f"false-positive rate (log)</text>"
    )
    parts.append(
        f'<text x="14" y="{_n(TOP + plot_h / 2)}" text-anchor="middle" font-size="12" '
        f'transform="rotate(-90 14 {_n(TOP + plot_h / 2)})">true-positive rate (log)</text></svg>'
    )
    return Markup("".join(parts))
