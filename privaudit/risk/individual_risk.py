"""Individual re-identification risk of sample records (Benedetti-Franconi approximation).

For a record whose key (quasi-identifier combination) occurs f_k times in the sample and, by the
sampling weights, an estimated F_k times in the population (F_k = sum of the weights of the f_k
records; without weights F_k = f_k), the individual risk is the expected value of 1/F given the
sample frequency, under the negative-binomial superpopulation model of Benedetti & Franconi
(1998, "Statistical and technological solutions for controlled data dissemination", Pre-proceedings
of New Techniques and Technologies for Statistics). With p_k = f_k / F_k, the approximation used by
mu-Argus and sdcMicro (``indivRisk(method = "approx")``, called by ``measure_risk``; see Franconi &
Polettini 2004, "Individual risk estimation in mu-Argus: a review", PSD 2004, LNCS 3050) is

    f_k = 1:  r_k = p/(1-p) * ln(1/p)
    f_k = 2:  r_k = p/(1-p) - (p/(1-p))^2 * ln(1/p)
    f_k > 2:  r_k = p / (f_k - (1-p))

At p_k = 1 (F_k = f_k: no record of the key outside the sample) the first two expressions are 0/0;
their limit, and the value of the third, is 1/f_k, which is what sdcMicro assigns when
``fk == Fk``. Here the limit is built in: with e = 1 - p = (F_k - f_k)/F_k computed without
cancellation,

    f_k = 1:  r = p * L / e                                 (-> 1 as e -> 0)
    f_k = 2:  r = p * sum_{m>=0} e^m / ((m+1)(m+2))         for e < 0.05 (series of the closed form)
              r = p/e - (p/e)^2 * L                         otherwise

where L = ln(1/p) is taken as -log1p(-e) for p near 1 and as ln(F_k/f_k) otherwise, so risks
are finite and accurate (to a few ulps) for every p in (0, 1], without warnings.

Weights that put F_k below f_k (a population smaller than the sample) are treated as F_k = f_k,
i.e. p is capped at 1 and the risk at 1/f_k; sdcMicro evaluates the formulas at p > 1 instead.

The expected number of re-identifications is the sum of the individual risks over the records;
the global risk is that sum divided by the number of records (sdcMicro's ``global_risk_ER`` and
``global_risk``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["individual_risk", "individual_risk_exact", "expected_reidentifications", "global_risk"]

# Below this e = 1 - p the f_k = 2 risk is evaluated by its power series (the closed form suffers
# cancellation there); 20 terms leave a truncation error below 0.05^20 ~ 1e-26.
_SERIES_BELOW = 0.05
_SERIES_TERMS = 20


def _f2_series(e: np.ndarray) -> np.ndarray:
    """sum_{m=0}^{M-1} e^m / ((m+1)(m+2)), Horner form; the f_k = 2 risk is p times this."""
    acc = np.zeros_like(e)
    for m in range(_SERIES_TERMS - 1, -1, -1):
        acc = acc * e + 1.0 / ((m + 1) * (m + 2))
    return acc


def _log_inverse_p(e: np.ndarray, f: np.ndarray, big_f: np.ndarray) -> np.ndarray:
    """ln(1/p) accurately: -log1p(-e) for p near 1, log(F/f) for small p."""
    out = np.empty_like(e)
    near = e < 0.5
    out[near] = -np.log1p(-e[near])
    out[~near] = np.log(big_f[~near] / f[~near])
    return out


def individual_risk_exact(fk: np.ndarray, Fk: np.ndarray) -> np.ndarray:
    """The exact Benedetti-Franconi risk (sdcMicro ``indivRisk(method = "exact")``, R/indivRisk.R; Benedetti &
    Franconi 1998, section 3; Polettini 2003): for f_k <= 2 the same closed forms as :func:`individual_risk`;
    for f_k > 2, with p = f_k/F_k,

        r = (p/(1-p))^f * ( A (1 + sum_{m=0}^{f-3} (-1)^(m+1) prod_{j=0}^{m} B_j) + (-1)^f ln p ),
        A = (p^(1-f) - 1)/(f - 1),
        B_j = (f-1-j)^2 / ((j+1)(f-2-j)) * (p^(j+2-f) - 1)/(p^(j+1-f) - 1),

    and 1/f_k where F_k = f_k (no record outside the sample). The alternating series is evaluated as
    sdcMicro evaluates it (it loses precision for large f_k; sdcMicro's default is the approximation), one
    vectorised pass per distinct f_k."""
    f = np.asarray(fk, dtype=np.float64)
    big_f = np.maximum(np.asarray(Fk, dtype=np.float64), f)
    risk = individual_risk(f, big_f)  # validates; exact for f <= 2 and where F = f
    for value in np.unique(f[(f > 2) & (big_f > f)]):
        at = np.flatnonzero((f == value) & (big_f > f))
        p = f[at] / big_f[at]
        fv = int(value)
        a = (p ** (1 - fv) - 1) / (fv - 1)
        series = np.zeros_like(p)
        product = np.ones_like(p)
        for m in range(fv - 2):  # m = 0 .. f-3
            b = (fv - 1 - m) ** 2 / ((m + 1) * (fv - 2 - m)) * (p ** (m + 2 - fv) - 1) / (p ** (m + 1 - fv) - 1)
            product = product * b
            series += (-1) ** (m + 1) * product
        risk[at] = (p / (1 - p)) ** fv * (a * (1 + series) + (-1) ** fv * np.log(p))
    return risk


def individual_risk(fk: np.ndarray, Fk: np.ndarray) -> np.ndarray:
    """Per-record re-identification risk from sample frequency f_k and population frequency F_k.

    fk: sample frequency of each record's key (whole numbers >= 1).
    Fk: estimated population frequency of that key (sum of sampling weights over the key's
        records; pass ``fk`` itself for unweighted data, giving risk 1/f_k).
    Returns an array of risks in (0, 1/f_k], one per record (see the module docstring).
    """
    f = np.asarray(fk, dtype=np.float64)
    big_f = np.asarray(Fk, dtype=np.float64)
    if f.shape != big_f.shape:
        raise ValueError(f"fk and Fk must have the same shape, got {f.shape} and {big_f.shape}")
    if not (np.all(np.isfinite(f)) and np.all(np.isfinite(big_f))):
        raise ValueError("fk and Fk must be finite (no missing values)")
    if np.any(f < 1) or np.any(f != np.round(f)):
        raise ValueError("fk must be whole numbers >= 1")
    if np.any(big_f <= 0):
        raise ValueError("Fk must be positive")

    big_f = np.maximum(big_f, f)  # the population holds at least the sampled records
    p = f / big_f
    e = (big_f - f) / big_f  # 1 - p without cancellation
    risk = np.empty_like(p)

    one = f == 1
    two = f == 2
    more = f > 2

    # f_k > 2: p / (f_k - (1 - p)); the denominator is >= 2, no singularity.
    risk[more] = p[more] / (f[more] - e[more])

    # f_k = 1: p/(1-p) ln(1/p) = p * L/e with L = ln(1/p); L/e -> 1 as e -> 0.
    e1 = e[one]
    ratio = np.ones_like(e1)
    pos = e1 > 0
    ratio[pos] = _log_inverse_p(e1[pos], f[one][pos], big_f[one][pos]) / e1[pos]
    risk[one] = p[one] * ratio

    # f_k = 2: p/e - (p/e)^2 L, by its series near p = 1 and in closed form elsewhere.
    e2, p2 = e[two], p[two]
    r2 = np.empty_like(e2)
    small = e2 < _SERIES_BELOW
    r2[small] = p2[small] * _f2_series(e2[small])
    big = ~small
    q = p2[big] / e2[big]
    r2[big] = q - q * q * _log_inverse_p(e2[big], f[two][big], big_f[two][big])
    risk[two] = r2
    return risk


def expected_reidentifications(risk: np.ndarray) -> float:
    """Expected number of re-identifications: the sum of the individual risks."""
    r = np.asarray(risk, dtype=np.float64)
    return float(np.sum(r))


def global_risk(risk: np.ndarray) -> float:
    """Global risk: expected re-identifications divided by the number of records (0 if none)."""
    r = np.asarray(risk, dtype=np.float64)
    return float(np.sum(r) / r.size) if r.size else 0.0
