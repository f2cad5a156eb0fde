"""Distance-based record linkage (DBRL) of an intruder's file against a release.

Scenario (Torra and Domingo-Ferrer 2003; Domingo-Ferrer and Torra 2001): the intruder holds
``B``, a seeded sample of the records of the original ``X`` restricted to the attributes they
know, and links every record of ``B`` to the released record at minimum distance.  Released row
``i`` is the masked original row ``i``, so a link is correct when it points to the record's own
row.  The distance is the weighted mean of per-attribute distances described in
:mod:`privaudit.risk.linkage.encoding` (standardised numeric differences, 0/1 or hierarchical
categorical distances), with ``metric="mahalanobis"`` whitening the numeric attributes.

Scoring:

* ``nearest``: a record whose own released record is among ``t`` records tied at the minimum
  distance counts ``1/t`` correct (random tie breaking in expectation), otherwise 0;
* ``one_to_one``: the release being a 1:1 masking, the intruder solves the global assignment
  (:mod:`.assignment`); a record counts its probability of being assigned its own record
  (1 or 0, except among identical records, where the matching is taken as random in
  expectation, like the ``1/t`` rule).  Records the sparse solver leaves unassigned fall back
  to the ``nearest`` rule.

Reported beside the rate: its breakdown by the size of the own released record's equivalence
class; the share of *distinct* links (nearest distance ``< 1/2`` of the second nearest; the
"distance ratio" criterion) and their precision (share of distinct links that are correct under the
chosen assignment); and with ``worst_case=True`` the rate under the attribute weights of the
maximum-knowledge intruder (:mod:`.worst_case`, Abril, Navarro-Arribas and Torra 2012).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from privaudit.common.thresholds import tie_bound
from privaudit.risk.linkage.assignment import one_to_one
from privaudit.risk.linkage.encoding import AttributeSpec, EncodedPair, encode_pair
from privaudit.risk.linkage.intruder import intruder_sample  # noqa: F401 (re-exported)
from privaudit.risk.linkage.neighbours import BlockedIndex
from privaudit.risk.linkage.worst_case import learn_worst_case_weights

__all__ = [
    "AttributeSpec",
    "ClassSizeRate",
    "DistanceLinkageResult",
    "distance_linkage",
    "intruder_sample",
]


@dataclass(frozen=True)
class ClassSizeRate:
    """Linkage rate of the intruder records whose own released record is in a class of this size."""

    label: str
    size_min: int
    size_max: int | None  # None: open bucket ``> size_min - 1``
    records: int
    correct: float
    rate: float


@dataclass(frozen=True)
class DistanceLinkageResult:
    """Outcome of :func:`distance_linkage`.

    ``rate = correct / n_intruder``; ``correct`` is an expected count (ties give fractions).
    ``unassigned`` is the expected number of records the sparse one-to-one solver left to the
    nearest-neighbour fallback.  Per-record arrays are aligned with ``intruder_rows`` (positions in
    the original / release): ``credit`` (expected correctness), ``linked_to`` (the released record
    linked; among tied or identical candidates an arbitrary one), ``nearest_distance`` and
    ``second_distance`` (distances to the two nearest released records).  ``weights`` are the
    normalised weights of the distance groups (under ``mahalanobis`` the numeric attributes form
    one group), ``worst_case_weights`` the learned ones (per attribute).
    """

    rate: float
    correct: float
    n_intruder: int
    n_released: int
    metric: str
    assignment: str
    attributes: tuple[str, ...]
    weights: tuple[tuple[str, float], ...]
    distinct_share: float
    distinct_precision: float
    rate_by_class_size: tuple[ClassSizeRate, ...]
    unassigned: float = 0.0
    worst_case_rate: float | None = None
    worst_case_correct: float | None = None
    worst_case_weights: tuple[tuple[str, float], ...] | None = None
    intruder_rows: np.ndarray = field(default=None, repr=False, compare=False)
    linked_to: np.ndarray = field(default=None, repr=False, compare=False)
    credit: np.ndarray = field(default=None, repr=False, compare=False)
    nearest_distance: np.ndarray = field(default=None, repr=False, compare=False)
    second_distance: np.ndarray = field(default=None, repr=False, compare=False)

    @property
    def max_rate(self) -> float:
        """The larger of the plain and the worst-case rate."""
        return max(self.rate, self.worst_case_rate if self.worst_case_rate is not None else -math.inf)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (no per-record arrays)."""
        return {
            "rate": self.rate,
            "correct": self.correct,
            "n_intruder": self.n_intruder,
            "n_released": self.n_released,
            "metric": self.metric,
            "assignment": self.assignment,
            "attributes": list(self.attributes),
            "weights": dict(self.weights),
            "distinct_share": self.distinct_share,
            "distinct_precision": None if math.isnan(self.distinct_precision) else self.distinct_precision,
            "rate_by_class_size": [
                {"class_size": c.label, "records": c.records, "correct": c.correct, "rate": c.rate}
                for c in self.rate_by_class_size
            ],
            "unassigned": self.unassigned,
            "worst_case_rate": self.worst_case_rate,
            "worst_case_correct": self.worst_case_correct,
            "worst_case_weights": None if self.worst_case_weights is None else dict(self.worst_case_weights),
        }


