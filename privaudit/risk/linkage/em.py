"""EM estimation of the Fellegi–Sunter mixture on agreement-pattern counts.

Model (Fellegi & Sunter 1969; EM form by Winkler 1988, "Using the EM
algorithm for weight computation in the Fellegi-Sunter model of record
linkage"; Jaro 1989).  A candidate pair has comparison vector
``gamma = (gamma_1, ..., gamma_A)`` with ``gamma_a`` in ``{0, ..., L_a}``.
Pairs are a two-class mixture, matches ``M`` with prior ``lambda`` and
non-matches ``U``, and the attributes are conditionally independent::

    P(gamma) = lambda * prod_a m_a[gamma_a] + (1 - lambda) * prod_a u_a[gamma_a]

E-step, for every *distinct* pattern ``k`` observed ``c_k`` times::

    g_k = lambda P(gamma_k | M) / P(gamma_k)

M-step::

    lambda   = sum_k c_k g_k / sum_k c_k
    m_a[l]   = sum_{k: gamma_ka = l} c_k g_k       / sum_{k: gamma_ka observed} c_k g_k
    u_a[l]   = sum_{k: gamma_ka = l} c_k (1 - g_k) / sum_{k: gamma_ka observed} c_k (1 - g_k)

Because the likelihood depends on the data only through the pattern counts,
one iteration costs ``O(K * A)`` for ``K`` distinct patterns, independent of
the number of pairs.  A missing comparison (level ``-1``) is marginalised out:
its factor is 1 in both classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

__all__ = ["EMFit", "default_m_init", "marginal_level_frequencies", "fit_em", "fit_match_prior"]

_TINY = 1e-300


@dataclass(frozen=True)
class EMFit:
    """Result of :func:`fit_em`: per attribute level probabilities and the match prior."""

    m: tuple[tuple[float, ...], ...]
    u: tuple[tuple[float, ...], ...]
    lambda_: float
    iterations: int
    converged: bool
    log_likelihood: float


def default_m_init(n_levels: Sequence[int], exact: float = 0.9) -> list[np.ndarray]:
    """Label-free starting ``m``: ``exact`` on level 0, the rest spread evenly."""
    out = []
    for n in n_levels:
        if n < 2:
            raise ValueError("every attribute needs at least two levels")
        out.append(np.r_[exact, np.full(n - 1, (1.0 - exact) / (n - 1))])
    return out


def marginal_level_frequencies(levels: np.ndarray, counts: np.ndarray, n_levels: Sequence[int]) -> list[np.ndarray]:
    """Level frequencies of each attribute over all pairs (a label-free start for ``u``).

    Non-matches dominate any candidate set, so the marginal frequencies are
    close to ``u``.  Levels never observed get a half count so that no start
    value is exactly zero.
    """
    out = []
    for a, n in enumerate(n_levels):
        col = levels[:, a]
        ok = col >= 0
        f = np.bincount(col[ok], weights=counts[ok], minlength=n)[:n] + 0.5
        out.append(f / f.sum())
    return out


class _Design:
    """Patterns as a sparse 0/1 matrix ``X`` (K x sum_a L_a): ``X[k, off_a + l] = 1`` iff ``gamma_ka = l``.

    With all level probabilities in one flat vector ``theta``,
    ``log P(gamma_k | class) = (X @ log theta)_k`` (missing levels have no
    entry, i.e. factor 1) and the M-step numerators are ``X.T @ weights``.
    """

    def __init__(self, levels: np.ndarray, n_levels: Sequence[int]):
        self.n_levels = list(n_levels)
        self.offsets = np.r_[0, np.cumsum(self.n_levels)[:-1]].astype(np.int64)
        k, a = np.nonzero(levels >= 0)
        cols = self.offsets[a] + levels[k, a]
        self.x = sparse.csr_matrix((np.ones(k.size), (k, cols)), shape=(levels.shape[0], int(sum(self.n_levels))))
        self.xt = self.x.T.tocsr()

    def flat(self, per_attribute: Sequence[np.ndarray]) -> np.ndarray:
        return np.concatenate([np.asarray(p, float) for p in per_attribute])

    def split(self, flat: np.ndarray) -> list[np.ndarray]:
        return np.split(flat, self.offsets[1:])

    def log_prob(self, theta: np.ndarray) -> np.ndarray:
        return self.x @ np.log(np.maximum(theta, _TINY))

    def normalise(self, numerators: np.ndarray, fallback: np.ndarray) -> np.ndarray:
        """Normalise every attribute block to sum 1 (blocks with no mass keep ``fallback``)."""
        sums = np.add.reduceat(numerators, self.offsets)
        per_level = np.repeat(sums, self.n_levels)
        return np.where(per_level > 0, numerators / np.where(per_level > 0, per_level, 1.0), fallback)


def _log_class_prob(levels: np.ndarray, log_p: Sequence[np.ndarray]) -> np.ndarray:
    """``sum_a log p_a[gamma_ka]`` per pattern, missing levels contributing 0."""
    total = np.zeros(levels.shape[0])
    for a, lp in enumerate(log_p):
        padded = np.append(lp, 0.0)  # index -1 -> the appended 0
        total += padded[levels[:, a]]
    return total


def fit_em(
    levels: np.ndarray,
    counts: np.ndarray,
    n_levels: Sequence[int],
    *,
    m_init: Sequence[np.ndarray] | None = None,
    u_init: Sequence[np.ndarray] | None = None,
    lambda_init: float = 0.01,
    max_iter: int = 1000,
    tol: float = 1e-9,
    fix_u: bool = False,
) -> EMFit:
    """Fit ``lambda``, ``m`` and ``u`` by EM on distinct agreement patterns.

    Parameters
    ----------
    levels:
        ``(K, A)`` integer array, one row per distinct pattern; ``-1`` marks a
        missing comparison.
    counts:
        ``(K,)`` number of pairs showing each pattern.
    n_levels:
        number of (non-missing) levels of every attribute.
    m_init, u_init, lambda_init:
        starting values; defaults are :func:`default_m_init` and
        :func:`marginal_level_frequencies` (neither uses labels).
    tol:
        stop when no parameter moves by more than ``tol`` in one iteration.
    fix_u:
        keep ``u`` at ``u_init`` and fit only ``lambda`` and ``m`` (the usual
        practice when ``u`` is estimated beforehand from random pairs, where
        matches are negligible).
    """
    levels = np.asarray(levels, dtype=np.int64)
    counts = np.asarray(counts, dtype=float)
    if levels.ndim != 2 or levels.shape[1] != len(n_levels) or levels.shape[0] != counts.shape[0]:
        raise ValueError("levels must be (K, A) with A == len(n_levels) and K == len(counts)")
    if np.any(levels >= np.asarray(n_levels)[None, :]) or np.any(levels < -1):
        raise ValueError("levels out of range")
    if not 0.0 < lambda_init < 1.0:
        raise ValueError("lambda_init must be in (0, 1)")
    total = counts.sum()
    if total <= 0:
        raise ValueError("no pairs to fit")
    design = _Design(levels, n_levels)
    m = design.flat(m_init if m_init is not None else default_m_init(n_levels))
    u = design.flat(u_init if u_init is not None else marginal_level_frequencies(levels, counts, n_levels))
    lam = float(lambda_init)

    converged = False
    it = 0
    log_u = design.log_prob(u)
    for it in range(1, max_iter + 1):  # noqa: B007 - the count of iterations is reported after the loop
        # E-step: g = lam*Pm / (lam*Pm + (1-lam)*Pu), a logistic of the log-odds
        log_odds = np.log(lam) - np.log1p(-lam) + design.log_prob(m) - log_u
        g = 0.5 * (1.0 + np.tanh(0.5 * log_odds))
        w_m = counts * g
        # M-step
        new_lam = float(np.clip(w_m.sum() / total, 1e-15, 1 - 1e-15))
        new_m = design.normalise(design.xt @ w_m, m)
        new_u = u if fix_u else design.normalise(design.xt @ (counts - w_m), u)
        delta = max(abs(new_lam - lam), float(np.max(np.abs(new_m - m))), float(np.max(np.abs(new_u - u))))
        lam, m, u = new_lam, new_m, new_u
        if not fix_u:
            log_u = design.log_prob(u)
        if delta < tol:
            converged = True
            break

    ll = float(np.sum(counts * np.logaddexp(np.log(lam) + design.log_prob(m), np.log1p(-lam) + design.log_prob(u))))
    return EMFit(
        m=tuple(tuple(float(v) for v in x) for x in design.split(m)),
        u=tuple(tuple(float(v) for v in x) for x in design.split(u)),
        lambda_=lam,
        iterations=it,
        converged=converged,
        log_likelihood=ll,
    )


def fit_match_prior(
    levels: np.ndarray,
    counts: np.ndarray,
    m: Sequence[np.ndarray],
    u: Sequence[np.ndarray],
    *,
    lambda_init: float = 0.01,
    max_iter: int = 10000,
    tol: float = 1e-9,
) -> float:
    """EM for the match prior alone, ``m`` and ``u`` held fixed.

    Iterates ``lambda <- sum_k c_k g_k(lambda) / sum_k c_k`` with the E-step
    of :func:`fit_em`; this is the maximum-likelihood mixing weight of two
    known component distributions.
    """
    counts = np.asarray(counts, dtype=float)
    levels = np.asarray(levels, dtype=np.int64)
    total = counts.sum()
    if total <= 0:
        raise ValueError("no pairs to fit")
    log_ratio = _log_class_prob(levels, [np.log(np.maximum(np.asarray(x, float), _TINY)) for x in m]) - _log_class_prob(
        levels, [np.log(np.maximum(np.asarray(x, float), _TINY)) for x in u]
    )
    lam = float(lambda_init)
    for _ in range(max_iter):
        g = 0.5 * (1.0 + np.tanh(0.5 * (np.log(lam) - np.log1p(-lam) + log_ratio)))
        new = float(np.clip(np.dot(counts, g) / total, 1e-15, 1 - 1e-15))
        if abs(new - lam) <= tol * lam:
            return new
        lam = new
    return lam
