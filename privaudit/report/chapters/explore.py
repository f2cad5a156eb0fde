"""The "Choosing a remediation" chapter: the risk-utility (R-U) confidentiality map of ``remediate --explore``.

Duncan, Keller-McNulty & Stokes (NISS technical reports 121, 2001, and 142, 2004) draw every candidate
release as a point, disclosure risk on the x axis and data utility on the y axis. Here (from the report's
``explore`` object, :mod:`privaudit.pipeline.explore`): passing candidates are filled discs, failing ones
hollow squares, the frontier (no other candidate less risky and more useful) is joined by a line, the
policy's risk bound is a dashed vertical line, the recommended candidate is labelled; a candidate whose
method failed (:mod:`privaudit.pipeline.explore` runs every remediator guarded) is listed under the axes
with what went wrong and the package. Below it a table of every candidate with all its utility figures, and
a table of the methods explored in their own words (each remediator record's title and description).

The map is hand-written SVG in the style of :mod:`privaudit.plugin.charts` (no script, no URL, every label
escaped, coordinates rounded to 0.1 so the same numbers give the same bytes). Each point carries its
candidate's index and figures (``data-index``, ``data-risk``, ``data-utility``) so a reader's tools, and the
tests, can find it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from privaudit.plugin.chapter import Bullets, Chapter, ChapterContent, ChapterInput, Chart, Heading, Paragraph, Table
from privaudit.plugin.charts import (
    FAIL_FILL,
    FONT,
    GRID,
    PASS_FILL,
    THRESHOLD_STROKE,
    _n,
    linear_ticks,
    number_label,
    text_width,
)
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import DataTable, Figure
from privaudit.plugin.text import fmt

WIDTH, HEIGHT = 640.0, 380.0
LEFT, RIGHT, TOP, BOTTOM = 66.0, 24.0, 44.0, 50.0
FRONTIER = "#2f6d3a"
RECOMMENDED = "#111111"


@dataclass
class ExploreView:
    svg: Markup
    table: DataTable
    sentence: str
    notes: list[str]
    built: DataTable | None
    methods: DataTable | None = None


def _axis_max(values: list[float], bound: float | None) -> float:
    top = max([*values, *([bound] if bound is not None else []), 1e-9])
    ticks = linear_ticks(0.0, top * 1.05, 5)
    return ticks[-1] if ticks[-1] >= top else top * 1.05


def map_svg(explore: dict) -> Markup:
    """The R-U map of an ``explore`` object as inline SVG."""
    cands = explore["candidates"]
    bound = explore.get("risk_bound")
    points = [(i, c) for i, c in enumerate(cands) if c["risk"] is not None and c["utility"] is not None]
    failed = [(i, c) for i, c in enumerate(cands) if c.get("failure")]
    xmax = _axis_max([c["risk"] for _, c in points], bound)
    height = HEIGHT + FAILED_ROW * len(failed)  # a line per failed candidate under the axes
    plot = _Plot(xmax)
    title = f"Risk-utility map of {len(cands)} candidate releases"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart ru-map" id="ru-map" viewBox="0 0 {_n(WIDTH)} '
        f'{_n(height)}" width="{_n(WIDTH)}" height="{_n(height)}" role="img" aria-label="{escape(title)}" '
        f'font-family="{FONT}" data-risk-max="{xmax!r}"><title>{escape(title)}</title>'
    ]
    parts += _axes(plot, explore)
    if bound is not None:
        parts += _risk_bound(plot, explore, bound)
    parts += _frontier(plot, points)
    parts += _points(plot, points)
    rec = explore.get("recommended")
    if rec is not None:
        parts += _recommended(plot, rec, cands[rec])
    parts += _legend(plot.x1 - 300)
    parts += _failed_lines(failed, plot.x0)
    parts.append("</svg>")
    return Markup("".join(parts))


@dataclass(frozen=True)
class _Plot:
    """The map's plotting area: risk 0..``xmax`` left to right, utility 0..1 bottom to top."""

    xmax: float
    x0: float = LEFT
    x1: float = WIDTH - RIGHT
    y0: float = HEIGHT - BOTTOM
    y1: float = TOP

    def px(self, r: float) -> float:
        return self.x0 + (r / self.xmax) * (self.x1 - self.x0)

    def py(self, u: float) -> float:
        return self.y0 - u * (self.y0 - self.y1)


