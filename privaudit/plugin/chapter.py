"""Report chapters: what a plugin adds to the HTML and PDF reports beside the checks' own sections.

A :class:`Chapter` is registered through the ``privaudit_report_chapters`` hook (see
:mod:`privaudit.plugin.hookspecs`), the built-in ones (``privaudit/report/chapters/``) exactly as a third party
registers its own. Its ``build(report)`` receives a :class:`ChapterInput` (the run's result, the JSON report's
data, the checks with their section anchors and typed entries) and returns a :class:`ChapterContent`, or None
when it has nothing to say for this run (no utility figure, no earlier release ...).

The content is a renderer-neutral model, built from the blocks below and the section building blocks of
:mod:`privaudit.plugin.sections` (:class:`~privaudit.plugin.sections.DataTable`,
:class:`~privaudit.plugin.sections.Figure`, :class:`~privaudit.plugin.sections.KeyValues`): never raw markup.
The report's templates render every block with autoescaping, in HTML and so in the PDF; only a figure's SVG is
markup, and :class:`~privaudit.plugin.sections.Figure` refuses SVG that could load anything.

Where a chapter goes: ``place`` is ``"front"`` (after the cover, before the summary of checks), ``"before_checks"``
(after the summary, before the checks' sections) or ``"after_checks"`` (after the checks' sections, before the
attacker model); chapters of one place are ordered by ``rank``, then name. Besides its body a chapter may put a
few blocks on the first page (``ChapterContent.cover``: what a remediation lost) and one sentence under the
summary of checks (``ChapterContent.headline``: what the release keeps). A chapter whose ``build`` raises is a
note naming its plugin, never a lost report (:func:`privaudit.report.html.chapter_contents`).

Example::

    from privaudit import hookimpl
    from privaudit.plugin.chapter import Chapter, ChapterContent, Paragraph

    def _build(report):
        rows = report.data["input"]["rows"]
        return ChapterContent(blocks=(Paragraph((f"The release holds {rows} records.",)),))

    @hookimpl
    def privaudit_report_chapters():
        return [Chapter("size", "Size of the release", _build, place="after_checks")]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:  # pragma: no cover - the section building blocks, without importing them at run time
    from privaudit.plugin.sections import CheckEntry, DataTable, Figure, KeyValues

#: Where a chapter goes, relative to the summary of checks and the checks' sections.
PLACES = ("front", "before_checks", "after_checks")


# Inline parts of a paragraph or a table cell (a plain ``str`` is text).
@dataclass(frozen=True)
class Link:
    """A link to a part of the report: ``anchor`` is the id of a section (a check's ``check-3``)."""

    kind: ClassVar[str] = "link"

    text: str
    anchor: str


@dataclass(frozen=True)
class Strong:
    """Text in bold."""

    kind: ClassVar[str] = "strong"

    text: str


@dataclass(frozen=True)
class Code:
    """A name as typed (a method, an option)."""

    kind: ClassVar[str] = "code"

    text: str


@dataclass(frozen=True)
class Badge:
    """A verdict word in its colour: ``PASS``, ``FAIL``, ``WARN``, ``ERROR``."""

    kind: ClassVar[str] = "badge"

    word: str


@dataclass(frozen=True)
class Span:
    """Text with a style of the report's stylesheet (``muted``, ``value``, ``arrow``)."""

    kind: ClassVar[str] = "span"

    text: str
    style: str


Inline = str | Link | Strong | Code | Badge | Span


# Blocks of a chapter, in order.
@dataclass(frozen=True)
class Heading:
    """A heading inside the chapter (the chapter's own title is :attr:`ChapterContent.title`)."""

    kind: ClassVar[str] = "heading"

    text: str
    id: str = ""


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of inline parts. ``style`` is a class of the stylesheet (``note``); ``status`` marks it as the
    page's live verdict for assistive technology."""

    kind: ClassVar[str] = "paragraph"

    parts: tuple[Inline, ...]
    id: str = ""
    style: str = ""
    status: bool = False


@dataclass(frozen=True)
class Table:
    """A :class:`~privaudit.plugin.sections.DataTable`; ``style`` its class of the stylesheet (``summary``)."""

    kind: ClassVar[str] = "table"

    table: DataTable
    style: str = ""


@dataclass(frozen=True)
class Pairs:
    """A two-column table of (name, value) rows; a value may be a :class:`~privaudit.plugin.sections.KeyValues`."""

    kind: ClassVar[str] = "pairs"

    rows: tuple[tuple[str, str | KeyValues], ...]
    key_title: str
    value_title: str
    style: str = ""


@dataclass(frozen=True)
class Grid:
    """A table whose cells hold inline parts and whose rows carry a style (``fixed``, ``deleted``): a
    before/after table. ``columns`` are the heads, ``widths`` the style of each column (its width in the
    stylesheet), ``numeric`` the right-aligned columns, ``key`` the column that names the row (or None)."""

    kind: ClassVar[str] = "grid"

    columns: tuple[str, ...]
    rows: tuple[tuple[tuple[Inline, ...], ...], ...]
    row_styles: tuple[str, ...] = ()
    style: str = ""
    caption: str = ""
    widths: tuple[str, ...] = ()
    numeric: frozenset[int] = frozenset()
    key: int | None = 0


@dataclass(frozen=True)
class Chart:
    """A :class:`~privaudit.plugin.sections.Figure`, with an id to link to."""

    kind: ClassVar[str] = "chart"

    figure: Figure
    id: str = ""


@dataclass(frozen=True)
class Bullets:
    """A list of plain-text items."""

    kind: ClassVar[str] = "bullets"

    items: tuple[str, ...]
    style: str = ""


@dataclass(frozen=True)
class Callout:
    """A framed verdict: a big word and its sentence (``OFFERED`` / ``NOT OFFERED``); ``style`` its colours."""

    kind: ClassVar[str] = "callout"

    word: str
    text: str
    style: str = ""
    id: str = ""


@dataclass(frozen=True)
class Group:
    """Blocks kept together on one page when they fit (``keep``), with a style and an id."""

    kind: ClassVar[str] = "group"

    blocks: tuple[Block, ...]
    style: str = ""
    id: str = ""


Block = Heading | Paragraph | Table | Pairs | Grid | Chart | Bullets | Callout | Group


@dataclass(frozen=True)
class ChapterContent:
    """What one chapter shows for one run.

    Attributes:
        blocks: the chapter's body, in order; empty: no chapter (only its cover and headline, if any).
        title: the chapter's heading; empty: the :class:`Chapter`'s title.
        id: the anchor of the chapter; empty: the chapter's name.
        style: the style of the chapter in the stylesheet; empty: ``chapter`` (a new page in the PDF).
        cover: blocks shown on the first page, under the verdict.
        headline: one paragraph shown under the summary of checks.
    """

    blocks: tuple[Block, ...] = ()
    title: str = ""
    id: str = ""
    style: str = ""
    cover: tuple[Block, ...] = ()
    headline: Paragraph | None = None


@dataclass(frozen=True)
class ChapterCheck:
    """One check as a chapter sees it: its entry of the JSON report, the anchor of its section, the typed
    :class:`~privaudit.plugin.sections.CheckEntry` its section was drawn from (None: no model at hand), and how
    the report shows it: its assessor's title, its measured value and its threshold as text."""

    check: Mapping[str, Any]
    anchor: str
    entry: CheckEntry[Any, Any] | None = None
    title: str = ""
    value_text: str = ""
    threshold_text: str = ""


@dataclass(frozen=True)
class ChapterInput:
    """What a chapter is built from: ``result`` the run's :class:`~privaudit.pipeline.audit.AuditResult`,
    ``data`` its JSON report (the typed report's ``to_dict()``, :func:`privaudit.report.json_report.report_of`), ``checks`` its checks in report
    order, ``registry`` the plugin registry (assessors' metadata and models)."""

    result: Any
    data: Mapping[str, Any]
    checks: Sequence[ChapterCheck] = ()
    registry: Any = None


@dataclass(frozen=True)
class Chapter:
    """A chapter of the HTML and PDF reports, registered through ``privaudit_report_chapters``.

    ``name`` is unique across plugins; ``title`` the chapter's heading; ``build(report)`` its content for one
    run, or None when it has nothing to say; ``place`` and ``rank`` where it goes (see the module).
    """

    name: str
    title: str
    build: Callable[[ChapterInput], ChapterContent | None]
    place: Literal["front", "before_checks", "after_checks"] = "before_checks"
    rank: int = 100
    description: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.place not in PLACES:
            raise ValueError(f"Chapter {self.name!r}: place {self.place!r} is not one of {', '.join(PLACES)}")
