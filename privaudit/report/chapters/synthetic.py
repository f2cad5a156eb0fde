"""The report's "Synthetic release" chapter: when the audit holds synthetic-release attacks (checks whose
assessor's details model names a ``synthetic_attack``), their risks side by side with their confidence
intervals and limits, and where the distance-to-closest-record histograms of synthetic and holdout records
are (the section of the check whose details model declares ``synthetic_distances``). Built from the report's
checks as its sections read them (:class:`~privaudit.plugin.sections.CheckEntry`: details validated once by
their assessors' models)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privaudit.plugin import charts
from privaudit.plugin.chapter import Chapter, ChapterContent, ChapterInput, Chart, Link, Paragraph, Table
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import DataTable, Figure
from privaudit.plugin.text import share


def _model(registry: Any, assessor: str) -> Any:
    found = registry.assessors.get(assessor) if registry is not None else None
    return getattr(found, "details", None)


def _typed(view: Any) -> Any:
    """The typed entry of a view whose check holds details (not errored, its details model at hand), or None."""
    entry = getattr(view, "entry", None)
    return entry if entry is not None and entry.status != "error" and entry.details is not None else None


@dataclass
class SyntheticView:
    figure: Figure | None
    table: DataTable
    distance_anchor: str | None  # the distance_to_closest_record section, when there is one
    membership: list[Any] | None = None  # membership attacks and ε bounds: a ROC figure and a table
    disclosure: DataTable | None = None  # synthpop's disclosure measures beside the original's own figures


def synthetic_view(data: dict, views: list[Any], registry: Any) -> SyntheticView | None:
    """The chapter's content, or None when the audit has no synthetic-release attack to show: a
    distance-to-closest-record check alone (it may also audit a masked release) has its own section,
    and a chapter of one sentence pointing to it would fill a PDF page of its own."""
    attacks = []  # (check entry, label)
    distance = None  # the anchor of the distance-to-closest-record section
    for v in views:
        model = _model(registry, v.check["assessor"])
        if distance is None and getattr(model, "synthetic_distances", False):
            distance = v.anchor
        elif getattr(model, "synthetic_attack", None) and (entry := _typed(v)) is not None:
            attacks.append((entry, f"{model.synthetic_attack} ({entry.id})"))
    membership = membership_view(views, registry)
    measures = disclosure_view(views, registry)
    if not attacks:
        return SyntheticView(None, DataTable([], []), None, membership, measures) if membership else None
    rows = []
    for c, label in attacks:
        lo, hi = c.details.risk_ci
        rows.append(
            [
                label,
                share(c.value),
                f"{share(lo)} – {share(hi)}",
                share(c.details.attack_rate.value),
                share(c.details.control_rate.value),
                share(c.details.baseline_rate.value),
                share(c.threshold),
                c.status.upper(),
            ]
        )
    figure = Figure(
        charts.share_bars_chart(
            [label for _, label in attacks],
            [c.value for c, _ in attacks],
            [c.status == "fail" for c, _ in attacks],
            title="Privacy risks of the synthetic release",
            x_label="risk (attack success beyond the control attack), with its confidence interval",
            intervals=[tuple(c.details.risk_ci) for c, _ in attacks],
        ),
        "Each attack's risk (r_train − r_control)/(1 − r_control) with its confidence interval; red bars fail "
        "their check's max_risk.",
    )
    table = DataTable(
        ["attack", "risk", "interval", "on training", "on control", "naive baseline", "max_risk", "result"],
        rows,
        caption="The three attacks of Giomi et al. (PETS 2023)",
        numeric=frozenset({1, 3, 4, 5, 6}),
    )
    return SyntheticView(figure, table, distance, membership, measures)


def disclosure_view(views: list[Any], registry: Any) -> DataTable | None:
    """synthpop's short print of its disclosure measures (Raab, Nowok & Dibben 2024) for the checks whose details
    model declares ``disclosure_measures``: per check the original's uniques beside the replicated ones (UiO /
    repU), and per target what the original discloses beside what the release discloses correctly (Dorig /
    DiSCO), all shares of the original's records."""
    rows = []
    for v in views:
        model = _model(registry, v.check["assessor"])
        entry = _typed(v)
        if entry is None or not getattr(model, "disclosure_measures", False):
            continue
        d = entry.details

        def judged(figure: float, limit: float = float(entry.threshold)) -> str:
            return "over max_share" if exceeds(figure, limit) else "within"

        rows.append([f"identity ({entry.id})", share(d.identity.UiO), share(d.identity.repU), judged(d.identity.repU)])
        rows += [[f"{t.target} ({entry.id})", share(t.Dorig), share(t.DiSCO), judged(t.DiSCO)] for t in d.targets]
    if not rows:
        return None
    return DataTable(
        ["measure", "in the original (UiO / Dorig)", "by the release (repU / DiSCO)", "against the limit"],
        rows,
        caption="synthpop's disclosure measures (shares of the original records)",
        numeric=frozenset({1, 2}),
    )


