r"""Membership scores of training and holdout records against a synthetic release: two attacks.

Every record of the *population* (the training table the generator saw, then the holdout it did not)
gets a score, higher meaning "the release suggests this person was in the training data". The scores
are computed from the release and the population as a whole: which population record is a member is
never read (except for the holdout reference of :func:`density_ratio_scores`, see there), so the scores
can feed Steinke et al.'s one-run bound (:mod:`.epsilon`), which needs guesses that do not depend on the
membership they guess.

Space
-----
Records are embedded as in Gower's coefficient made Euclidean: a numeric column standardised (by the
population's mean and standard deviation; a missing value at the mean, plus a 0/1 "missing" column
scaled like a category), a nominal column one-hot scaled by ``1/sqrt(2)`` (a mismatch adds 1 to the
squared distance; missing is a category of its own; beyond the 31 most frequent values of the population
the rest share one code in the embedding, and are told apart again when distances are computed exactly,
below). Neighbours are searched with a k-d tree in the first ``dims`` principal
components of the population's embedding (synthcity's DOMIAS code advises exactly this for its KDE:
"consider performing principal component analysis / dimensionality reduction and using gaussian_kde
with the transformed data"); k-d trees are fast in a few dimensions and useless in sixty. The search is
approximate (``scipy.spatial.cKDTree.query(eps=SEARCH_EPS)``: every neighbour returned is within
``1 + SEARCH_EPS`` times the distance of the true one of its rank; a record at distance 0, a copy, is
always found), and faster than an exact one (``benchmarks/bench_membership.py``). An attack need not be exact to be sound: the ε
bound holds for any scores that do not read the membership.

Copies are found whatever the column types: every record also gets an exact key (all compared columns at
full resolution, so a nominal column of a thousand zip codes counts every one), and a population record
whose key the release holds is at distance 0 from it; the exact distances among the candidates add 1 for
every capped column whose two values share the lumped code but differ (Gower's mismatch).

Distance attack
---------------
``score = -log((d_syn + c) / (d_pop + c))``: ``d_syn`` the distance to the closest synthetic record,
``d_pop`` the distance to the record's closest *other* population record -- how crowded its own
neighbourhood is -- both measured in the full embedding among the ``refine`` nearest candidates of the
projected search, ``c = 1e-6``. A copied training record has ``d_syn = 0``; in a dense region a small
``d_syn`` means less than in a sparse one (the ratio's denominator). The idea of the DCR attack (Chen et
al., GAN-Leaks, CCS 2020) calibrated per record as Carlini et al.'s LiRA (S&P 2022) calibrates scores by a
record's own difficulty. A record the release holds verbatim and no other population record equals
(``copied``) is ranked above every record that is not: a copy is the strongest evidence of membership
there is, and the ranking does not read the labels. A record equal to another population record has
``d_pop = 0``: a copy of it tells nothing of which of the two was in the training data.

Density-ratio attack (DOMIAS)
-----------------------------
van Breugel, Sun, Qian & van der Schaar, "Membership Inference Attacks against Synthetic Data through
Overfitting Detection" (AISTATS 2023), eq. (2): ``score = p_syn(x) / p_ref(x)``, both densities Gaussian
kernel estimates (synthcity's ``DomiasMIAKDE`` uses ``scipy.stats.gaussian_kde``; Scott's bandwidth,
``n^(-1/(d+4))`` times each coordinate's standard deviation, here in the standardised projected space;
``bandwidth`` multiplies it, 1 by default as in DOMIAS: a smaller one sees local overfitting better,
e.g. AUC 0.55 -> 0.62 at 0.25 on jittered training records in the tests' population).
A KDE over 10^5 points evaluated at 2 x 10^5 is 2 x 10^10 kernels; here each density sums its kernels
over the ``neighbours`` nearest points (the kernel's mass beyond them, the smallest terms, is left
out, in both densities alike). The score is reported as a log ratio. ``reference``:

* ``"holdout"`` (DOMIAS's reference set, for the ``membership_inference`` check): a KDE of a random half
  of the holdout, which scores the training records and the other half (``scored``): a reference disjoint
  from the records it scores, as in DOMIAS (see :func:`_holdout_reference` for why neither a leave-one-out
  nor a cross-fit of two halves will do);
* ``"population"`` (for the ε bound): every other population record, member or not, so the score does not
  depend on the membership.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric

__all__ = ["Embedding", "embed", "MembershipScores", "membership_scores"]

MAX_LEVELS = 31
#: approximation factor of the k-d tree search (module docstring)
SEARCH_EPS = 0.5
GAP = 1e-6
BLOCK = 16_384


@dataclass
class Embedding:
    """The frames embedded (module docstring, "Space"), each frame's rows in the order given."""

    vectors: list[np.ndarray]  # per frame: n x D, the Euclidean embedding (nominal columns capped at 31 levels)
    keys: list[np.ndarray]  # per frame: one integer per row, equal iff the rows are equal on every column
    rest: list[np.ndarray]  # per frame: n x L full codes of the L capped columns' values sharing one code, else -1


