"""The report section of the synthetic-release attacks' checks (singling_out, linkability, inference): presentation only, every figure it shows is one
the check (:mod:`privaudit.assessors.synthetic_attacks`) computed and stored in its details."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.assessors.synthetic_attacks import (
    INFERENCE,
    LINKABILITY,
    SINGLING_OUT,
    AttackDetails,
    InferenceParams,
    LinkabilityParams,
    SinglingOutParams,
    judged,
)
from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


def _rate_row(label: str, rate: dict) -> list:
    return [
        label,
        rt.share(rate["value"]),
        f"{rt.share(rate['ci'][0])} – {rt.share(rate['ci'][1])}",
        rt.fmt(rate["trials"]),
        rt.fmt(round(float(rate["successes"]), 2)),
    ]


#: what each attack tries, and what counts as its success (the report's words)
SCENARIO = {
    "singling_out": (
        'isolate one record of the release with a predicate ("the only {what}")',
        "singled out by a predicate written on the release",
    ),
    "linkability": (
        "join two files about the same people through the release",
        "linked: both halves of their record lead to the same synthetic record",
    ),
    "inference": (
        "guess a sensitive attribute from the attributes they know, through the nearest synthetic record",
        "whose secret was guessed right",
    ),
}


def draw(
    check: CheckEntry[SinglingOutParams | LinkabilityParams | InferenceParams, AttackDetails], audit: AuditResult
) -> ReportSection:
    """The report section of a synthetic-release attack: the three rates with their intervals and the risk."""
    from privaudit.plugin import charts

    d = check.details
    kind, risk, limit = d.attack, d.risk, float(check.params.max_risk)
    level = f"{float(d.confidence_level):.0%}"
    attack_rate, control_rate, baseline = d.attack_rate, d.control_rate, d.baseline_rate
    target = _target(d)
    summary = (
        f"An attacker using the synthetic release succeeds on {rt.share(attack_rate.value)} of the people "
        f"in the training data against {rt.share(control_rate.value)} of comparable people who were not "
        f"in it ({target}): the release adds a {kind.replace('_', '-')} risk of {rt.share(risk.value)} "
        f"({level} interval {rt.share(risk.ci[0])} – {rt.share(risk.ci[1])})."
    )
    goal, success = SCENARIO[kind]
    paragraphs = [
        f"The attacker tries to {goal.format(what='person with these attributes')}. Success rates are Wilson "
        f"estimates; the risk (r_train − r_control)/(1 − r_control) is the share of the attack's failures on "
        f"outsiders that it turns into successes on the people the release was made from.",
        f"The check allows a risk of at most {rt.share(limit)}, compared with the "
        f"{'lower bound of the interval' if d.judge_by == 'lower_bound' else 'point estimate'}.",
    ]
    if not d.beats_baseline:
        paragraphs.append(
            f"Warning: the attack does no better than the naive baseline ({rt.share(attack_rate.value)} "
            f"against {rt.share(baseline.value)}), so the risk it yields cannot be trusted."
        )
    paragraphs += [f"Note: {n}" for n in d.notes if "naive baseline" not in n]
    shares = [attack_rate.value, control_rate.value, baseline.value]
    labels = ["training records", "control records", "naive baseline"]
    failing = [check.status == "fail", False, False]
    figures = [
        rs.Figure(
            charts.share_bars_chart(
                labels,
                shares,
                failing,
                title="Success rate of the attack",
                x_label=f"share of attacks that succeed ({success})",
            ),
            "The gap between the training and the control bars is what the release gives away.",
        )
    ]
    tables = [
        rs.DataTable(
            ["attack", "success rate", f"{level} interval", "attacks", "successes"],
            [
                _rate_row("on training records", attack_rate.model_dump()),
                _rate_row("on control records", control_rate.model_dump()),
                _rate_row("naive baseline", baseline.model_dump()),
            ],
            caption=f"Success rates of the {kind.replace('_', '-')} attack",
            numeric=frozenset({1, 3, 4}),
            kind="details",
        )
    ]
    if kind == "inference" and len(d.secrets) > 1:
        _per_secret(d, level, limit, tables, figures)
    facts = rt.facts(
        ("risk", rt.share(risk.value)),
        (f"{level} interval", f"{rt.share(risk.ci[0])} – {rt.share(risk.ci[1])}"),
        ("attacks on training / control records", f"{rt.fmt(d.n_attacks.training)} / {rt.fmt(d.n_attacks.control)}"),
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.share(risk.value),
        threshold_text=f"≤ {rt.share(limit)}",
        paragraphs=paragraphs,
        facts=facts,
        figures=figures,
        tables=tables,
        limitations="measures one attack with the attributes given; a stronger attacker, other attributes or "
        "outside sources can do better, and the estimate carries the sampling error of n_attacks attacks.",
    )


def _per_secret(d: AttackDetails, level: str, limit: float, tables: list, figures: list) -> None:
    """Add the per-secret table and chart of an inference check over several secrets to ``tables`` and
    ``figures``: each secret's risk, coloured by how the check judges it."""
    from privaudit.common.thresholds import exceeds
    from privaudit.plugin import charts

    rows = [
        [
            s.secret,
            rt.share(s.risk.value),
            f"{rt.share(s.risk.ci[0])} – {rt.share(s.risk.ci[1])}",
            rt.share(s.attack_rate.value),
            rt.share(s.control_rate.value),
            rt.share(s.baseline_rate.value),
        ]
        for s in d.secrets
    ]
    tables.append(
        rs.DataTable(
            ["secret", "risk", f"{level} interval", "training", "control", "baseline"],
            rows,
            caption="Inference risk per secret (the check uses the largest)",
            numeric=frozenset({1, 3, 4, 5}),
            kind="details",
        )
    )
    figures.append(
        rs.Figure(
            charts.share_bars_chart(
                [s.secret for s in d.secrets],
                [s.risk.value for s in d.secrets],
                [exceeds(judged(s.risk.model_dump(), d.judge_by), limit) for s in d.secrets],
                title="Inference risk per secret",
                x_label="risk",
                limit=limit,
                limit_label=f"max_risk = {rt.share(limit)}",
            ),
            "The dashed line marks max_risk.",
        )
    )


def _target(d: AttackDetails) -> str:
    """What the attack worked on, in the summary's words."""
    kind = d.attack
    if kind == "singling_out":
        return f"{rt.fmt(d.n_predicates)} {d.mode} predicates over {rt.qi_phrase(d.columns)}"
    elif kind == "linkability":
        return (
            f"files holding {rt.qi_phrase(d.aux_columns[0])} and {rt.qi_phrase(d.aux_columns[1])}, "
            f"{d.n_neighbors} nearest synthetic record(s)"
        )
    else:
        return f"the secret {d.worst_secret!r} from {rt.qi_phrase(d.aux_columns)}"


@hookimpl
def privaudit_report_sections():
    return [rs.Section(a.name, draw) for a in (SINGLING_OUT, LINKABILITY, INFERENCE)]
