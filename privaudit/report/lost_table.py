"""The "what was lost" table of a remediation, on the report's first page and in every format.

One row per variable (the quasi-identifiers, then any other column the remediation changed): what it was and
what it became, in words (``age: 73 exact values → 7 bands 10 wide, top-coded 90+``; ``sex: kept``;
``region: deleted: every value suppressed``), and the cells changed; below it the totals (cells changed,
records suppressed). The figures are computed by :mod:`privaudit.utility.variable_loss` and stored in the JSON
report (``remediation.lost``, or ``explore.lost`` for the recommended candidate when nothing is written); this
module only draws them, the same words in HTML, Markdown and on the terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privaudit.common.numbers import fmt
from privaudit.plugin.text import visible


@dataclass
class LostRow:
    column: str
    status: str
    what: str
    cells_changed: str


@dataclass
class LostView:
    """What the HTML cover draws: the rows, the totals sentence, and what the table is of."""

    rows: list[LostRow]
    totals: str
    of: str
    no_change: bool = False
    title: str = "What was lost"


def _share(part: int, whole: int) -> str:
    return f"{fmt(part)} ({100 * part / whole:.1f} %)" if whole else fmt(part)


def totals(lost: dict[str, Any]) -> str:
    """The sentence under the table: quasi-identifier cells changed and records suppressed."""
    deleted = lost.get("deleted") or []
    text = (
        f"{_share(int(lost.get('cells_changed', 0)), int(lost.get('cells', 0)))} of "
        f"{fmt(int(lost.get('cells', 0)))} cells changed; "
        f"{_share(int(lost.get('records_suppressed', 0)), int(lost.get('records', 0)))} of "
        f"{fmt(int(lost.get('records', 0)))} records suppressed"
    )
    if deleted:
        text += f"; deleted: {', '.join(visible(str(c)) for c in deleted)}"
    return text + "."


def rows(lost: dict[str, Any]) -> list[LostRow]:
    n = int(lost.get("records", 0))
    return [
        LostRow(
            visible(str(v["column"])),
            str(v["status"]),
            visible(str(v["description"])),
            "–" if not v["cells_changed"] else _share(int(v["cells_changed"]), n),
        )
        for v in lost.get("variables", [])
    ]


def lost_view(data: dict[str, Any]) -> LostView | None:
    """The table of a JSON report: its remediation's, else the recommended candidate's of an exploration;
    "no change needed" when the exploration found the input passing already."""
    explore = data.get("explore") or {}
    if explore.get("no_change_needed"):
        return LostView([], "", "the input", no_change=True)
    remediation = data.get("remediation") or {}
    lost = remediation.get("lost") or explore.get("lost")
    if not lost:
        return None
    if remediation.get("lost"):
        return LostView(rows(lost), totals(lost), "the remediated table")
    title = "What the recommended candidate would lose"
    return LostView(rows(lost), totals(lost), "the recommended candidate (not written: give --out)", title=title)


def cover_blocks(view: LostView | None) -> tuple[Any, ...]:
    """The table as blocks of a chapter's first-page part (:class:`~privaudit.plugin.chapter.ChapterContent`
    ``cover``): kept together, one row per variable styled by its status (a deleted one in bold)."""
    from privaudit.plugin.chapter import Grid, Group, Heading, Paragraph, Strong

    if view is None:
        return ()
    if view.no_change:
        text = " the input already passes the policy, so no table was written."
        return (
            Group(
                (Paragraph((Strong("No change needed:"), text), style="no-change", status=True),), "lost keep", "lost"
            ),
        )
    grid = Grid(
        ("variable", "before → after", "cells changed"),
        tuple(((r.column,), (r.what,), (r.cells_changed,)) for r in view.rows),
        row_styles=tuple(r.status for r in view.rows),
        style="lost",
        caption=f"Each variable of {view.of}, before → after.",
        widths=("c-variable", "c-what", "c-cells"),
        numeric=frozenset({2}),
    )
    return (
        Group((Heading(view.title, "lost-title"), grid, Paragraph((view.totals,), style="note")), "lost keep", "lost"),
    )


def lines(lost: dict[str, Any]) -> list[str]:
    """The table as terminal lines (the caller escapes nothing more: every value went through ``visible``)."""
    table = rows(lost)
    if not table:
        return []
    width = max(len(r.column) for r in table)
    out = ["what was lost:"]
    out += [f"  {r.column:<{width}}  {r.what}" for r in table]
    out.append(f"  {totals(lost)}")
    return out


def markdown(lost: dict[str, Any], cell) -> list[str]:
    """The table in Markdown (``cell`` escapes a cell as the summary escapes every cell)."""
    table = rows(lost)
    if not table:
        return []
    out = ["", "**What was lost**", "", "| variable | before → after | cells changed |", "|---|---|---:|"]
    out += [f"| {cell(r.column)} | {cell(r.what)} | {cell(r.cells_changed)} |" for r in table]
    out += ["", cell(totals(lost))]
    return out
