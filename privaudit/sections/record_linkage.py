"""The report section of record_linkage checks: presentation only, every figure it shows is one
the check (:mod:`privaudit.assessors.record_linkage`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.record_linkage import NAME, RecordLinkageDetails, RecordLinkageParams
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[RecordLinkageParams, RecordLinkageDetails], audit: AuditResult) -> ReportSection:
    """The report section of a record_linkage check: how many people the intruder re-identifies, by
    class size (distance) or per estimation of m and u (probabilistic)."""
    d = check.details
    n, value, limit = int(d.n_intruder or 0), float(check.value), float(check.params.max_rate)
    known = rt.qi_phrase(d.known_columns)
    linked = int(round(value * n))
    summary = (
        f"An intruder who already holds {rt.fmt(n)} people's original records ({known}) links "
        f"{rt.people(linked)} ({rt.share(value)}) to their own released record: for them the masking does "
        f"not prevent re-identification."
    )
    paragraphs = [f"The check allows at most {rt.share(limit)} correct links; it measured {rt.share(value)}."]
    if d.method == "distance":
        facts, figures, tables = _distance(d, limit, n, paragraphs)
    else:
        figures, (facts, tables) = [], _probabilistic(d, n, paragraphs)
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(value),
        threshold_text=f"≤ {rt.share(limit)}",
        paragraphs=paragraphs,
        facts=facts,
        figures=figures,
        tables=tables,
        limitations="models one intruder file and one linkage method: an intruder with more attributes, other "
        "sources or a better method can link more; it says nothing about what the linked records reveal.",
    )


def _distance(d: RecordLinkageDetails, limit: float, n: int, paragraphs: list[str]) -> tuple[list, list, list]:
    """Facts, figures and tables of a distance linkage (adds its paragraphs): correct links by class size."""
    from privaudit.common.thresholds import exceeds
    from privaudit.plugin import charts

    figures: list[rs.Figure] = []
    tables: list[rs.DataTable] = []
    how = (
        f"{d.metric} distance over standardized attributes, "
        f"{'a one-to-one global assignment' if d.assignment == 'one_to_one' else 'nearest released record'}"
    )
    paragraphs.append(f"Linkage: {how}. A record tied with k candidates counts 1/k.")
    if d.worst_case_rate is not None:
        paragraphs.append(
            f"With the attribute weights that maximise correct links (the maximum-knowledge "
            f"intruder) the rate is {rt.share(d.worst_case_rate)}, against "
            f"{rt.share(d.rate)} with the plain weights; the check uses the larger. That "
            "worst case is an upper bound on what an intruder who does not know the "
            "original can achieve, not an attack one is expected to run (Torra's slides: "
            "the weights are learnt from the true links)."
        )
    by_size = d.rate_by_class_size or []
    if by_size:
        labels = [f"class size {b.class_size}" for b in by_size]
        shares = [float(b.rate) for b in by_size]
        svg = charts.share_bars_chart(
            labels,
            shares,
            [exceeds(s, limit) for s in shares],
            title="Correct links by the size of the record's class",
            x_label="share of intruder records linked correctly",
            limit=limit,
            limit_label=f"max_rate = {rt.share(limit)}",
        )
        figures.append(
            rs.Figure(svg, "Records in small classes are the easiest to link; the dashed line marks max_rate.")
        )
        tables.append(
            rs.DataTable(
                ["class size", "intruder records", "linked correctly", "rate"],
                [[b.class_size, rt.fmt(b.records), rt.fmt(b.correct), rt.share(b.rate)] for b in by_size],
                caption="Correct links by class size",
                numeric=frozenset({1, 2, 3}),
                kind="details",
            )
        )
    facts = rt.facts(
        ("intruder records", n),
        ("released records", d.n_released),
        ("correct links", rt.fmt(d.correct)),
        ("distinct links (nearest < half the second)", rt.share(d.distinct_share or 0)),
        ("precision of distinct links", None if d.distinct_precision is None else rt.share(d.distinct_precision)),
        ("blocking", "; ".join(" + ".join(b) for b in d.blocking or []) or None),
        ("own record among the candidates", None if d.pair_recall is None else rt.share(d.pair_recall)),
    )
    if d.blocking:
        paragraphs.append(
            "Blocking: each intruder record is compared only with the released records that "
            "agree with it on a blocking rule; a record with no candidate is not linked."
        )
    return facts, figures, tables


def _probabilistic(d: RecordLinkageDetails, n: int, paragraphs: list[str]) -> tuple[list, list]:
    """Facts and tables of a Fellegi-Sunter linkage (adds its paragraphs): one row per estimation of m and u."""
    tables: list[rs.DataTable] = []
    rows = []
    for e in d.estimations:
        rows.append(
            [
                e.estimation,
                rt.share(e.rate),
                rt.share(e.top1_correct),
                "–" if e.link_precision is None else rt.share(e.link_precision),
                rt.fmt(e.clerical_pairs),
                f"{e.match_prior:.3g} (expected {e.expected_match_prior:.3g})",
            ]
        )
        for warning in e.warnings or []:
            paragraphs.append(f"Warning ({e.estimation}): {warning}")
    tables.append(
        rs.DataTable(
            [
                "m/u from",
                "linked above threshold",
                "top-1 correct",
                "link precision",
                "clerical pairs",
                "match prior",
            ],
            rows,
            caption="Fellegi–Sunter linkage per estimation of m and u (the check uses the worst)",
            numeric=frozenset({1, 2, 3, 4}),
            kind="details",
        )
    )
    paragraphs.append(
        "With m and u from the true pairs the model is the worst-case intruder; EM models an "
        "intruder without labels, whose estimates can be implausible (see the warnings)."
    )
    facts = rt.facts(
        ("intruder records", n),
        ("candidate pairs", d.candidate_pairs),
        ("own record among the candidates", rt.share(d.pair_recall or 0)),
        ("blocking", "; ".join(" + ".join(b) for b in d.blocking or []) or None),
    )
    return facts, tables


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