def _joint_codes(columns: Sequence[pd.Series]) -> tuple[np.ndarray, int]:
    """Every value of one nominal column (across frames) coded at full resolution: equal codes iff equal
    values, missing a value of its own, codes in sorted order of the values (not of first appearance,
    which would follow the split)."""
    obj = pd.concat([c.astype(object) for c in columns], ignore_index=True)
    try:
        codes, uniques = pd.factorize(obj, use_na_sentinel=True, sort=True)
    except TypeError:  # values of several types: sorted by their text
        text = obj.where(obj.isna(), obj.map(lambda v: f"{type(v).__name__}:{v}"))
        codes, uniques = pd.factorize(text, use_na_sentinel=True, sort=True)
    return np.where(codes < 0, len(uniques), codes).astype(np.int64), len(uniques) + 1


def _split(values: np.ndarray, sizes: Sequence[int]) -> list[np.ndarray]:
    bounds = np.cumsum([0, *sizes])
    return [values[bounds[i] : bounds[i + 1]] for i in range(len(sizes))]


def embed(frames: Sequence[pd.DataFrame], columns: Sequence[str], numeric: Mapping[str, bool]) -> Embedding:
    """The Euclidean embedding (module docstring) of ``frames``; the last frame is the synthetic release,
    the others make up the population whose statistics scale the columns. Beside it every row's exact key
    (all columns at full resolution: a copy has its original's key whatever the column types) and the full
    codes of the nominal values the embedding lumps together, which :func:`_exact_nearest` tells apart."""
    sizes = [len(f) for f in frames]
    n_pop = sum(sizes[:-1])
    blocks: list[list[np.ndarray]] = [[] for _ in frames]
    rest: list[np.ndarray] = []
    key = np.zeros(sum(sizes), dtype=np.int64)
    for col in columns:
        if numeric[col]:
            joined = np.concatenate(
                [to_numeric(f[col], errors="coerce").to_numpy(dtype=float, na_value=np.nan) for f in frames]
            )
            joined[~np.isfinite(joined)] = np.nan
            codes, uniques = pd.factorize(joined, sort=True)  # NaN: -1, a value of its own below
            key = pd.factorize(key * (len(uniques) + 1) + codes + 1, sort=True)[0].astype(np.int64)
            values = _split(joined, sizes)
            pop = np.sort(joined[:n_pop])  # sums in an order the split cannot change
            mean = float(np.nanmean(pop)) if np.isfinite(pop).any() else 0.0
            sd = float(np.nanstd(pop)) if np.isfinite(pop).sum() > 1 else 0.0
            sd = sd if sd > 0 else 1.0
            has_missing = bool(np.isnan(joined).any())
            for i, v in enumerate(values):
                blocks[i].append(((np.where(np.isnan(v), mean, v) - mean) / sd)[:, None])
                if has_missing:
                    blocks[i].append((np.isnan(v) / np.sqrt(2))[:, None])
            continue
        codes, levels = _joint_codes([f[col] for f in frames])
        key = pd.factorize(key * levels + codes, sort=True)[0].astype(np.int64)  # sorted: the split cannot enter
        if levels > MAX_LEVELS + 1:  # the 31 most frequent values of the population keep a code of their own
            counts = np.bincount(codes[:n_pop], minlength=levels)
            keep = np.argsort(-counts, kind="stable")[:MAX_LEVELS]
            remap = np.full(levels, MAX_LEVELS)
            remap[keep] = np.arange(MAX_LEVELS)
            lumped = remap[codes]
            rest.append(np.where(lumped == MAX_LEVELS, codes, -1))
            codes, levels = lumped, MAX_LEVELS + 1
        eye = np.eye(levels) / np.sqrt(2)
        for i, c in enumerate(_split(codes, sizes)):
            blocks[i].append(eye[c])
    rest_all = np.column_stack(rest) if rest else np.zeros((sum(sizes), 0), dtype=np.int64)
    return Embedding(
        [np.hstack(b) if b else np.zeros((n, 0)) for b, n in zip(blocks, sizes, strict=True)],
        _split(key, sizes),
        _split(rest_all, sizes),
    )