def _axes(plot: _Plot, explore: dict[str, Any]) -> list[str]:
    """The utility grid, the risk ticks, both axes and their titles."""
    x0, x1, y0, y1, px, py = plot.x0, plot.x1, plot.y0, plot.y1, plot.px, plot.py
    parts = []
    for t in linear_ticks(0.0, 1.0, 5):  # utility grid
        parts.append(_line(x0, py(t), x1, py(t), GRID))
        parts.append(_text(x0 - 6, py(t) + 4, number_label(t), anchor="end"))
    for t in linear_ticks(0.0, plot.xmax, 5):
        parts.append(_line(px(t), y0, px(t), y0 + 4, "#333"))
        parts.append(_text(px(t), y0 + 17, number_label(t)))
    parts.append(_line(x0, y0, x1, y0, "#333"))
    parts.append(_line(x0, y0, x0, y1, "#333"))
    parts.append(_text((x0 + x1) / 2, HEIGHT - 10, f"risk: {explore['risk_measure']}"))
    parts.append(_text(15, (y0 + y1) / 2, f"utility: {explore['utility_measure']} (1 = nothing lost)", rotate=True))
    return parts


def _risk_bound(plot: _Plot, explore: dict[str, Any], bound: float) -> list[str]:
    """The policy's risk bound, a dashed vertical line labelled on the side with room for the label (the
    long label, else a short one)."""
    x1, y0, y1, px = plot.x1, plot.y0, plot.y1, plot.px
    label = f"policy's risk bound {number_label(bound)}" + (
        f" ({explore['risk_bound_source']})" if explore.get("risk_bound_source") else ""
    )
    short = f"risk bound {number_label(bound)}"
    room_right, room_left = x1 - px(bound) - 5, px(bound) - 5
    for candidate in (label, short):  # bold text runs about 10 % wider than text_width's estimate
        need = 1.1 * text_width(candidate)
        if need <= max(room_right, room_left):
            break
    label = candidate
    anchor = "start" if need <= room_right or room_right >= room_left else "end"
    return [
        _line(px(bound), y1 - 14, px(bound), y0, THRESHOLD_STROKE, 1.6, "5 3", cls="risk-bound"),
        _text(px(bound) + (5 if anchor == "start" else -5), y1 - 4, label, anchor=anchor, weight="bold"),
    ]


def _frontier(plot: _Plot, points: list[tuple[int, dict[str, Any]]]) -> list[str]:
    """The frontier's candidates joined by a line, in order of risk (nothing for fewer than two)."""
    frontier = sorted((c["risk"], c["utility"]) for _, c in points if c["frontier"])
    if len(frontier) <= 1:
        return []
    coords = " ".join(f"{_n(plot.px(r))},{_n(plot.py(u))}" for r, u in frontier)
    return [f'<polyline class="frontier" points="{coords}" fill="none" stroke="{FRONTIER}" stroke-width="1.6"/>']


def _points(plot: _Plot, points: list[tuple[int, dict[str, Any]]]) -> list[str]:
    """A filled disc per passing candidate, a hollow square per failing one, each with its figures as
    ``data-`` attributes and a tooltip."""
    parts = []
    for i, c in points:
        x, y = plot.px(c["risk"]), plot.py(c["utility"])
        data = (
            f'data-index="{i}" data-risk="{c["risk"]!r}" data-utility="{c["utility"]!r}" '
            f'data-passes="{str(c["passes"]).lower()}" data-frontier="{str(c["frontier"]).lower()}"'
        )
        label = escape(
            f"#{i} {c['method']}: risk {c['risk']:.4g}, utility {c['utility']:.4g}, "
            f"{'passes' if c['passes'] else 'fails'}"
        )
        if c["passes"]:
            parts.append(
                f'<circle class="candidate pass" {data} cx="{_n(x)}" cy="{_n(y)}" r="4.5" '
                f'fill="{PASS_FILL}"><title>{label}</title></circle>'
            )
        else:
            parts.append(
                f'<rect class="candidate fail" {data} x="{_n(x - 4)}" y="{_n(y - 4)}" width="8" height="8" '
                f'fill="white" stroke="{FAIL_FILL}" stroke-width="1.6"><title>{label}</title></rect>'
            )
    return parts


def _recommended(plot: _Plot, rec: int, c: dict[str, Any]) -> list[str]:
    """A ring round the recommended candidate, labelled on the side towards the middle of the map."""
    x, y = plot.px(c["risk"]), plot.py(c["utility"])
    anchor = "start" if x < (plot.x0 + plot.x1) / 2 else "end"
    # above the ring, unless that runs into the risk bound's label on the top line: then below it
    label_y = y - 9 if y - 9 > plot.y1 + 14 else y + 20
    return [
        f'<circle class="recommended" cx="{_n(x)}" cy="{_n(y)}" r="8" fill="none" '
        f'stroke="{RECOMMENDED}" stroke-width="1.4"/>',
        _text(
            x + (11 if anchor == "start" else -11),
            label_y,
            f"recommended: #{rec}",
            anchor=anchor,
            weight="bold",
            cls="recommended-label",
        ),
    ]


