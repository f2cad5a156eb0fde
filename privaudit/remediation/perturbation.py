"""Perturbative methods of a statistics office's handbook: top and bottom coding, and invariant PRAM.

Both follow sdcMicro 5.8 (sdcTools/sdcMicro, commit cf32510, R/topBotCoding.R and R/pram.R), vectorised over
records (NumPy) where sdcMicro loops in R.

**Top and bottom coding** (``topBotCodingWORK(x, value, replacement, kind)``): values strictly above (top) or
strictly below (bottom) ``value`` become ``replacement``; a value equal to the threshold is kept. Hundepool et
al., *Statistical Disclosure Control* (Wiley 2012, the ESSnet handbook) §3.4.4.

**Invariant PRAM** (``pramWORK``'s ``calcTransitionMatrix(xvec, pd, alpha)`` and ``do.pram(x, Rs)``), Gouweleeuw,
Kooiman, Willenborg & de Wolf, "Post randomisation for statistical disclosure control: theory and
implementation" (J. Official Statistics 14(4), 1998), the handbook's §3.4.6. For a variable with L categories
and marginal p (the shares of the records in the stratum with a value):

1. P: its diagonal drawn uniformly in [pd, 1] per category (``runif(L, min = pd, max = 1)``), the rest of each
   row spread evenly, ``(1 - P[i, i]) / (L - 1)``;
2. Q, the Bayes inverse of P: ``Q[k, j] = P[j, k] p_j / sum_l p_l P[l, k]`` (the probability that a released
   k was a j);
3. R = P Q, which leaves p unchanged (p R = p: the expected released marginal is the original one), and the
   matrix used, ``Rs = alpha R + (1 - alpha) I``, which does too (alpha = 1 perturbs the most).

Each record with category i is released as j with probability ``Rs[i, j]``; missing values stay missing; with
strata, each stratum gets its own P (its own draw) and its own p, and a record moves only within its stratum
(the values change, the stratum never). Two departures from the R code, both where it breaks: a category that
no record of the stratum can be released as (``sum_l p_l P[l, k] = 0``, e.g. pd = 1) gets the identity row of
Q where R divides 0 by 0; and a variable with one category is left as it is (R's P is then 1x1 with the drawn
diagonal, not a stochastic matrix). The random numbers are NumPy's (``numpy.random.default_rng(seed)``), not
R's: the same seed does not give sdcMicro's draws. ``pd`` may be one number or one per category (sdcMicro's
``pram(pd = list(c(...)))``: ``runif(L, min = pd, max = 1)`` recycles a vector of minimums, one per category);
it bounds P's diagonal, not the kept share of ``Rs`` (sdcMicro issues 264 and 347).

**Fixed matrices** (sdcMicro's ``pram(pd = <matrix>)``, ``calcTransitionMatrix`` returning the matrix given):
each record with category i is released as j with probability ``M[i, j]``, whatever the marginal.

**µ-ARGUS's PRAM** (µ-ARGUS 5.1 user's manual §4.2.2 and §5.4.3; its engine, sdcTools/libmuargus commit
5b25ec8, ``CMuArgCtrl::SetPramValue`` and the PRAM step of the safe file's writer in MuArgCtrl.cpp): a
category is kept with its own probability (µ-ARGUS's "pram percentage" of not changing); otherwise it becomes
one of the other categories, each equally likely, or with a bandwidth b one of the categories at most b
places from it in the code order (code 13 with b = 3: 10, 11, 12, 14, 15 or 16), those beyond the first or
the last code left out (the engine draws again until the code is in range, so the band's codes that exist are
equally likely). Missing values never change. :func:`keep_matrix` is that matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Probabilities are drawn on a grid of 2^-32 (exact integer arithmetic; a probability below 2^-32 is 0).
_SCALE = 1 << 32
#: Matrices (strata x categories^2) built at most; more is refused (a stratum variable of too many values).
MAX_MATRIX_CELLS = 50_000_000
#: Rows of the cumulative matrices searched at once (bounds the memory of the draw).
_BLOCK_CELLS = 1 << 24


def top_bottom_code(
    values: np.ndarray,
    top: float | None = None,
    bottom: float | None = None,
    top_replacement: float | None = None,
    bottom_replacement: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """sdcMicro's ``topBotCoding(x, value, replacement, kind = "top")`` then ``kind = "bottom"`` on a float
    array (NaN stays NaN): values > ``top`` become ``top_replacement`` (default ``top``), values < ``bottom``
    become ``bottom_replacement`` (default ``bottom``). Returns the coded values and the masks of the records
    top coded and bottom coded."""
    out = np.array(values, dtype=np.float64, copy=True)
    high = np.zeros(len(out), dtype=bool) if top is None else out > top  # NaN compares False: stays NaN
    low = np.zeros(len(out), dtype=bool) if bottom is None else out < bottom
    if top is not None:
        out[high] = top if top_replacement is None else top_replacement
    if bottom is not None:
        out[low] = bottom if bottom_replacement is None else bottom_replacement
    return out, high, low


def threshold_at(values: np.ndarray, share: float) -> float:
    """The ``share`` quantile of the non-missing ``values`` as one of them (R's ``quantile(type = 1)``, NumPy's
    ``inverted_cdf``): the smallest value with at least that share of the records at or below it, so a column
    of whole numbers top coded at its threshold stays whole."""
    finite = values[~np.isnan(values)]
    if not len(finite):
        raise ValueError("no value to take a quantile of")
    return float(np.quantile(finite, share, method="inverted_cdf"))


def keep_matrix(keep: np.ndarray, bandwidth: int | None = None) -> np.ndarray:
    """µ-ARGUS's PRAM matrix (rows the original category, columns the released, each row summing to 1):
    ``M[i, i] = keep[i]``, the rest of row i spread evenly over the categories j != i with ``|i - j| <=
    bandwidth`` (every other category without a bandwidth). A variable of one category keeps it."""
    L = len(keep)
    if L == 1:
        return np.ones((1, 1))
    if L * L > MAX_MATRIX_CELLS:
        raise ValueError(f"{L:,} categories squared are more than {MAX_MATRIX_CELLS:,} matrix cells; recode first")
    distance = np.abs(np.arange(L)[:, None] - np.arange(L)[None, :])
    band = (distance > 0) & (distance <= (L if bandwidth is None else bandwidth))
    matrix = band * ((1.0 - np.asarray(keep, dtype=np.float64)) / band.sum(axis=1))[:, None]
    matrix[np.arange(L), np.arange(L)] = keep
    return matrix


def pram_fixed(codes: np.ndarray, matrix: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each record with a category (``codes`` 0..L-1; -1 missing, kept) released as j with probability
    ``matrix[i, j]`` (sdcMicro's ``do.pram(x, Rs)`` with a given ``Rs``; µ-ARGUS's PRAM with
    :func:`keep_matrix`)."""
    out = codes.copy()
    present = codes >= 0
    if present.any():
        out[present] = draw(matrix, codes[present], rng)
    return out


