"""The report section of ``synthpop_disclosure`` checks, drawn from the check's typed entry:
:mod:`privaudit.assessors.synthpop_disclosure` computes (synthpop's disclosure(); Raab, Nowok & Dibben 2024),
this module presents. It names no target value of a small class: a level is named only when synthpop's 1-way
check flags it, i.e. when it makes at least :data:`NAMED_FROM` disclosive records."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.synthpop_disclosure import (
    NAME,
    SynthpopDisclosureDetails,
    SynthpopDisclosureParams,
    TargetFigures,
)
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import Section

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.pipeline.audit import AuditResult
    from privaudit.plugin.sections import CheckEntry, ReportSection

#: fewest disclosive records of a target level for the report to name the level (synthpop's thresh_1way default)
NAMED_FROM = 50


def _people(share: float, n: int) -> int:
    return int(round(share * n))


def _summary(d: SynthpopDisclosureDetails) -> str:
    from privaudit.plugin import text as rt

    ident, n = d.identity, d.n_original
    text = (
        f"Of the {rt.fmt(n)} people in the original, {rt.people(_people(ident.UiO, n))} ({rt.share(ident.UiO)}) "
        f"are the only one with {rt.qi_phrase(d.keys)}; the release has a single record with that same "
        f"combination for {rt.fmt(_people(ident.repU, n))} of them ({rt.share(ident.repU)}, replicated uniques)."
    )
    if d.targets:
        worst = max(d.targets, key=lambda t: t.DiSCO)
        text += (
            f" An intruder who reads a person's {worst.target} off the release records sharing their key values "
            f"would be right, with no doubt left in the release, for {rt.share(worst.DiSCO)} of the original's "
            f"people (DiSCO); the original itself would give it away for {rt.share(worst.Dorig)} (Dorig)."
        )
    return text


def _target_rows(targets: list[TargetFigures]) -> list[list[str]]:
    from privaudit.plugin import text as rt

    return [
        [
            t.target,
            rt.share(t.Dorig),
            rt.share(t.iS),
            rt.share(t.DiS),
            rt.share(t.DiSCO),
            rt.share(t.DiSDiO),
            "–" if t.TCAP is None else rt.share(t.TCAP),
            rt.share(t.repU),
            str(t.max_denom),
        ]
        for t in targets
    ]


def _flags(t: TargetFigures, over: float) -> list[str]:
    """Plain sentences for synthpop's 1-way and 2-way checks of one target (no value of a small class)."""
    from privaudit.plugin import text as rt

    out = []
    one = t.check_1way
    if one is not None:
        level = f"level {one.level!r}" if one.level_disclosive >= NAMED_FROM else "one level"
        out.append(
            f"{t.target}: {level} makes {rt.share(one.level_share_of_disclosive)} of the disclosive records "
            f"({rt.fmt(one.level_disclosive)}); it is {rt.share(one.level_share_of_all)} of all records, so an "
            "intruder may guess it without the release. synthpop suggests leaving it out (not_target_levels) "
            "and reading the figures again."
        )
    if t.n_2way:
        keys = sorted({p.key for p in t.check_2way})
        out.append(
            f"{t.target}: {t.n_2way} pair(s) of a key level and a target level make large disclosive cells and "
            f"hold for over {over:g}% of the original's records with that key level ({', '.join(keys)}): relations an "
            "intruder may know beforehand (the JSON details list them; exclude them with `exclude`)."
        )
    return out


def draw(check: CheckEntry[SynthpopDisclosureParams, SynthpopDisclosureDetails], audit: AuditResult) -> ReportSection:
    """The section: the identity figures, one row of attribute figures per target, synthpop's flags."""
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    if check.status == "error":
        return rs.ReportSection(summary=check.message)
    d, limit = check.details, float(check.params.max_share)
    ident = d.identity
    paragraphs = [
        f"The check allows at most {rt.share(limit)} of the original's people as replicated uniques (repU) or as "
        f"correctly disclosed for any target (DiSCO); the worst is {d.worst_measure}"
        + (f" for {d.worst_target}" if d.worst_target else "")
        + f", {rt.share(check.value)}.",
        "DiSCO counts a person when every release record with their key values has one target value and it is "
        "theirs; Dorig is the same count within the original, what the key variables alone give away. All "
        "figures are shares of the original's records (synthpop prints them as percentages).",
    ]
    excluded = [t.target for t in d.targets if t.exclusions["original"].remaining < d.n_original]
    if excluded:
        paragraphs.append(f"Some records were left out of the measures for {', '.join(excluded)} (see details).")
    for t in d.targets:
        paragraphs += _flags(t, check.params.thresh_2way[1])
    tables = []
    if d.targets:
        tables.append(
            rs.DataTable(
                ["target", "Dorig", "iS", "DiS", "DiSCO", "DiSDiO", "TCAP", "repU", "max denominator"],
                _target_rows(d.targets),
                caption="Attribute disclosure per target (shares of the original records)",
                numeric=frozenset(range(1, 9)),
            )
        )
    return rs.ReportSection(
        summary=_summary(d),
        value_text=rt.share(check.value),
        threshold_text=f"≤ {rt.share(limit)}",
        paragraphs=paragraphs,
        facts=rt.facts(
            ("original records", d.n_original),
            ("released records", d.n_released),
            ("unique in the original (UiO)", rt.share(ident.UiO)),
            ("unique in the release (UiS, of its records)", rt.share(ident.UiS)),
            ("unique in the original, key in the release (UiOiS)", rt.share(ident.UiOiS)),
            ("replicated uniques (repU)", rt.share(ident.repU)),
            ("denom_lim", f"{d.denom_lim}{' (cells over it left out)' if d.exclude_over_denom_lim else ''}"),
        ),
        tables=tables,
        limitations="counts exact matches on the key variables only: an intruder who knows more variables, or "
        "uses near matches or a model of the release, may learn more; a disclosure that is common knowledge "
        "(synthpop's 1-way and 2-way flags) is counted all the same unless excluded.",
    )


@hookimpl
def privaudit_report_sections():
    return [Section(NAME, draw)]