def _text(x, y, s, anchor="middle", size=11.0, weight="normal", rotate=False, fill="#222", cls="") -> str:
    transform = f' transform="rotate(-90 {_n(x)} {_n(y)})"' if rotate else ""
    bold = ' font-weight="bold"' if weight == "bold" else ""
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<text{klass} x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" font-size="{_n(size)}"{bold} '
        f'fill="{fill}"{transform}>{escape(s)}</text>'
    )


def _line(a, b, c, d, stroke, width=1.0, dash=None, cls="") -> str:
    dashing = f' stroke-dasharray="{dash}"' if dash else ""
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<line{klass} x1="{_n(a)}" y1="{_n(b)}" x2="{_n(c)}" y2="{_n(d)}" stroke="{stroke}" '
        f'stroke-width="{_n(width)}"{dashing}/>'
    )


def _legend(lx: float) -> list[str]:
    return [
        f'<circle cx="{_n(lx)}" cy="11" r="4.5" fill="{PASS_FILL}"/>',
        _text(lx + 8, 15, "passes", anchor="start", size=10),
        f'<rect x="{_n(lx + 60)}" y="7" width="8" height="8" fill="white" stroke="{FAIL_FILL}" stroke-width="1.6"/>',
        _text(lx + 72, 15, "fails", anchor="start", size=10),
        _line(lx + 110, 11, lx + 130, 11, FRONTIER, 1.6),
        _text(lx + 134, 15, "frontier", anchor="start", size=10),
        _line(lx + 190, 5, lx + 190, 17, THRESHOLD_STROKE, 1.6, "5 3"),
        _text(lx + 196, 15, "risk bound", anchor="start", size=10),
    ]


def _failed_lines(failed: list[tuple[int, dict]], x0: float) -> list[str]:
    """A crossed line under the axes per failed candidate: its index, method and what went wrong."""
    out = []
    for row, (i, c) in enumerate(failed):
        said = _clipped(f"#{i} {c['method']}: {c['failure']}")
        y = HEIGHT + FAILED_ROW * row + 4
        out += [_line(x0, y - 8, x0 + 8, y, FAIL_FILL, 1.6), _line(x0, y, x0 + 8, y - 8, FAIL_FILL, 1.6)]
        out.append(
            f'<text class="candidate failed" data-index="{i}" x="{_n(x0 + 14)}" y="{_n(y)}" text-anchor="start" '
            f'font-size="10" fill="#222">{escape(said)}</text>'
        )
    return out


#: Height of the line each failed candidate gets under the map's axes; how many characters it shows.
FAILED_ROW, FAILED_CHARS = 16.0, 110


def _clipped(text: str) -> str:
    """A failed candidate's line on the map, cut to fit (the candidates' table has it whole)."""
    return text if len(text) <= FAILED_CHARS else text[: FAILED_CHARS - 1] + "…"


def _failing_letters(cands: list[dict]) -> dict[str, str]:
    """A letter per check that is the worst of some failing candidate, in order of first appearance: the
    candidates' table shows ``fails (a: 1)`` and names each check once, under it."""
    ids = dict.fromkeys(
        c["worst_check"]["id"] for c in cands if not c.get("failure") and not c["passes"] and c.get("worst_check")
    )
    return {check: _letter(n) for n, check in enumerate(ids)}


