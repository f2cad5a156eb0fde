"""Noise addition to continuous variables, as sdcMicro 5.8 defines it, and µ-ARGUS's noise on the weight.

sdcMicro's ``addNoise(obj, variables = NULL, noise = 150, method = "additive", ...)`` (sdcTools/sdcMicro,
commit cf32510, R/addNoise.r, ``addNoiseWORK(x, noise = 150, method = "additive", p = 0.001, delta = 0.1)``);
Brand, "Microdata protection through noise addition" (LNCS 2316, 2002); Hundepool et al., *Statistical
Disclosure Control* (Wiley 2012) §3.4.2. ``x`` is a records x variables float array, NaN missing:

* ``additive`` (``addNoise_additive``): ``x_j + N(0, (noise/100 * sd_j)^2)`` per variable j, ``sd_j`` R's
  ``sd(x_j, na.rm = TRUE)`` (n - 1 in the denominator). ``noise`` is a percentage of the *standard
  deviation*: the default 150 adds noise whose sd is 1.5 times the variable's, so the released variance is
  ``(1 + (noise/100)^2)`` times the original one in expectation (3.25 at 150), the mean unchanged.
* ``correlated`` (``addNoise_correlated``): ``x + mvrnorm(N, 0, Sigma = noise/100 * cov(na.omit(x)))``:
  here ``noise`` is a percentage of the *covariance matrix* (of the complete records); at least two
  variables (sdcMicro stops otherwise). The released covariance is ``(1 + noise/100)`` times the original.
* ``correlated2`` (``addNoise_correlated2``, Kim 1986 as in Brand 2002): ``x_j * d1 + delta * N(mean =
  (1 - d1)/delta * mean_j, sd = sd_j)`` with ``d1 = sqrt(1 - delta^2)``; ``noise`` is ignored (sdcMicro
  reports it as NA). Each mean and each variance is kept in expectation, every covariance is scaled by
  ``1 - delta^2`` (the correlations too): the covariance structure is kept.
* ``restr`` (``addNoise_restr``): deterministic, ``cc * x + (1 - cc) * colMeans(x)`` with
  ``cc = sqrt((N - 1 - w)/((N + 1)(1 + w)))`` for N < 500 records, else ``sqrt((N - 1)/(N + N w - 1))``,
  ``w = noise/100``, N the number of records (missing ones included, as ``nrow(x)``). Each variable is
  shifted by its own ``(1 - cc)`` mean, which keeps every mean; sdcMicro's ``cc * x + d`` on a data frame
  recycles the vector d down the rows instead (R's column-major recycling: record r of variable j gets
  ``d[(r + j N) mod p]``), a slip this does not copy (cc itself is sdcMicro's, figure for figure:
  tests/test_noise_rank_swap.py).

A missing value stays missing (R's ``NA + noise``). A variable with fewer than two values has no sd: sdcMicro
adds NA noise (and warns); here it is left as it is. The random numbers are NumPy's
(``numpy.random.default_rng(seed)``), not R's: the same seed does not give sdcMicro's draws.

**Noise on the weight** (µ-ARGUS 4.2 manual §3.6, "Weight noise"; sdcTools/libmuargus, Variable.cpp
``CVariable::DoWeightNoise`` and MuArgCtrl.cpp ``SetWeightNoise``): a weight can give away its stratum or
region, so each weight is multiplied by ``1 + k``, k drawn uniformly from the grid of steps 10^-4 in
``[-q, q)``, ``q = percent/100`` (µ-ARGUS: ``v = (int)(WeightNoise * 200); i = rand() % v - v/2;
k = i / 10000.0``), percent in (0, 100].
"""

from __future__ import annotations

import numpy as np

METHODS = ("additive", "correlated", "correlated2", "restr")


def column_sd(x: np.ndarray) -> np.ndarray:
    """R's ``sd(x, na.rm = TRUE)`` of each column (NaN with fewer than two values)."""
    counts = (~np.isnan(x)).sum(axis=0)
    out = np.full(x.shape[1], np.nan)
    enough = counts >= 2
    if enough.any():
        out[enough] = np.nanstd(x[:, enough], axis=0, ddof=1)
    return out


def column_mean(x: np.ndarray) -> np.ndarray:
    """``colMeans(x, na.rm = TRUE)`` (NaN for a column without a value)."""
    counts = (~np.isnan(x)).sum(axis=0)
    sums = np.nansum(x, axis=0)
    return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def add_noise(x: np.ndarray, method: str, noise: float, delta: float, rng: np.random.Generator) -> np.ndarray:
    """sdcMicro's ``addNoiseWORK(x, noise, method, delta = delta)`` on a records x variables float array."""
    x = np.asarray(x, dtype=np.float64)
    if method == "additive":
        sd = column_sd(x)
        scale = np.where(np.isnan(sd), 0.0, noise / 100.0 * np.nan_to_num(sd))
        return x + rng.standard_normal(x.shape) * scale
    if method == "correlated":
        return x + correlated_noise(x, noise, rng)
    if method == "correlated2":
        if not 0 < delta <= 1:
            raise ValueError("delta: not in (0, 1]")
        d1 = np.sqrt(1.0 - delta**2)
        mean, sd = column_mean(x), column_sd(x)
        ok = ~np.isnan(sd)
        shift = np.where(ok, (1.0 - d1) * np.nan_to_num(mean), 0.0)
        scale = np.where(ok, delta * np.nan_to_num(sd), 0.0)
        noised = x * d1 + shift + rng.standard_normal(x.shape) * scale
        return np.where(ok, noised, x)
    if method == "restr":
        return restricted(x, noise)
    raise ValueError(f"method: {method!r} is not one of {', '.join(METHODS)}")


def correlated_noise(x: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """``mvrnorm(N, rep(0, p), Sigma = noise/100 * cov(na.omit(x)))``: draws of N(0, Sigma), one row per record,
    through Sigma's symmetric square root (eigenvalues below 0 by rounding taken as 0, as MASS::mvrnorm
    tolerates)."""
    if x.shape[1] < 2:
        raise ValueError("method: 'correlated' works only for two or more variables (sdcMicro's addNoise)")
    complete = x[~np.isnan(x).any(axis=1)]
    if len(complete) < 2:
        raise ValueError("method: 'correlated' needs at least two records without a missing value")
    sigma = noise / 100.0 * np.cov(complete, rowvar=False)
    values, vectors = np.linalg.eigh(sigma)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    return rng.standard_normal(x.shape) @ root.T


def restricted(x: np.ndarray, noise: float) -> np.ndarray:
    """sdcMicro's ``addNoise_restr``: ``cc * x + (1 - cc) * colMeans(x)`` (deterministic)."""
    n, w = x.shape[0], noise / 100.0
    if n < 500:
        cc = np.sqrt((n - 1 - w) / ((n + 1) * (1 + w)))
    else:
        cc = np.sqrt((n - 1) / (n + n * w - 1))
    return cc * x + (1.0 - cc) * column_mean(x)


def weight_noise(weights: np.ndarray, percent: float, rng: np.random.Generator) -> np.ndarray:
    """µ-ARGUS's ``DoWeightNoise``: each weight times ``1 + i / 10000``, i uniform in ``[-v/2, v - 1 - v/2]``
    (C's integer division), ``v = int(percent * 200)``; NaN stays NaN."""
    if not 0 < percent <= 100:
        raise ValueError("weight_noise: not a percentage in (0, 100]")
    v = int(percent * 200)
    low = -(v // 2)
    steps = rng.integers(low, low + v, size=len(weights))
    return np.asarray(weights, dtype=np.float64) * (1.0 + steps / 10000.0)
