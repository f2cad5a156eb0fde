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
the rest share one code). Neighbours are searched with a k-d tree in the first ``dims`` principal
components of the population's embedding (synthcity's DOMIAS code advises exactly this for its KDE:
"consider performing principal component analysis / dimensionality reduction and using gaussian_kde
with the transformed data"); k-d trees are fast in a few dimensions and useless in sixty. The search is
approximate (``scipy.spatial.cKDTree.query(eps=SEARCH_EPS)``: every neighbour returned is within
``1 + SEARCH_EPS`` times the distance of the true one of its rank; a record at distance 0, a copy, is
always found), and faster than an exact one (``benchmarks/bench_membership.py``). An attack need not be exact to be sound: the ε
bound holds for any scores that do not read the membership.

Distance attack
---------------
``score = -log((d_syn + c) / (d_pop + c))``: ``d_syn`` the distance to the closest synthetic record,
``d_pop`` the distance to the record's closest *other* population record -- how crowded its own
neighbourhood is -- both measured in the full embedding among the ``refine`` nearest candidates of the
projected search, ``c = 1e-6``. A copied training record has ``d_syn = 0``; in a dense region a small
``d_syn`` means less than in a sparse one (the ratio's denominator). The idea of the DCR attack (Chen et
al., GAN-Leaks, CCS 2020) calibrated per record as Carlini et al.'s LiRA (S&P 2022) calibrates scores by a
record's own difficulty.

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

* ``"holdout"`` (DOMIAS's reference set, for the ``membership_inference`` check): a KDE of the holdout
  (its own k-d tree), each holdout record's own kernel left out (leave-one-out: a record's own point would
  inflate its reference density and fake an advantage);
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
    population: np.ndarray  # n_pop x D
    synthetic: np.ndarray  # n_syn x D
    dims: int  # principal components searched


def _nominal_codes(columns: Sequence[pd.Series]) -> tuple[list[np.ndarray], int]:
    joined = pd.concat([c.astype(object) for c in columns], ignore_index=True)
    try:  # codes in sorted order of the values, not of first appearance (which would follow the split)
        codes, uniques = pd.factorize(joined, use_na_sentinel=True, sort=True)
    except TypeError:  # values of several types: sorted by their text
        text = joined.where(joined.isna(), joined.map(lambda v: f"{type(v).__name__}:{v}"))
        codes, uniques = pd.factorize(text, use_na_sentinel=True, sort=True)
    codes = np.where(codes < 0, len(uniques), codes)  # missing: a value of its own
    levels = len(uniques) + 1
    pop_len = sum(len(c) for c in columns[:-1])
    counts = np.bincount(codes[:pop_len], minlength=levels)
    if levels > MAX_LEVELS + 1:
        keep = np.argsort(-counts, kind="stable")[:MAX_LEVELS]
        remap = np.full(levels, MAX_LEVELS)
        remap[keep] = np.arange(MAX_LEVELS)
        codes, levels = remap[codes], MAX_LEVELS + 1
    bounds = np.cumsum([0, *(len(c) for c in columns)])
    return [codes[bounds[i] : bounds[i + 1]] for i in range(len(columns))], levels


def embed(frames: Sequence[pd.DataFrame], columns: Sequence[str], numeric: Mapping[str, bool]) -> list[np.ndarray]:
    """The Euclidean embedding (module docstring) of ``frames``; the last frame is the synthetic release,
    the others make up the population whose statistics scale the columns."""
    blocks: list[list[np.ndarray]] = [[] for _ in frames]
    n_pop = sum(len(f) for f in frames[:-1])
    for col in columns:
        if numeric[col]:
            values = [to_numeric(f[col], errors="coerce").to_numpy(dtype=float, na_value=np.nan) for f in frames]
            values = [np.where(np.isfinite(v), v, np.nan) for v in values]
            pop = (
                np.sort(np.concatenate(values[:-1])) if n_pop else np.zeros(0)
            )  # sums in an order the split cannot change
            mean = float(np.nanmean(pop)) if np.isfinite(pop).any() else 0.0
            sd = float(np.nanstd(pop)) if np.isfinite(pop).sum() > 1 else 0.0
            sd = sd if sd > 0 else 1.0
            has_missing = any(np.isnan(v).any() for v in values)
            for i, v in enumerate(values):
                blocks[i].append(((np.where(np.isnan(v), mean, v) - mean) / sd)[:, None])
                if has_missing:
                    blocks[i].append((np.isnan(v) / np.sqrt(2))[:, None])
        else:
            codes, levels = _nominal_codes([f[col] for f in frames])
            eye = np.eye(levels) / np.sqrt(2)
            for i, c in enumerate(codes):
                blocks[i].append(eye[c])
    return [np.hstack(b) if b else np.zeros((len(f), 0)) for b, f in zip(blocks, frames, strict=False)]


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
    details: dict = field(default_factory=dict)

    def scores(self, attack: str, reference: str = "population") -> np.ndarray:
        return self.distance if attack == "distance" else self.density[reference]


