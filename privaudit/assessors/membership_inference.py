"""membership_inference: does a synthetic release show who was in its training data?

Inputs: the released table is the synthetic release, ``--original`` its **training** table
(``ctx.training``), ``--control`` a **holdout** from the same population that the generator never saw
(``ctx.control``). Every training and holdout record is scored by two attacks
(:mod:`privaudit.risk.membership.attacks`): the distance to the closest synthetic record relative to the
record's own neighbourhood in the population, and DOMIAS's density ratio ``p_synthetic / p_reference``
with the reference density estimated from a random half of the holdout, which then scores the training
records and the other half (van Breugel et al., AISTATS 2023: a reference disjoint from the scored
records). A record the release holds verbatim is ranked first by the distance attack, whatever the
column types.

For each attack: AUC, the true-positive rate at 0.1 % and 1 % false-positive rate (Carlini et al., S&P
2022: the figures that matter are at low FPR), and the advantage max(TPR - FPR), each with its
interval (:mod:`privaudit.risk.membership.roc`). The check gates on ``max_auc`` and/or
``max_tpr_at_fpr`` (at ``at_fpr``, 0.1 % by default) and reports the better attack: the one whose figures
go furthest towards or past those limits (the largest figure / limit over the gated figures). A figure is
gated by what the attack is shown to reach at ``confidence``: the lower end of the AUC's interval, and
the lower end of the TPR's when it lies above the upper end of its threshold's FPR (the attack is shown to
beat chance there; else no more than the FPR is shown). A failure then states that the attack does better
than allowed at that confidence, which chance alone cannot make it do. A point estimate is no such
statement: the TPR at 0.1 % FPR on 100 holdout records (no false positive allowed) reaches 1 % whenever
the highest score is a member's, half the time for a release drawn without the data (tested); the
point estimates are reported beside it. The value is the gated figure so shown (the AUC's when both are
given). Taking the better of two attacks favours the
attacker: that is the point of an audit, not a bias to correct.
"""

from __future__ import annotations

import threading
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from privaudit.core.errors import DataError
from privaudit.plugin import helpers
from privaudit.plugin.assessor import Assessor, Measurement, Params
from privaudit.plugin.assessor import Details as ApiDetails
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl

ATTACKS = ("distance", "density")
ATTACK_NAMES = {"distance": "distance to closest synthetic record", "density": "density ratio (DOMIAS)"}
FPRS = (0.001, 0.01)
#: fewest training and holdout records the attacks run on
MIN_RECORDS = 20
REFERENCE = (
    "van Breugel, Sun, Qian & van der Schaar, Membership Inference Attacks against Synthetic Data through "
    "Overfitting Detection (AISTATS 2023); Carlini, Chien, Nasr, Song, Terzis & Tramèr, Membership Inference "
    "Attacks From First Principles (IEEE S&P 2022); Chen, Yu, Zhang & Fritz, GAN-Leaks (CCS 2020); "
    "Hanley & McNeil, Radiology 143 (1982)"
)


class AttackParams(Params):
    """The membership attacks' settings, shared by ``membership_inference`` and ``empirical_epsilon``."""

    columns: list[str] | None = Field(
        default=None,
        description="Columns the attacks compare (default: every "
        "policy column but identifiers, record ids and weights).",
    )
    attacks: list[Literal["distance", "density"]] = Field(
        default=list(ATTACKS),
        min_length=1,
        description="Membership attacks run (membership_inference reports the better; empirical_epsilon bounds "
        "with their guesses).",
    )
    dims: int = Field(default=6, ge=1, le=50, description="Principal components the neighbour search uses.")
    neighbours: int = Field(default=8, ge=2, le=256, description="Nearest points each kernel density sums over.")
    bandwidth: float = Field(
        default=1.0,
        gt=0,
        le=10,
        description="Factor on Scott's bandwidth of the density attack's kernels (1: DOMIAS's default).",
    )


class MembershipParams(AttackParams):
    confidence: float = Field(default=0.95, gt=0, lt=1, description="Level of the confidence intervals.")
    max_auc: float | None = Field(default=None, ge=0, le=1, description="Largest allowed AUC of the better attack.")
    max_tpr_at_fpr: float | None = Field(
        default=None, ge=0, le=1, description="Largest allowed true-positive rate at the false-positive rate at_fpr."
    )
    at_fpr: Literal[0.001, 0.01] = Field(default=0.001, description="FPR at which max_tpr_at_fpr applies.")


