"""Text for people in reports: numbers, shares, thresholds and plain-language phrases."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from privaudit.common.numbers import MISSING, fmt  # noqa: F401  (re-exported: the report's numbers)

#: Bidirectional formatting characters (Unicode TR #9, section 2: embeddings, overrides, isolates, marks):
#: invisible, yet they reorder the text that follows them, so a column name or value holding U+202E
#: (RIGHT-TO-LEFT OVERRIDE) would print the rest of a sentence or table cell backwards ("Trojan Source",
#: Boucher and Anderson 2021, CVE-2021-42574).
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_INVISIBLE = f"\\x7f-\\x9f\\u2028\\u2029{_BIDI}"  # beyond the C0 controls
_CONTROL = re.compile(f"[\\x00-\\x1f{_INVISIBLE}]")
#: What a report page must not hold as is: the same characters less tab, newline and carriage return
#: (layout whitespace in HTML).
_HIDDEN = re.compile(f"[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f{_INVISIBLE}]")


def _escape(char: str) -> str:
    code = ord(char)
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}")


def printable(text) -> str:
    """``text`` with control and bidirectional formatting characters shown as escapes (``\\n``, ``\\x1b``,
    ``\\u202e``), never sent to the terminal."""
    return _CONTROL.sub(lambda m: _escape(m.group(0)), str(text))


def visible(text: str) -> str:
    """``text`` for a report page: control and bidirectional formatting characters shown as escapes (as
    :func:`printable` does), tab, newline and carriage return kept. The HTML report passes every value it
    prints through this (``finalize`` of its Jinja2 environment), so data cannot hide characters or
    reverse the order of the words around them. The type of ``text`` is kept (``Markup`` stays trusted:
    the escapes hold no markup characters)."""
    if not isinstance(text, str) or _HIDDEN.search(text) is None:
        return text
    return type(text)(_HIDDEN.sub(lambda m: _escape(m.group(0)), text))


# ----------------------------------------------------------------------------------------- formatting
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


def value_counts_text(counts: Mapping[Any, Any], limit: int = 10) -> str:
    """A class's sensitive values with their counts, short enough for a table cell: numbers with more than
    ``limit`` distinct values are summarised by their range and quartiles (weighted by the counts); other
    values list the ``limit`` most frequent and end with "and N more"."""
    items = [(k, float(v)) for k, v in counts.items()]
    if len(items) <= limit:
        return ", ".join(f"{visible(str(k))} ({fmt(v)})" for k, v in items)
    try:
        numbers = [(float(k), v) for k, v in items]
    except (TypeError, ValueError):
        numbers = []
    if numbers:
        numbers.sort()
        total = sum(v for _, v in numbers)
        running, quartiles, targets = 0.0, [], [0.25, 0.5, 0.75]
        for value, weight in numbers:
            running += weight
            while targets and running >= targets[0] * total:
                quartiles.append(value)
                targets.pop(0)
        return (
            f"{fmt(len(numbers))} distinct values from {fmt(numbers[0][0])} to {fmt(numbers[-1][0])}; "
            f"quartiles {', '.join(fmt(q) for q in quartiles)} ({fmt(total)} records)"
        )
    top = sorted(items, key=lambda kv: -kv[1])[:limit]
    return ", ".join(f"{visible(str(k))} ({fmt(v)})" for k, v in top) + f", and {fmt(len(items) - limit)} more"
