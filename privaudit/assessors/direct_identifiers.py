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

from typing import ClassVar, Literal

from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.hookspecs import hookimpl


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
    from privaudit.discovery.scan import SAMPLE_ROWS, scan_frame

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
    from privaudit.discovery.scan import SAMPLE_ROWS

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
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
