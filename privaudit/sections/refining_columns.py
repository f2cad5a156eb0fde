"""The report section of refining_columns checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.refining_columns`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.refining_columns import NAME, RefiningColumnsDetails, RefiningColumnsParams
from privaudit.common.numbers import fmt
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[RefiningColumnsParams, RefiningColumnsDetails], audit: AuditResult) -> ReportSection:
    """The columns that give back a generalized quasi-identifier, at one glance: which, of what, how finely."""

    d = check.details
    assert d is not None
    generalized = [g.column for g in d.generalized]
    if d.findings:
        names = sorted({c for f in d.findings for c in f.columns})
        sources = sorted({f.quasi_identifier for f in d.findings})
        summary = (
            f"Column{'s' * (len(names) > 1)} {', '.join(names)} {'give' if len(names) > 1 else 'gives'} back "
            f"{', '.join(sources)}, which the release generalizes: anyone holding the file reads finer values than "
            "the release was meant to show. Declare each a quasi-identifier so it is generalized with its source, "
            "or drop it."
        )
    elif generalized:
        summary = f"No column left out of the quasi-identifiers gives back the generalized {', '.join(generalized)}."
    else:
        summary = "No quasi-identifier is visibly generalized in this release, so no column can give one back."
    tables = []
    if d.findings:
        tables.append(
            rs.DataTable(
                ["column", "gives back", "records", "share", "distinct values / released"],
                [
                    [
                        " + ".join(f.columns),
                        f.quasi_identifier,
                        fmt(f.records),
                        rt.share(f.share),
                        f"{fmt(f.distinct)} / {fmt(f.released)}",
                    ]
                    for f in d.findings
                ],
                caption="Columns that refine a generalized quasi-identifier",
                numeric=frozenset({2, 3}),
            )
        )
    if d.generalized:
        tables.append(
            rs.DataTable(
                ["generalized quasi-identifier", "seen from"],
                [[g.column, g.evidence] for g in d.generalized],
                kind="details",
                widths=("30%",),
            )
        )
    paragraphs = []
    if d.sampled and d.scanned:
        paragraphs.append(
            f"Read on the first {fmt(d.rows)} rows: this engine summarises only the declared columns. A column "
            "refining a quasi-identifier on every row refines it on these rows too."
        )
    if not d.scanned:
        paragraphs.append(f"The columns were not read: {check.message}.")
    return rs.ReportSection(
        summary=summary,
        value_text=f"{check.value} column{'s' * (check.value != 1)}",
        threshold_text="0 columns",
        paragraphs=paragraphs,
        tables=tables,
        limitations="compares only quasi-identifiers the release visibly generalizes (values above the hierarchy's "
        "leaves, or intervals and masks); a dependency is taken as one only when the data show it (repeated values "
        f"each within one released value); pairs are searched among columns of at most {d.pair_max_values} values; "
        "a column that nearly determines the original value (with a few exceptions) is not found.",
    )


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
