"""The report section of ``cap`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.cap` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.cap import ASSESSOR, CapDetails, CapParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[CapParams, CapDetails], audit: AuditResult) -> ReportSection:
    """The report section of a cap check: protection per target, against the limit."""
    from privaudit.plugin import charts
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt
    from privaudit.plugin.helpers import reaches

    if check.status == "error":
        return rs.ReportSection(summary=check.message)
    d, limit = check.details, float(check.params.min_protection)
    worst = next(t for t in d.targets if t.target == d.worst_target)
    summary = (
        f"An intruder who knows a person's {rt.qi_phrase(d.keys)} and looks them up in the synthetic "
        f"release guesses their {worst.target} right with probability {rt.share(worst.cap)} on average, "
        f"against {rt.share(1 - worst.baseline_safety)} for a random guess: the release keeps "
        f"{rt.share(worst.protection)} of a random table's protection."
    )
    targets = d.targets
    figure = rs.Figure(
        charts.share_bars_chart(
            [t.target for t in targets],
            [t.protection for t in targets],
            [not reaches(t.protection, limit) for t in targets],
            title="Disclosure protection per target",
            x_label="protection (1 = as safe as random values)",
            limit=limit,
            limit_label=f"min_protection = {rt.share(limit)}",
        ),
        "Disclosure protection (1 − CAP) / (1 − 1/m) of each target; bars below the line fail.",
    )
    rows = [
        [
            t.target,
            rt.share(t.cap),
            rt.share(1 - t.baseline_safety),
            rt.share(t.protection),
            rt.fmt(t.evaluated),
            rt.fmt(t.unmatched),
        ]
        for t in targets
    ]
    table = rs.DataTable(
        ["target", "CAP", "random guess", "protection", "records evaluated", "keys not in release"],
        rows,
        caption="Correct attribution probability per target",
        numeric=frozenset({1, 2, 3, 4, 5}),
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(check.value),
        threshold_text=f"≥ {rt.share(limit)}",
        paragraphs=[
            f"Real records whose key does not occur in the release are "
            f"{'counted as a wrong guess' if d.unmatched == 'zero' else 'not counted'}; numeric columns "
            f"are cut into {d.bins} equal-width intervals."
        ],
        figures=[figure],
        tables=[table],
        limitations="CAP looks at exact key matches only: an intruder who uses near matches or a model of the "
        "release (see the inference check) may do better.",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