def _projection(population: np.ndarray, dims: int) -> tuple[np.ndarray, np.ndarray]:
    mean = population.mean(axis=0)
    cov = np.cov((population - mean).T) if len(population) > 1 else np.eye(population.shape[1])
    cov = np.atleast_2d(cov)
    values, vectors = np.linalg.eigh(cov)
    order = np.argsort(values)[::-1][:dims]
    return mean, vectors[:, order]


@dataclass
class MembershipScores:
    """Scores of the population records (training first, then holdout). The scores (except the
    holdout-referenced density ratio) are a function of the release and of the population as a multiset:
    neither the labels nor the order of the rows, which follows the split, enter them (tested)."""

    distance: np.ndarray
    density: dict[str, np.ndarray]  # reference -> log density ratio
    member: np.ndarray  # True for training records (the labels; the scores never read them)
    dims: int
    neighbours: int
    copied: np.ndarray  # the record appears verbatim (every compared column) in the release
    scored: np.ndarray  # records the holdout-referenced density scores (not the holdout half it is referenced to)
    details: dict = field(default_factory=dict)

    def scores(self, attack: str, reference: str = "population") -> np.ndarray:
        return self.distance if attack == "distance" else self.density[reference]


def _exact_nearest(
    emb_q: np.ndarray,
    emb_r: np.ndarray,
    cand: np.ndarray,
    valid: np.ndarray,
    rest_q: np.ndarray,
    rest_r: np.ndarray,
) -> np.ndarray:
    """For every query, the smallest distance among its valid candidates (inf if none), in the full
    embedding plus 1 (a mismatch) on every capped column whose two values share the embedding's lumped code
    but differ: Gower's distance of the two records, made Euclidean, at full resolution."""
    out = np.full(len(emb_q), np.inf)
    for lo in range(0, len(emb_q), BLOCK):
        c, v = cand[lo : lo + BLOCK], valid[lo : lo + BLOCK]
        at = np.where(v, c, 0)
        diff = emb_r[at] - emb_q[lo : lo + BLOCK, None, :]
        d2 = np.einsum("ijk,ijk->ij", diff, diff)
        if rest_q.shape[1]:
            rq, rr = rest_q[lo : lo + BLOCK, None, :], rest_r[at]
            d2 += np.sum((rq >= 0) & (rr >= 0) & (rq != rr), axis=2)
        out[lo : lo + BLOCK] = np.where(v, np.sqrt(d2), np.inf).min(axis=1)
    return out


