"""The report section of ``l_diversity`` checks (:mod:`privaudit.assessors.l_diversity` computes, this module
presents): drawn from the check's typed entry, registered through ``privaudit_report_sections``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.l_diversity import ASSESSOR, LDiversityDetails, LDiversityParams
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection


def draw(check: CheckEntry[LDiversityParams, LDiversityDetails], audit: AuditResult) -> ReportSection:
    """The report section of an l_diversity check: who is in too-uniform classes, per-class chart, worst classes."""
    from privaudit.plugin import figures as rf
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d, p = check.details, check.params
    col, l, variant, n = p.sensitive, p.l, p.variant, audit.table.rows
    bad = d.records_failing
    who = f"{rt.people(bad)} ({rt.percent(bad, n)}) {'is' if bad == 1 else 'are'} in groups"
    if variant == "recursive":
        c = p.c
        threshold_text, value_text = f"ratio < c = {rt.fmt(c)} (l = {rt.fmt(l)})", rt.fmt(check.value)
        axis, line, side = "r₁ / (r_l + … + r_m) per class", f"c = {rt.fmt(c)}", "above"
        summary = (
            f"{who} where one {col} value dominates (r₁ ≥ c·(r_l + … + r_m), c = {rt.fmt(c)}, l = {rt.fmt(l)}): "
            f"finding their group makes that value a good guess."
            if bad
            else f"In every group no {col} value dominates (c = {rt.fmt(c)}, l = {rt.fmt(l)}): finding a person's "
            f"group leaves several plausible values."
        )
    else:
        threshold_text, value_text, side, line = f"l ≥ {rt.fmt(l)}", rt.fmt(check.value), "below", f"l = {rt.fmt(l)}"
        kind = "different values" if variant == "distinct" else "equally likely values (exp of the entropy)"
        axis = f"{'distinct values' if variant == 'distinct' else 'exp(entropy)'} of {col} per class"
        consequence = (
            f"finding their group narrows their {col} down to fewer than {rt.fmt(l)} possibilities"
            if variant == "distinct"
            else f"finding their group makes their {col} as easy to guess as a choice among fewer than "
            f"{rt.fmt(l)} equally likely values"
        )
        summary = (
            f"{who} with fewer than l = {rt.fmt(l)} {kind} of {col}: {consequence}."
            if bad
            else f"Every group has at least l = {rt.fmt(l)} {kind} of {col}: finding a person's group leaves at "
            f"least {rt.fmt(l)} possibilities."
        )
        if bad and variant == "distinct" and check.value == 1:
            summary += f" In the worst groups everyone shares one {col} value: finding the group reveals it."
    bound = c if variant == "recursive" else l
    # entropy and recursive: the check's bins with the bound as an edge (no bin holds passing and failing classes)
    hist = (d.threshold_histogram or d.per_class_histogram).model_dump()
    figure = rf.value_histogram_figure(
        hist,
        bound,
        side,
        f"Diversity of {col} per class",
        axis,
        line,
        integers=variant == "distinct",
        failing_total=d.classes_failing,
        caption=f"Classes by the diversity of their {col} values; the dashed line marks the policy's bound.",
    )
    return rs.ReportSection(
        summary=summary,
        value_text=value_text,
        threshold_text=threshold_text,
        facts=rt.facts(
            ("variant", variant),
            ("classes", d.classes),
            ("classes failing", d.classes_failing),
            ("records in those classes", f"{rt.fmt(bad)} ({rt.percent(bad, n)})"),
            ("records with a missing value", d.missing_sensitive),
        ),
        figures=[figure] if figure else [],
        tables=_worst_classes(check, audit),
        limitations="ignores how the values are spread in the whole table and what they mean: skewed or "
        "semantically similar values (three kinds of cancer) still leak (skewness and similarity attacks); "
        "it does not stop re-identification on its own.",
    )


def _worst_classes(check: CheckEntry[LDiversityParams, LDiversityDetails], audit: AuditResult) -> list:
    """The table of the least diverse classes that fail (none when every class passes)."""
    from privaudit.plugin import figures as rf

    table = rf.worst_classes_table(
        check,
        audit,
        [("diversity", "diversity")],
        failing=check.details.classes_failing,
        what="classes that fail",
        sensitive=True,
    )
    return [table] if table else []


@hookimpl
def privaudit_report_sections():
    return [Section(ASSESSOR.name, draw)]
