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
  two attacks. The bound is about one target's presence, so each target is audited on its own trials
  (TAPAS's ``TargetedMIA``: one threat model per target) at confidence ``1 - β / targets``, and the
  largest bound is reported: pooled, the trials of a target named only as a member and of another named
  only as a non-member let an attack that tells the two targets apart "prove" ε > 0 for a generator that
  never reads its data. A manifest some target of which has trials of one kind only, or fewer than 10, is
  refused; rows repeating a release (the same rows, whatever the file's name) for the same target are one
  trial (two rows would count one release as two independent ones), and the report says how many rows
  were counted once; the same rows listed with and without the target are refused. Within a target, the
  attack, threshold and side are chosen on the first 10 % of the (shuffled) trials and the
  Clopper–Pearson bound is computed on the rest. The audited release itself is not attacked in this
  mode (the manifest's releases are); ``--original`` and ``--control`` are the population the targets
  and their neighbourhoods come from.

Both modes report the ceiling of the audit (the bound had every guess been right): when the claim lies
above it, no attack could have disproved the claim, and the message says so. A release holding training
records verbatim is found whatever the column types (their counts are reported); how much it proves
grows with the number of copies.

value = the lower bound; pass iff it is at most ``claimed_epsilon``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from privaudit.assessors.membership_inference import AttackParams, column_problem, compared_columns, scores_of
from privaudit.core.errors import DataError, first_line
from privaudit.plugin.assessor import Assessor, Measurement
from privaudit.plugin.assessor import Details as ApiDetails
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only: heavy modules load when a check runs
    pass

#: a fair coin gives training and holdout sizes this unlikely (two-sided binomial test) at most this often
SPLIT_P_VALUE = 1e-6
REFERENCE = (
    "Steinke, Nasr & Jagielski, Privacy Auditing with One (1) Training Run (NeurIPS 2023, arXiv:2305.08846), "
    "Algorithm 1, Theorem 3.1, §5 and Appendix D; Jagielski, Ullman & Oprea, Auditing Differentially Private Machine "
    "Learning (NeurIPS 2020); Houssiau et al., TAPAS (2022), tapas/report/report.py and "
    "prive/threat_models/mia.py (TargetedMIA); Clopper & Pearson, "
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
    #: the largest bound the audit could give (every guess right): claims above it cannot be disproved
    epsilon_ceiling: float | None = None
    attack: str
    # one_run
    records: int | None = None
    guesses: int | None = None
    correct: int | None = None
    positive_guesses: int | None = None
    options: int | None = None
    n_training: int | None = None
    n_holdout: int | None = None
    copied_training: int | None = None  # training records the release holds verbatim
    copied_holdout: int | None = None  # holdout records the release holds verbatim
    # repeated
    trials: int | None = None
    targets: int | None = None
    target: str | None = None  # the target whose bound is reported
    duplicate_rows: int | None = None  # manifest rows repeating a release and target, counted once
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
    import numpy as np

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
    copies = sc.details["copied_training"], sc.details["copied_holdout"]
    copy_note = (
        f"; the release holds {copies[0]} training and {copies[1]} holdout record(s) verbatim" if any(copies) else ""
    )
    if not passed:
        message = (
            f"this release cannot be {_claim(params)} DP: its membership attack alone proves ε ≥ {eps:.2f} at "
            f"{level} ({bound.correct} of {bound.guesses} guesses right on {bound.m} records whose membership "
            f"was random; Steinke et al. one-run bound{copy_note})"
        )
    else:
        message = (
            f"ε ≥ {eps:.2f} at {level} from a one-run membership audit ({bound.correct} of {bound.guesses} "
            f"guesses right on {bound.m} records{copy_note}): does not contradict the claim {_claim(params)}"
            + _ceiling_note(bound.ceiling, params)
        )
    details = Details(
        mode="one_run",
        columns=columns,
        claimed_epsilon=params.claimed_epsilon,
        claimed_delta=params.claimed_delta,
        confidence=params.confidence,
        epsilon_lower_bound=eps,
        epsilon_ceiling=bound.ceiling,
        attack=attack,
        records=bound.m,
        guesses=bound.guesses,
        correct=bound.correct,
        positive_guesses=bound.positive_guesses,
        options=bound.options,
        n_training=len(ctx.training),
        n_holdout=len(ctx.control),
        copied_training=copies[0],
        copied_holdout=copies[1],
    ).model_dump(exclude_none=True)
    return Measurement(eps, params.claimed_epsilon, passed, message, details)


def _ceiling_note(ceiling: float, params) -> str:
    """Said when the claim lies beyond what the audit could ever prove: passing then says nothing."""
    if ceiling < params.claimed_epsilon:
        return (
            f"; no audit of this size can prove more than ε ≥ {ceiling:.2f} (every guess right), so it cannot "
            f"disprove the claim"
        )
    return ""


def run(ctx, params: EpsilonParams) -> Measurement:
    if params.mode == "repeated":
        return run_repeated(ctx, params)
    return run_one_run(ctx, params)


ASSESSOR = Assessor(
    name="empirical_epsilon",
    params=EpsilonParams,
    run=run,
    title="Empirical ε lower bound (synthetic)",
    standards=frozenset({"wp29:inference", "ico:membership"}),
    protects="identity",
    measures="the smallest ε the release's differential-privacy claim can have, as proved by membership attacks at "
    "the stated confidence",
    formula="one_run: largest ε with P[Bin(r, e^ε/(1+e^ε)) ≥ v] + 2mδ·max_i (1/i)Σ_{j≤i} P[Bin = v−j] < β/options "
    "(Steinke et al., Appendix D); repeated: per target, log((TPR_low − δ)/FPR_high), Clopper–Pearson at "
    "1 − β/(2·targets) each (TAPAS), the largest over the targets; "
    "pass iff the bound ≤ claimed_epsilon",
    reference=REFERENCE,
    needs=frozenset({"training", "control", "table"}),
    validate_policy=validate,
    details=Details,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]


# --------------------------------------------------------------------------------- repeated releases
def _fingerprint(frame) -> bytes:
    """The release's rows as a multiset: two files with the same rows, in any order, are one release."""
    import hashlib

    import numpy as np
    import pandas as pd

    rows = np.sort(pd.util.hash_pandas_object(frame, index=False).to_numpy())
    return hashlib.sha256(rows.tobytes() + str(list(frame.columns)).encode()).digest()


def _read_manifest(ctx, params: EpsilonParams):
    """``(releases, targets, member, groups, names, duplicates, path)`` from the manifest: every release read
    as the policy reads a table, every target found in ``--original`` then ``--control`` by the record_id
    column; a row repeating another's release (the same rows, whatever the file) and target is one trial,
    counted once (``duplicates``: how many rows were dropped); ``groups`` numbers the targets."""
    import numpy as np
    import pandas as pd

    from privaudit.io.data import load_table

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
    if manifest.empty:
        raise DataError(f"{path}: the manifest lists no releases")
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
    releases, prints = {}, {}
    for name in dict.fromkeys(manifest["release"]):
        file = (folder / name).resolve()
        if not file.is_relative_to(folder):
            raise DataError(f"{path}: release {name!r} leads outside the manifest's folder")
        if not file.is_file():
            raise DataError(f"{path}: release {name!r} does not exist in {folder}")
        releases[name] = load_table(file, ctx.policy).frame
        prints[name] = _fingerprint(releases[name])
    manifest["_print"] = manifest["release"].map(prints)
    manifest, duplicates = _deduplicated(manifest, path)
    targets = position.loc[manifest["target"]].to_numpy()
    groups, names = pd.factorize(manifest["target"])
    member = manifest["member"].to_numpy() == "1"
    _check_trials(path, names, groups, member, duplicates)
    frames = [releases[n] for n in manifest["release"]]
    return frames, targets, member, groups, list(names), duplicates, path


def _deduplicated(manifest, path):
    """The manifest with one row per (release's rows, target): a release listed twice for a target is one
    trial (two would count it as two independent releases); the same rows said to be made both with and
    without the target are refused."""
    import numpy as np

    key = ["_print", "target"]
    labels = manifest.groupby(key, sort=False)["member"].nunique()
    if (labels > 1).any():
        clash = labels.index[int(np.flatnonzero(labels.to_numpy() > 1)[0])]
        rows = manifest.index[(manifest["_print"] == clash[0]) & (manifest["target"] == clash[1])] + 2
        raise DataError(
            f"{path}: rows {', '.join(map(str, rows[:4]))}: the same release (identical rows) is listed for "
            f"target {clash[1]!r} both with and without it; every trial must be a release of its own"
        )
    kept = manifest.drop_duplicates(key).reset_index(drop=True)
    return kept, len(manifest) - len(kept)


#: fewest trials a target needs after de-duplication (TAPAS's validation share is a tenth of them)
MIN_TRIALS = 10


def _check_trials(path, names, groups, member, duplicates: int) -> None:
    """Refuse a manifest some target of which cannot support a bound: too few trials, or trials of one kind."""
    import numpy as np

    n_in = np.bincount(groups, weights=member, minlength=len(names)).astype(int)
    n_all = np.bincount(groups, minlength=len(names))
    dropped = f" (after dropping {duplicates} repeated row(s))" if duplicates else ""
    for g, name in enumerate(names):
        if n_in[g] == 0 or n_in[g] == n_all[g]:
            raise DataError(
                f"{path}: target {name!r} has {n_in[g]} release(s) with member 1 and {n_all[g] - n_in[g]} with "
                f"member 0{dropped}; the bound compares releases made with and without the same target: list "
                "both kinds for every target"
            )
        if n_all[g] < MIN_TRIALS:
            raise DataError(
                f"{path}: target {name!r} has {n_all[g]} distinct release(s){dropped}; the Clopper–Pearson "
                f"bound needs at least {MIN_TRIALS} per target"
            )


def run_repeated(ctx, params: EpsilonParams) -> Measurement:
    from privaudit.risk.membership.attacks import target_scores
    from privaudit.risk.membership.epsilon import per_target_epsilon

    columns = compared_columns(params, ctx.policy)
    releases, targets, member, groups, names, duplicates, path = _read_manifest(ctx, params)
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
    tb = per_target_epsilon(
        [scores[a] for a in params.attacks],
        member,
        groups,
        confidence=params.confidence,
        delta=params.claimed_delta,
        seed=params.seed,
    )
    b = tb.bound
    eps = b.epsilon
    passed = not exceeds(eps, params.claimed_epsilon)
    level = f"{params.confidence:.0%}"
    side = "TN/FN" if b.inverse else "TP/FP"
    rates = (
        f"target {names[tb.target]!r}: {b.tp} of {b.n_pos} {'non-member' if b.inverse else 'member'} trials and "
        f"{b.fp} of {b.n_neg} others flagged ({side}), on {b.n_test} trials after choosing on {b.n_validation}; "
        f"{tb.targets} target(s), each at {1 - (1 - params.confidence) / tb.targets:.2%}"
        + (f"; {duplicates} repeated manifest row(s) counted once" if duplicates else "")
    )
    if not passed:
        message = (
            f"this release cannot be {_claim(params)} DP: its membership attack alone proves ε ≥ {eps:.2f} at "
            f"{level} ({rates}; Clopper–Pearson bound)"
        )
    else:
        message = (
            f"ε ≥ {eps:.2f} at {level} from {len(member)} repeated releases ({rates}): does not contradict the "
            f"claim {_claim(params)}" + _ceiling_note(tb.ceiling, params)
        )
    details = Details(
        mode="repeated",
        columns=columns,
        claimed_epsilon=params.claimed_epsilon,
        claimed_delta=params.claimed_delta,
        confidence=params.confidence,
        epsilon_lower_bound=eps,
        epsilon_ceiling=tb.ceiling,
        attack=params.attacks[b.attack],
        trials=len(member),
        targets=tb.targets,
        target=names[tb.target],
        duplicate_rows=duplicates,
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
