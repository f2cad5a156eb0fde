"""The report sections of the two assessors, built with ``privaudit.plugin.sections`` and registered through
the ``privaudit_report_sections`` hook (this module is the ``report`` entry point of the ``privaudit`` group):
the check modules compute, this module presents, and imports them, never the reverse.

Each section has the plain-language sentence (what the figure means for the people in the table),
the figure against its threshold, supporting facts, a histogram of the per-class figures with the
threshold line (bins split at the threshold, see :mod:`privaudit_likeness.binning`) and the worst
classes. Only the check's typed entry (:class:`privaudit.plugin.sections.CheckEntry`: the parameters and
details through this package's models, validated by the report from the check's JSON entry) and the audit's
public attributes are read, so a section can be drawn from a saved report's figures as well.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from privaudit import hookimpl
from privaudit.plugin import figures as rf
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt

from . import beta_likeness, delta_disclosure

if TYPE_CHECKING:  # pragma: no cover - types only
    from .beta_likeness import BetaLikenessDetails, BetaLikenessParams
    from .delta_disclosure import DeltaDisclosureDetails, DeltaDisclosureParams


def _who(records: int, total: int) -> str:
    return f"{rt.people(records)} ({rt.percent(records, total)}) {'is' if records == 1 else 'are'}"


def _figure(hist: dict, threshold: float, title: str, x_label: str, line: str, caption: str):
    from .binning import failing_bins  # numpy loads when a section is drawn

    return rf.value_histogram_figure(
        hist, threshold, "above", title, x_label, line, caption=caption, failing=failing_bins(hist["edges"], threshold)
    )


def _beta_rule(variant: str, beta: float) -> tuple[str, str]:
    """What breaks the check and what passing means, in words, for the ``basic`` or ``enhanced`` variant."""
    factor = rt.fmt(1 + beta)
    if variant == "basic":
        rule = f"more than {factor} times as frequent as in the whole table (a relative gain above β = {rt.fmt(beta)})"
        ok = f"at most {factor} times as frequent as in the whole table (β = {rt.fmt(beta)})"
    else:
        rule = (
            f"more frequent than enhanced β-likeness allows (over {factor} times its share p in the whole "
            f"table, β = {rt.fmt(beta)}, or over p·(1 − ln p) for a common value)"
        )
        ok = (
            f"at most {factor} times as frequent as in the whole table (β = {rt.fmt(beta)}), and no common value "
            f"of share p above p·(1 − ln p)"
        )
    return rule, ok


def beta_section(check: rs.CheckEntry[BetaLikenessParams, BetaLikenessDetails], audit: Any) -> rs.ReportSection:
    """Section of a ``beta_likeness`` check."""
    d, p = check.details, check.params
    col, beta, variant, n = p.sensitive, p.beta, p.variant, audit.table.rows
    bad = d.records_failing
    rule, ok = _beta_rule(variant, beta)
    if bad:
        summary = (
            f"{_who(bad, n)} in groups where some {col} value is {rule}: finding their group makes an "
            f"intruder noticeably more confident that they have that value."
        )
        over = d.classes_over_cap or 0
        if over:
            summary += (
                f" In {rt.fmt(over)} of these groups a value is so concentrated that no β would allow it; "
                f"only changing those groups can."
            )
    else:
        summary = (
            f"In every group each {col} value is {ok}: finding a person's group raises an intruder's "
            f"confidence in any {col} value by at most that factor."
        )
    figure = _figure(
        d.per_class_histogram.model_dump(),
        beta,
        f"Largest relative gain of a {col} value per class",
        "(p_class − p_table) / p_table, largest per class"
        + (" (∞: over the −ln p cap)" if variant == "enhanced" else ""),
        f"β = {rt.fmt(beta)}",
        f"Classes by the largest relative gain of one of their {col} values over its share in the whole table; "
        f"the dashed line marks β; bars right of it fail.",
    )
    facts = [
        ("variant", variant),
        ("classes", d.classes),
        ("classes failing", d.classes_failing),
        ("records in those classes", f"{rt.fmt(bad)} ({rt.percent(bad, n)})"),
    ]
    if variant == "enhanced":
        facts += [
            ("classes over the −ln p cap (fail for every β)", d.classes_over_cap),
            ("largest relative gain (basic β)", d.basic_value),
        ]
    facts += [
        ("distinct values of " + col, d.values),
        ("classes without a value", d.classes_without_values),
        ("records with a missing value", d.missing_sensitive),
    ]
    columns = [("beta", "smallest β")] + ([("largest_gain", "largest gain")] if variant == "enhanced" else [])
    table = rf.worst_classes_table(
        check,
        audit,
        columns,
        failing=d.classes_failing,
        what=f"classes that break {variant} β-likeness",
        sensitive=True,
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(check.value),
        threshold_text=f"β ≤ {rt.fmt(beta)}",
        facts=rt.facts(*facts),
        figures=[figure] if figure else [],
        tables=[table] if table else [],
        limitations="bounds how much more likely a group makes each sensitive value relative to the whole table, "
        "not what the table's own distribution reveals, nor how much less likely a value becomes; it treats values "
        "as unrelated (semantically close values can still leak together) and does not stop re-identification on "
        "its own.",
    )


def delta_section(check: rs.CheckEntry[DeltaDisclosureParams, DeltaDisclosureDetails], audit: Any) -> rs.ReportSection:
    """Section of a ``delta_disclosure`` check."""
    d, p = check.details, check.params
    col, delta, n = p.sensitive, p.delta, audit.table.rows
    base = math.e if p.log_base == "e" else 2.0
    log = "ln" if p.log_base == "e" else "log₂"
    factor = rt.fmt(base**delta)
    bad, lacking = d.records_failing, d.classes_lacking_a_value
    if bad:
        summary = (
            f"{_who(bad, n)} in groups where the share of some {col} value is at least {factor} times "
            f"(δ = {rt.fmt(delta)}) higher or lower than in the whole table: finding their group changes what an "
            f"intruder believes about their {col} by that factor or more."
        )
        if lacking:
            summary += (
                f" {rt.fmt(lacking)} of these groups lack a value that the table holds, which rules that value "
                f"out for everyone in them."
            )
    else:
        summary = (
            f"In every group each {col} value of the table occurs, with a share within a factor of {factor} "
            f"(δ = {rt.fmt(delta)}) of its share in the whole table: finding a person's group neither makes a "
            f"{col} value much more or less likely nor rules one out."
        )
    figure = _figure(
        d.per_class_histogram.model_dump(),
        delta,
        f"Largest |{log} share ratio| of a {col} value per class",
        f"|{log}(p_class / p_table)|, largest per class (∞: a value is missing)",
        f"δ = {rt.fmt(delta)}",
        f"Classes by how far the share of one of their {col} values moves from its share in the whole table; the "
        f"dashed line marks δ; bars at or right of it fail.",
    )
    table = rf.worst_classes_table(
        check,
        audit,
        [("delta", "δ")],
        failing=d.classes_failing,
        what="classes that break δ-disclosure privacy",
        sensitive=True,
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(check.value),
        threshold_text=f"δ < {rt.fmt(delta)}",
        facts=rt.facts(
            ("logarithm", log),
            ("classes", d.classes),
            ("classes failing", d.classes_failing),
            ("records in those classes", f"{rt.fmt(bad)} ({rt.percent(bad, n)})"),
            ("classes lacking a value of the table", lacking),
            ("largest over the values each class holds", d.delta_present_values),
            ("distinct values of " + col, d.values),
            ("classes without a value", d.classes_without_values),
            ("records with a missing value", d.missing_sensitive),
        ),
        figures=[figure] if figure else [],
        tables=[table] if table else [],
        limitations="bounds how far each group moves every sensitive value's share, in both directions, which "
        "usually needs every value in every group; it treats values as unrelated, and does not stop "
        "re-identification on its own.",
    )


@hookimpl
def privaudit_report_sections():
    return [
        rs.Section(beta_likeness.ASSESSOR.name, beta_section),
        rs.Section(delta_disclosure.ASSESSOR.name, delta_section),
    ]
