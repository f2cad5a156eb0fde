"""Numbers written for people, the same in checks' messages and in reports: :func:`fmt`."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["MISSING", "fmt"]

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
