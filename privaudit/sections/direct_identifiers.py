"""The report section of ``direct_identifiers`` checks, drawn from the check's typed entry and registered through
``privaudit_report_sections``: :mod:`privaudit.assessors.direct_identifiers` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.direct_identifiers import ASSESSOR, DirectIdentifiersDetails, DirectIdentifiersParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[DirectIdentifiersParams, DirectIdentifiersDetails], audit: AuditResult) -> ReportSection:
    """The report section of the direct_identifiers check: declared identifier columns still holding values,
    undeclared columns found to hold identifiers (masked examples), and warnings on declared columns."""
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d = check.details
    present, declared = d.present, d.identifier_columns
    found = d.undeclared_findings or []
    warned = d.declared_warnings or []
    names = present + [f.column for f in found]
    if names:
        summary = (
            f"Column{'s' * (len(names) > 1)} {', '.join(names)} {'name' if len(names) > 1 else 'names'} people "
            "outright: anyone holding the file can read who the records are about."
        )
    else:
        summary = (
            f"No column names a person outright ({len(declared)} identifier column"
            f"{'s' * (len(declared) != 1)} declared, none holds a value"
            + (
                "; no other column looks like names, contact details, account or national identification "
                "numbers, addresses or record keys)."
                if d.scanned
                else ")."
            )
        )
    tables = []
    rows = [[c, "holds values" if c in present else "empty or removed"] for c in declared]
    if rows:
        tables.append(rs.DataTable(["identifier column", "in the release"], rows))
    for title, items in (
        ("Undeclared columns holding direct identifiers", found),
        ("Declared columns that look like direct identifiers (warnings)", warned),
    ):
        if items:
            tables.append(
                rs.DataTable(
                    ["column", "holds", "share of sampled values", "examples (masked)", "evidence"],
                    [
                        [f.column, f.label, rt.share(f.share), ", ".join(f.examples), "; ".join(f.evidence)]
                        for f in items
                    ],
                    caption=title,
                    kind="details",
                    widths=("16%", "18%", "12%", "24%"),
                )
            )
    paragraphs = []
    if not d.scanned:
        paragraphs.append(
            "The columns were not scanned for undeclared identifiers: the table is in an engine's "
            "catalog and no sample of it could be read."
        )
    return rs.ReportSection(
        summary=summary,
        value_text=f"{check.value} column{'s' * (check.value != 1)}",
        threshold_text="0 columns",
        paragraphs=paragraphs,
        tables=tables,
        limitations=f"the scan reads each column's first {d.sample_rows:,} rows and recognises "
        "identifiers by their header, form and check digits, and people's names by name lists; identifiers of "
        "an unusual form, or names the lists lack, can go unseen.",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
