"""direct_identifiers: a release must not carry identifier columns (names, record numbers ...).

Always run, whether or not the policy lists it. value = number of identifier-role columns present with
any non-missing value; the check fails when it is above 0.
"""

from __future__ import annotations

from privaudit.assessors.api import Assessor, Measurement, Params
from privaudit.core.hookspecs import hookimpl


class DirectIdentifiersParams(Params):
    pass


def run(ctx, params: DirectIdentifiersParams) -> Measurement:
    declared = ctx.policy.columns_with("identifier")
    present = [c for c in declared if ctx.non_missing(c) > 0]
    message = (
        f"identifier column{'s' * (len(present) > 1)} {', '.join(map(repr, present))} still hold values"
        if present
        else f"no identifier column holds a value ({len(declared)} declared)"
    )
    return Measurement(len(present), 0, not present, message,
                       {"identifier_columns": declared, "present": present})


def report_section(check, audit):
    """The report section of the direct_identifiers check: which identifier columns still hold values."""
    from privaudit.report import sections as rs

    d = check["details"]
    present, declared = d["present"], d["identifier_columns"]
    if present:
        summary = (f"Column{'s' * (len(present) > 1)} {', '.join(present)} still name people outright: anyone "
                   f"holding the file can read who each record is about.")
    else:
        summary = (f"No column names a person outright ({len(declared)} identifier column"
                   f"{'s' * (len(declared) != 1)} declared, none holds a value).")
    rows = [[c, "holds values" if c in present else "empty or removed"] for c in declared]
    return rs.ReportSection(
        summary=summary, value_text=f"{len(present)} column{'s' * (len(present) != 1)}", threshold_text="0 columns",
        tables=[rs.DataTable(["identifier column", "in the release"], rows)] if rows else [],
        limitations="only the columns the policy declares as identifiers are checked; free text or undeclared "
        "columns that name people are not detected.",
    )


ASSESSOR = Assessor(
    name="direct_identifiers",
    params=DirectIdentifiersParams,
    run=run,
    title="Direct identifiers",
    protects="identity",
    measures="whether columns that name a person outright (names, record numbers) are still in the release",
    formula="value = number of identifier-role columns with at least one non-missing value; pass iff value = 0",
    reference="Hundepool et al., Statistical Disclosure Control (Wiley, 2012), ch. 3",
    always=True,
    concurrent=True,
    report_section=report_section,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
