r"""Empirical lower bounds on the ε of a differentially private release, from membership guesses.

Two bounds, both *lower* bounds: at confidence ``1 - beta`` the release cannot be (ε, δ)-DP for any ε
below them. A lower bound that can exceed the true ε is worse than none, so every choice made after
looking at the guesses is paid for (a union bound over the options tried) and the tests check, with
mechanisms whose ε is known exactly, that the bound stays below it at the stated rate.

One run (Steinke, Nasr & Jagielski 2023)
----------------------------------------
"Privacy Auditing with One (1) Training Run" (NeurIPS 2023, arXiv:2305.08846). ``m`` records are each
put in the training data by an independent fair coin (``S_i`` uniform on {-1, +1}, their Algorithm 1,
step 3); the auditor sees the output and makes ``r = k+ + k-`` guesses ``T_i`` in {-1, +1}, ``k+`` "in"
and ``k-`` "out" (abstaining on the others; Algorithm 1's parameters). Their
Theorem 3.1: for an ε-DP mechanism the number ``V`` of correct guesses is stochastically dominated by
``Binomial(r, q)``, ``q = e^ε / (1 + e^ε)`` (the accuracy of ε-DP randomized response); for
(ε, δ)-DP (their §5, Theorem 5.2) the tail gains a term in δ. Their Appendix D computes the p-value

    p(ε, δ) = P[Bin(r, q) >= v] + 2 m δ max_{1<=i<=v} (1/i) sum_{j=1..i} P[Bin(r, q) = v - j]   (capped at 1)

and the bound is the largest ε with ``p(ε, δ) < beta``, found by bisection (:func:`one_run_p_value`,
:func:`one_run_lower_bound`; the same arithmetic, vectorised over ``i``). With every guess right the
bound solves ``q^r = beta`` (δ = 0): ``ε = log(q / (1 - q))`` with ``q = beta^(1/r)`` (a test checks it).

Classic bound (Jagielski, Ullman & Oprea 2020; TAPAS)
-----------------------------------------------------
From releases generated several times with and without a target: an ε-DP mechanism's test of "target
in" has ``TPR <= e^ε FPR + δ`` and ``1 - FPR <= e^ε (1 - TPR) + δ``. With Clopper–Pearson intervals at
confidence ``1 - beta/2`` each, ``ε >= log((TPR_low - δ) / FPR_high)`` (or the same on negatives), as
TAPAS's ``EffectiveEpsilonReport._estimate_effective_epsilon`` computes it (there with δ = 0). TAPAS
chooses the attack, threshold and side on a validation share of the trials (10 %, its "cp" heuristic:
the largest Clopper–Pearson bound at 90 %) and estimates on the rest (:func:`clopper_pearson_epsilon`).
The inequality is about one target's presence, so the trials are audited target by target, each at
``1 - beta / targets`` (:func:`per_target_epsilon`, as TAPAS builds one threat model per target); the
trials must be independent releases (the caller counts a release listed twice once) whose target was put
in by a coin independent of the rest of their data.

The largest bound an audit of a given size can give (every guess right) is its *ceiling*: a claim above
it cannot be disproved, and the reports say so rather than let a pass read as a confirmation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "one_run_p_value",
    "one_run_lower_bound",
    "OneRunBound",
    "one_run_audit",
    "guess_grid",
    "clopper_pearson",
    "cp_epsilon",
    "clopper_pearson_epsilon",
    "CPBound",
    "TargetsBound",
    "per_target_epsilon",
]


def _q(eps: float) -> float:
    return 1.0 / (1.0 + math.exp(-eps))


def one_run_p_value(m: int, r: int, v: int, eps: float, delta: float = 0.0) -> float:
    """Probability of at least ``v`` correct guesses out of ``r`` (of ``m`` randomised records) for an
    (ε, δ)-DP mechanism: Steinke et al., Theorem 3.1 / §5, computed as in their Appendix D."""
    if not 0 <= v <= r <= m:
        raise ValueError(f"need 0 <= v <= r <= m, got v={v}, r={r}, m={m}")
    if eps < 0 or not 0 <= delta <= 1:
        raise ValueError("need eps >= 0 and 0 <= delta <= 1")
    q = _q(eps)
    tail = float(stats.binom.sf(v - 1, r, q))  # P[Bin(r, q) >= v]
    if delta == 0 or v == 0:
        return min(tail, 1.0)
    below = stats.binom.pmf(np.arange(v - 1, -1, -1), r, q)  # P[Bin = v - i], i = 1 .. v
    alpha = float(np.max(np.cumsum(below) / np.arange(1, v + 1)))
    return min(tail + alpha * delta * 2 * m, 1.0)


def one_run_lower_bound(m: int, r: int, v: int, beta: float = 0.05, delta: float = 0.0, tol: float = 1e-6) -> float:
    """The largest ε whose p-value (:func:`one_run_p_value`) is below ``beta``: at confidence ``1 - beta``
    the mechanism is not (ε', δ)-DP for any ε' below it. 0 when even ε = 0 is not rejected."""
    if not 0 < beta < 1:
        raise ValueError("beta must lie in (0, 1)")
    if one_run_p_value(m, r, v, 0.0, delta) >= beta:
        return 0.0
    lo, hi = 0.0, 1.0
    while one_run_p_value(m, r, v, hi, delta) < beta:  # p grows with ε: find an ε not rejected
        lo, hi = hi, hi * 2
        if hi > 1e4:
            return math.inf
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if one_run_p_value(m, r, v, mid, delta) < beta:
            lo = mid
        else:
            hi = mid
    return lo


def guess_grid(m: int, smallest: int = 10, per_decade: int = 4) -> np.ndarray:
    """Numbers of guesses tried: a geometric grid from ``smallest`` to ``m`` (each side of the scores)."""
    if m <= 0:
        return np.zeros(0, dtype=np.int64)
    hi = max(1, m)
    lo = min(smallest, hi)
    n = max(1, int(math.ceil(per_decade * math.log10(hi / lo))) + 1)
    return np.unique(np.round(np.geomspace(lo, hi, n)).astype(np.int64))


@dataclass(frozen=True)
class OneRunBound:
    epsilon: float  # the lower bound at confidence 1 - beta (over every option tried)
    beta: float
    delta: float
    m: int  # randomised records audited
    guesses: int  # r of the option that gave the bound
    correct: int  # v of that option
    positive_guesses: int  # how many of the guesses said "member"
    options: int  # options tried (the union bound divides beta by this)
    accuracy: float  # v / r
    ceiling: float = math.inf  # the bound had every guess of the largest option been right: no audit proves more

    def to_dict(self) -> dict:
        return {
            "epsilon": self.epsilon,
            "ceiling": self.ceiling,
            "beta": self.beta,
            "delta": self.delta,
            "m": self.m,
            "guesses": self.guesses,
            "correct": self.correct,
            "positive_guesses": self.positive_guesses,
            "options": self.options,
            "accuracy": self.accuracy,
        }


def _counts_for_grid(scores: np.ndarray, member: np.ndarray, grid: np.ndarray):
    """For every k of the grid: correct guesses among the k highest scores guessed "member" and among the k
    lowest guessed "non-member" (ties at the cut broken by a fixed random order, drawn without the labels)."""
    order = np.argsort(-scores, kind="stable")
    ranked = member[order]
    top_correct = np.concatenate([[0], np.cumsum(ranked)])  # members among the k highest
    bottom_correct = np.concatenate([[0], np.cumsum(~ranked[::-1])])  # non-members among the k lowest
    return top_correct[grid], bottom_correct[grid]


def one_run_audit(
    scores: list[np.ndarray] | np.ndarray,
    member: np.ndarray,
    *,
    beta: float = 0.05,
    delta: float = 0.0,
    seed: int = 0,
    grid: np.ndarray | None = None,
) -> OneRunBound:
    """Steinke et al.'s bound from membership scores of ``m`` records whose membership was random.

    ``scores``: one array per attack (higher = more likely a member), computed **without** the labels.
    For every attack and every ``k`` of :func:`guess_grid` two guess sets are tried: the ``k`` highest
    scores guessed members, and those plus the ``k`` lowest guessed non-members (when ``2k <= m``).
    Each option's bound is taken at ``beta / options`` (a union bound), so the largest of them holds at
    confidence ``1 - beta``. Ties in the scores are broken by a random order drawn from ``seed`` (which
    does not look at the labels)."""
    member = np.asarray(member, dtype=bool)
    m = len(member)
    attacks = [np.asarray(s, dtype=float) for s in (scores if isinstance(scores, list) else [scores])]
    grid = guess_grid(m) if grid is None else np.asarray(grid, dtype=np.int64)
    grid = grid[(grid >= 1) & (grid <= m)]
    jitter = np.random.default_rng(seed).permutation(m)
    candidates = []
    for s in attacks:
        s = np.where(np.isnan(s), -np.inf, s)
        order = np.lexsort((jitter, -s))  # by score descending, ties in the random order
        ranks = np.empty(m)
        ranks[order] = np.arange(m, 0, -1)  # distinct values in the tie-broken order
        top, bottom = _counts_for_grid(ranks, member, grid)
        for k, t, b in zip(grid, top, bottom, strict=False):
            candidates.append((int(k), int(t), int(k)))
            if 2 * k <= m:
                candidates.append((int(2 * k), int(t + b), int(k)))
    options = max(1, len(candidates))
    level = beta / options
    r_max = max((c[0] for c in candidates), default=0)
    ceiling = one_run_lower_bound(m, r_max, r_max, level, delta) if r_max else 0.0
    best = OneRunBound(0.0, beta, delta, m, 0, 0, 0, options, float("nan"), ceiling)
    # a bound grows with v - r q for fixed r; compute only the options whose accuracy beats 1/2
    for r, v, pos in candidates:
        if v * 2 <= r:
            continue
        eps = one_run_lower_bound(m, r, v, level, delta)
        if eps > best.epsilon:
            best = OneRunBound(eps, beta, delta, m, r, v, pos, options, v / r, ceiling)
    if best.guesses == 0 and candidates:
        r, v, pos = max(candidates, key=lambda c: (c[1] / c[0], c[0]))
        best = OneRunBound(0.0, beta, delta, m, r, v, pos, options, v / r, ceiling)
    return best


# ------------------------------------------------------------------------------------ classic bound
def clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval of a binomial proportion (``scipy.stats.binomtest``'s exact
    interval, which TAPAS uses)."""
    if n == 0:
        return 0.0, 1.0
    alpha = 1 - confidence
    lo = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


def cp_epsilon(tp: int, n_pos: int, fp: int, n_neg: int, confidence: float, delta: float = 0.0) -> tuple[float, float]:
    """TAPAS's ``_estimate_effective_epsilon`` for one threshold: the Clopper–Pearson intervals of TPR and
    FPR at ``1 - (1 - confidence) / 2`` each; ``(max(0, log((TPR_low - δ) / FPR_high)), log(TPR_high /
    FPR_low))`` (δ = 0 in TAPAS; ``inf`` when the FPR bound is 0)."""
    half = 1 - (1 - confidence) / 2
    tpr = clopper_pearson(tp, n_pos, half)
    fpr = clopper_pearson(fp, n_neg, half)
    num = tpr[0] - delta
    low = (max(0.0, math.log(num / fpr[1])) if num > 0 else 0.0) if fpr[1] > 0 else math.inf
    high = math.log(tpr[1] / fpr[0]) if fpr[0] > 0 else math.inf
    return low, high


@dataclass(frozen=True)
class CPBound:
    epsilon: float  # lower bound at the confidence level
    epsilon_high: float  # TAPAS's upper end (log(TPR_high / FPR_low))
    confidence: float
    threshold: float
    inverse: bool  # the bound came from the negatives (TN / FN)
    attack: int  # index of the attack chosen on the validation trials
    n_validation: int
    n_test: int
    tp: int
    fp: int
    n_pos: int
    n_neg: int

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _counts_at_thresholds(scores: np.ndarray, labels: np.ndarray):
    """TP and FP of ``score >= t`` for every distinct t (sorted ascending), vectorised."""
    thresholds = np.unique(scores)
    pos, neg = np.sort(scores[labels]), np.sort(scores[~labels])
    tp = len(pos) - np.searchsorted(pos, thresholds, side="left")
    fp = len(neg) - np.searchsorted(neg, thresholds, side="left")
    return thresholds, tp, fp, len(pos), len(neg)


def _cp_lower_vector(tp, n_pos, fp, n_neg, confidence, delta=0.0):
    half = 1 - (1 - confidence) / 2
    a = (1 - half) / 2  # one tail of the two-sided interval at level `half`
    tp, fp = np.asarray(tp, float), np.asarray(fp, float)
    tpr_lo = np.where(tp > 0, stats.beta.ppf(a, np.maximum(tp, 1e-12), n_pos - tp + 1), 0.0)
    fpr_hi = np.where(fp < n_neg, stats.beta.ppf(1 - a, fp + 1, np.maximum(n_neg - fp, 1e-12)), 1.0)
    num = tpr_lo - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(fpr_hi > 0, np.log(np.maximum(num, 1e-300) / fpr_hi), np.inf)
    return np.where(num > 0, np.maximum(eps, 0.0), 0.0)


def clopper_pearson_epsilon(
    scores: list[np.ndarray] | np.ndarray,
    labels: np.ndarray,
    *,
    confidence: float = 0.95,
    delta: float = 0.0,
    validation_split: float = 0.1,
    selection_confidence: float = 0.9,
) -> CPBound:
    """TAPAS's ``EffectiveEpsilonReport`` ("cp" heuristic): on the first ``validation_split`` of the
    trials choose the attack, threshold and side (TP/FP or TN/FN) with the largest Clopper–Pearson bound at
    ``selection_confidence``; on the rest, that choice's bound at ``confidence`` (:func:`cp_epsilon`).
    Trials in the order given (shuffle them first if their order carries information)."""
    labels = np.asarray(labels, dtype=bool)
    attacks = [np.asarray(s, dtype=float) for s in (scores if isinstance(scores, list) else [scores])]
    n = len(labels)
    split = int(validation_split * n)
    best = (-1.0, 0, 0.0, False)
    for a, s in enumerate(attacks):
        sv, lv = s[:split], labels[:split]
        if not len(sv) or lv.all() or not lv.any():
            continue
        for inverse in (False, True):
            # inverse: "non-member" when score <= t; positives are the non-members
            ss, ll = (-sv, ~lv) if inverse else (sv, lv)
            t, tp, fp, n_pos, n_neg = _counts_at_thresholds(ss, ll)
            eps = _cp_lower_vector(tp, n_pos, fp, n_neg, selection_confidence, delta)
            i = int(np.argmax(eps))
            if eps[i] > best[0]:
                best = (float(eps[i]), a, float(-t[i] if inverse else t[i]), inverse)
    _, a, threshold, inverse = best
    s, lab = attacks[a][split:], labels[split:]
    if inverse:
        pos, hit = ~lab, s <= threshold
    else:
        pos, hit = lab, s >= threshold
    tp, fp = int(np.sum(hit & pos)), int(np.sum(hit & ~pos))
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    low, high = cp_epsilon(tp, n_pos, fp, n_neg, confidence, delta) if n_pos and n_neg else (0.0, math.inf)
    return CPBound(low, high, confidence, threshold, inverse, a, split, n - split, tp, fp, n_pos, n_neg)


@dataclass(frozen=True)
class TargetsBound:
    """The Clopper–Pearson bound of every target, the largest reported (:func:`per_target_epsilon`)."""

    bound: CPBound  # the reported target's bound, at confidence 1 - beta / targets
    target: int  # index of the reported target among the groups
    targets: int
    ceiling: float  # the largest bound any target's test trials could give, perfectly separated


def per_target_epsilon(
    scores: list[np.ndarray],
    labels: np.ndarray,
    groups: np.ndarray,
    *,
    confidence: float = 0.95,
    delta: float = 0.0,
    seed: int = 0,
) -> TargetsBound:
    """The repeated-trials bound, target by target (``groups[i]``: the target of trial ``i``, 0 .. T - 1).

    An (ε, δ)-DP mechanism bounds a test of *one* target's presence: ``TPR <= e^ε FPR + δ`` between
    neighbouring datasets (Jagielski et al. 2020, §3; TAPAS builds one threat model per target record,
    ``TargetedMIA`` with ``MIALabeller.generate_datasets_with_label``, the target added to half of the
    datasets). Trials of several targets pooled are no such test: with target A only among members and B
    only among non-members the attack tells A from B, not presence from absence, and "proves" ε > 0 for a
    generator that never reads its data. So every target is audited on its own trials (which must hold both
    kinds), each at confidence ``1 - beta / T`` (a union bound over the T targets), and the largest bound is
    reported: at confidence ``1 - beta`` no target's bound exceeds the true ε. Each target's trials are
    shuffled (``seed``) before TAPAS's validation split (:func:`clopper_pearson_epsilon`)."""
    labels = np.asarray(labels, dtype=bool)
    groups = np.asarray(groups, dtype=np.int64)
    n_targets = int(groups.max()) + 1 if len(groups) else 0
    if n_targets == 0:
        raise ValueError("no trials")
    level = 1 - (1 - confidence) / n_targets
    rng = np.random.default_rng(seed)
    best: tuple[CPBound, int] | None = None
    ceiling = 0.0
    for g in range(n_targets):
        rows = np.flatnonzero(groups == g)
        lab = labels[rows]
        if lab.all() or not lab.any():
            raise ValueError(f"target {g} has trials of one kind only")
        rows = rows[rng.permutation(len(rows))]
        b = clopper_pearson_epsilon([s[rows] for s in scores], labels[rows], confidence=level, delta=delta)
        ceiling = max(ceiling, cp_epsilon(b.n_pos, b.n_pos, 0, b.n_neg, level, delta)[0])
        if best is None or b.epsilon > best[0].epsilon:
            best = (b, g)
    assert best is not None
    return TargetsBound(best[0], best[1], n_targets, ceiling)
