"""The "Release card" report chapter: the release at a glance, at the front of the HTML and PDF reports.

Modelled on the "model card" and "datasheet" idea of one short, fixed-shape summary a reader sees first
(Mitchell et al., *Model Cards for Model Reporting*, FAT* 2019; Gebru et al., *Datasheets for Datasets*,
CACM 64(12), 2021): how many records and columns the release has, the columns by role (what the policy
audits), the verdict, and the three checks most at risk, in words, each linked to its section.

"Most at risk": first the checks that failed an error-severity bound, then those that failed a warning,
then those that could not be computed, then those that passed; within each, the check furthest past (or
closest to) its threshold, measured as the relative distance ``(value − threshold) / |threshold|`` in the
direction the check's value worsens (``better`` in the JSON report; a check that states no direction, or no
number, comes last of its group, in report order).
"""

from __future__ import annotations

import math
from typing import Any

from privaudit.plugin import Chapter, hookimpl
from privaudit.plugin.chapter import Badge, ChapterContent, Link, Pairs, Paragraph

NAME = "release_card"
TOP = 3
_ROLES = (("quasi_identifiers", "quasi-identifiers"), ("sensitive", "sensitive"), ("identifiers", "identifiers"))


def _number(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return math.inf if x == "inf" else None
    return float(x)


def _rank(check: dict[str, Any]) -> tuple[int, float]:
    """Sort key: the check's group (error fail, warning fail, error, pass), then how far past its threshold."""
    status, severity = check.get("status"), check.get("severity")
    group = {"fail": 0 if severity == "error" else 1, "warn": 1, "error": 2}.get(status, 3)
    value, threshold, better = _number(check.get("value")), _number(check.get("threshold")), check.get("better")
    if value is None or threshold is None or better not in ("higher", "lower"):
        return group, math.inf
    if math.isinf(value) or math.isinf(threshold):
        past = math.inf if (better == "lower") == (value > threshold) else -math.inf
    else:
        past = (value - threshold) / (abs(threshold) or 1.0)
        past = past if better == "lower" else -past
    return group, -past  # furthest past the bound first


def at_risk(checks: list[Any], top: int = TOP) -> list[Any]:
    """The ``top`` checks most at risk (``ChapterCheck`` objects), in that order (a stable sort)."""
    return sorted(checks, key=lambda c: _rank(c.check))[:top]


def _sentence(item: Any) -> Paragraph:
    check = item.check
    word = {"fail": "FAIL", "warn": "WARN", "error": "ERROR"}.get(check.get("status"), "PASS")
    if word == "FAIL" and check.get("severity") == "warning":
        word = "WARN"  # a failing warning check is a warning, as the summary of checks shows it
    what = item.title or check.get("assessor", "")
    if check.get("status") == "error":
        tail = f" could not be computed: {check.get('message', '')}"
    else:
        value = item.value_text or str(check.get("value"))
        bound = f" against {item.threshold_text}" if item.threshold_text else ""
        tail = f" measured {value}{bound}: {check.get('message', '')}"
    return Paragraph((Badge(word), " ", Link(str(check.get("id")), item.anchor), f" ({what}){tail}"))


def build(report: Any) -> ChapterContent | None:
    """The card for one run (``report`` a :class:`privaudit.plugin.chapter.ChapterInput`)."""
    data = report.data
    facts, scope, summary = data.get("input") or {}, data.get("scope") or {}, data.get("summary") or {}
    columns = list(facts.get("columns") or [])
    named = set()
    rows: list[tuple[str, str]] = [("records", f"{int(facts.get('rows', 0)):,}"), ("columns", str(len(columns)))]
    for key, label in _ROLES:
        names = list(scope.get(key) or [])
        named.update(names)
        rows.append((label, f"{len(names)}" + (f": {', '.join(names)}" if names else "")))
    rows.append(("other columns", str(len([c for c in columns if c not in named]))))
    passed = bool(summary.get("passed"))
    verdict = Paragraph(
        (
            Badge("PASS" if passed else "FAIL"),
            f" {summary.get('checks_total', 0)} checks: {summary.get('checks_failed', 0)} failed, "
            f"{summary.get('checks_warned', 0)} warned, {summary.get('checks_errored', 0)} could not be computed.",
        ),
        status=True,
    )
    blocks: list[Any] = [Pairs(tuple(rows), "the release", "count"), verdict]
    top = at_risk(list(report.checks))
    if top:
        blocks.append(Paragraph((f"The {len(top)} check{'s' if len(top) > 1 else ''} most at risk:",)))
        blocks += [_sentence(item) for item in top]
    return ChapterContent(blocks=tuple(blocks))


CHAPTER = Chapter(
    NAME,
    "Release card",
    build,
    place="front",
    rank=900,  # after privaudit's own front chapters (remediation 10, explore 20), before the summary of checks
    description="the release at a glance: size, columns by role, verdict, the three checks most at risk",
)


@hookimpl
def privaudit_report_chapters() -> list[Chapter]:
    return [CHAPTER]