def _letter(n: int) -> str:
    """a, b, …, z, aa, ab, …"""
    return _letter(n // 26 - 1) + chr(97 + n % 26) if n >= 26 else chr(97 + n)


def _verdict(c: dict, letters: dict[str, str]) -> str:
    """The policy's verdict on a candidate: passes, fails with its worst check's letter and figure, or what
    went wrong."""
    if c.get("failure"):
        return str(c["failure"])
    if c["passes"]:
        return "passes"
    worst = c.get("worst_check")
    return f"fails ({letters[worst['id']]}: {fmt(worst['value'])})" if worst else "fails"


def _breakable(name: str) -> str:
    """A check id that a narrow table cell may wrap after each underscore (a zero-width space), not at any
    letter."""
    return name.replace("_", "_\u200b").replace("+", "+\u200b")


def _given(value: dict) -> dict:
    """A nested option mapping without the options left at their default (None)."""
    return {k: v for k, v in value.items() if v is not None}


def _options(options: dict) -> str:
    out = []
    for key, value in options.items():
        if key == "seed" or value is None:
            continue
        if isinstance(value, dict):
            given = _given(value)
            out.append(f"{key}: {', '.join(f'{k} {v}' for k, v in given.items())}" if given else key)
            continue
        out.append(f"{key}: {value}")
    return "; ".join(out)


#: short headers of the utility measures the table shows beside the map's own
_SHORT = {
    "discernibility": "discern.",
    "granularity": "granul.",
    "generalization_intensity": "gen. int.",
    "suppressed_cells": "cells kept",
}


def _level_order(cands: list[dict]) -> tuple[str, list[str]]:
    """The first option a candidate gives per column (a mapping, such as a lattice node's levels: every
    candidate of the method lists the same columns) and its columns in order; ("", []) when there is none."""
    for c in cands:
        for key, value in c["options"].items():
            if isinstance(value, dict) and value and all(not isinstance(v, dict) for v in value.values()):
                return key, list(value)
    return "", []


def _compact_options(options: dict, order: list[str]) -> str:
    """A candidate's options on one or two lines: generalization levels as one vector in ``order``."""
    out = []
    for key, value in options.items():
        if key == "seed" or value is None:
            continue
        if isinstance(value, list | tuple):
            value = ", ".join(map(str, value))
        if isinstance(value, dict):
            if list(value) == order:
                value = "·".join(str(value[k]) for k in order)
            elif not _given(value):
                out.append(key)
                continue
            else:
                value = ", ".join(f"{k} {v}" for k, v in _given(value).items())
        out.append(f"{key} {value}")
    return "; ".join(out)


def explore_view(data: dict[str, Any]) -> ExploreView | None:
    explore = data.get("explore")
    if not explore:
        return None
    cands = explore["candidates"]
    axis = explore["utility_measure"]
    others = list(dict.fromkeys(m for c in cands for m in (c.get("utilities") or {}) if m != axis))
    key, order = _level_order(cands)
    letters = _failing_letters(cands)
    rows = []
    for i, c in enumerate(cands):
        marks = [m for m, on in (("recommended", i == explore["recommended"]), ("frontier", c["frontier"])) if on]
        utilities = c.get("utilities") or {}
        figures = ["—" if utilities.get(m) is None else fmt(utilities[m]) for m in others]
        rows.append(
            [
                i,
                _breakable(c["method"]),
                _compact_options(c["options"], order),
                "—" if c["risk"] is None else c["risk"],
                "—" if c["utility"] is None else c["utility"],
                _verdict(c, letters),
                ", ".join(marks) or "—",
                "—" if c.get("cells_changed") is None or c.get("failure") else fmt(c["cells_changed"]),
                ", ".join(c.get("deleted") or []) or "—",
                *figures,
            ]
        )
    levels = f" Option {key} is given per column, in the order {', '.join(order)}." if order else ""
    if letters:
        levels += (
            " A failing candidate names its worst check and that check's figure: "
            + "; ".join(f"({letter}) {check}" for check, letter in letters.items())
            + "."
        )
    table = DataTable(
        [
            "#",
            "method",
            "options",
            "risk",
            "utility",
            "policy",
            "map",
            "changed",
            "deleted",
            *(_SHORT.get(m, m) for m in others),
        ],
        rows,
        caption=f"Every candidate: risk is the {explore['risk_measure']}, utility the "
        f"{axis} measure on ARX's quality scale (1 = nothing lost), the quasi-identifier cells it changes ("
        "changed) and the quasi-identifiers it deletes (no value left below the top of the hierarchy), and beside them the "
        f"other utility measures ({', '.join(others)}; — where a measure gives no figure for the candidate)."
        f"{levels}",
        numeric=frozenset({0, 3, 4, 7, *range(9, 9 + len(others))}),
        kind="classes",
        widths=("2em", "7em", "17%", "5.6em", "4.4em", "5.6em", "6.6em", "5.4em", "6em"),
    )
    return ExploreView(
        map_svg(explore), table, _sentence(explore), list(explore.get("notes", [])), _built(explore), _methods(explore)
    )


def _sentence(explore: dict) -> str:
    """The chapter's headline: what passes, what is recommended and why, and what failed."""
    cands, rec = explore["candidates"], explore["recommended"]
    if explore.get("no_change_needed"):
        sentence = (
            "The input already passes the policy: no change is needed, and nothing was written. The map shows "
            f"what each of the {len(cands)} candidates would cost."
        )
    elif rec is None:
        sentence = (
            f"None of the {len(cands)} candidates passes the policy: nothing is recommended. The map shows "
            "how far each is from the policy's bound."
        )
    else:
        c = cands[rec]
        sentence = (
            f"Of {len(cands)} candidates, {sum(x['passes'] for x in cands)} pass the policy and "
            f"{sum(x['frontier'] for x in cands)} are on the frontier. Recommended: #{rec}, "
            f"{_title(explore, c['method'])} ({'; '.join(filter(None, [c['method'], _options(c['options'])]))}), "
            f"risk {fmt(c['risk'])}, "
            f"utility {fmt(c['utility'])}: "
            "among the passing candidates, one that deletes no quasi-identifier another passing candidate keeps "
            "(the most important first), and of those the one that keeps most."
        )
    failed = sum(1 for c in cands if c.get("failure"))
    if failed:
        sentence += (
            f" {failed} candidate{'s' if failed > 1 else ''} could not be made: the method failed (see the "
            "table; such a candidate is never recommended)."
        )
    return sentence


def _built(explore: dict) -> DataTable | None:
    """The hierarchies built for quasi-identifiers the policy gave none, and the files written."""
    if not explore.get("built_hierarchies"):
        return None
    return DataTable(
        ["column", "hierarchy built", "levels", "leaves", "file written"],
        [
            [col, b["builder"], b["height"], b["leaves"], b["file"] or "not written"]
            for col, b in explore["built_hierarchies"].items()
        ],
        caption="Quasi-identifiers without a hierarchy in the policy got one built for the recoding "
        "candidates; it is written beside the output only when the written table holds its labels.",
        numeric=frozenset({2, 3}),
    )


def _title(explore: dict, method: str) -> str:
    """A candidate's method in its remediator's words: its record's title (a refined candidate, "a+b", is each
    in turn)."""
    records = explore.get("methods") or {}
    return ", then ".join(str((records.get(m) or {}).get("title") or m) for m in method.split("+"))


def _methods(explore: dict) -> DataTable | None:
    """The methods explored, as each remediator's record describes itself, and the package that registered it."""
    records = explore.get("methods") or {}
    if not records:
        return None
    return DataTable(
        ["method", "title", "what it does", "package"],
        [[name, r.get("title"), r.get("description"), r.get("package") or "—"] for name, r in records.items()],
        caption="The remediation methods explored, in their own words (each method's registered title and "
        "description): built-in and third-party methods alike.",
        kind="details",
    )


MAP_CAPTION = (
    "Each candidate release placed by its risk (x) and what it keeps (y), as the R-U confidentiality map of Duncan, "
    "Keller-McNulty and Stokes draws them. Discs pass the policy, hollow squares fail it; the line joins the "
    "frontier (no other candidate is less risky and more useful); the dashed line is the policy's risk bound."
)


def lost_cover(data: Mapping[str, Any]) -> tuple[Any, ...]:
    """The first page's table of what the recommended candidate would lose, when nothing was written (a written
    remediation's table is the remediation chapter's), or "no change needed" when the input passes already."""
    from privaudit.report.lost_table import cover_blocks, lost_view

    explore = data.get("explore") or {}
    written = (data.get("remediation") or {}).get("lost")
    if not explore or (written and not explore.get("no_change_needed")):
        return ()
    return cover_blocks(lost_view(dict(data)))


def build(report: ChapterInput) -> ChapterContent | None:
    """The chapter of ``remediate --explore``: the map, the candidates, the hierarchies built, the notes."""
    x = explore_view(dict(report.data))
    cover = lost_cover(report.data)
    if x is None:
        return ChapterContent(cover=cover) if cover else None
    blocks: list[Any] = [
        Paragraph((x.sentence,), id="explore-headline"),
        Chart(Figure(x.svg, MAP_CAPTION), id="explore-map"),
        Table(x.table, f"{x.table.kind} candidates"),
    ]
    if x.methods:
        blocks.append(Table(x.methods))
    if x.built:
        blocks.append(Table(x.built))
    if x.notes:
        blocks += [Heading("Notes", id="explore-notes"), Bullets(tuple(x.notes))]
    return ChapterContent(blocks=tuple(blocks), style="chapter explore", cover=cover)


@hookimpl
def privaudit_report_chapters() -> list[Chapter]:
    return [Chapter("explore", "Choosing a remediation: the risk-utility map", build, place="front", rank=20)]


__all__ = ["ExploreView", "build", "explore_view", "map_svg"]
