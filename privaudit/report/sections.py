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
    from privaudit.report.sections import ReportSection
    from privaudit.report.figures import value_histogram_figure

    @hookimpl
    def privaudit_report_section(check, audit):
        if check["assessor"] != "likeness":
            return None
        return ReportSection(summary="...", figures=[value_histogram_figure(check["details"]["hist"], ...)])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

#: Markup that could make a viewer or WeasyPrint fetch or run something; refused in figures.
_UNSAFE_SVG = re.compile(r"href|<\s*image|<\s*script|<\s*foreignobject|url\s*\(|<\s*style|\bon\w+\s*=", re.IGNORECASE)
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
class DataTable:
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
                raise ValueError(f"DataTable.widths: {w!r} is not a length like '40%' or '6em'")


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
    tables: list[DataTable] = field(default_factory=list)
    limitations: str = ""
