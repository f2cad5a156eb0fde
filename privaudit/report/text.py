"""Text for people in reports: numbers, shares, thresholds and plain-language phrases."""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

MISSING = "—"

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text) -> str:
    """``text`` with control characters shown as escapes (``\\n``, ``\\x1b``), never sent to the terminal."""
    return _CONTROL.sub(lambda m: {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(m.group(0), f"\\x{ord(m.group(0)):02x}"
                                                                          if ord(m.group(0)) < 256 else
                                                                          f"\\u{ord(m.group(0)):04x}"), str(text))


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



def facts(*pairs: tuple[str, Any]) -> list[tuple[str, str]]:
    """(label, value) pairs with the values formatted; pairs whose value is None are left out."""
    return [(label, v if isinstance(v, str) else fmt(v)) for label, v in pairs if v is not None]
