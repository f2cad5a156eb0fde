"""Report sections of ``membership_inference`` and ``empirical_epsilon``, and the ROC curve on log-log axes
(Carlini et al., S&P 2022, Fig. 1: the low-FPR corner, where an attacker is sure of a few people, is
what a linear ROC plot hides). Each section reads its check's typed entry
(:class:`~privaudit.plugin.sections.CheckEntry`: parameters and details through the assessor's models)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt

WIDTH, HEIGHT = 640.0, 330.0
LEFT, RIGHT, TOP, BOTTOM = 64.0, 150.0, 30.0, 46.0
COLOURS = ("#1f5fa8", "#c0392b", "#2e7d32", "#6a1b9a")


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def roc_loglog_chart(curves: Sequence[tuple[str, Sequence[float], Sequence[float]]], *, title: str) -> Markup:
    """ROC curves (label, fpr, tpr) on log-log axes from the smallest FPR to 1, with the chance diagonal."""
    floor = min([min([f for f in fpr if f > 0] or [1e-3]) for _, fpr, _ in curves] + [1e-3])
    lo = 10 ** math.floor(math.log10(floor))
    span = -math.log10(lo)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(v: float) -> float:
        return LEFT + (math.log10(max(v, lo)) - math.log10(lo)) / span * plot_w

    def y(v: float) -> float:
        return TOP + plot_h - (math.log10(max(v, lo)) - math.log10(lo)) / span * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {_n(WIDTH)} {_n(HEIGHT)}" '
        f'width="{_n(WIDTH)}" height="{_n(HEIGHT)}" role="img" aria-label="{escape(title)}" '
        f'font-family="sans-serif"><title>{escape(title)}</title>'
    ]
    for e in range(int(round(-span)), 1):
        v = 10.0**e
        label = escape(f"{v:g}")
        parts.append(f'<line x1="{_n(x(v))}" y1="{_n(TOP)}" x2="{_n(x(v))}" y2="{_n(TOP + plot_h)}" stroke="#ddd"/>')
        parts.append(f'<line x1="{_n(LEFT)}" y1="{_n(y(v))}" x2="{_n(LEFT + plot_w)}" y2="{_n(y(v))}" stroke="#ddd"/>')
        parts.append(
            f'<text x="{_n(x(v))}" y="{_n(TOP + plot_h + 16)}" text-anchor="middle" font-size="11">{label}</text>'
        )
        parts.append(f'<text x="{_n(LEFT - 6)}" y="{_n(y(v) + 4)}" text-anchor="end" font-size="11">{label}</text>')
    parts.append(
        f'<line x1="{_n(x(lo))}" y1="{_n(y(lo))}" x2="{_n(x(1))}" y2="{_n(y(1))}" stroke="#888" '
        f'stroke-dasharray="5 3"/>'
    )
    for k, (label, fpr, tpr) in enumerate(curves):
        colour = COLOURS[k % len(COLOURS)]
        pts = " ".join(f"{_n(x(f))},{_n(y(t))}" for f, t in zip(fpr, tpr, strict=False) if f > 0)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        ly = TOP + 14 + 18 * k
        parts.append(
            f'<line x1="{_n(WIDTH - RIGHT + 12)}" y1="{_n(ly - 4)}" x2="{_n(WIDTH - RIGHT + 30)}" '
            f'y2="{_n(ly - 4)}" stroke="{colour}" stroke-width="2"/>'
        )
        parts.append(f'<text x="{_n(WIDTH - RIGHT + 34)}" y="{_n(ly)}" font-size="11">{escape(label[:20])}</text>')
    ly = TOP + 14 + 18 * len(curves)
    parts.append(f'<text x="{_n(WIDTH - RIGHT + 12)}" y="{_n(ly)}" font-size="11" fill="#666">dashed: chance</text>')
    parts.append(
        f'<line x1="{_n(LEFT)}" y1="{_n(TOP + plot_h)}" x2="{_n(LEFT + plot_w)}" y2="{_n(TOP + plot_h)}" '
        f'stroke="#333"/><line x1="{_n(LEFT)}" y1="{_n(TOP)}" x2="{_n(LEFT)}" y2="{_n(TOP + plot_h)}" '
        f'stroke="#333"/>'
    )
    parts.append(
        f'<text x="{_n(LEFT + plot_w / 2)}" y="{_n(HEIGHT - 10)}" text-anchor="middle" font-size="12">'
        f"false-positive rate (log)</text>"
    )
    parts.append(
        f'<text x="14" y="{_n(TOP + plot_h / 2)}" text-anchor="middle" font-size="12" '
        f'transform="rotate(-90 14 {_n(TOP + plot_h / 2)})">true-positive rate (log)</text></svg>'
    )
    return Markup("".join(parts))


def _ci(ci) -> str:
    return f"{rt.fmt(ci[0], 3)} – {rt.fmt(ci[1], 3)}"


def _ci4(ci) -> str:
    return f"{rt.fmt(ci[0], 4)} – {rt.fmt(ci[1], 4)}"


def membership_section(check: rs.CheckEntry[Any, Any], attack_names: dict[str, str]) -> rs.ReportSection:
    """The section of a membership-inference check (its details model declares ``membership_attack``)."""
    ATTACK_NAMES = attack_names  # noqa: N806
    d, p = check.details, check.params
    level = f"{d.confidence:.0%}"
    best = d.attacks[d.best_attack]
    t1, t2 = best.tpr_at_fpr["0.001"], best.tpr_at_fpr["0.01"]
    summary = (
        f"Holding the synthetic release, an attacker ({ATTACK_NAMES[d.best_attack]}) tells the "
        f"{rt.fmt(d.n_training)} people it was generated from from {rt.fmt(d.n_holdout)} comparable people it "
        f"was not with an AUC of {rt.fmt(best.auc.value, 3)}; wrongly accusing only 1 outsider in 1,000, it "
        f"picks out {rt.share(t1.value)} of the people in the training data (chance: 0.1%)."
    )
    rows = []
    for name, f in d.attacks.items():
        a, b = f.tpr_at_fpr["0.001"], f.tpr_at_fpr["0.01"]
        rows.append(
            [
                ATTACK_NAMES[name] + (" (reported)" if name == d.best_attack else ""),
                f"{rt.fmt(f.auc.value, 3)} ({_ci(f.auc.ci)})",
                f"{rt.fmt(a.value, 4)} ({_ci4(a.ci)})",
                f"{rt.fmt(b.value, 4)} ({_ci4(b.ci)})",
                f"{rt.fmt(f.advantage.value, 3)} ({_ci(f.advantage.ci)})",
            ]
        )
    table = rs.DataTable(
        ["attack", "AUC", "TPR at 0.1% FPR", "TPR at 1% FPR", "advantage (TPR − FPR)"],
        rows,
        caption=f"Membership attacks on the training and holdout records ({level} intervals)",
        numeric=frozenset({1, 2, 3, 4}),
    )
    figure = rs.Figure(
        roc_loglog_chart(
            [(name, f.roc["fpr"], f.roc["tpr"]) for name, f in d.attacks.items()],
            title="ROC curves of the membership attacks (log-log)",
        ),
        "True-positive against false-positive rate on log axes (Carlini et al. 2022): a curve above "
        "the dashed diagonal in the lower left means some people are identified as members with "
        "few false accusations.",
    )
    limits = []
    if p.max_auc is not None:
        limits.append(f"AUC ≤ {rt.fmt(p.max_auc, 3)}")
    if p.max_tpr_at_fpr is not None:
        limits.append(f"TPR at {d.at_fpr:.1%} FPR ≤ {rt.fmt(p.max_tpr_at_fpr, 4)}")
    paragraphs = [
        "Every training and holdout record is scored by how strongly the release suggests it was in the training "
        "data: by its distance to the closest synthetic record relative to its own neighbourhood in the "
        "population, and by the density of the release around it over the density of a random half of the holdout "
        "(DOMIAS), which then scores the training records and the other half. An AUC of 0.5 and a TPR equal to "
        "the FPR mean the release shows nothing of who was in the training data.",
        f"The check allows {' and '.join(limits)} for the better attack, and fails only when the attack is shown "
        f"to exceed a limit at {level}: the lower end of the AUC's interval above max_auc, or the lower end of the "
        "TPR's interval above max_tpr_at_fpr and above the upper end of its threshold's own FPR (below that, a "
        "TPR is what chance gives). The value is the figure so shown. Intervals: AUC by Hanley and McNeil, "
        "rates by Clopper–Pearson at the chosen threshold.",
    ]
    if d.copied_training or d.copied_holdout:
        paragraphs.append(
            f"The release holds {rt.fmt(d.copied_training)} training and {rt.fmt(d.copied_holdout)} holdout "
            "record(s) verbatim (equal on every compared column); the distance attack ranks a copied record first "
            "unless another record of the population is equal to it."
        )
    facts = rt.facts(
        ("AUC", f"{rt.fmt(best.auc.value, 3)} ({level}: {_ci(best.auc.ci)})"),
        ("TPR at 0.1% / 1% FPR", f"{rt.fmt(t1.value, 4)} / {rt.fmt(t2.value, 4)}"),
        ("advantage (TPR − FPR)", f"{rt.fmt(best.advantage.value, 3)} ({_ci(best.advantage.ci)})"),
        (
            "training / holdout / synthetic records",
            f"{rt.fmt(d.n_training)} / {rt.fmt(d.n_holdout)} / {rt.fmt(d.n_synthetic)}",
        ),
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(check.value, 4),
        threshold_text=" and ".join(limits) or None,
        paragraphs=paragraphs,
        facts=facts,
        figures=[figure],
        tables=[table],
        limitations="measures two attacks on the columns given; a stronger attack (shadow "
        "models, more auxiliary data) can do better, so a low figure is no proof of safety.",
    )


def epsilon_section(check: rs.CheckEntry[Any, Any]) -> rs.ReportSection:
    """The section of an empirical ε lower bound (its details model declares ``epsilon_bound``)."""
    d = check.details
    level = f"{d.confidence:.0%}"
    eps, claim = d.epsilon_lower_bound, d.claimed_epsilon
    claim_text = f"ε = {rt.fmt(claim, 3)}" + (f", δ = {d.claimed_delta:g}" if d.claimed_delta else "")
    bound = "∞" if not math.isfinite(eps) else rt.fmt(eps, 3)
    if eps > claim:
        summary = (
            f"This release cannot be {claim_text} differentially private: its membership attack alone proves "
            f"ε ≥ {bound} at {level} confidence."
        )
    else:
        summary = (
            f"The membership attacks prove ε ≥ {bound} at {level} confidence, which does not contradict the "
            f"claim {claim_text} (a lower bound below the claim does not prove the claim)."
        )
    cannot = (
        d.epsilon_ceiling is not None and d.epsilon_ceiling < claim and eps <= claim
    )  # the claim lies beyond what any attack could prove here
    if cannot:
        summary += (
            f" No attack could prove more than ε ≥ {rt.fmt(d.epsilon_ceiling, 3)} from this audit (every guess right), "
            "so it cannot test the claim."
        )
    if d.mode == "one_run":
        how = (
            f"One-run audit (Steinke, Nasr and Jagielski 2023): the attack guessed the membership of "
            f"{rt.fmt(d.guesses)} of the {rt.fmt(d.records)} records whose membership was random and was right "
            f"{rt.fmt(d.correct)} times; the bound is the largest ε whose chance of so many right guesses is below "
            f"{1 - d.confidence:.0%} divided by the {d.options} options tried (attacks and numbers of guesses)."
        )
        facts = rt.facts(
            ("lower bound on ε", bound),
            ("claimed", claim_text),
            ("confidence", level),
            ("guesses / right", f"{rt.fmt(d.guesses)} / {rt.fmt(d.correct)}"),
            ("records (training + holdout)", f"{rt.fmt(d.n_training)} + {rt.fmt(d.n_holdout)}"),
            (
                "records copied verbatim (training / holdout)",
                f"{rt.fmt(d.copied_training or 0)} / {rt.fmt(d.copied_holdout or 0)}",
            ),
            ("attack", d.attack),
        )
    else:
        targets = d.targets or 1
        how = (
            f"Repeated releases (Jagielski et al. 2020, as TAPAS computes it): {rt.fmt(d.trials)} releases made "
            f"with or without one of {targets} target(s), each target audited on its own releases at "
            f"{1 - (1 - d.confidence) / targets:.2%} (so that all hold together at {level}). For the target "
            f"reported, the attack ({d.attack}) chosen on {rt.fmt(d.validation_trials)} of its releases flagged "
            f"{d.tp} of {d.positives} and {d.fp} of {d.negatives} of the others; ε ≥ log(TPR_low / FPR_high) with "
            "Clopper–Pearson bounds."
        )
        if d.duplicate_rows:
            how += (
                f" {rt.fmt(d.duplicate_rows)} manifest row(s) repeated a release (the same rows) for the same "
                "target and were counted once: a release listed twice is not two trials."
            )
        facts = rt.facts(
            ("lower bound on ε", bound),
            ("claimed", claim_text),
            ("confidence", level),
            ("trials (distinct releases)", rt.fmt(d.trials)),
            ("targets", rt.fmt(targets)),
            ("repeated rows counted once", rt.fmt(d.duplicate_rows or 0)),
            ("attack", d.attack),
        )
    table = rs.DataTable(
        ["", "ε"],
        [["lower bound proved by the attack", bound], ["vendor's claim", rt.fmt(claim, 3)]],
        caption="The ε bound beside the claim",
        numeric=frozenset({1}),
        kind="details",
    )
    return rs.ReportSection(
        summary=summary,
        value_text=bound,
        threshold_text=f"≤ {rt.fmt(claim, 3)}",
        paragraphs=[how],
        facts=facts,
        tables=[table],
        limitations="a lower bound: a weak attack proves little, so passing is no evidence that "
        "the release is as private as claimed.",
    )
