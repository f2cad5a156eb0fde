"""The entry point: :func:`probabilistic_linkage` of an intruder sample to the release."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from privaudit.risk.linkage.blocking import BlockKeys, default_blocking, encode_block_keys, rule_order
from privaudit.risk.linkage.fellegi_sunter.comparisons import encode
from privaudit.risk.linkage.fellegi_sunter.model import (
    AttributeParameters,
    ComparisonSpec,
    EstimationResult,
    ProbabilisticLinkageResult,
)
from privaudit.risk.linkage.fellegi_sunter.parameters import (
    em_estimate,
    em_warnings,
    full_product_level_counts,
    label_parameters,
    random_pair_u,
)
from privaudit.risk.linkage.fellegi_sunter.patterns import PatternCounter, PatternSpace
from privaudit.risk.linkage.fellegi_sunter.scan import RuleContext, scan
from privaudit.risk.linkage.fellegi_sunter.weights import attribute_weights, fs_thresholds
from privaudit.risk.linkage.intruder import intruder_sample


def probabilistic_linkage(
    original: pd.DataFrame,
    released: pd.DataFrame,
    comparisons: Sequence[ComparisonSpec],
    *,
    blocking: Sequence[Sequence[str]] | None = None,
    rows: float | int = 1.0,
    seed: int = 0,
    estimation: Literal["labels", "em", "both"] = "labels",
    max_false_match_rate: float = 0.01,
    max_false_non_match_rate: float = 0.01,
    chunk_size: int = 1_000_000,
    em_max_iter: int = 1000,
    em_u: Literal["random", "em"] = "random",
    progress: Callable[[int, int], None] | None = None,
) -> ProbabilisticLinkageResult:
    """Fellegi–Sunter linkage of an intruder sample of ``original`` to ``released``.

    Parameters
    ----------
    original, released:
        same records in the same order (row ``i`` of one is row ``i`` of the other).
    comparisons:
        the intruder's columns and how they are compared.
    blocking:
        list of rules, each a list of columns that must agree exactly; the
        candidate pairs are the de-duplicated union.  ``None``: one rule per
        categorical comparison column among the three with the highest
        effective number of values, or the three pairs of these columns when
        single columns would give more than 1e8 pairs
        (:func:`.blocking.default_blocking`).  ``[]``: no blocking (full
        cross product).
    rows, seed:
        intruder sample: a fraction (float) or count (int) of the original's
        rows, drawn without replacement with ``seed``.
    estimation:
        ``"labels"``, ``"em"`` or ``"both"``; the result's ``value`` is the
        worst (highest) risk among those run.
    max_false_match_rate, max_false_non_match_rate:
        FS error-rate targets that set the upper and lower thresholds.
    chunk_size:
        approximate number of pairs scored at once (bounds memory).
    em_max_iter, em_u:
        EM iteration cap per session; ``em_u="random"`` fixes ``u`` at the
        level frequencies over all pairs of ``B x release`` (label-free, as
        Splink does with random sampling), ``"em"`` fits ``u`` too.
    progress:
        optional ``callable(done, total)`` called after every chunk, counting
        raw pairs over all passes.
    """
    _check_arguments(original, released, comparisons, estimation, em_u)
    comparisons = tuple(comparisons)
    pairs = _CandidatePairs.build(original, released, comparisons, blocking, rows, seed, chunk_size)
    return link_pairs(
        pairs, comparisons, estimation, max_false_match_rate, max_false_non_match_rate, em_max_iter, em_u, progress
    )


def link_pairs(
    pairs, comparisons, estimation, max_false_match_rate, max_false_non_match_rate, em_max_iter, em_u, progress
) -> ProbabilisticLinkageResult:
    """Estimate m/u, score and link the candidate pairs of ``pairs``: the steps shared by the in-process
    pairs (:class:`_CandidatePairs`) and the SQL ones (:class:`.sql.SqlPairs`).

    ``pairs`` gives ``n_left``, ``n_right``, ``rules`` (each with ``columns``), ``space`` (a
    :class:`.patterns.PatternCoding`), ``true_codes`` and ``own_seen`` (per intruder record: its own
    pair's pattern, and whether blocking makes it a candidate), ``full_counts()`` (per attribute, the
    pairs of the full product at each level and their total), ``first_pass(weight_sets, per_rule,
    progress)`` -> (bests, pattern codes, counts, per-rule counts or None) and ``best_pass(weight_sets,
    progress)`` -> bests; a best has ``best`` and ``n_best`` per intruder record."""
    methods = ["labels", "em"] if estimation == "both" else [estimation]
    full = pairs.full_counts()
    params = {"labels": _label_estimates(pairs, full)} if "labels" in methods else {}  # known before the scan
    first = [] if "em" in methods else [params["labels"][2]]
    bests, pattern_codes, pattern_counts, rule_counts = pairs.first_pass(first, "em" in methods, progress)
    n_pairs = int(pattern_counts.sum())

    em_info = None
    if "em" in methods:  # a second pass scores the pairs with the fitted weights
        if n_pairs == 0:
            raise ValueError("no candidate pairs: EM cannot be fitted")
        u_random = [random_pair_u(spec, f) for spec, f in zip(pairs.space.specs, full, strict=False)]
        m, u, lam, sessions, not_estimable = em_estimate(
            pairs.space,
            pairs.rules,
            rule_counts,
            pattern_codes,
            pattern_counts.astype(float),
            u_random,
            pairs.n_left,
            em_u == "em",
            em_max_iter,
        )
        floor = 0.5 / n_pairs
        params["em"] = (m, u, [attribute_weights(ma, ua, floor, floor) for ma, ua in zip(m, u, strict=False)])
        em_info = (lam, sessions, not_estimable)
        bests = pairs.best_pass([params[k][2] for k in methods], progress)

    counts = _PairCounts(
        pattern_codes, pattern_counts, *np.unique(pairs.true_codes[pairs.own_seen].astype(np.int64), return_counts=True)
    )
    results = [
        _estimation_result(
            method,
            params[method],
            best,
            pairs,
            counts,
            comparisons,
            em_info,
            max_false_match_rate,
            max_false_non_match_rate,
        )
        for method, best in zip(methods, bests, strict=False)
    ]
    n_true_cand = int(pairs.own_seen.sum())
    warnings: list[str] = []
    if n_true_cand < pairs.n_left:
        warnings.append(
            f"blocking keeps the own record of only {n_true_cand}/{pairs.n_left} intruder records among the candidates"
        )
    worst = max(results, key=lambda r: r.value)
    return ProbabilisticLinkageResult(
        value=worst.value,
        worst=worst.estimation,
        estimations=tuple(results),
        n_intruder=pairs.n_left,
        n_released=pairs.n_right,
        n_candidate_pairs=n_pairs,
        pair_recall=n_true_cand / pairs.n_left,
        blocking=tuple(tuple(r.columns) for r in pairs.rules),
        comparisons=tuple(comparisons),
        warnings=tuple(warnings),
    )


def _check_arguments(original, released, comparisons, estimation, em_u) -> None:
    if estimation not in ("labels", "em", "both"):
        raise ValueError("estimation must be 'labels', 'em' or 'both'")
    if em_u not in ("random", "em"):
        raise ValueError("em_u must be 'random' or 'em'")
    if len(original) != len(released):
        raise ValueError("original and released must have the same records in the same order")
    if not comparisons:
        raise ValueError("at least one comparison is required")
    names = [c.name for c in comparisons]
    if len(set(names)) != len(names):
        raise ValueError("duplicate comparison columns")
    for c in names:
        if c not in original.columns or c not in released.columns:
            raise KeyError(f"comparison column {c!r} missing from one of the tables")


@dataclass
class _CandidatePairs:
    """The intruder's sample, the blocking rules and the pattern space: everything a scan needs.

    ``idx[i]`` is the released row of intruder record ``i`` (its own record); ``true_codes`` the
    pattern of every own pair and ``own_seen`` whether blocking makes it a candidate."""

    n_left: int
    n_right: int
    idx: np.ndarray
    rules: list[BlockKeys]
    orders: list
    space: PatternSpace
    contexts: list[RuleContext]
    true_codes: np.ndarray
    own_seen: np.ndarray
    chunk_size: int = 1_000_000
    done: int = 0  # raw pairs scored so far, over all passes (progress)
    total: int = 0  # raw pairs of all passes

    @classmethod
    def build(cls, original, released, comparisons, blocking, rows, seed, chunk_size=1_000_000) -> _CandidatePairs:
        idx = intruder_sample(len(original), rows, seed)
        left = original.iloc[idx].reset_index(drop=True)
        right = released.reset_index(drop=True)
        n_left, n_right = len(left), len(right)
        if blocking is None:
            blocking = default_blocking(left, [c.name for c in comparisons if c.kind == "categorical"], n_other=n_right)
        blocking = [list(r) for r in blocking]
        if blocking:
            rules = encode_block_keys(left, right, blocking)
        else:
            rules = [BlockKeys((), np.zeros(n_left, np.int64), np.zeros(n_right, np.int64))]
        orders = [rule_order(k) for k in rules]
        space = PatternSpace([encode(c, left, right) for c in comparisons])
        contexts = [RuleContext(r, rules, orders[r][0], space) for r in range(len(rules))]
        own_seen = np.zeros(n_left, dtype=bool)
        for k in rules:
            own_seen |= (k.left == k.right[idx]) & (k.left >= 0)
        return cls(
            n_left,
            n_right,
            idx,
            rules,
            orders,
            space,
            contexts,
            space.codes(np.arange(n_left), idx),
            own_seen,
            chunk_size,
        )

    def full_counts(self) -> list[tuple[np.ndarray, float]]:
        return [full_product_level_counts(enc) for enc in self.space.encoded]

    def first_pass(self, weight_sets, per_rule: bool, progress):
        """Pattern counts (and per rule, when ``per_rule``), and the bests of ``weight_sets``."""
        self.total = sum(int(o[2].sum()) for o in self.orders) * (2 if per_rule else 1)
        counter = PatternCounter(self.space.size, self.chunk_size)
        rule_counters = [PatternCounter(self.space.size, self.chunk_size) for _ in self.rules] if per_rule else None
        bests = self._scan(weight_sets, counter, rule_counters, progress)
        codes, counts = counter.result()
        return bests, codes, counts, None if rule_counters is None else [c.result() for c in rule_counters]

    def best_pass(self, weight_sets, progress):
        return self._scan(weight_sets, None, None, progress)

    def _scan(self, weight_sets, counter, rule_counters, progress):
        bests, self.done = scan(
            self.space,
            self.rules,
            self.orders,
            self.contexts,
            self.chunk_size,
            weight_sets,
            counter,
            rule_counters,
            progress,
            self.done,
            self.total,
        )
        return bests


@dataclass
class _PairCounts:
    """Pattern counts of the de-duplicated candidate pairs, and of the own pairs among them."""

    codes: np.ndarray
    counts: np.ndarray
    true_codes: np.ndarray
    true_counts: np.ndarray


def _label_estimates(pairs, full) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """``m``, ``u`` and weights of every attribute from the true pairs (the worst-case intruder)."""
    true_levels = pairs.space.decode(pairs.true_codes)
    ms, us, ws = [], [], []
    for a, spec in enumerate(pairs.space.specs):
        lev = np.where(true_levels[:, a] < 0, spec.n_levels, true_levels[:, a])
        m, u, n_m, n_u = label_parameters(spec, full[a], lev)
        ms.append(m)
        us.append(u)
        ws.append(attribute_weights(m, u, 0.5 / max(n_m, 1), 0.5 / max(n_u, 1)))
    return ms, us, ws


def _estimation_result(
    method,
    params,
    best,
    pairs,
    counts: _PairCounts,
    comparisons,
    em_info,
    max_false_match_rate,
    max_false_non_match_rate,
) -> EstimationResult:
    """Thresholds, links and the risk value of one estimation from its weights and the scan's bests."""
    ms, us, ws = params
    space, n_left = pairs.space, pairs.n_left
    n_pairs = int(counts.counts.sum())
    th = fs_thresholds(
        ws, ms, us, max_false_match_rate=max_false_match_rate, max_false_non_match_rate=max_false_non_match_rate
    )
    pw = space.weights(ws, counts.codes)
    tw = space.weights(ws, counts.true_codes)
    n_links = int(counts.counts[pw >= th.upper].sum())
    n_true_links = int(counts.true_counts[tw >= th.upper].sum())
    n_clerical = int(counts.counts[(pw >= th.lower) & (pw < th.upper)].sum())
    own_w = space.weights(ws, pairs.true_codes)
    correct_top = pairs.own_seen & (own_w == best.best)
    credit = np.where(correct_top, 1.0 / np.maximum(best.n_best, 1), 0.0)
    linked = np.isfinite(best.best) & (best.best >= th.upper)
    attrs = tuple(
        AttributeParameters(c.name, c.level_labels, tuple(map(float, m)), tuple(map(float, u)), tuple(map(float, w)))
        for c, m, u, w in zip(comparisons, ms, us, ws, strict=False)
    )
    expected_lambda = n_left / n_pairs if n_pairs else float("nan")
    common = dict(
        value=float(credit[linked].sum() / n_left),
        top1_correct=float(credit.sum() / n_left),
        unique_top1_correct=float(np.sum(correct_top & (best.n_best == 1)) / n_left),
        top_link_precision=float(credit[linked].sum() / linked.sum()) if linked.any() else float("nan"),
        pair_precision=n_true_links / n_links if n_links else float("nan"),
        n_links=n_links,
        n_clerical=n_clerical,
        thresholds=th,
        attributes=attrs,
        expected_lambda=expected_lambda,
    )
    if method == "labels":
        return EstimationResult(
            "labels", lambda_=int(pairs.own_seen.sum()) / n_pairs if n_pairs else float("nan"), **common
        )
    lam, sessions, not_estimable = em_info
    fits = [f for f, _ in filter(None, sessions)]
    return EstimationResult(
        "em",
        lambda_=lam,
        iterations=max(f.iterations for f in fits),
        converged=all(f.converged for f in fits),
        rule_lambdas=tuple(float("nan") if s is None else s[0].lambda_ for s in sessions),
        warnings=em_warnings(
            lam,
            sessions,
            not_estimable,
            attrs,
            expected_lambda,
            n_left,
            pairs.n_right,
            [r.columns for r in pairs.rules],
        ),
        **common,
    )