# --------------------------------------------------------------------------- core linkage


@dataclass(frozen=True)
class _Outcome:
    linked: np.ndarray
    credit: np.ndarray
    d1: np.ndarray
    d2: np.ndarray
    knn_dist: np.ndarray
    knn_idx: np.ndarray
    unassigned: float


class _Linker:
    """Runs the linkage of (a subset of) the intruder rows of an encoded pair under given weights."""

    def __init__(self, pair: EncodedPair, own: np.ndarray):
        self.pair = pair
        self.own = own

    def scaled(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scale = self.pair.column_scale(weights)
        return self.pair.query * scale, self.pair.released * scale

    def index(
        self, weights: np.ndarray, released: np.ndarray, rows: np.ndarray | None = None
    ) -> tuple[BlockedIndex, list[int]]:
        """Search index over the (weighted) released rows ``rows`` (all if None)."""
        pair = self.pair
        total = float(np.sum(weights))
        cont = [c for g in pair.continuous_groups if weights[g] > 0 for c in range(*pair.columns[g])]
        active, cols, delta = [], [], []
        for c, g in enumerate(pair.categorical_groups):
            d = weights[g] / total * pair.min_sq[c] if weights[g] > 0 else 0.0
            if math.isfinite(d) and d > 0:
                active.append(c)
                cols.append(pair.columns[g])
                delta.append(d)
        codes = pair.codes_released[:, active]
        if rows is not None:
            released, codes = released[rows], codes[rows]
        idx = BlockedIndex(released, np.asarray(cont, dtype=np.int64), cols, codes, np.asarray(delta))
        return idx, active

    def run(
        self,
        weights: np.ndarray,
        rows: np.ndarray | None,
        k: int,
        assignment: str = "nearest",
        candidates: int = 10,
        progress: Callable[[int, int], None] | None = None,
    ) -> _Outcome:
        query_all, released = self.scaled(weights)
        index, active = self.index(weights, released)
        codes_all = self.pair.codes_query[:, active]
        if rows is not None:
            query, codes, own = query_all[rows], codes_all[rows], self.own[rows]
        else:
            query, codes, own = query_all, codes_all, self.own
        dist, idx = index.query(query, codes, max(k, 2), progress=progress)
        d1, d2 = dist[:, 0], dist[:, 1]
        diff = query - released[own]
        d_own = np.sqrt(np.einsum("ij,ij->i", diff, diff))
        bound = tie_bound(d1)
        at_min = d_own <= bound
        tied = at_min & (d2 <= bound)
        ties = np.ones(len(query), dtype=np.int64)
        if tied.any():
            ties[tied] = index.count_within(query[tied], codes[tied], bound[tied])
        credit = at_min / np.maximum(ties, 1)
        linked = idx[:, 0].copy()
        unassigned = 0.0
        if assignment == "one_to_one":

            def knn(q_rows: np.ndarray, r_rows: np.ndarray, kk: int) -> tuple[np.ndarray, np.ndarray]:
                sub, _ = self.index(weights, released, r_rows)
                return sub.query(query[q_rows], codes[q_rows], kk)

            res = one_to_one(query, released, own, knn, candidates=candidates)
            credit = res.p_own + res.p_unassigned * credit
            linked = np.where(res.linked >= 0, res.linked, linked)
            unassigned = float(res.p_unassigned.sum())
        return _Outcome(linked, credit.astype(float), d1, d2, dist, idx, unassigned)


def _class_size_rates(sizes: np.ndarray, credit: np.ndarray, cap: int) -> tuple[ClassSizeRate, ...]:
    sizes = np.asarray(sizes, dtype=np.int64)
    bucket = np.minimum(sizes, cap + 1)
    out = []
    labels, inverse = np.unique(bucket, return_inverse=True)
    counts = np.bincount(inverse, minlength=len(labels))
    sums = np.bincount(inverse, weights=credit, minlength=len(labels))
    for b, cnt, s in zip(labels.tolist(), counts.tolist(), sums.tolist(), strict=False):
        if b > cap:
            out.append(ClassSizeRate(f">{cap}", cap + 1, None, cnt, s, s / cnt))
        else:
            out.append(ClassSizeRate(str(b), b, b, cnt, s, s / cnt))
    return tuple(out)


class _Progress:
    """Maps stage-local progress onto one monotone ``progress(done, total)`` sequence."""

    def __init__(self, callback: Callable[[int, int], None] | None, total: int):
        self.callback, self.total, self.offset = callback, max(total, 1), 0

    def stage(self, size: int) -> Callable[[int, int], None] | None:
        if self.callback is None:
            return None
        offset = self.offset
        self.offset += size

        def report(done: int, total: int) -> None:
            self.callback(min(self.total, offset + int(round(done * size / max(total, 1)))), self.total)

        return report

    def finish(self) -> None:
        if self.callback is not None:
            self.callback(self.total, self.total)


def distance_linkage(
    original: pd.DataFrame,
    released: pd.DataFrame,
    attributes: Sequence[AttributeSpec],
    *,
    rows: float | int = 1.0,
    seed: int = 0,
    metric: Literal["euclidean", "mahalanobis"] = "euclidean",
    assignment: Literal["nearest", "one_to_one"] = "nearest",
    worst_case: bool = False,
    class_sizes: np.ndarray | pd.Series | None = None,
    class_size_cap: int = 10,
    candidates: int = 20,
    worst_case_sample: int = 1000,
    worst_case_competitors: int = 5,
    worst_case_rounds: int = 3,
    progress: Callable[[int, int], None] | None = None,
) -> DistanceLinkageResult:
    """Distance-based record linkage of a seeded intruder sample of ``original`` against ``released``.

    Parameters
    ----------
    original, released
        Same number of rows, row ``i`` of ``released`` being the masked row ``i`` of ``original``.
    attributes
        The attributes the intruder knows (kind, optional hierarchy, weight).
    rows, seed
        The intruder's file: a fraction in (0, 1] (float) or a count (int) of the original's rows,
        drawn without replacement with ``numpy.random.default_rng(seed)``.
    metric
        ``euclidean`` (weighted mean of per-attribute squared distances) or ``mahalanobis``
        (numeric attributes whitened with the original's correlation matrix).
    assignment
        ``nearest`` (each record to its nearest released record, ties ``1/t``) or ``one_to_one``
        (global assignment; uses ``candidates`` nearest neighbours per record above the dense
        size limit of :mod:`.assignment`).
    worst_case
        Also learn the maximum-knowledge weights on up to ``worst_case_sample`` intruder records
        (``worst_case_competitors`` competitors per record, ``worst_case_rounds`` LP rounds) and
        report the rate of all intruder records under them (always with the per-attribute,
        i.e. euclidean, distance; same ``assignment``).
    class_sizes
        Equivalence-class size of every released record (length ``len(released)``); rates are
        grouped by the size of each intruder record's own released record, sizes above
        ``class_size_cap`` in one bucket.
    progress
        Optional ``callable(done, total)``, called from the search loops.
    """
    attributes, names, class_sizes = _checked_inputs(original, released, attributes, assignment, class_sizes)
    m = len(released)

    query_rows = intruder_sample(m, rows, seed)
    n = len(query_rows)
    n_wc = min(n, worst_case_sample) if worst_case else 0
    tracker = _Progress(progress, n + (n_wc * (worst_case_rounds + 1) + n if worst_case else 0))

    pair = encode_pair(original, released, attributes, query_rows, metric=metric)
    linker = _Linker(pair, query_rows)
    out = linker.run(pair.weights, None, 2, assignment, candidates, tracker.stage(n))

    wc: tuple[float | None, float | None, tuple[tuple[str, float], ...] | None] = (None, None, None)
    if worst_case:
        wc = _worst_case(
            original,
            released,
            attributes,
            query_rows,
            pair,
            metric,
            seed,
            n_wc,
            assignment,
            candidates,
            tracker,
            competitors=worst_case_competitors,
            rounds=worst_case_rounds,
        )
    tracker.finish()

    return _result(out, pair, query_rows, m, metric, assignment, names, class_sizes, class_size_cap, wc)


def _result(
    out: _Outcome,
    pair: EncodedPair,
    query_rows: np.ndarray,
    m: int,
    metric: str,
    assignment: str,
    names: list[str],
    class_sizes: np.ndarray | None,
    class_size_cap: int,
    wc: tuple[float | None, float | None, tuple[tuple[str, float], ...] | None],
) -> DistanceLinkageResult:
    """The :class:`DistanceLinkageResult` of a linkage outcome: the rate, the distinct links (nearest distance
    ``< 1/2`` of the second nearest) and their precision, the rates by class size and the worst case ``wc``
    (rate, correct, weights; all None when not asked)."""
    n = len(query_rows)
    distinct = out.d1 < 0.5 * out.d2
    n_distinct = int(distinct.sum())
    by_size = () if class_sizes is None else _class_size_rates(class_sizes[query_rows], out.credit, class_size_cap)
    correct = float(out.credit.sum())
    w = pair.weights / pair.weights.sum()
    wc_rate, wc_correct, wc_weights = wc
    return DistanceLinkageResult(
        rate=correct / n,
        correct=correct,
        n_intruder=n,
        n_released=m,
        metric=metric,
        assignment=assignment,
        attributes=tuple(names),
        weights=tuple(zip(pair.group_names, map(float, w), strict=False)),
        distinct_share=n_distinct / n,
        distinct_precision=float(out.credit[distinct].mean()) if n_distinct else math.nan,
        rate_by_class_size=by_size,
        unassigned=out.unassigned,
        worst_case_rate=wc_rate,
        worst_case_correct=wc_correct,
        worst_case_weights=wc_weights,
        intruder_rows=query_rows,
        linked_to=out.linked,
        credit=out.credit,
        nearest_distance=out.d1,
        second_distance=out.d2,
    )


def _checked_inputs(
    original: pd.DataFrame,
    released: pd.DataFrame,
    attributes: Sequence[AttributeSpec],
    assignment: str,
    class_sizes: np.ndarray | pd.Series | None,
) -> tuple[list[AttributeSpec], list[str], np.ndarray | None]:
    """The arguments of :func:`distance_linkage` checked (one line each): the attributes, their names and the
    class sizes as an array."""
    if len(original) != len(released):
        raise ValueError(
            f"original has {len(original)} rows and released {len(released)}; they must correspond row by row"
        )
    attributes = list(attributes)
    if not attributes:
        raise ValueError("at least one attribute is needed")
    names = [a.name for a in attributes]
    if len(set(names)) != len(names):
        raise ValueError("attribute names must be unique")
    for frame, label in ((original, "original"), (released, "released")):
        missing = [n for n in names if n not in frame.columns]
        if missing:
            raise KeyError(f"{label} lacks column(s) {missing}")
    if assignment not in ("nearest", "one_to_one"):
        raise ValueError(f"assignment must be 'nearest' or 'one_to_one', not {assignment!r}")
    if not sum(a.weight for a in attributes) > 0:
        raise ValueError("at least one attribute needs a positive weight")
    m = len(released)
    if m == 0:
        raise ValueError("the tables are empty")
    if class_sizes is not None:
        class_sizes = np.asarray(class_sizes)
        if class_sizes.shape != (m,):
            raise ValueError(
                f"class_sizes must have one entry per released record ({m}), got shape {class_sizes.shape}"
            )

    return attributes, names, class_sizes


def _worst_case(
    original: pd.DataFrame,
    released: pd.DataFrame,
    attributes: list[AttributeSpec],
    query_rows: np.ndarray,
    pair: EncodedPair,
    metric: str,
    seed: int,
    n_wc: int,
    assignment: str,
    candidates: int,
    tracker: _Progress,
    *,
    competitors: int,
    rounds: int,
) -> tuple[float, float, tuple[tuple[str, float], ...]]:
    """The maximum-knowledge intruder (Abril, Navarro-Arribas & Torra 2012; :mod:`.worst_case`): weights learnt on ``n_wc``
    intruder records, then the rate of every intruder record under them (euclidean distances); returns the
    rate, the correct links and the weights by attribute group."""
    n = len(query_rows)
    pair_e = pair if metric == "euclidean" else encode_pair(original, released, attributes, query_rows)
    linker_e = _Linker(pair_e, query_rows)
    sample = np.sort(np.random.default_rng([seed, 2]).choice(n, size=n_wc, replace=False)) if n_wc < n else np.arange(n)

    def link_rate(w: np.ndarray, rows_: np.ndarray, kk: int):
        o = linker_e.run(w, rows_, kk, "nearest", progress=tracker.stage(len(rows_)))
        return float(o.credit.mean()), o.knn_dist, o.knn_idx

    fit = learn_worst_case_weights(
        pair_e,
        query_rows,
        sample,
        pair_e.weights,
        link_rate,
        competitors=competitors,
        rounds=rounds,
    )
    wc = linker_e.run(fit.weights, None, 2, assignment, candidates, tracker.stage(n))
    wc_correct = float(wc.credit.sum())
    wc_rate = wc_correct / n
    wc_weights = tuple(zip(pair_e.group_names, map(float, fit.weights), strict=False))
    return wc_rate, wc_correct, wc_weights
