"""The report section of rr_attribute_disclosure checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.rr_attribute_disclosure`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.rr_attribute_disclosure import NAME, RRDetails, RRParams
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[RRParams, RRDetails], audit: AuditResult) -> ReportSection:
    """The report section of an rr_attribute_disclosure check: how well an intruder who knows the published
    randomization reconstructs a person's sensitive value, the records' risk histogram against max_risk and
    the keep probabilities."""
    from privaudit.plugin import figures as rf

    d = check.details
    s, qi, limit, value = d.sensitive, list(d.qi), float(check.params.max_risk), float(check.value)
    hist = d.risk_histogram
    records = int(sum(hist.counts) + hist.infinite) if hist else 0
    above = int(round((d.share_above or 0.0) * records))
    know = rt.qi_phrase(qi)
    if above:
        summary = (
            f"{rt.people(above)} ({rt.percent(above, records)}) can have their {s} guessed right with a "
            f"probability above {rt.fmt(limit)} by an intruder who knows {know} and the published "
            f"randomization; at worst {rt.fmt(value, 3)}."
        )
    else:
        summary = (
            f"Nobody's {s} can be guessed right with a probability above {rt.fmt(limit)} by an intruder who "
            f"knows {know} and the published randomization; the highest is {rt.fmt(value, 3)}."
        )
    keep, files = d.keep_probabilities or {}, d.matrix_files or {}
    randomized = any(v is not None for v in keep.values()) or any(files.values())
    meaning = (
        "the randomization blurs the released values, but the intruder undoes part of it with the "
        "published matrices (Guo, Ying & Wu's reconstruction probability)."
        if randomized
        else f"nothing is randomized, so this is the share of {s} values in the person's group (the l-diversity risk)."
    )
    paragraphs = [
        f"A risk of {rt.fmt(value, 2)} means that such a guess is right about {rt.fmt(round(100 * value))} times "
        f"in 100: {meaning}",
        "The joint distribution of the original values is "
        + (
            "taken from the original table (what the auditor knows; the worst case)."
            if d.joint_from == "original"
            else "estimated from the release by inverting the randomization (π̂ = P⁻¹λ; negative cells are set to 0 "
            "and the rest renormalised)."
        )
        + f" Records are placed by their {('released' if d.records_mapped_to is None else d.records_mapped_to)} values.",
    ]
    table = _randomization_table([*qi, s], s, keep, files)
    figures = []
    if hist:
        figure = rf.value_histogram_figure(
            hist.model_dump(),
            limit,
            "above",
            f"Risk of reconstructing {s}",
            f"Pr({s} | quasi-identifiers) of the record's cell",
            f"max_risk = {rt.fmt(limit)}",
            y_label="records",
            failing_total=above,
            caption=f"Records by the probability that an intruder reconstructs their {s}; the dashed line marks "
            f"max_risk.",
        )
        if figure:
            figures.append(figure)
    cell = d.riskiest_cell or {}
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(value),
        threshold_text=f"risk ≤ {rt.fmt(limit)}",
        paragraphs=paragraphs,
        facts=rt.facts(
            ("records", records),
            ("records above max_risk", f"{rt.fmt(above)} ({rt.percent(above, records)})"),
            ("riskiest cell", ", ".join(f"{k} = {v}" for k, v in cell.items()) or None),
            ("cells of the contingency table", d.cells),
            ("joint distribution", d.joint_from),
        ),
        figures=figures,
        tables=[table],
        limitations="assumes the intruder knows only the quasi-identifiers and the published matrices; it bounds "
        "the guess of one sensitive value, not re-identification, and an estimated joint can under- or overstate "
        "the risk on small tables.",
    )


def _randomization_table(columns: list[str], s: str, keep: dict, files: dict) -> rs.DataTable:
    """One row per quasi-identifier and the sensitive column ``s``: its published keep probability or matrix."""
    rows = []
    for column in columns:
        role = "sensitive" if column == s else "quasi-identifier"
        if files.get(column):
            rows.append([column, role, "published matrix", files[column]])
        elif keep.get(column) is not None:
            rows.append(
                [
                    column,
                    role,
                    rt.fmt(keep[column], 4),
                    f"kept with probability {rt.fmt(keep[column], 4)}, else replaced by another value at random",
                ]
            )
        else:
            rows.append([column, role, "1", "not randomized"])
    table = rs.DataTable(
        ["column", "role", "keep probability", "randomization"],
        rows,
        caption="Published randomization per column",
        numeric=frozenset({2}),
        kind="details",
        widths=("18%", "19%", "15%"),
    )
    return table


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