def invariant_matrices(marginals: np.ndarray, diagonals: np.ndarray, alpha: float) -> np.ndarray:
    """Per stratum s, sdcMicro's ``Rs = alpha P Q + (1 - alpha) I`` for the category counts ``marginals[s]``
    (S x L) and P's drawn diagonal ``diagonals[s]`` (S x L, each in [pd, 1]); S x L x L, rows summing to 1."""
    S, L = marginals.shape
    eye = np.broadcast_to(np.eye(L), (S, L, L))
    if L == 1:
        return np.ones((S, 1, 1))
    totals = marginals.sum(axis=1, keepdims=True)
    p = marginals / np.where(totals > 0, totals, 1.0)
    P = np.repeat(((1.0 - diagonals) / (L - 1))[:, :, None], L, axis=2)
    P[:, np.arange(L), np.arange(L)] = diagonals
    released = np.einsum("sj,sjk->sk", p, P)  # s_k = sum_j p_j P[j, k]
    bayes = np.swapaxes(P * p[:, :, None], 1, 2)  # bayes[s, k, j] = P[s, j, k] p_j
    safe = released > 0
    Q = np.where(safe[:, :, None], bayes / np.where(safe, released, 1.0)[:, :, None], eye)
    R = P @ Q
    Rs = alpha * R + (1.0 - alpha) * eye
    return Rs / Rs.sum(axis=2, keepdims=True)  # rounding only: each row sums to 1 in exact arithmetic


