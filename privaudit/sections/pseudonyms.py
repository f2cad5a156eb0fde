"""The report section of ``pseudonyms`` checks: each tested column's form and what a dictionary attack undid,
never the values it recovered. :mod:`privaudit.assessors.pseudonyms` computes, this module presents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from privaudit.assessors.pseudonyms import ASSESSOR, PseudonymsDetails, PseudonymsParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[PseudonymsParams, PseudonymsDetails], audit: Any) -> ReportSection:
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d = check.details
    undone = [c for c in d.columns if c.reversed_values]
    if undone:
        worst = max(undone, key=lambda c: c.reversed_share)
        summary = (
            f"The pseudonyms of {worst.column!r} are a plain {worst.algorithm} hash: hashing every candidate of "
            f"{worst.spaces[0]} gave back the value behind {rt.share(worst.reversed_share)} of records. Anyone can "
            "do the same; a keyed function (HMAC with a secret key, or encryption) is what pseudonymisation needs."
        )
    elif d.columns:
        summary = (
            f"No pseudonym of {rt.qi_phrase([c.column for c in d.columns])} was undone by hashing dates of birth, "
            "numbers in the given ranges or the values of other columns."
        )
    else:
        summary = "No column of the release looks like pseudonyms (digests, UUIDs or tokens)."
    rows = [
        [
            c.column,
            c.kind + (f" ({c.form})" if c.form else ""),
            f"{c.reversed_values:,} of {c.distinct:,}" if c.kind == "hex digest" else "not tested",
            rt.share(c.reversed_share) if c.kind == "hex digest" else "",
            "; ".join(c.spaces) or ("budget ran out" if c.budget_exhausted else ""),
        ]
        for c in d.columns
    ]
    tables = (
        [
            rs.DataTable(
                ["Column", "Form", "Values reversed", "Records", "Reversed from"],
                rows,
                caption="Columns tested",
                numeric=frozenset({2, 3}),
            )
        ]
        if rows
        else []
    )
    reuse = [
        [
            c.column,
            r.release,
            f"{r.shared:,} of {c.distinct:,}",
            "—" if r.same_person is None else f"{r.same_person:,} of {r.linked_persons:,}",
        ]
        for c in d.columns
        for r in c.reused
    ]
    if reuse:
        tables.append(
            rs.DataTable(
                ["Column", "Previous release", "Pseudonyms also there", "Same person, same pseudonym"],
                reuse,
                caption="Pseudonyms kept across releases (--previous): the releases link person by person through them",
                numeric=frozenset({2, 3}),
            )
        )
        if any(r.shared for c in d.columns for r in c.reused):
            summary += (
                " Pseudonyms are reused across releases: anyone holding two of them can link their records "
                "person by person, and a pseudonym per release (or per recipient) would prevent it."
            )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(check.value or 0.0),
        threshold_text="no record",
        tables=tables,
        limitations="only unkeyed hashes of the spaces tried are tested: a salt the intruder can find, a value "
        "space not listed is not; reuse across releases is measured only against the releases given with "
        "--previous; a UUID or token that is not a hash cannot be tested this way.",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
