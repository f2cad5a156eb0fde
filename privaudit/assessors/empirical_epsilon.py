"""empirical_epsilon: a lower bound on the ε a "differentially private" synthetic release can have.

A vendor claims (ε, δ)-DP (``claimed_epsilon``, ``claimed_delta``); the check computes, at confidence
``confidence`` (1 − β, 95 % by default), a lower bound on ε from membership guesses and fails when the
bound exceeds the claim: "this release cannot be ε = 1 DP: its membership attack alone proves ε ≥ 2.3 at
95 %". Two ways (:mod:`privaudit.risk.membership.epsilon`):

* ``mode: one_run`` (Steinke, Nasr & Jagielski, NeurIPS 2023): from the one release, its training table
  (``--original``) and holdout (``--control``). It is valid only when every record of training ∪ holdout
  went to training by an independent fair coin (their §3): the policy must say so (``random_split:
  true``), otherwise the check refuses (exit 2); sizes of training and holdout that a fair coin would not
  give (a two-sided binomial test at 10^-6) are refused too. A uniformly random half-split (a fixed
  number of training records) passes that test, but it is not what the theorem's proof assumes (its coins
  are independent): the check cannot tell the two apart, and ``random_split: true`` states the coins. The guesses come from the two attacks of
  ``membership_inference``, with the density ratio's reference taken from the whole population (training
  and holdout alike) so that no score reads the membership it guesses; every attack and number of
  guesses tried is paid for by a union bound.
* ``mode: repeated`` (Jagielski, Ullman & Oprea 2020; TAPAS's ``EffectiveEpsilonReport``): releases
  generated several times with and without a target record, listed in a manifest (``manifest``: a CSV
  with columns ``release`` -- a file path relative to the manifest --, ``target`` -- the target's value of
  the policy's ``record_id`` column in ``--original`` or ``--control`` --, and ``member`` -- 1 if the target
  was in that release's training data, else 0). Each target is scored against its release by the same
  two attacks; the attack, threshold and side are chosen on the first 10 % of the (shuffled) trials and
  the Clopper–Pearson bound is computed on the rest. The audited release itself is not attacked in this
  mode (the manifest's releases are); ``--original`` and ``--control`` are the population the targets
  and their neighbourhoods come from.

value = the lower bound; pass iff it is at most ``claimed_epsilon``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np
from pydantic import Field

from privaudit.assessors.api import Assessor, Measurement
from privaudit.assessors.api import Details as ApiDetails
from privaudit.assessors.helpers import exceeds
from privaudit.assessors.membership_inference import AttackParams, column_problem, compared_columns, scores_of
from privaudit.core.errors import DataError, first_line
from privaudit.core.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only: the report's modules load when a report is drawn
    from privaudit.pipeline.audit import AuditResult
    from privaudit.report.sections import CheckEntry, ReportSection

#: a fair coin gives training and holdout sizes this unlikely (two-sided binomial test) at most this often
SPLIT_P_VALUE = 1e-6
REFERENCE = (
    "Steinke, Nasr & Jagielski, Privacy Auditing with One (1) Training Run (NeurIPS 2023, arXiv:2305.08846), "
    "Algorithm 1, Theorem 3.1, §5 and Appendix D; Jagielski, Ullman & Oprea, Auditing Differentially Private Machine "
    "Learning (NeurIPS 2020); Houssiau et al., TAPAS (2022), tapas/report/report.py; Clopper & Pearson, "
    "Biometrika 26 (1934)"
)


class EpsilonParams(AttackParams):
    claimed_epsilon: float = Field(gt=0, description="The ε the vendor claims the release satisfies.")
    claimed_delta: float = Field(default=0.0, ge=0, lt=1, description="The δ of the claim.")
    confidence: float = Field(default=0.95, ge=0.5, lt=1, description="Confidence 1 − β of the lower bound.")
    mode: Literal["one_run", "repeated"] = Field(
        default="one_run",
        description="one_run: Steinke et al.'s bound "
        "from the release and its random training/holdout split; "
        "repeated: Clopper–Pearson bound from releases listed in manifest.",
    )
    random_split: bool = Field(
        default=False,
        description="The policy's statement that every record of training ∪ "
        "holdout went to training by an independent fair coin (one_run needs it).",
    )
    manifest: str | None = Field(default=None, description="CSV of the repeated releases: release, target, member.")
    seed: int = Field(
        default=0, description="Seed of the tie-breaking order (one_run) and of the trials' shuffle (repeated)."
    )


class Details(ApiDetails):
    """What ``Measurement.details`` of ``empirical_epsilon`` holds. ``epsilon_bound``: the synthetic chapter
    sets the bound beside the claim."""

    epsilon_bound: ClassVar[bool] = True
    mode: str
    columns: list[str]
    claimed_epsilon: float
    claimed_delta: float
    confidence: float
    epsilon_lower_bound: float
    attack: str
    # one_run
    records: int | None = None
    guesses: int | None = None
    correct: int | None = None
    positive_guesses: int | None = None
    options: int | None = None
    n_training: int | None = None
    n_holdout: int | None = None
    # repeated
    trials: int | None = None
    validation_trials: int | None = None
    threshold: float | None = None
    inverse: bool | None = None
    tp: int | None = None
    fp: int | None = None
    positives: int | None = None
    negatives: int | None = None
    epsilon_upper: float | None = None


def validate(params: EpsilonParams, policy) -> str | None:
    if params.mode == "one_run" and not params.random_split:
        return (
            "random_split: the one-run bound holds only if the training/holdout split was random (each record "
            "put in training by a fair coin); state it with random_split: true, or use mode: repeated"
        )
    if params.mode == "repeated":
        if not params.manifest:
            return "manifest: mode repeated needs the manifest of releases (CSV: release, target, member)"
        if not policy.columns_with("record_id"):
            return "manifest: targets are named by the policy's record_id column; the policy has none"
    elif params.manifest:
        return "manifest: only mode repeated reads a manifest"
    return column_problem(params, policy)


def _check_split(n_t: int, n_h: int) -> None:
    from scipy import stats

    p = float(stats.binomtest(n_t, n_t + n_h, 0.5).pvalue)
    if p < SPLIT_P_VALUE:
        raise DataError(
            f"--original/--control: {n_t} training and {n_h} holdout records: a fair-coin split (which "
            f"random_split states and the one-run bound needs) gives such sizes with probability "
            f"{p:.1e}; audit a random half-split, or use mode: repeated"
        )


def _claim(params) -> str:
    return f"ε = {params.claimed_epsilon:g}" + (f", δ = {params.claimed_delta:g}" if params.claimed_delta else "")


def run_one_run(ctx, params: EpsilonParams) -> Measurement:
    from privaudit.risk.membership.epsilon import one_run_audit

    _check_split(len(ctx.training), len(ctx.control))
    columns, sc = scores_of(ctx, params)
    per_attack = [sc.distance if a == "distance" else sc.density["population"] for a in params.attacks]
    beta = 1 - params.confidence
    # one union bound over every attack and number of guesses; the attack that gives the bound is named
    bound = one_run_audit(per_attack, sc.member, beta=beta, delta=params.claimed_delta, seed=params.seed)
    attack = "none"  # no attack proves any ε > 0
    if bound.epsilon > 0:
        per = [
            one_run_audit([s], sc.member, beta=beta * len(per_attack), delta=params.claimed_delta, seed=params.seed)
            for s in per_attack
        ]
        attack = params.attacks[int(np.argmax([b.epsilon for b in per]))]
    eps = bound.epsilon
    passed = not exceeds(eps, params.claimed_epsilon)
    level = f"{params.confidence:.0%}"
    if not passed:
        message = (
            f"this release cannot be {_claim(params)} DP: its membership attack alone proves ε ≥ {eps:.2f} at "
            f"{level} ({bound.correct} of {bound.guesses} guesses right on {bound.m} records whose membership "
            f"was random; Steinke et al. one-run bound)"
        )
    else:
        message = (
            f"ε ≥ {eps:.2f} at {level} from a one-run membership audit ({bound.correct} of {bound.guesses} "
            f"guesses right on {bound.m} records): does not contradict the claim {_claim(params)}"
        )
    details = Details(
        mode="one_run",
        columns=columns,
        claimed_epsilon=params.claimed_epsilon,
        claimed_delta=params.claimed_delta,
        confidence=params.confidence,
        epsilon_lower_bound=eps,
        attack=attack,
        records=bound.m,
        guesses=bound.guesses,
        correct=bound.correct,
        positive_guesses=bound.positive_guesses,
        options=bound.options,
        n_training=len(ctx.training),
        n_holdout=len(ctx.control),
    ).model_dump(exclude_none=True)
    return Measurement(eps, params.claimed_epsilon, passed, message, details)


def run(ctx, params: EpsilonParams) -> Measurement:
    if params.mode == "repeated":
        return run_repeated(ctx, params)
    return run_one_run(ctx, params)


def report_section(check: CheckEntry[EpsilonParams, Details], audit: AuditResult) -> ReportSection:
    from privaudit.report.membership_section import epsilon_section

    return epsilon_section(check)


ASSESSOR = Assessor(
    name="empirical_epsilon",
    params=EpsilonParams,
    run=run,
    title="Empirical ε lower bound (synthetic)",
    protects="identity",
    measures="the smallest ε the release's differential-privacy claim can have, as proved by membership attacks at "
    "the stated confidence",
    formula="one_run: largest ε with P[Bin(r, e^ε/(1+e^ε)) ≥ v] + 2mδ·max_i (1/i)Σ_{j≤i} P[Bin = v−j] < β/options "
    "(Steinke et al., Appendix D); repeated: log((TPR_low − δ)/FPR_high), Clopper–Pearson at 1 − β/2 each (TAPAS); "
    "pass iff the bound ≤ claimed_epsilon",
    reference=REFERENCE,
    needs=frozenset({"training", "control", "table"}),
    validate_policy=validate,
    report_section=report_section,
    details=Details,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]


# --------------------------------------------------------------------------------- repeated releases
def _read_manifest(ctx, params: EpsilonParams):
    """``(releases, targets, member, path)`` from the manifest: every release read as the policy reads a
    table, every target found in ``--original`` then ``--control`` by the record_id column."""
    import pandas as pd

    from privaudit.core.data import load_table

    path = ctx.policy.resolve_path(params.manifest, "manifest")
    if not path.is_file():
        raise DataError(f"{path}: the manifest does not exist")
    try:
        manifest = pd.read_csv(path, dtype=str, keep_default_na=False)
    except Exception as exc:  # noqa: BLE001 - any parse failure is one line
        raise DataError(f"{path}: not a readable CSV manifest ({first_line(exc, type(exc).__name__)})") from None
    missing = [c for c in ("release", "target", "member") if c not in manifest.columns]
    if missing:
        raise DataError(
            f"{path}: the manifest lacks the column(s) {', '.join(missing)} (needs release, target, member)"
        )
    if len(manifest) < 10:
        raise DataError(f"{path}: {len(manifest)} release(s); the Clopper–Pearson bound needs at least 10 trials")
    bad = ~manifest["member"].isin(["0", "1"])
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(f"{path}: row {row + 2}: member must be 0 or 1, not {manifest['member'].iloc[row]!r}")
    record_id = ctx.policy.columns_with("record_id")[0]
    population = pd.concat([ctx.training[record_id].astype(str), ctx.control[record_id].astype(str)], ignore_index=True)
    position = pd.Series(np.arange(len(population)), index=population.to_numpy())
    position = position[~position.index.duplicated(keep="first")]
    absent = ~manifest["target"].isin(position.index)
    if absent.any():
        row = int(np.flatnonzero(absent)[0])
        raise DataError(
            f"{path}: row {row + 2}: target {manifest['target'].iloc[row]!r} is not a {record_id} of "
            f"--original or --control ({int(absent.sum())} such row(s))"
        )
    folder = path.parent.resolve()
    releases = {}
    for name in dict.fromkeys(manifest["release"]):
        file = (folder / name).resolve()
        if not file.is_relative_to(folder):
            raise DataError(f"{path}: release {name!r} leads outside the manifest's folder")
        if not file.is_file():
            raise DataError(f"{path}: release {name!r} does not exist in {folder}")
        releases[name] = load_table(file, ctx.policy).frame
    targets = position.loc[manifest["target"]].to_numpy()
    return [releases[n] for n in manifest["release"]], targets, manifest["member"].to_numpy() == "1", path


def run_repeated(ctx, params: EpsilonParams) -> Measurement:
    from privaudit.risk.membership.attacks import target_scores
    from privaudit.risk.membership.epsilon import clopper_pearson_epsilon

    columns = compared_columns(params, ctx.policy)
    releases, targets, member, path = _read_manifest(ctx, params)
    if member.all() or not member.any():
        raise DataError(
            f"{path}: every release has member {int(member[0])}; the bound needs releases made with "
            "and without the target"
        )
    numeric = {c: ctx.policy.columns[c].type == "numeric" for c in columns}
    scores = target_scores(
        ctx.training,
        ctx.control,
        releases,
        targets,
        columns,
        numeric,
        dims=params.dims,
        neighbours=params.neighbours,
        bandwidth=params.bandwidth,
    )
    order = np.random.default_rng(params.seed).permutation(len(member))  # trials in a random order (TAPAS splits)
    b = clopper_pearson_epsilon(
        [scores[a][order] for a in params.attacks],
        member[order],
        confidence=params.confidence,
        delta=params.claimed_delta,
    )
    eps = b.epsilon
    passed = not exceeds(eps, params.claimed_epsilon)
    level = f"{params.confidence:.0%}"
    side = "TN/FN" if b.inverse else "TP/FP"
    rates = (
        f"{b.tp} of {b.n_pos} {'non-member' if b.inverse else 'member'} trials and {b.fp} of {b.n_neg} others "
        f"flagged ({side}), on {b.n_test} trials after choosing on {b.n_validation}"
    )
    message = (
        (
            f"this release cannot be {_claim(params)} DP: its membership attack alone proves ε ≥ {eps:.2f} at "
            f"{level} ({rates}; Clopper–Pearson bound)"
        )
        if not passed
        else f"ε ≥ {eps:.2f} at {level} from {len(member)} repeated releases ({rates}): does not contradict the "
        f"claim {_claim(params)}"
    )
    details = Details(
        mode="repeated",
        columns=columns,
        claimed_epsilon=params.claimed_epsilon,
        claimed_delta=params.claimed_delta,
        confidence=params.confidence,
        epsilon_lower_bound=eps,
        attack=params.attacks[b.attack],
        trials=len(member),
        validation_trials=b.n_validation,
        threshold=b.threshold,
        inverse=b.inverse,
        tp=b.tp,
        fp=b.fp,
        positives=b.n_pos,
        negatives=b.n_neg,
        epsilon_upper=b.epsilon_high if math.isfinite(b.epsilon_high) else None,
    ).model_dump(exclude_none=True)
    return Measurement(eps, params.claimed_epsilon, passed, message, details)