def _log_kde(dist: np.ndarray, valid: np.ndarray, h: float, dims: int, n: np.ndarray | int) -> np.ndarray:
    """log of (1/n) sum over the valid neighbours of the Gaussian kernel of width h in ``dims`` dimensions."""
    with np.errstate(under="ignore", divide="ignore"):
        z = np.where(valid, -0.5 * (dist / h) ** 2, -np.inf)
        top = np.max(z, axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        s = np.log(np.sum(np.exp(z - top), axis=1)) + top[:, 0]
    norm = dims * np.log(h * np.sqrt(2 * np.pi))
    return np.maximum(s, -745.0) - norm - np.log(np.maximum(n, 1))


def _scott(bandwidth: float, n: int, dims: int) -> float:
    return bandwidth * float(max(n, 2) ** (-1.0 / (dims + 4)))


def _copies_first(distance: np.ndarray, lead: np.ndarray) -> np.ndarray:
    """The distance scores with the records in ``lead`` (copied verbatim, alone in the population) moved
    above every other record, in their own order: a copy is the strongest evidence of membership there is,
    whatever the embedding makes of its columns."""
    if not lead.any() or lead.all():
        return distance
    shift = max(0.0, float(distance[~lead].max() - distance[lead].min())) + 1.0
    return np.where(lead, distance + shift, distance)


def _holdout_reference(
    pop_z: np.ndarray, ref: np.ndarray, k: int, h_factor: float, dims: int, workers: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(log p_ref, scored)``: the reference density of every population record, the reference ``ref``
    being a random half of the holdout, and which records are scored (every training record and the other
    half of the holdout; the reference half's own entries are NaN).

    DOMIAS scores members and non-members against a reference sample disjoint from both (van Breugel et al.
    2023, §4; ``src/domias/evaluator.py``: ``reference_set`` is taken apart from ``mem_set`` and
    ``non_mem_set``). Then, when the release does not depend on its training data, the score is one fixed
    function of the reference and the release applied to members and non-members that are i.i.d. given
    both: the labels are exchangeable, the AUC has the Mann–Whitney null distribution its interval assumes,
    and the kernel sum may be truncated to the ``k`` nearest reference points (the same truncated estimate
    for members and non-members). Scoring the holdout against the rest of the holdout (a leave-one-out)
    is not the same function for both: with more than ``k`` holdout points at one place a member's sum
    counts ``k`` of them over n_h and a non-member's ``k`` over n_h - 1, which ranks every member above
    every non-member there; and cross-fitting two halves shares each half's chance fluctuations among the
    records scored against it, widening the AUC's spread past its interval (measured: 90 % coverage).
    The half is drawn by position in the holdout as given (``seed``), not in an order of the values: a
    fixed choice of ranks would make the two halves differ in distribution (measured: 90 % coverage too)."""
    from scipy.spatial import cKDTree

    out = np.full(len(pop_z), np.nan)
    n_ref = int(ref.sum())
    scored = ~ref
    if n_ref:
        d, _ = cKDTree(pop_z[ref]).query(pop_z[scored], k=max(1, min(k, n_ref)), eps=SEARCH_EPS, workers=workers)
        d = d.reshape(int(scored.sum()), -1)
        out[scored] = _log_kde(d, np.ones_like(d, dtype=bool), _scott(h_factor, n_ref, dims), dims, n_ref)
    return out, scored


def _projected(pop_emb: np.ndarray, syn_emb: np.ndarray, dims: int) -> tuple[np.ndarray, np.ndarray]:
    """The population and the synthetic embeddings projected on the population's ``dims`` principal axes
    (:func:`_projection`), each axis scaled to the population's unit standard deviation."""
    mean, basis = _projection(pop_emb, dims)
    pop_z, syn_z = (pop_emb - mean) @ basis, (syn_emb - mean) @ basis
    scale = pop_z.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    return pop_z / scale, syn_z / scale


def _distance_attack(
    pop: tuple[np.ndarray, np.ndarray],
    syn: tuple[np.ndarray, np.ndarray],
    cand_s: np.ndarray,
    i_p: np.ndarray,
    other: np.ndarray,
    copied: np.ndarray,
    alone: np.ndarray,
    refine: int,
) -> np.ndarray:
    """The distance attack's score of every population record: minus the log ratio of its exact distance to the
    nearest synthetic record (among the candidates ``cand_s``; a copy, equal key, is at 0) to that to the nearest
    other population record (among the ``refine`` nearest of ``i_p`` flagged ``other``; 0 when not ``alone``).
    ``pop`` and ``syn`` are (embedding, rest) pairs."""
    (pop_emb, pop_rest), (syn_emb, syn_rest) = pop, syn
    n_p, r = cand_s.shape
    near_syn = _exact_nearest(pop_emb, syn_emb, cand_s, np.ones((n_p, r), dtype=bool), pop_rest, syn_rest)
    near_syn[copied] = 0.0
    order_other = np.argsort(~other, axis=1, kind="stable")[:, : min(refine, i_p.shape[1] - 1 or 1)]
    cand_p = np.take_along_axis(i_p, order_other, axis=1)
    valid_p = np.take_along_axis(other, order_other, axis=1)
    near_pop = _exact_nearest(pop_emb, pop_emb, cand_p, valid_p, pop_rest, pop_rest)
    near_pop = np.where(np.isfinite(near_pop), near_pop, near_syn)
    near_pop[~alone] = 0.0
    return _copies_first(-np.log((near_syn + GAP) / (near_pop + GAP)), copied & alone)


def membership_scores(
    training: pd.DataFrame,
    holdout: pd.DataFrame,
    synthetic: pd.DataFrame,
    columns: Sequence[str],
    numeric: Mapping[str, bool],
    *,
    dims: int = 6,
    neighbours: int = 8,
    refine: int = 4,
    bandwidth: float = 1.0,
    workers: int = 2,
    seed: int = 0,
) -> MembershipScores:
    """Both attacks' scores for every training and holdout record (module docstring)."""
    from scipy.spatial import cKDTree

    n_t, n_h, n_s = len(training), len(holdout), len(synthetic)
    e = embed([training, holdout, synthetic], columns, numeric)
    pop_emb, syn_emb = np.vstack(e.vectors[:2]), e.vectors[2]
    pop_key, pop_rest, syn_rest = np.r_[e.keys[0], e.keys[1]], np.vstack(e.rest[:2]), e.rest[2]
    n_p = n_t + n_h
    # the population in an order of its own (rows sorted by their embedding and key), not training-then-holdout:
    # what follows (sums, the k-d tree's layout, its approximate answers, ties) then cannot depend on the split
    canon = np.lexsort((pop_key, *pop_emb.T[::-1]))
    pop_emb, pop_key, pop_rest = pop_emb[canon], pop_key[canon], pop_rest[canon]
    copied = np.isin(pop_key, e.keys[2])
    alone = np.bincount(pop_key, minlength=n_p + n_s)[pop_key] == 1  # no other population record is equal
    dims = max(1, min(dims, pop_emb.shape[1]))
    pop_z, syn_z = _projected(pop_emb, syn_emb, dims)
    k_s = max(1, min(neighbours, n_s))
    k_p = max(1, min(neighbours + 1, n_p))
    d_s, i_s = cKDTree(syn_z).query(pop_z, k=k_s, eps=SEARCH_EPS, workers=workers)
    d_p, i_p = cKDTree(pop_z).query(pop_z, k=k_p, eps=SEARCH_EPS, workers=workers)
    d_s, i_s = d_s.reshape(n_p, -1), i_s.reshape(n_p, -1)
    d_p, i_p = d_p.reshape(n_p, -1), i_p.reshape(n_p, -1)
    own = np.arange(n_p)[:, None]
    other = i_p != own
    # a record found without its own index among k+1 (ties at distance 0): drop the farthest instead
    missing_self = other.all(axis=1)
    other[missing_self, -1] = False
    distance = _distance_attack(
        (pop_emb, pop_rest), (syn_emb, syn_rest), i_s[:, : min(refine, k_s)], i_p, other, copied, alone, refine
    )
    # density ratio: truncated Gaussian KDEs, Scott's factor in the standardised projected space
    h = _scott(bandwidth, n_s, dims)
    log_syn = _log_kde(d_s, np.ones_like(d_s, dtype=bool), h, dims, n_s)
    log_pop = _log_kde(d_p, other, _scott(bandwidth, n_p, dims), dims, n_p - 1)
    ref = np.zeros(n_p, dtype=bool)  # the reference half of the holdout, by position as given
    ref[n_t + np.random.default_rng(seed).permutation(n_h)[: n_h // 2]] = True
    log_hold, scored = _holdout_reference(pop_z, ref[canon], neighbours, bandwidth, dims, workers)
    member = np.r_[np.ones(n_t, dtype=bool), np.zeros(n_h, dtype=bool)]

    def back(values: np.ndarray) -> np.ndarray:  # from the canonical order to training-then-holdout
        out = np.empty_like(values)
        out[canon] = values
        return out

    copied_back = back(copied)
    details = {
        "embedding_columns": int(pop_emb.shape[1]),
        "bandwidth": h,
        "copied_training": int(copied_back[:n_t].sum()),
        "copied_holdout": int(copied_back[n_t:].sum()),
    }
    return MembershipScores(
        back(distance),
        {"population": back(log_syn - log_pop), "holdout": back(log_syn - log_hold)},
        member,
        dims,
        neighbours,
        copied_back,
        back(scored),
        details,
    )


def target_scores(
    training: pd.DataFrame,
    holdout: pd.DataFrame,
    releases: Sequence[pd.DataFrame],
    targets: np.ndarray,
    columns: Sequence[str],
    numeric: Mapping[str, bool],
    *,
    dims: int = 6,
    neighbours: int = 8,
    refine: int = 4,
    bandwidth: float = 1.0,
    workers: int = 1,
) -> dict[str, np.ndarray]:
    """Scores of one target per release (``targets[j]``: the target's row in training then holdout, for
    ``releases[j]``) by both attacks, the density's reference being the population (as for the one-run
    bound): ``{"distance": ..., "density": ...}``, one score per release. A release holding the target
    verbatim puts it at distance 0, whatever the embedding makes of its columns."""
    from scipy.spatial import cKDTree

    sizes = [len(r) for r in releases]
    joined = pd.concat([r[list(columns)] for r in releases], ignore_index=True)
    e = embed([training, holdout, joined], columns, numeric)
    pop_emb, rel_emb = np.vstack(e.vectors[:2]), e.vectors[2]
    pop_key, rel_key = np.r_[e.keys[0], e.keys[1]], e.keys[2]
    pop_rest, rel_rest = np.vstack(e.rest[:2]), e.rest[2]
    n_p = len(pop_emb)
    dims = max(1, min(dims, pop_emb.shape[1]))
    mean, basis = _projection(pop_emb, dims)
    pop_z, rel_z = (pop_emb - mean) @ basis, (rel_emb - mean) @ basis
    scale = pop_z.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    pop_z, rel_z = pop_z / scale, rel_z / scale
    targets = np.asarray(targets, dtype=np.int64)
    k_p = max(1, min(neighbours + 1, n_p))
    d_p, i_p = cKDTree(pop_z).query(pop_z[targets], k=k_p, workers=workers)
    d_p, i_p = d_p.reshape(len(targets), -1), i_p.reshape(len(targets), -1)
    other = i_p != targets[:, None]
    other[other.all(axis=1), -1] = False
    order_other = np.argsort(~other, axis=1, kind="stable")[:, : max(1, min(refine, k_p - 1))]
    near_pop = _exact_nearest(
        pop_emb[targets],
        pop_emb,
        np.take_along_axis(i_p, order_other, axis=1),
        np.take_along_axis(other, order_other, axis=1),
        pop_rest[targets],
        pop_rest,
    )
    near_pop[np.bincount(pop_key, minlength=len(pop_key) + len(rel_key))[pop_key[targets]] > 1] = 0.0
    log_pop = _log_kde(d_p, other, _scott(bandwidth, n_p, dims), dims, n_p - 1)
    near_syn = np.full(len(targets), np.inf)
    log_syn = np.full(len(targets), -np.inf)
    bounds = np.cumsum([0, *sizes])
    for j in range(len(releases)):  # one small search per release (releases are few; records are not looped)
        lo, hi = bounds[j], bounds[j + 1]
        if hi == lo:
            continue
        k = max(1, min(neighbours, hi - lo))
        d, i = cKDTree(rel_z[lo:hi]).query(pop_z[targets[j]][None, :], k=k)
        d, i = np.atleast_2d(d), np.atleast_2d(i)
        r = min(refine, k)
        t = targets[j : j + 1]
        near_syn[j] = _exact_nearest(
            pop_emb[t], rel_emb[lo:hi], i[:, :r], np.ones((1, r), dtype=bool), pop_rest[t], rel_rest[lo:hi]
        )[0]
        if np.any(rel_key[lo:hi] == pop_key[targets[j]]):
            near_syn[j] = 0.0
        log_syn[j] = _log_kde(d, np.ones_like(d, dtype=bool), _scott(bandwidth, hi - lo, dims), dims, hi - lo)[0]
    near_pop = np.where(np.isfinite(near_pop), near_pop, near_syn)
    distance = -np.log((near_syn + GAP) / (near_pop + GAP))
    return {"distance": distance, "density": log_syn - log_pop}
