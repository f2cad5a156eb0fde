"""Distance-based record linkage restricted to blocked candidate pairs (in process).

The intruder of :mod:`.distance` compares every record of their file ``B`` with every released
record.  With ``blocking`` (Christen 2012, *Data Matching*, indexing chapter; the rules of
:mod:`.blocking`) they compare a record only with the released records that agree exactly with it
on all the columns of at least one rule (a missing value never agrees), and link it to the nearest
of those candidates.  A record with no candidate in any block is not linked (credit 0): unlike
:class:`.neighbours.BlockedIndex`, whose categorical blocks only speed up an exact search over the
whole release and so always find a neighbour, these blocks are the intruder's comparison space.

Distances and scoring are those of :mod:`.distance` (``metric: euclidean``, ``assignment:
nearest``), computed per pair from compact columns instead of the dense embedding of
:func:`.encoding.encode_pair` (one coordinate per category would not fit for large tables): the
numeric z-scores of :mod:`.encoding` (each file standardised by its own mean and sample sd, missing at
0) times ``sqrt(w_a / W)``, and for a categorical attribute ``w_a / W`` (its one-hot distance, as
``2 (sqrt(1/2) sqrt(w_a / W))^2``) when the labels differ, a missing value being a label of its own;
hierarchical distances are not supported.  A record whose own released record is among ``t``
candidates within :func:`~privaudit.common.thresholds.tie_bound` of ``d_min`` counts ``1/t``.
The pairs are walked in chunks (:func:`.blocking.iter_candidate_pairs`) twice: once for each
record's two smallest distances, once to count the candidates tied at the minimum for the records
whose own record is at it.  :mod:`.distance_sql` computes the same result in DuckDB for tables past
memory; :class:`BlockedDistanceResult` holds what both return.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.common.thresholds import tie_bound
from privaudit.risk.linkage.blocking import encode_block_keys, iter_candidate_pairs
from privaudit.risk.linkage.encoding import AttributeSpec, _joint_labels, _numeric, _standardized
from privaudit.risk.linkage.intruder import intruder_sample

#: Candidate pairs per chunk.
_CHUNK = 1_000_000

NOTE = (
    "blocked linkage: each intruder record is compared only with the released records that agree with "
    "it on a blocking rule; the rate by class size is not computed"
)


@dataclass(frozen=True)
class BlockedDistanceResult:
    """Per intruder record ``i`` (``lid``; its own released record ``own[i]``): ``d1``/``d2``, the two
    smallest candidate distances (``inf`` when missing), ``seen``: its own record is a candidate,
    ``credit``: its expected correctness.  ``weights`` are the normalised attribute weights."""

    n_released: int
    attributes: tuple[str, ...]
    weights: tuple[tuple[str, float], ...]
    blocking: tuple[tuple[str, ...], ...]
    candidate_pairs: int
    own: np.ndarray = field(repr=False)
    d1: np.ndarray = field(repr=False)
    d2: np.ndarray = field(repr=False)
    seen: np.ndarray = field(repr=False)
    credit: np.ndarray = field(repr=False)

    @property
    def n_intruder(self) -> int:
        return int(self.own.size)

    @property
    def rate(self) -> float:
        return float(self.credit.sum()) / self.n_intruder

    def to_dict(self) -> dict[str, Any]:
        """The keys of :meth:`.distance.DistanceLinkageResult.to_dict` (no class-size breakdown, no worst
        case) plus the blocking figures."""
        n = self.n_intruder
        distinct = self.d1 < 0.5 * self.d2
        n_distinct = int(distinct.sum())
        correct = float(self.credit.sum())
        return {
            "rate": correct / n,
            "correct": correct,
            "n_intruder": n,
            "n_released": self.n_released,
            "metric": "euclidean",
            "assignment": "nearest",
            "attributes": list(self.attributes),
            "weights": dict(self.weights),
            "distinct_share": n_distinct / n,
            "distinct_precision": float(self.credit[distinct].mean()) if n_distinct else None,
            "rate_by_class_size": [],
            "unassigned": 0.0,
            "worst_case_rate": None,
            "worst_case_correct": None,
            "worst_case_weights": None,
            "blocking": [list(b) for b in self.blocking],
            "candidate_pairs": self.candidate_pairs,
            "pair_recall": float(self.seen.mean()),
            "without_candidates": int(np.count_nonzero(~np.isfinite(self.d1))),
            "note": NOTE,
        }


def tie_credit(d1: np.ndarray, d_own: np.ndarray, seen: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """``1/t`` when the own record (a candidate) is within the tie bound of the minimum, else 0: the rule
    of :mod:`.distance` (``ties``: candidates within the bound, counted where needed, else 1)."""
    at_min = seen & (d_own <= tie_bound(d1))
    return at_min / np.maximum(ties, 1)


def normalised_weights(attributes: Sequence[AttributeSpec]) -> tuple[tuple[str, float], ...]:
    total = float(sum(a.weight for a in attributes))
    if not total > 0:
        raise ValueError("at least one attribute needs a positive weight")
    return tuple((a.name, float(a.weight) / total) for a in attributes)


def blocked_distance_linkage(
    original: pd.DataFrame,
    released: pd.DataFrame,
    attributes: Sequence[AttributeSpec],
    blocking: Sequence[Sequence[str]],
    *,
    rows: float | int = 1.0,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> BlockedDistanceResult:
    """Link a seeded intruder sample of ``original`` (row ``i`` is released row ``i``) to ``released``,
    comparing only the pairs of the ``blocking`` rules (each a non-empty list of columns)."""
    if len(original) != len(released):
        raise ValueError("original and released must correspond row by row")
    rules = [tuple(r) for r in blocking]
    if not rules or not all(rules):
        raise ValueError("blocking needs at least one rule of at least one column")
    attributes = list(attributes)
    for a in attributes:
        if a.hierarchy is not None:
            raise ValueError(f"attribute {a.name!r}: the blocked linkage compares categories as equal or not")
    weights = normalised_weights(attributes)
    m = len(released)
    own = intruder_sample(m, rows, seed)
    n = own.size
    names = [a.name for a in attributes]
    query = original.iloc[own].reset_index(drop=True)
    keys = _block_keys(query, released, attributes, rules)
    distances = _pair_distances(original, released, query, own, attributes, dict(weights))
    d1, d2, pairs = _nearest_two(keys, distances, n, len(rules), progress)
    seen, credit = _own_credit(keys, own, distances, d1, d2)
    return BlockedDistanceResult(m, tuple(names), weights, tuple(rules), pairs, own, d1, d2, seen, credit.astype(float))


def _block_keys(
    query: pd.DataFrame, released: pd.DataFrame, attributes: list[AttributeSpec], rules: list[tuple[str, ...]]
) -> list:
    """The block keys of the intruder's file and the release under ``rules`` (:func:`encode_block_keys`); a
    blocking column must be an attribute."""
    names = [a.name for a in attributes]
    in_rules = {c for rule in rules for c in rule}
    kinds = {a.name: a.kind for a in attributes}
    if not in_rules <= set(names):
        raise KeyError(f"blocking column(s) {sorted(in_rules - set(names))} are not attributes")
    # numeric block keys compared as numbers on both sides (an int column against a float one)
    key_frames = [
        pd.DataFrame(
            {
                c: to_numeric(frame[c], errors="coerce").astype(float) if kinds[c] == "numeric" else frame[c]
                for c in sorted(in_rules)
            }
        )
        for frame in (query, released)
    ]
    return encode_block_keys(*key_frames, rules)


def _pair_distances(
    original: pd.DataFrame,
    released: pd.DataFrame,
    query: pd.DataFrame,
    own: np.ndarray,
    attributes: list[AttributeSpec],
    w: dict[str, float],
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``distances(left, right)``: the weighted distance of each intruder record ``left`` to the released
    record ``right`` (scaled z-scores of the numeric attributes, 0/1 steps of the categorical ones)."""
    numeric = [a.name for a in attributes if a.kind == "numeric" and w[a.name] > 0]
    zq = zr = np.zeros((0, 0))
    if numeric:  # scaled z-scores, each file by its own statistics (the whole original, the release)
        scale = np.array([math.sqrt(w[c]) for c in numeric])
        zo = _standardized(np.column_stack([_numeric(original, c, "original") for c in numeric]))
        zq = np.ascontiguousarray(zo[own] * scale)
        zr = np.ascontiguousarray(
            _standardized(np.column_stack([_numeric(released, c, "released") for c in numeric])) * scale
        )
    categorical = []
    for a in attributes:
        if a.kind == "categorical" and w[a.name] > 0:
            cq, cr, _ = _joint_labels(query[a.name], released[a.name])
            c = math.sqrt(0.5) * math.sqrt(w[a.name])
            categorical.append((cq, cr, c * c + c * c))

    def distances(left: np.ndarray, right: np.ndarray) -> np.ndarray:
        d2 = np.zeros(left.size)
        for j in range(zq.shape[1]):
            diff = zq[left, j] - zr[right, j]
            d2 += diff * diff
        for cq, cr, step in categorical:
            d2 += np.where(cq[left] != cr[right], step, 0.0)
        return np.sqrt(d2)

    return distances


