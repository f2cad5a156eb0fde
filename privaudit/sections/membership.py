"""The report sections of membership attacks on a synthetic release (``membership_inference``: TPR at low
FPR, AUC and the ROC curve on log-log axes, Carlini et al., S&P 2022; ``empirical_epsilon``: the ε lower bound
of the one-run or repeated audit, Steinke, Nasr & Jagielski, NeurIPS 2023). Each reads its check's typed entry
(:class:`~privaudit.plugin.sections.CheckEntry`: parameters and details through the assessor's models);
shared by :mod:`privaudit.sections.membership_inference` and :mod:`privaudit.sections.empirical_epsilon`."""

from __future__ import annotations

import math
from typing import Any

from privaudit.plugin import sections as rs
from privaudit.plugin import text as rt
from privaudit.plugin.membership_section import roc_loglog_chart


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
    table = _attacks_table(d, ATTACK_NAMES, level)
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
        how, facts = _repeated(d, bound, claim_text, level)
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


def _attacks_table(d: Any, attack_names: dict[str, str], level: str) -> rs.DataTable:
    """AUC, TPR at 0.1% and 1% FPR and advantage of each attack, with their intervals."""
    ATTACK_NAMES = attack_names  # noqa: N806
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
    return rs.DataTable(
        ["attack", "AUC", "TPR at 0.1% FPR", "TPR at 1% FPR", "advantage (TPR − FPR)"],
        rows,
        caption=f"Membership attacks on the training and holdout records ({level} intervals)",
        numeric=frozenset({1, 2, 3, 4}),
    )


def _repeated(d: Any, bound: str, claim_text: str, level: str) -> tuple[str, list]:
    """How the bound of repeated releases (Jagielski et al. 2020) was found, and its facts."""
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
    return how, facts
