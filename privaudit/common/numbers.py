"""Numbers written for people, the same in checks' messages and in reports: :func:`fmt`; and the round steps
and labels of chart axes and histogram bins (:func:`nice_step`, :func:`number_label`), which checks computing
a histogram for their details share with the charts."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["MISSING", "fmt", "nice_step", "number_label"]

#: how a missing figure is written
MISSING = "—"


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


def number_label(value: float) -> str:
    """Tick label: integers with thousands separators, others with up to 3 significant digits."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.3g}"


def nice_step(span: float, target: int = 5) -> float:
    """A step of the form {1, 2, 2.5, 5} x 10^n giving about ``target`` intervals over ``span``."""
    if span <= 0:
        return 1.0
    raw = span / target
    base = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * base >= raw - 1e-12:
            return m * base
    return 10 * base  # pragma: no cover