class Interval(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: float
    ci: list[float]


class TprAt(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: float
    ci: list[float]
    fpr: float
    fpr_ci: list[float] | None = None  # the interval of the threshold's own FPR
    threshold: float
    tp: int


class AttackFigures(BaseModel):
    model_config = ConfigDict(extra="forbid")
    auc: Interval
    tpr_at_fpr: dict[str, TprAt]
    advantage: Interval
    roc: dict[str, list[float]]  # {"fpr": [...], "tpr": [...]} on a log grid of FPR
    n_members: int | None = None  # training records the attack scored
    n_non_members: int | None = None  # holdout records the attack scored (the density ratio: half of them)


class Details(ApiDetails):
    """What ``Measurement.details`` of ``membership_inference`` holds. ``membership_attack``: the synthetic
    chapter draws the attacks' ROC curves and figures."""

    membership_attack: ClassVar[bool] = True
    columns: list[str]
    n_training: int
    n_holdout: int
    n_synthetic: int
    dims: int
    neighbours: int
    bandwidth: float
    confidence: float
    gate: list[str]
    at_fpr: float
    best_attack: str
    attacks: dict[str, AttackFigures]
    copied_training: int = 0  # training records the release holds verbatim (every compared column)
    copied_holdout: int = 0  # holdout records the release holds verbatim


def compared_columns(params, policy) -> list[str]:
    return helpers.compared_columns(params.columns, policy)


def column_problem(params, policy) -> str | None:
    problem = helpers.compared_columns_problem(params.columns, policy)
    if problem:
        return problem
    if len(set(params.attacks)) != len(params.attacks):
        return "attacks: an attack is listed twice"
    return None


def validate(params: MembershipParams, policy) -> str | None:
    if params.max_auc is None and params.max_tpr_at_fpr is None:
        return "give max_auc or max_tpr_at_fpr (or both): the limit the check gates on"
    return column_problem(params, policy)


_LOCK = threading.Lock()


def scores_of(ctx, params):
    """Both attacks' scores of the training and holdout records, computed once per audit and column set
    (``membership_inference`` and ``empirical_epsilon`` share them)."""
    from privaudit.risk.membership.attacks import membership_scores

    columns = compared_columns(params, ctx.policy)
    for option, table in (("--original", ctx.training), ("--control", ctx.control)):
        if len(table) < MIN_RECORDS:
            raise DataError(
                f"{option}: {len(table)} record(s); the membership attacks need at least {MIN_RECORDS} "
                "training and holdout records"
            )
    if len(ctx.table) == 0:
        raise DataError("the synthetic release has no records to attack with")
    key = (tuple(columns), params.dims, params.neighbours, params.bandwidth)
    with _LOCK:
        cache = ctx.__dict__.setdefault("_membership_scores", {})
        frames = (ctx.training, ctx.control, ctx.table)
        hit = cache.get(key)
        if hit is None or not all(a is b for a, b in zip(hit[0], frames, strict=False)):
            numeric = {c: ctx.policy.columns[c].type == "numeric" for c in columns}
            scores = membership_scores(
                ctx.training,
                ctx.control,
                ctx.table,
                columns,
                numeric,
                dims=params.dims,
                neighbours=params.neighbours,
                bandwidth=params.bandwidth,
            )
            cache[key] = hit = (frames, scores)
        return columns, hit[1]


def attack_figures(scores, member, confidence: float) -> dict:
    from privaudit.risk.membership.roc import log_grid_curve, summarize

    r = summarize(scores, member, FPRS, confidence)
    fpr, tpr = log_grid_curve(scores, member)
    return {
        "auc": {"value": r.auc, "ci": list(r.auc_ci)},
        "tpr_at_fpr": r.tpr_at_fpr,
        "advantage": {"value": r.advantage, "ci": list(r.advantage_ci)},
        "roc": {"fpr": fpr, "tpr": tpr},
        "n_members": r.n_members,
        "n_non_members": r.n_non_members,
    }


def run(ctx, params: MembershipParams) -> Measurement:
    columns, sc = scores_of(ctx, params)
    figures = {  # the density ratio scores the records outside its reference half of the holdout (DOMIAS)
        a: attack_figures(sc.distance, sc.member, params.confidence)
        if a == "distance"
        else attack_figures(sc.density["holdout"][sc.scored], sc.member[sc.scored], params.confidence)
        for a in params.attacks
    }
    at = f"{params.at_fpr:g}"
    gate = [g for g, limit in (("auc", params.max_auc), ("tpr_at_fpr", params.max_tpr_at_fpr)) if limit is not None]

    def point(a: str, g: str) -> float:
        return figures[a]["auc"]["value"] if g == "auc" else figures[a]["tpr_at_fpr"][at]["value"]

    def figure(a: str, g: str) -> float:  # what the attack is shown to reach at the confidence level
        if g == "auc":
            return figures[a]["auc"]["ci"][0]
        t = figures[a]["tpr_at_fpr"][at]  # a TPR shown above its threshold's FPR, else what chance gives
        return t["ci"][0] if t["ci"][0] > t["fpr_ci"][1] else min(t["ci"][0], t["fpr"])

    limits = {"auc": params.max_auc, "tpr_at_fpr": params.max_tpr_at_fpr}

    def closeness(a: str, of=figure) -> float:  # how far the attack goes towards (or past) the check's limits
        return max(of(a, g) / limits[g] if limits[g] else (float("inf") if of(a, g) > 0 else 0.0) for g in gate)

    best = max(params.attacks, key=lambda a: (closeness(a), closeness(a, point), *(point(a, g) for g in gate)))
    f = figures[best]
    level = f"{params.confidence:.0%}"
    names = {"auc": "AUC", "tpr_at_fpr": f"TPR at {params.at_fpr:.1%} FPR"}
    failed, unproven = [], []
    for g in gate:
        digits = 3 if g == "auc" else 4
        shown, estimate, limit = figure(best, g), point(best, g), limits[g]
        if exceeds(shown, limit):
            failed.append(f"{names[g]} {estimate:.{digits}f} ≥ {shown:.{digits}f} at {level} > max_{g} {limit:g}")
        elif exceeds(estimate, limit):
            unproven.append(
                f"{names[g]} {estimate:.{digits}f} above max_{g} {limit:g} is within chance (its {level} "
                f"interval starts at {shown:.{digits}f})"
            )
    value = figure(best, gate[0])
    threshold = params.max_auc if gate[0] == "auc" else params.max_tpr_at_fpr
    tpr1, tpr2 = f["tpr_at_fpr"]["0.001"], f["tpr_at_fpr"]["0.01"]
    message = (
        f"membership attack ({ATTACK_NAMES[best]}) on {len(ctx.training)} training and {len(ctx.control)} "
        f"holdout records: AUC {f['auc']['value']:.3f} ({level} CI {f['auc']['ci'][0]:.3f}–"
        f"{f['auc']['ci'][1]:.3f}), TPR {tpr1['value']:.4f} at 0.1% FPR and {tpr2['value']:.4f} at 1% FPR, "
        f"advantage {f['advantage']['value']:.3f}"
        + (f"; fails: {'; '.join(failed)}" if failed else "")
        + (f"; {'; '.join(unproven)}: not shown at {level}" if unproven else "")
    )
    details = Details(
        columns=columns,
        n_training=len(ctx.training),
        n_holdout=len(ctx.control),
        n_synthetic=len(ctx.table),
        dims=sc.dims,
        neighbours=sc.neighbours,
        bandwidth=params.bandwidth,
        confidence=params.confidence,
        gate=gate,
        at_fpr=params.at_fpr,
        best_attack=best,
        attacks=figures,
        copied_training=sc.details["copied_training"],
        copied_holdout=sc.details["copied_holdout"],
    ).model_dump()
    return Measurement(float(value), threshold, not failed, message, details)


ASSESSOR = Assessor(
    name="membership_inference",
    params=MembershipParams,
    run=run,
    title="Membership inference (synthetic)",
    standards=frozenset({"wp29:inference", "ico:membership"}),
    protects="identity",
    measures="how well an attacker holding the synthetic release tells the people it was generated from from "
    "comparable people it was not",
    formula="scores: -log((d_syn + c)/(d_pop + c)) (distance to the closest synthetic record over the distance to the "
    "closest other population record; a verbatim copy first) and log(p_syn(x)/p_ref(x)) (Gaussian KDEs, the "
    "reference a random half of the holdout scoring the rest, DOMIAS); for the better "
    "attack AUC (Mann–Whitney; Hanley–McNeil interval), TPR at FPR <= 0.1 % and 1 % (Clopper–Pearson), "
    "advantage max(TPR - FPR); pass iff the lower ends of their intervals stay within max_auc and max_tpr_at_fpr",
    reference=REFERENCE,
    needs=frozenset({"training", "control", "table"}),
    validate_policy=validate,
    details=Details,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