def membership_view(views: list[Any], registry: Any) -> list[Any] | None:
    """The membership part of the chapter: the checks whose details model declares ``membership_attack`` (their
    ROC curves on log axes) or ``epsilon_bound`` (an ε lower bound), and one table of the figures and bounds
    beside the claims."""
    from privaudit.plugin.membership_section import roc_loglog_chart

    attacks, bounds = [], []
    for v in views:
        model = _model(registry, v.check["assessor"])
        entry = _typed(v)
        if entry is None or model is None:
            continue
        if getattr(model, "membership_attack", False):
            attacks.append((entry, entry.details))
        elif getattr(model, "epsilon_bound", False):
            bounds.append((entry, entry.details))
    if not attacks and not bounds:
        return None
    out: list[Any] = []
    rows = []
    for c, d in attacks:
        best = d.attacks[d.best_attack]
        out.append(
            Figure(
                roc_loglog_chart(
                    [(name, f.roc["fpr"], f.roc["tpr"]) for name, f in d.attacks.items()],
                    title=f"Membership ROC curves ({c.id}), log-log",
                ),
                "True-positive against false-positive rate on log axes (Carlini et al. 2022); the dashed "
                "diagonal is chance.",
            )
        )
        lo, hi = best.auc.ci
        t = best.tpr_at_fpr["0.001"]
        rows.append(
            [
                f"membership ({c.id})",
                f"AUC {best.auc.value:.3f} ({lo:.3f} – {hi:.3f})",
                f"TPR {t.value:.4f} at 0.1% FPR ({t.ci[0]:.4f} – {t.ci[1]:.4f})",
                c.status.upper(),
            ]
        )
    for c, d in bounds:
        rows.append(
            [
                f"ε lower bound ({c.id})",
                f"ε ≥ {d.epsilon_lower_bound:.3g} at {d.confidence:.0%}",
                f"claimed ε = {d.claimed_epsilon:g}",
                c.status.upper(),
            ]
        )
    out.append(
        DataTable(
            ["check", "figure", "beside", "result"], rows, caption="Membership inference and the empirical ε bound"
        )
    )
    return out


INTRO = (
    "The release is a synthetic table generated from a training table. Its records are not people, so the checks "
    "below ask whether it still leaks the people of the training table: attacks run on the training records and, "
    "as a control, on holdout records the generator never saw"
)


def build(report: ChapterInput) -> ChapterContent | None:
    """The chapter: the attacks' risks side by side, the membership attacks and ε bounds."""
    v = synthetic_view(dict(report.data), list(report.checks), report.registry)
    if v is None:
        return None
    intro: list[Any] = [INTRO]
    if v.distance_anchor:
        intro += [
            "; the distances of synthetic and holdout records to the closest training record are in ",
            Link("their check", v.distance_anchor),
        ]
    blocks: list[Any] = [Paragraph((*intro, "."))]
    if v.figure:
        blocks.append(Chart(v.figure))
    if v.table.rows:
        blocks.append(Table(v.table))
    blocks += [Chart(p) if isinstance(p, Figure) else Table(p) for p in v.membership or []]
    if v.disclosure is not None:
        blocks.append(Table(v.disclosure))
    return ChapterContent(blocks=tuple(blocks))


@hookimpl
def privaudit_report_chapters() -> list[Chapter]:
    return [Chapter("synthetic", "Synthetic release", build, place="before_checks", rank=10)]