def _exact_nearest(emb_q: np.ndarray, emb_r: np.ndarray, cand: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """For every query, the smallest full-embedding distance among its valid candidates (inf if none)."""
    out = np.full(len(emb_q), np.inf)
    for lo in range(0, len(emb_q), BLOCK):
        c, v = cand[lo : lo + BLOCK], valid[lo : lo + BLOCK]
        diff = emb_r[np.where(v, c, 0)] - emb_q[lo : lo + BLOCK, None, :]
        d = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        out[lo : lo + BLOCK] = np.where(v, d, np.inf).min(axis=1)
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
) -> MembershipScores:
    """Both attacks' scores for every training and holdout record (module docstring)."""
    from scipy.spatial import cKDTree

    n_t, n_h, n_s = len(training), len(holdout), len(synthetic)
    pop_emb, syn_emb = (lambda e: (np.vstack(e[:2]), e[2]))(embed([training, holdout, synthetic], columns, numeric))
    n_p = n_t + n_h
    # the population in an order of its own (rows sorted by their embedding), not training-then-holdout: what
    # follows (sums, the k-d tree's layout, its approximate answers, ties) then cannot depend on the split
    canon = np.lexsort(pop_emb.T[::-1]) if pop_emb.shape[1] else np.arange(n_p)
    pop_emb = pop_emb[canon]
    is_holdout = canon >= n_t
    dims = max(1, min(dims, pop_emb.shape[1]))
    mean, basis = _projection(pop_emb, dims)
    pop_z, syn_z = (pop_emb - mean) @ basis, (syn_emb - mean) @ basis
    scale = pop_z.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    pop_z, syn_z = pop_z / scale, syn_z / scale
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
    # distance attack: exact distances among the `refine` nearest candidates
    r = min(refine, k_s)
    near_syn = _exact_nearest(pop_emb, syn_emb, i_s[:, :r], np.ones((n_p, r), dtype=bool))
    order_other = np.argsort(~other, axis=1, kind="stable")[:, : min(refine, k_p - 1 or 1)]
    cand_p = np.take_along_axis(i_p, order_other, axis=1)
    valid_p = np.take_along_axis(other, order_other, axis=1)
    near_pop = _exact_nearest(pop_emb, pop_emb, cand_p, valid_p)
    near_pop = np.where(np.isfinite(near_pop), near_pop, near_syn)
    distance = -np.log((near_syn + GAP) / (near_pop + GAP))
    # density ratio: truncated Gaussian KDEs, Scott's factor in the standardised projected space
    h = bandwidth * float(max(n_s, 2) ** (-1.0 / (dims + 4)))
    h_ref = bandwidth * float(max(n_p, 2) ** (-1.0 / (dims + 4)))
    log_syn = _log_kde(d_s, np.ones_like(d_s, dtype=bool), h, dims, n_s)
    log_pop = _log_kde(d_p, other, h_ref, dims, n_p - 1)
    h_hold = bandwidth * float(max(n_h, 2) ** (-1.0 / (dims + 4)))
    hold = np.flatnonzero(is_holdout)  # the holdout's own k-d tree: its kernels over its nearest records
    k_h = max(1, min(neighbours + 1, len(hold)))
    d_h, i_h = cKDTree(pop_z[hold]).query(pop_z, k=k_h, eps=SEARCH_EPS, workers=workers)
    d_h, i_h = d_h.reshape(n_p, -1), hold[i_h.reshape(n_p, -1)]
    hold_valid = i_h != own  # leave-one-out for holdout records
    hold_valid[hold_valid.all(axis=1), -1] = False  # the k+1-th is not used when the record itself is absent
    n_ref = np.where(is_holdout, n_h - 1, n_h)
    log_hold = _log_kde(d_h, hold_valid, h_hold, dims, n_ref)
    member = np.r_[np.ones(n_t, dtype=bool), np.zeros(n_h, dtype=bool)]

    def back(values: np.ndarray) -> np.ndarray:  # from the canonical order to training-then-holdout
        out = np.empty_like(values)
        out[canon] = values
        return out

    details = {"embedding_columns": int(pop_emb.shape[1]), "bandwidth": h}
    return MembershipScores(
        back(distance),
        {"population": back(log_syn - log_pop), "holdout": back(log_syn - log_hold)},
        member,
        dims,
        neighbours,
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
    bound): ``{"distance": ..., "density": ...}``, one score per release."""
    from scipy.spatial import cKDTree

    sizes = [len(r) for r in releases]
    joined = pd.concat([r[list(columns)] for r in releases], ignore_index=True)
    e = embed([training, holdout, joined], columns, numeric)
    pop_emb, rel_emb = np.vstack(e[:2]), e[2]
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
    )
    h_ref = bandwidth * float(max(n_p, 2) ** (-1.0 / (dims + 4)))
    log_pop = _log_kde(d_p, other, h_ref, dims, n_p - 1)
    near_syn = np.full(len(targets), np.inf)
    log_syn = np.full(len(targets), -np.inf)
    bounds = np.cumsum([0, *sizes])
    for j in range(len(releases)):  # one small search per release (releases are few; records are not looped)
        z = rel_z[bounds[j] : bounds[j + 1]]
        if not len(z):
            continue
        k = max(1, min(neighbours, len(z)))
        d, i = cKDTree(z).query(pop_z[targets[j]][None, :], k=k)
        d, i = np.atleast_2d(d), np.atleast_2d(i)
        r = min(refine, k)
        near_syn[j] = _exact_nearest(
            pop_emb[targets[j]][None, :], rel_emb[bounds[j] : bounds[j + 1]], i[:, :r], np.ones((1, r), dtype=bool)
        )[0]
        h = bandwidth * float(max(len(z), 2) ** (-1.0 / (dims + 4)))
        log_syn[j] = _log_kde(d, np.ones_like(d, dtype=bool), h, dims, len(z))[0]
    near_pop = np.where(np.isfinite(near_pop), near_pop, near_syn)
    distance = -np.log((near_syn + GAP) / (near_pop + GAP))
    return {"distance": distance, "density": log_syn - log_pop}
