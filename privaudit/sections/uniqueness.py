"""The report section of uniqueness checks: presentation only, every figure it shows is one the check
(:mod:`privaudit.assessors.uniqueness`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.uniqueness import NAME, PopulationUniqueness, UniquenessDetails, UniquenessParams
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def draw(check: CheckEntry[UniquenessParams, UniquenessDetails], audit: AuditResult) -> ReportSection:
    """The report section of a uniqueness check: sample uniques, record-risk chart, unique classes."""
    from privaudit.plugin import binning as rb
    from privaudit.plugin import figures as rf

    d, p = check.details, check.params
    know = rt.qi_phrase(check.quasi_identifiers or audit.policy.quasi_identifiers)
    u, n, above = d.sample_uniques, d.records, d.records_above_risk_threshold
    if u:
        summary = (
            f"{rt.people(u)} ({rt.percent(u, n)}) {'is the only one' if u == 1 else 'are each the only one'} "
            f"in the release with {know}: anyone who knows these values can find their record."
        )
    else:
        summary = (
            f"Nobody is the only one in the release with {know}; the highest chance of picking the right "
            f"record is {rt.fmt(d.max_risk, 3)}."
        )
    paragraphs = [
        f"An intruder who knows {know} and picks one of the matching records is right with probability "
        f"1/f_k: {rt.fmt(d.average_risk, 3)} on average; {rt.people(above)} "
        f"({rt.percent(above, n)}) have a risk above {rt.fmt(d.risk_threshold)}."
    ]
    pop = d.population_uniqueness
    tables = []
    if pop and pop.dankar is not None:
        paragraph, table = _population(pop, know)
        paragraphs.append(paragraph)
        tables.append(table)
    if d.expected_reidentifications is not None:
        weight = d.weight_column
        basis = (
            f"with population class sizes F_k estimated from the sampling weights in {weight}"
            if weight
            else "with no sampling weights, taking each class's population size F_k as its size in the release"
        )
        paragraphs.append(
            f"If an intruder tries to re-identify every record, about "
            f"{rt.fmt(d.expected_reidentifications, 4)} of them are expected to be right "
            f"({rt.share(d.global_risk)} of the records; sdcMicro's individual risk, {basis})."
        )
    if d.population_records is not None:
        paragraphs.append(
            f"Against the population table ({rt.fmt(d.population_records)} records), "
            f"{rt.share(d.pu_given_su)} of the sample-unique records are unique in the population "
            f"too (P(PU|SU)); {rt.fmt(d.sample_uniques_absent_from_population)} are not in it."
        )
    figure = rf.value_histogram_figure(
        d.risk_histogram.model_dump(),
        d.risk_threshold,
        "above",
        "Record re-identification risk",
        "re-identification risk 1/f_k",
        f"risk threshold {rt.fmt(d.risk_threshold)}",
        y_label="records",
        failing=rb.reciprocal_bins_failing(d.risk_histogram.edges, d.risk_threshold),
        caption="Records by their chance of being picked out: 1 / size of their group (1 alone, 0.5 in a pair …).",
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(check.value),
        threshold_text=f"≤ {rt.share(p.max_share)}",
        paragraphs=paragraphs,
        facts=rt.facts(
            ("records", n),
            ("sample-unique records", u),
            ("average risk", d.average_risk),
            ("highest risk", d.max_risk),
            ("expected re-identifications", d.expected_reidentifications),
            ("global risk", rt.share(d.global_risk) if d.global_risk is not None else None),
            ("weight column", d.weight_column),
            ("P(PU | SU)", d.pu_given_su),
            ("estimated population uniques", rt.share(pop.dankar) if pop and pop.dankar is not None else None),
        ),
        figures=[figure] if figure else [],
        tables=tables
        + [t for t in [rf.worst_classes_table(check, audit, failing=u, what="classes of a single record")] if t],
        limitations="counts uniqueness in the sample only: a record unique here may have look-alikes in the "
        "population (and the reverse); the 1/f_k risk assumes the intruder knows the person is in the release.",
    )


def _population(pop: PopulationUniqueness, know: str) -> tuple[str, rs.DataTable]:
    """The paragraph and table of the population-uniqueness estimates (Pitman, Zayatz, SNB; Dankar et al.'s
    rule), when the check made them."""
    n_pop = pop.population_size
    how = {"census": "the release is the whole population", "none": "no record is unique in the release"}.get(
        pop.model,
        f"{pop.model.capitalize() if pop.model != 'snb' else 'SNB'} model, chosen by Dankar et al.'s rule",
    )
    estimate = f" (about {rt.fmt(round(pop.dankar * n_pop))} of {rt.fmt(n_pop)})" if n_pop else ""
    paragraph = (
        f"In the population this release was sampled from ({rt.fmt(n_pop)} people, sampling fraction "
        f"{rt.fmt(pop.sampling_fraction, 3)}), an estimated {rt.share(pop.dankar)} of the "
        f"people{estimate} are the only one with {know} ({how}): matching such a person's record "
        f"identifies them for certain."
    )
    names = {
        "pitman": "Pitman",
        "zayatz": "Zayatz",
        "snb": "SNB (shifted negative binomial)",
        "dankar": "Dankar et al.'s rule",
    }
    rows = []
    for key, name in names.items():
        v = getattr(pop, key)
        note = ""
        if key == "pitman" and not pop.pitman_converged:
            note = "did not converge"
        elif key == "snb":
            note = f"{('corrected' if pop.snb_equations is None else pop.snb_equations)} equations"
        elif key == "dankar":
            note = "chose " + {
                "pitman": "Pitman",
                "zayatz": "Zayatz",
                "snb": "SNB",
                "census": "the sample (f = 1)",
                "none": "none (no sample uniques)",
            }.get(pop.model, str(pop.model))
        rows.append(
            [
                name,
                rt.share(v) if v is not None else "no estimate",
                rt.fmt(round(v * n_pop)) if v is not None and n_pop else rt.MISSING,
                note,
            ]
        )
    table = rs.DataTable(
        ["model", "population uniques (share)", "people (estimate)", "note"],
        rows,
        caption="Estimated population uniqueness",
        numeric=frozenset({1, 2}),
        note="Shares of the population's people who are unique on the quasi-identifiers. "
        "Dankar et al.'s rule: Pitman when the sampling fraction is at most 0.1 (Zayatz "
        "if Pitman does not converge), else the smaller of Zayatz and SNB.",
    )
    return paragraph, table


@hookimpl
def privaudit_report_sections():
    return [rs.Section(NAME, draw)]
