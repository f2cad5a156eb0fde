"""Report sections: what one check contributes to the HTML/PDF report, and helpers to build them.

A section is drawn from a :class:`CheckEntry`: one check of the report, typed (its assessor's ``Params``
and ``Details`` models, validated once by the report), so a section reads fields (``check.params.k``,
``check.details.records_below_k``), never string keys. A :class:`Section` registered through the
``privaudit_report_sections`` hook (see :mod:`privaudit.plugin.hookspecs`) draws the checks of one assessor,
named by the record's ``name``; a third party's ``Section`` for a built-in assessor replaces the built-in one
(the built-ins are in :mod:`privaudit.sections`). A check no one draws a section for gets
:func:`privaudit.plugin.figures.generic_section` (value, threshold, message and the ``details`` as a
key/value table), as does one whose section raises (with a note naming the plugin). A check that ended in
``error`` always gets the error block (its message), without drawing: there are no figures to show.

Everything in a section is plain text except :attr:`Figure.svg`, which must be
:class:`markupsafe.Markup` made by :mod:`privaudit.plugin.charts` (or built with
:func:`markupsafe.escape` around every label): the templates escape all other values. A figure whose
markup could load anything (``href``, ``<image``, ``<script``, ``url(``, ``<foreignObject``) is refused.

Example of a plugin's section for another plugin's ``likeness`` assessor (a built-in one is replaced alike)::

    from privaudit import hookimpl
    from privaudit.plugin.sections import CheckEntry, ReportSection, Section
    from privaudit.plugin.figures import size_histogram_figure

    def draw(check: CheckEntry, audit) -> ReportSection:
        d = check.details
        return ReportSection(summary="...", figures=[size_histogram_figure(d.class_size_histogram, ...)])

    @hookimpl
    def privaudit_report_sections():
        return [Section("likeness", draw)]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from markupsafe import Markup
from pydantic import BaseModel

from privaudit.common.params import Params

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
            raise TypeError("Figure.svg must be markupsafe.Markup (use privaudit.plugin.charts)")
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


P = TypeVar("P", bound=Params)
D = TypeVar("D", bound=BaseModel)  # an assessor's Details model (the report imports no assessor module)


@dataclass(frozen=True)
class CheckEntry(Generic[P, D]):
    """One check of the report, as a report section reads it: ``CheckEntry[MyParams, MyDetails]`` for a check
    of an assessor whose models are ``MyParams`` and ``MyDetails``. The report builds it once per check
    (:func:`privaudit.report.html.check_entry`) from the check of the run's typed report
    (:class:`privaudit.plugin.result.ReportCheck`), so a section shows exactly what the JSON report holds.

    Attributes:
        id, assessor: the check's id and its assessor's name.
        status: ``"pass"``, ``"fail"`` or ``"error"`` (an errored check's section is the error block: a
            section sees one only when called outside the report, e.g. by ``privaudit.testing.report_section``).
        severity: ``"error"`` or ``"warning"``.
        value: the measured figure as the JSON report writes it (infinity as the string ``"inf"``; None when
            the check errored).
        threshold: the policy's bound the value is compared with, as the JSON report writes it.
        message: the assessor's one-line message.
        params: the check's parameters, an instance of the assessor's ``Params`` model: the object the check ran
            with (the policy's own), carried by the typed report; validated from ``params`` for a report read
            back from JSON.
        details: what the check found, an instance of the assessor's ``Details`` model; None when the check
            errored or the assessor declares no ``Details`` model.
        quasi_identifiers: the check's attacker scenario (the quasi-identifiers its intruder knows), or None
            when the intruder knows every quasi-identifier of the policy.
        better: which way the value improves (``"higher"`` / ``"lower"``), when the assessor's ``Params`` say.
        raw: the check's entry of the JSON report, read-only. Sections read the fields above; the raw entry is
            kept for generic code that shows any check's details as the report writes them (the worst-classes
            table of an assessor written before the typed contract, which declares no ``Details`` model, so
            its details exist only here).
    """

    id: str
    assessor: str
    status: str
    severity: str
    value: float | int | str | None
    threshold: Any
    message: str
    params: P
    details: D | None
    quasi_identifiers: tuple[str, ...] | None = None
    better: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Section:
    """The report section of one assessor's checks, registered through the ``privaudit_report_sections`` hook.

    ``name`` is the assessor's name (what policies write in ``checks[].assessor``); ``draw(check, audit)``
    receives the check as a :class:`CheckEntry` and the run's result, and returns a :class:`ReportSection`
    (or None for the generic section). A section module imports its assessor's check module, never the
    reverse: the check computes, the section presents. A section registered by a third party for a built-in
    assessor replaces the built-in one; two third parties drawing the same assessor are refused.
    """

    name: str
    draw: Callable[[CheckEntry[Any, Any], Any], ReportSection | None]