def _nearest_two(
    keys: list,
    distances: Callable[[np.ndarray, np.ndarray], np.ndarray],
    n: int,
    n_rules: int,
    progress: Callable[[int, int], None] | None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """The nearest and second-nearest distance of every intruder record over the candidate pairs of the
    blocks, and the number of pairs compared."""
    d1, d2 = np.full(n, np.inf), np.full(n, np.inf)
    pairs = 0
    for ch in iter_candidate_pairs(keys, _CHUNK):
        left, d = ch.left, distances(ch.left, ch.right)
        pairs += left.size
        c1, c2, lid = _two_smallest(left, d)
        # the two smallest of {d1, d2} and {c1, c2}
        a1, a2 = d1[lid], d2[lid]
        d1[lid] = np.minimum(a1, c1)
        d2[lid] = np.minimum(np.maximum(a1, c1), np.where(a1 <= c1, a2, c2))
        if progress is not None:
            progress(ch.rule + 1, n_rules)
    return d1, d2, pairs


def _own_credit(
    keys: list,
    own: np.ndarray,
    distances: Callable[[np.ndarray, np.ndarray], np.ndarray],
    d1: np.ndarray,
    d2: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Whether each intruder record's own released record shares a block with it, and its expected
    correctness (``1/t`` among ``t`` records tied at the minimum distance, :func:`tie_credit`)."""
    n = own.size
    seen = np.zeros(n, dtype=bool)
    for k in keys:
        seen |= (k.left >= 0) & (k.left == k.right[own])
    d_own = np.full(n, np.inf)
    d_own[seen] = distances(np.flatnonzero(seen), own[seen])
    bound = tie_bound(d1)
    tied = seen & (d_own <= bound) & (d2 <= bound)
    ties = np.ones(n, dtype=np.int64)
    if tied.any():
        ties[tied] = 0
        for ch in iter_candidate_pairs(keys, _CHUNK):
            keep = tied[ch.left]
            left = ch.left[keep]
            if left.size:
                within = distances(left, ch.right[keep]) <= bound[left]
                ties += np.bincount(left[within], minlength=n)
    return seen, tie_credit(d1, d_own, seen, ties)


def _two_smallest(left: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run of equal ``left`` (non-decreasing): the smallest and second smallest ``d`` (``inf`` for a
    run of one) and the run's ``left``; ``reduceat`` twice, the first minimum of each run masked between."""
    starts = np.flatnonzero(np.r_[True, left[1:] != left[:-1]])
    counts = np.diff(np.r_[starts, left.size])
    c1 = np.minimum.reduceat(d, starts)
    at_min = np.flatnonzero(d == np.repeat(c1, counts))
    run = np.repeat(np.arange(starts.size), counts)[at_min]
    rest = d.copy()
    rest[at_min[np.r_[True, run[1:] != run[:-1]]]] = np.inf
    return c1, np.minimum.reduceat(rest, starts), left[starts]