@dataclass(frozen=True)
class PramResult:
    codes: np.ndarray  # released category of each record (-1: missing, as given)
    matrices: np.ndarray  # S x L x L: row i of stratum s, the release probabilities of category i


def pram_codes(
    codes: np.ndarray,
    strata: np.ndarray,
    n_levels: int,
    pd: float | np.ndarray,
    alpha: float,
    rng: np.random.Generator,
) -> PramResult:
    """Invariant PRAM of one variable: ``codes`` its category per record (0..L-1, -1 missing), ``strata`` each
    record's stratum (0..S-1), ``pd`` one least diagonal or one per category. The diagonal of P is drawn per
    stratum (``runif(L, pd, 1)`` in stratum order), then one uniform per record with a value."""
    n_strata = int(strata.max()) + 1 if len(strata) else 0
    if n_strata * n_levels * n_levels > MAX_MATRIX_CELLS:
        raise ValueError(
            f"{n_strata:,} strata x {n_levels:,} categories squared are more than {MAX_MATRIX_CELLS:,} "
            "matrix cells; stratify by fewer values"
        )
    present = codes >= 0
    marginals = np.zeros((n_strata, n_levels))
    np.add.at(marginals, (strata[present], codes[present]), 1.0)
    diagonals = rng.uniform(pd, 1.0, size=(n_strata, n_levels))
    matrices = invariant_matrices(marginals, diagonals, alpha)
    out = codes.copy()
    if not present.any():  # nothing to draw (sdcMicro's do.pram: "special case: na-only input")
        return PramResult(out, matrices)
    rows = strata[present].astype(np.int64) * n_levels + codes[present]
    out[present] = draw(matrices.reshape(-1, n_levels), rows, rng)
    return PramResult(out, matrices)


def draw(matrix: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One category per record: record r drawn from the distribution ``matrix[rows[r]]`` (inverse CDF).

    Vectorised over records: the rows used are quantised to integers summing to 2^32 (a zero probability
    stays 0, so never drawn), their cumulative sums laid end to end with a gap of 2^32 between rows, and each
    record's uniform integer, offset by its row's start, found by one binary search (``np.searchsorted``)."""
    L = matrix.shape[1]
    used, inverse = np.unique(rows, return_inverse=True)
    quanta = np.floor(matrix[used] * _SCALE).astype(np.int64)
    quanta[np.arange(len(used)), quanta.argmax(axis=1)] += _SCALE - quanta.sum(axis=1)
    cumulative = np.cumsum(quanta, axis=1)
    uniform = rng.integers(0, _SCALE, size=len(rows), dtype=np.int64)
    out = np.empty(len(rows), dtype=np.int64)
    block = max(1, _BLOCK_CELLS // L)
    order = np.argsort(inverse, kind="stable") if len(used) > block else None
    for start in range(0, len(used), block):
        stop = min(start + block, len(used))
        if order is None:
            pick = np.arange(len(rows))
        else:
            bounds = np.searchsorted(inverse[order], [start, stop])
            pick = order[bounds[0] : bounds[1]]
        local = inverse[pick] - start
        flat = (cumulative[start:stop] + (np.arange(stop - start, dtype=np.int64) * 2 * _SCALE)[:, None]).ravel()
        found = np.searchsorted(flat, uniform[pick] + local * 2 * _SCALE, side="right")
        out[pick] = found - local * L
    return out
