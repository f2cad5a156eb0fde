"""The report section of ``safe_harbor`` checks: the 18-row checklist of 45 CFR 164.514(b)(2)(i) with each row's
evidence, and the actual-knowledge attestation. :mod:`privaudit.assessors.safe_harbor` computes, this module
presents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from privaudit.assessors.safe_harbor import ASSESSOR, SafeHarborDetails, SafeHarborParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection

#: evidence lines shown per row; the rest are counted
EVIDENCE_SHOWN = 3
_STATUS = {"absent": "not found", "present": "FOUND", "attest": "to attest (164.514(c))"}


def draw(check: CheckEntry[SafeHarborParams, SafeHarborDetails], audit: Any) -> ReportSection:
    from privaudit.plugin import sections as rs

    d = check.details
    present = [i for i in d.items if i.status == "present"]
    if present:
        summary = (
            f"{len(present)} of HIPAA's 18 identifiers remain in the release "
            f"({', '.join(f'({i.letter}) {i.identifier.lower()}' for i in present[:4])}"
            f"{' and more' if len(present) > 4 else ''}): it is not de-identified by Safe Harbor."
        )
    elif not d.actual_knowledge_attested:
        summary = (
            "None of the 18 identifiers was found, but Safe Harbor also needs the covered entity's attestation that "
            "it has no actual knowledge the release could identify anyone: it is not recorded."
        )
    else:
        summary = (
            f"None of the 18 identifiers was found and {d.attested_by} attests to no actual knowledge that the "
            "release could identify anyone: the release meets Safe Harbor."
        )
    rows = []
    for item in d.items:
        shown = item.evidence[:EVIDENCE_SHOWN]
        more = len(item.evidence) - len(shown)
        rows.append(
            [
                f"({item.letter})",
                item.identifier,
                _STATUS[item.status],
                "; ".join(shown) + (f"; and {more} more" if more else ""),
            ]
        )
    table = rs.DataTable(
        ["", "Identifier (164.514(b)(2)(i))", "Status", "Evidence (columns)"],
        rows,
        caption="Safe Harbor checklist",
        kind="details",
        widths=("3em", "35%", "9em"),
    )
    return rs.ReportSection(
        summary=summary,
        value_text=f"{d.present} of 18",
        threshold_text="none, and the attestation",
        facts=[
            (
                "Actual-knowledge attestation (b)(2)(ii)",
                f"recorded, by {d.attested_by}" if d.actual_knowledge_attested else "not recorded",
            ),
            ("Ages reckoned at", str(d.reference_year)),
            ("Restricted three-digit ZIP codes", d.restricted_zip3),
        ],
        tables=[table],
        limitations="headers and value patterns find what a table says it holds; an identifier hidden in free "
        "text or under a meaningless header, biometric data and photographs stored as codes are found only by "
        "their headers. Safe Harbor's list is not a risk measure: a release that meets it can still be "
        "re-identified through its quasi-identifiers (the other checks measure that).",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
