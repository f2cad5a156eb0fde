"""direct_identifiers: a release must not carry direct identifiers -- in declared identifier columns, or in
any column the policy does not declare (the gate sees what the policy missed).

Always run, whether or not the policy lists it. Two parts:

* declared ``identifier`` columns that still hold a value fail the check;
* every column of the release is scanned (:mod:`privaudit.discovery.scan`: the first
  :data:`~privaudit.discovery.scan.SAMPLE_ROWS` rows -- the same whatever the engine -- by header, value
  patterns with check digits, person-name lists and uniqueness). A column the policy does not declare
  that holds direct identifiers fails the check, with the kind, the share of sampled values that matched
  and three masked examples. A column the policy declares (any other role) is trusted, but a
  high-confidence finding on it is reported as a warning (the check still passes on it); a
  ``record_id`` column is a key by declaration.

value = the number of failing columns (declared identifiers holding values plus undeclared columns of
identifiers); pass iff value = 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from privaudit.discovery.scan import SAMPLE_ROWS, scan_frame
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only: the report's modules load when a report is drawn
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


class DirectIdentifiersParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    pass


class IdentifierFinding(Details):
    """A column the scan found holding direct identifiers (examples masked)."""

    column: str
    kind: str
    label: str
    share: float
    examples: list[str]
    evidence: list[str]
    confidence: Literal["high", "medium", "low"]


class DirectIdentifiersDetails(Details):
    """What the direct_identifiers check's details hold."""

    identifier_columns: list[str]
    present: list[str]
    undeclared_findings: list[IdentifierFinding]
    declared_warnings: list[IdentifierFinding]
    scanned: bool
    sample_rows: int


def findings(ctx) -> tuple[list, list, bool]:
    """(undeclared findings, warnings on declared columns, whether the columns could be scanned)."""
    sample = ctx.sample(SAMPLE_ROWS)
    if sample is None:
        return [], [], False
    declared = ctx.policy.columns
    failing, warnings = [], []
    for f in scan_frame(sample):
        spec = declared.get(f.column)
        if spec is None:
            failing.append(f)
        elif spec.role == "identifier" or (spec.role in ("record_id", "household_id") and f.kind == "record_key"):
            continue  # declared as what it is
        elif f.confidence == "high":
            warnings.append(f)
    return failing, warnings, True


def run(ctx, params: DirectIdentifiersParams) -> Measurement:
    declared = ctx.policy.columns_with("identifier")
    present = [c for c in declared if ctx.non_missing(c) > 0]
    undeclared, warnings, scanned = findings(ctx)
    parts = []
    if present:
        parts.append(
            f"identifier column{'s' * (len(present) > 1)} {', '.join(map(repr, present))} still "
            f"{'hold values' if len(present) > 1 else 'holds values'}"
        )
    if undeclared:
        parts.append(
            "undeclared column"
            + "s" * (len(undeclared) > 1)
            + " "
            + ", ".join(f"{f.column!r} ({f.label}, {f.share:.0%} of sampled values)" for f in undeclared)
            + (" hold" if len(undeclared) > 1 else " holds")
            + " direct identifiers"
        )
    if not parts:
        parts.append(
            f"no identifier column holds a value ({len(declared)} declared)"
            + ("; no undeclared column holds direct identifiers" if scanned else "")
        )
    if warnings:
        parts.append(
            "warning: declared column"
            + "s" * (len(warnings) > 1)
            + " "
            + ", ".join(f"{f.column!r} ({f.label})" for f in warnings)
            + (" look" if len(warnings) > 1 else " looks")
            + " like direct identifiers"
        )
    value = len(present) + len(undeclared)
    details = {
        "identifier_columns": declared,
        "present": present,
        "undeclared_findings": [f.to_dict() for f in undeclared],
        "declared_warnings": [f.to_dict() for f in warnings],
        "scanned": scanned,
        "sample_rows": SAMPLE_ROWS,
    }
    return Measurement(value, 0, value == 0, "; ".join(parts), details)


def identifier_columns(details: dict) -> dict[str, str]:
    """The columns the scan found holding direct identifiers (declared quasi-identifier, sensitive or other, or
    undeclared): column -> kind (``email``, ``phone`` ...); reports mask their values."""
    found: dict[str, str] = {}
    for item in [*details.get("declared_warnings", []), *details.get("undeclared_findings", [])]:
        if isinstance(item, dict) and "column" in item:
            found[item["column"]] = str(item.get("kind", ""))
    return found


def report_section(
    check: CheckEntry[DirectIdentifiersParams, DirectIdentifiersDetails], audit: AuditResult
) -> ReportSection:
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
                if (True if d.scanned is None else d.scanned)
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
    if not (True if d.scanned is None else d.scanned):
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
        limitations=f"the scan reads each column's first {(SAMPLE_ROWS if d.sample_rows is None else d.sample_rows):,} rows and recognises "
        "identifiers by their header, form and check digits, and people's names by name lists; identifiers of "
        "an unusual form, or names the lists lack, can go unseen.",
    )


ASSESSOR = Assessor(
    name="direct_identifiers",
    params=DirectIdentifiersParams,
    details=DirectIdentifiersDetails,
    run=run,
    title="Direct identifiers",
    protects="identity",
    measures="whether columns that name a person outright (names, contact details, account and national "
    "identification numbers, addresses, record keys) are in the release, declared or not",
    formula="value = identifier-role columns with a non-missing value + undeclared columns whose sampled values are "
    "direct identifiers (header, patterns with check digits, name lists, uniqueness); pass iff value = 0",
    reference="Hundepool et al., Statistical Disclosure Control (Wiley, 2012), ch. 3; HIPAA Safe Harbor, "
    "45 CFR 164.514(b)(2)",
    always=True,
    identifier_columns=identifier_columns,
    concurrent=True,
    report_section=report_section,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
