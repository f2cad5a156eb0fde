"""The report section of undeclared_key_variables checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.undeclared_key_variables`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.undeclared_key_variables import (
    NAME,
    SHOWN_ROWS,
    AddedKey,
    UndeclaredKeyVariablesDetails,
    UndeclaredKeyVariablesParams,
)
from privaudit.common.numbers import fmt
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def table_rows(d: UndeclaredKeyVariablesDetails) -> tuple[list[list[str]], int]:
    """The section's rows: the declared quasi-identifiers alone, then what fails, the vocabulary's columns
    together, what warns, the pairs of the worst, and the others up to :data:`SHOWN_ROWS`; and how many others
    are left out."""

    def row(e: AddedKey | None, label: str, how: str, verdict: str) -> list[str]:
        unique = d.unique_share if e is None else e.unique_share
        low = d.below_k_share if e is None else e.below_k_share
        return [label, how, rt.share(unique), *([rt.share(low or 0.0)] if d.k else []), verdict]

    def verdict(e: AddedKey) -> str:
        checks = ", ".join(sorted({b.split(":")[0] for b in e.breaks}))
        if not checks:
            return "—"
        if e is d.together or (len(e.columns) == 1 and e.columns[0] in d.failing):
            return f"fails: breaks {checks}"
        return f"{'warning: ' if e.columns[0] in d.warnings and len(e.columns) == 1 else ''}breaks {checks}"

    rows = [row(None, "(the declared quasi-identifiers alone)", "", "")]
    failing = [e for e in d.columns if e.columns[0] in d.failing and e.breaks]
    warned = [e for e in d.columns if e.columns[0] in d.warnings]
    together = [d.together] if d.together is not None else []
    rest = [e for e in d.columns if e not in failing and e not in warned]
    listed = [*failing, *together, *warned, *d.pairs]
    shown = rest[: max(SHOWN_ROWS - len(listed), 3)]
    for e in [*listed, *shown]:
        rows.append(row(e, " + ".join(e.columns), e.known_by, verdict(e)))
    return rows, len(rest) - len(shown)


def draw(
    check: CheckEntry[UndeclaredKeyVariablesParams, UndeclaredKeyVariablesDetails], audit: AuditResult
) -> ReportSection:
    """At one glance: each knowable column left out, and the uniqueness an intruder knowing it would find."""

    d = check.details
    assert d is not None
    if d.failing:
        summary = (
            f"The policy leaves out {', '.join(d.failing)}, which an intruder can know: with "
            f"{'them' if len(d.failing) > 1 else 'it'}, the release breaks the policy's own bounds. Declare "
            f"{'them quasi-identifiers' if len(d.failing) > 1 else 'it a quasi-identifier'}, or say in the "
            "policy why an intruder cannot know it (role other, reason)."
        )
    elif d.columns:
        summary = (
            "No column the key-variable vocabulary names, if an intruder also knew it, would break the policy's "
            f"bounds ({len(d.columns)} plausible column{'s' * (len(d.columns) != 1)} measured)."
        )
    else:
        summary = "No column left out of the quasi-identifiers looks like something an intruder could know."
    tables = []
    if d.columns:
        rows, more = table_rows(d)
        k = d.k
        tables.append(
            rs.DataTable(
                ["if an intruder also knew", "known by", "unique", *([f"below k={k}"] if k else []), "verdict"],
                rows,
                caption="What each column left out would add (the declared quasi-identifiers alone first)",
                note=f"{more} further column{'s' * (more != 1)} break no bound (all are in the JSON report)."
                if more
                else "",
                numeric=frozenset({2, 3} if k else {2}),
            )
        )
    if d.respected:
        tables.append(
            rs.DataTable(
                ["column declared unknowable", "reason the policy gives"],
                [[r.column, r.reason] for r in d.respected],
                kind="details",
                widths=("30%",),
            )
        )
    paragraphs = []
    if d.warnings:
        paragraphs.append(
            f"Warning: {', '.join(d.warnings)} would break the policy's bounds too; the vocabulary does not name "
            "them, so decide whether an intruder can know them."
        )
    if d.not_measured:
        shown = d.not_measured[:12]
        paragraphs.append(
            f"Not measured (continuous or free text): {', '.join(shown)}"
            + (f" and {len(d.not_measured) - len(shown)} more." if len(d.not_measured) > len(shown) else ".")
        )
    if not d.scanned:
        paragraphs.append(f"The columns were not read: {check.message}.")
    if d.sampled and d.scanned:
        paragraphs.append(
            f"Measured on the first {fmt(d.rows)} rows: this engine summarises only the declared columns."
        )
    return rs.ReportSection(
        summary=summary,
        value_text=f"{check.value} column{'s' * (check.value != 1)}",
        threshold_text="0 columns",
        paragraphs=paragraphs,
        tables=tables,
        limitations="an intruder may know a column neither its header nor its content reveals (a continuous "
        "measurement, a long code list); pairs are measured only among the three worst columns; missing values "
        "count as values of their own.",
    )


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
