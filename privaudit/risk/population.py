"""Population uniqueness estimated from the sample's equivalence-class sizes.

A record that is unique in the released sample (its quasi-identifier combination occurs once) need
not be unique in the population the sample was drawn from. The models below estimate, from the
sample's class-size distribution and the sampling fraction ``f = n / N`` (n records in the sample,
N in the population), the share of population records that are population-unique. They follow the
way ARX (``RiskModelPopulationUniqueness``) computes them; the code is an independent implementation
of the published formulas. Notation: ``c_j`` = number of sample classes of size j, ``u = sum c_j``
classes, ``n = sum j c_j`` records.

Pitman (Hoshino 2001, "Applying Pitman's sampling formula to microdata disclosure risk
assessment", J. Official Statistics 17(4))
    The sample partition follows Pitman's sampling formula with parameters (theta, alpha). The
    log-likelihood is

        L = sum_{i=1}^{u-1} log(theta + i alpha) - sum_{i=1}^{n-1} log(theta + i)
            + sum_j c_j sum_{i=1}^{j-1} log(i - alpha)

    and the maximum-likelihood estimate solves dL/dtheta = dL/dalpha = 0 by Newton-Raphson,
    started at Hoshino's moment estimates (below, ``_pitman_start``). The expected number of
    population uniques is ``Gamma(theta + 1) / Gamma(theta + alpha) * N^alpha``.
    Sums over i are evaluated in closed form with digamma/trigamma functions; the root is then
    verified by evaluating the score with explicit sums and, if that check fails, re-solved with
    explicit sums (as ARX does). Solver rules as ARX: convergence when both score components are
    at most ``tol`` (1e-6) in absolute value, an iterate with theta < 0 or a NaN aborts the try,
    failed tries are restarted from points drawn uniformly from (0, theta0) x (0, alpha0) (here
    with a fixed seed, so results are reproducible; ARX also stops after 1 s, here only iteration
    budgets apply). The estimate is rejected (NaN) unless alpha != 0, alpha < 1, theta + alpha > 0
    and it lies in [0, N]. A sample without any class of size >= 2 has no ML estimate (the alpha
    score is positive everywhere), so Pitman is reported as not converged without solving.
    Where both converge the root and estimate equal ARX's to about 1e-10 (the score is solved to 1e-6); where
    one of them fails they differ, in either direction: ARX's default configuration restarts from 16 fixed
    points of [0, 1)^2 (``ARXSolverConfiguration.getDefaultStartValues``), and its closed-form Hessian uses
    ``risk/Gamma.trigamma``, which adds no asymptotic term for arguments reduced to [8, 12) (trigamma(10) is 0
    there), so its Newton steps differ from these exact ones. A failed fit is "not fulfilled" in both.

Zayatz (1991, "Estimation of the number of unique population elements using a sample", Proc.
Survey Research Methods Section, ASA)
    The probability that a sample unique is a population unique is estimated as

        P = c_1 h(1) / sum_j c_j h(j),   h(j) = Hypergeometric(N, j, n) pmf at 1

    (the sample class-size distribution stands in for the population one), and the number of
    population uniques as ``c_1 * P / f``.

SNB, shifted negative binomial (Chen & Keller-McNulty 1998, "Estimation of identification
disclosure risk in microdata", J. Official Statistics 14(1))
    Population class sizes are 1 + NegBin(alpha, beta) over K non-empty classes; the sample
    keeps each record independently with probability f. With ``d = (1-f)(1-beta)``:

        E[c_1] = K f (beta / (1-d))^alpha (1 + alpha d / (1-d))
        E[c_2] = K alpha f^2 beta^alpha (1-beta) (1-d)^-(alpha+2) (2 - (1-alpha) d) / 2

    (alpha, beta) solve E[c_1] = c_1, E[c_2] = c_2 with alpha > 0, 0 < beta < 1, and the number
    of population uniques is ``K beta^alpha``. K is estimated by a Shlosser-type estimator
    (Haas & Stokes 1998, JASA 93(444)), with q = f:

        K = u + c_1 * [sum_j j q^2 (1-q^2)^(j-1) c_j] / [sum_j (1-q)^j ((1+q)^j - 1) c_j]
                    * ([sum_j (1-q)^j c_j] / [sum_j j q (1-q)^(j-1) c_j])^2

    ``snb_variant="arx"`` (the default) reproduces ARX 3.x, whose code differs from these
    formulas in two places: its E[c_2] multiplies by (1-d)^(alpha+2) instead of dividing, and its
    Shlosser denominator is ``sum_j [c_j (1-q)^j (1+q)^j - 1]`` (the "- 1" is applied once per
    distinct class size instead of inside the bracket). On ARX's adult data these equations have
    no root, so ARX's SNB estimate is unavailable and Dankar's rule falls back to Zayatz; the
    published ARX figures (e.g. 0.3577 at f = 0.2) depend on that. ``snb_variant="corrected"``
    solves the equations as written above (0.3195 on the same data at f = 0.2, smaller than
    Zayatz, so Dankar's rule then picks SNB).

Dankar's decision rule (Dankar, El Emam, Neisa & Roffey 2012, "Estimating the re-identification
risk of clinical data sets", BMC Med. Inform. Decis. Mak. 12:66), as applied by ARX
    no sample uniques -> 0; f <= 0.1 -> Pitman, or Zayatz when Pitman gives no valid estimate;
    f > 0.1 -> the smaller of Zayatz and SNB, or Zayatz when SNB gives no valid estimate
    ("valid" = finite and non-zero, as in ARX). f is the effective n / N with N = round(n / f)
    (as ARX), compared with 0.1 allowing a 1e-12 relative rounding slack. Here f = 1 (a census)
    short-cuts to the sample uniqueness (model "census").

All estimates are reported as shares of population records, i.e. number of population uniques / N,
like ARX's ``getFractionOfUniqueTuples*``. Everything works on the class-size histogram (one entry
per distinct class size), so millions of classes cost one ``np.unique``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special

__all__ = [
    "PopulationUniqueness",
    "PitmanFit",
    "SNBFit",
    "population_uniqueness",
    "population_uniqueness_from_histogram",
    "class_size_histogram",
    "population_size_from_sampling_fraction",
    "sampling_fraction_from_population_size",
    "pitman_fit",
    "zayatz_uniqueness",
    "snb_fit",
    "shlosser_classes",
]

SNBVariant = Literal["arx", "corrected"]

#: Dankar et al.'s threshold on the sampling fraction (Pitman at or below, Zayatz/SNB above).
DANKAR_SAMPLING_FRACTION_THRESHOLD = 0.1
# Relative slack on the threshold, so that n / round(n / 0.1) == 0.1 up to rounding still counts as 0.1.
_THRESHOLD_SLACK = 1e-12


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


def class_size_histogram(class_sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct class sizes (ascending) and how many classes have each size.

    ``class_sizes`` holds one positive integer per equivalence class (f_k).
    """
    sizes = np.asarray(class_sizes)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError("class_sizes must be a non-empty one-dimensional array (one entry per class)")
    if not np.issubdtype(sizes.dtype, np.integer):
        as_float = sizes.astype(np.float64)
        if not np.all(np.isfinite(as_float)) or np.any(as_float != np.round(as_float)):
            raise ValueError("class_sizes must be whole numbers")
        sizes = as_float.astype(np.int64)
    if np.any(sizes < 1):
        raise ValueError("class_sizes must be >= 1")
    values, counts = np.unique(sizes.astype(np.int64, copy=False), return_counts=True)
    return values, counts.astype(np.int64)


def _check_histogram(sizes: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate, merge duplicate sizes, drop zero counts, and sort a (size, count) histogram."""
    sizes = np.asarray(sizes)
    counts = np.asarray(counts)
    if sizes.ndim != 1 or sizes.shape != counts.shape or sizes.size == 0:
        raise ValueError("sizes and counts must be non-empty one-dimensional arrays of equal length")
    for name, arr in (("sizes", sizes), ("counts", counts)):
        as_float = arr.astype(np.float64)
        if not np.all(np.isfinite(as_float)) or np.any(as_float != np.round(as_float)):
            raise ValueError(f"{name} must be whole numbers")
    sizes = sizes.astype(np.int64)
    counts = counts.astype(np.int64)
    if np.any(sizes < 1) or np.any(counts < 0):
        raise ValueError("sizes must be >= 1 and counts >= 0")
    keep = counts > 0
    if not np.any(keep):
        raise ValueError("the histogram has no classes")
    values, inverse = np.unique(sizes[keep], return_inverse=True)
    merged = np.bincount(inverse, weights=counts[keep], minlength=values.size).astype(np.int64)
    return values, merged


def population_size_from_sampling_fraction(n_records: int, sampling_fraction: float) -> int:
    """Population size N = round(n / f), as ARX's ``ARXPopulationModel.create(n, f)``."""
    if not (0.0 < sampling_fraction <= 1.0) or not math.isfinite(sampling_fraction):
        raise ValueError(f"sampling_fraction must be in (0, 1], got {sampling_fraction!r}")
    if n_records < 1:
        raise ValueError("n_records must be >= 1")
    return max(int(round(n_records / sampling_fraction)), int(n_records))


def sampling_fraction_from_population_size(n_records: int, population_size: float) -> float:
    """Sampling fraction f = n / N for a sample of ``n_records`` drawn from ``population_size``."""
    if n_records < 1:
        raise ValueError("n_records must be >= 1")
    if not math.isfinite(population_size) or population_size < n_records:
        raise ValueError(f"population_size ({population_size!r}) must be at least the number of records ({n_records})")
    return n_records / population_size


# --------------------------------------------------------------------------------------------
# Pitman
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PitmanFit:
    """Maximum-likelihood fit of Pitman's sampling formula and the implied population uniqueness.

    uniqueness: population uniques / N (NaN when the solver failed or the estimate is out of range).
    converged: the Newton solver found a root with theta >= 0 and the estimate is valid.
    theta, alpha: the fitted parameters (NaN when the solver failed).
    iterations: Newton iterations spent (over all tries).
    """

    uniqueness: float
    converged: bool
    theta: float
    alpha: float
    iterations: int


def _pitman_start(n: float, u: float, c1: float, c2: float) -> tuple[float, float]:
    """Hoshino's (2001) moment-type starting values (theta0, alpha0) for the Pitman ML solver.

    With c = c1 (c1 - 1) / c2 (c2 taken as 1 when there are no classes of size 2):
        theta0 = (n u c - c1 (n-1)(2u + c)) / (2 c1 u + c1 c - n c)
        alpha0 = (theta0 (c1 - n) + (n-1) c1) / (n u)
    """
    c2 = c2 if c2 != 0 else 1.0
    c = c1 * (c1 - 1.0) / c2
    with np.errstate(all="ignore"):
        theta = (n * u * c - c1 * (n - 1.0) * (2.0 * u + c)) / ((2.0 * c1 * u + c1 * c) - n * c)
        alpha = (theta * (c1 - n) + (n - 1.0) * c1) / (n * u)
    return float(theta), float(alpha)


def _trigamma(z):
    """Trigamma psi_1(z) = Hurwitz zeta(2, z), with the reflection formula for z < 0.

    psi_1(z) = pi^2 / sin^2(pi z) - psi_1(1 - z): scipy's zeta costs O(|z|) for negative z
    (Pitman fits with alpha < 0 evaluate it near -theta/alpha, i.e. at -1e6 and beyond).
    sin^2 has period 1, so it is evaluated at the fractional part of z to keep full precision.
    """
    z = np.asarray(z, dtype=np.float64)
    neg = z < 0
    if not np.any(neg):
        return special.zeta(2.0, z)
    out = np.empty_like(z)
    out[~neg] = special.zeta(2.0, z[~neg])
    zn = z[neg]
    frac = zn - np.round(zn)
    out[neg] = (np.pi / np.sin(np.pi * frac)) ** 2 - special.zeta(2.0, 1.0 - zn)
    return out if out.ndim else out[()]


def _pitman_class_terms(sizes: np.ndarray, counts: np.ndarray, alpha: float) -> tuple[float, float]:
    """sum_j c_j sum_{i<j} 1/(i - alpha) and sum_j c_j sum_{i<j} 1/(i - alpha)^2 (closed form)."""
    big = sizes > 1
    j = sizes[big].astype(np.float64)
    c = counts[big].astype(np.float64)
    s = np.sum(c * (special.digamma(j - alpha) - special.digamma(1.0 - alpha)))
    t = np.sum(c * (_trigamma(1.0 - alpha) - _trigamma(j - alpha)))
    return float(s), float(t)


def _pitman_closed(sizes, counts, n, u):
    """Score and Hessian of the Pitman log-likelihood via digamma/trigamma (cost: #distinct sizes)."""

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        theta, alpha = x
        r = theta / alpha
        psi, tri = special.digamma, _trigamma
        s1 = (psi(r + u) - psi(r + 1.0)) / alpha  # sum_{i=1}^{u-1} 1/(theta + i alpha)
        s3 = ((u - 1.0) - theta * s1) / alpha  # sum i/(theta + i alpha)
        t1 = (tri(r + 1.0) - tri(r + u)) / alpha**2  # sum 1/(theta + i alpha)^2
        ti = (s1 - theta * t1) / alpha  # sum i/(theta + i alpha)^2
        tii = (s3 - theta * ti) / alpha  # sum i^2/(theta + i alpha)^2
        s2 = psi(theta + n) - psi(theta + 1.0)  # sum_{i=1}^{n-1} 1/(theta + i)
        t2 = tri(theta + 1.0) - tri(theta + n)  # sum 1/(theta + i)^2
        s4, t4 = _pitman_class_terms(sizes, counts, alpha)
        score = np.array([s1 - s2, s3 - s4])
        hessian = np.array([[t2 - t1, -ti], [-ti, -tii - t4]])
        return score, hessian

    return evaluate


def _pitman_direct(sizes, counts, n, u):
    """Score and Hessian with the sums over i = 1..u-1 written out (cost: O(u) per evaluation).

    Used to verify the closed-form root, and as the fallback solver when that check fails
    (the closed forms lose precision when alpha is close to 0).
    """
    i = np.arange(1.0, u)

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        theta, alpha = x
        inv = 1.0 / (theta + i * alpha)
        inv2 = inv * inv
        s1, s3 = inv.sum(), (i * inv).sum()
        t1, ti, tii = inv2.sum(), (i * inv2).sum(), (i * i * inv2).sum()
        s2 = special.digamma(theta + n) - special.digamma(theta + 1.0)
        t2 = _trigamma(theta + 1.0) - _trigamma(theta + n)
        s4, t4 = _pitman_class_terms(sizes, counts, alpha)
        score = np.array([s1 - s2, s3 - s4])
        hessian = np.array([[t2 - t1, -ti], [-ti, -tii - t4]])
        return score, hessian

    return evaluate


def _newton_2d(
    evaluate: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    start: tuple[float, float],
    tol: float,
    iterations_per_try: int,
    iterations_total: int,
    seed: int = 0,
) -> tuple[np.ndarray | None, int]:
    """Newton-Raphson with restarts, following the rules of ARX's solver.

    A try stops with success when both components of the function are <= tol in absolute value;
    it fails on a singular Jacobian, a non-finite iterate, an iterate with x[0] < 0 (theta must be
    non-negative) or after ``iterations_per_try`` steps. Failed tries restart from
    ``U(0,1) * start`` (componentwise) until ``iterations_total`` steps have been spent.
    Returns (root or None, iterations used).
    """
    rng = np.random.default_rng(seed)
    start_arr = np.asarray(start, dtype=np.float64)
    x = start_arr.copy()
    used = 0
    while used < iterations_total:
        for _ in range(iterations_per_try):
            used += 1
            g, jac = evaluate(x)
            if not (np.all(np.isfinite(g)) and np.all(np.isfinite(jac))):
                break
            if np.all(np.abs(g) <= tol):
                return x, used
            det = jac[0, 0] * jac[1, 1] - jac[0, 1] * jac[1, 0]
            if det == 0.0 or not np.isfinite(det):
                break
            step = np.array([jac[1, 1] * g[0] - jac[0, 1] * g[1], -jac[1, 0] * g[0] + jac[0, 0] * g[1]]) / det
            x = x - step
            if not np.all(np.isfinite(x)) or x[0] < 0.0 or used >= iterations_total:
                break
        x = rng.random(2) * start_arr
    return None, used


def pitman_fit(
    sizes: np.ndarray,
    counts: np.ndarray,
    population_size: float,
    *,
    tol: float = 1e-6,
    iterations_per_try: int = 200,
    iterations_total: int = 2000,
) -> PitmanFit:
    """Fit Pitman's sampling formula by maximum likelihood and estimate population uniqueness.

    ``sizes``/``counts`` is the class-size histogram (distinct sizes and number of classes of
    each). Returns population uniques / N as ``uniqueness``; see the module docstring for the
    formulas and solver rules.
    """
    sizes, counts = _check_histogram(sizes, counts)
    n = float(np.dot(sizes, counts))
    u = float(counts.sum())
    c1 = float(counts[sizes == 1].sum())
    c2 = float(counts[sizes == 2].sum())
    big_n = float(population_size)
    if not np.any(sizes > 1):
        # Every class is a singleton: the alpha-score sum_{i<u} i/(theta + i alpha) is positive
        # wherever the likelihood is defined, so there is no maximum-likelihood estimate.
        return PitmanFit(math.nan, False, math.nan, math.nan, 0)
    theta0, alpha0 = _pitman_start(n, u, c1, c2)
    if not (math.isfinite(theta0) and math.isfinite(alpha0)) or theta0 < 0.0 or alpha0 == 0.0:
        theta0, alpha0 = 1.0, 0.5  # Hoshino's start undefined for this histogram
    closed = _pitman_closed(sizes, counts, n, u)
    direct = _pitman_direct(sizes, counts, n, u)
    with np.errstate(all="ignore"):
        root, used = _newton_2d(closed, (theta0, alpha0), tol, iterations_per_try, iterations_total)
        if root is not None:
            check, _ = direct(root)
            if not (np.all(np.isfinite(check)) and np.all(np.abs(check) <= tol)):
                root = None
        if root is None:
            # explicit sums are O(u) per step, so this fallback gets a smaller budget
            root, more = _newton_2d(direct, (theta0, alpha0), tol, 50, 150)
            used += more
    if root is None:
        return PitmanFit(math.nan, False, math.nan, math.nan, used)
    theta, alpha = float(root[0]), float(root[1])
    share = _pitman_share(theta, alpha, big_n)
    return PitmanFit(share, bool(math.isfinite(share)), theta, alpha, used)


def _pitman_share(theta: float, alpha: float, big_n: float) -> float:
    """Gamma(theta+1)/Gamma(theta+alpha) * N^alpha / N, or NaN outside the model's range."""
    if alpha == 0.0 or not alpha < 1.0 or theta + alpha <= 0.0:
        return math.nan
    log_uniques = special.gammaln(theta + 1.0) - special.gammaln(theta + alpha) + alpha * math.log(big_n)
    uniques = math.exp(log_uniques) if log_uniques < 700 else math.inf
    if not (0.0 <= uniques <= big_n):
        return math.nan
    return uniques / big_n


# --------------------------------------------------------------------------------------------
# Zayatz
# --------------------------------------------------------------------------------------------


def _hypergeom_pmf_at_one(sizes: np.ndarray, n: int, big_n: int) -> np.ndarray:
    """P(X = 1) for X ~ Hypergeometric(population N, j marked units, n draws), for each size j.

    Uses P(X=1) = (j n / N) * prod_{i=1}^{j-1} (1 - (n-1)/(N-i)), accumulated as a running sum of
    log1p terms over i = 1..max(j)-1 (in blocks, so memory stays bounded). This is exact up to
    rounding, unlike differences of log-gamma values at N ~ 1e8, and vectorised. P = 0 when
    j - 1 > N - n (the other j - 1 marked units cannot all be left out of the sample).
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    log_p = np.full(sizes.shape, -np.inf)
    feasible = sizes - 1 <= big_n - n
    log_p[feasible] = np.log(sizes[feasible] * (n / big_n))
    need = feasible & (sizes > 1)
    if np.any(need):
        order = np.argsort(sizes[need], kind="stable")
        idx = np.flatnonzero(need)[order]
        last = sizes[idx] - 1  # number of product terms for each size
        block = 1 << 20
        carry = 0.0
        pos = 0
        top = int(last[-1])
        for start in range(1, top + 1, block):
            stop = min(start + block, top + 1)
            i = np.arange(start, stop, dtype=np.float64)
            partial = np.cumsum(np.log1p(-(n - 1) / (big_n - i))) + carry
            end = pos + int(np.searchsorted(last[pos:], stop - 1, side="right"))
            log_p[idx[pos:end]] += partial[last[pos:end] - start]
            carry = float(partial[-1])
            pos = end
    return np.exp(log_p)


def zayatz_uniqueness(sizes: np.ndarray, counts: np.ndarray, population_size: int) -> float:
    """Zayatz's (1991) estimate of population uniques / N from the class-size histogram.

    P(sample unique is population unique) = c_1 h(1) / sum_j c_j h(j), with h(j) the
    hypergeometric probability of drawing exactly one of j marked units when drawing n of N;
    population uniques = c_1 P / f, returned divided by N (so = c_1 P / n).
    """
    sizes, counts = _check_histogram(sizes, counts)
    n = int(np.dot(sizes, counts))
    big_n = int(population_size)
    if big_n < n:
        raise ValueError("population_size must be at least the number of records")
    c1 = float(counts[sizes == 1].sum())
    if c1 == 0.0:
        return 0.0
    h = _hypergeom_pmf_at_one(sizes, n, big_n)
    h1 = float(h[0])  # sizes are ascending and c_1 > 0, so sizes[0] == 1
    denominator = float(np.dot(counts.astype(np.float64), h))
    if not denominator > 0.0:
        return math.nan
    conditional = c1 * h1 / denominator
    return float(c1 * conditional / n)


# --------------------------------------------------------------------------------------------
# SNB
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SNBFit:
    """Fit of the shifted-negative-binomial model.

    uniqueness: population uniques / N (NaN when no admissible root was found).
    converged: a root with alpha > 0, 0 < beta < 1 was found and the estimate is in range.
    alpha, beta: NB parameters of the root (NaN if none); classes: the estimate K of non-empty
    population classes used in the equations.
    """

    uniqueness: float
    converged: bool
    alpha: float
    beta: float
    classes: float
    variant: str


def shlosser_classes(
    sizes: np.ndarray, counts: np.ndarray, sampling_fraction: float, variant: SNBVariant = "corrected"
) -> float:
    """Shlosser-type estimate of the number K of non-empty population classes (see module doc).

    ``variant="arx"`` reproduces ARX's grouping of the denominator
    (``sum_j [c_j (1-q)^j (1+q)^j - 1]``).
    """
    sizes, counts = _check_histogram(sizes, counts)
    q = float(sampling_fraction)
    j = sizes.astype(np.float64)
    c = counts.astype(np.float64)
    u = c.sum()
    c1 = float(counts[sizes == 1].sum())
    with np.errstate(all="ignore"):
        top_left = np.sum(j * q * q * (1.0 - q * q) ** (j - 1.0) * c)
        if variant == "arx":
            bottom_left = np.sum(c * (1.0 - q) ** j * (1.0 + q) ** j - 1.0)
        elif variant == "corrected":
            bottom_left = np.sum((1.0 - q) ** j * ((1.0 + q) ** j - 1.0) * c)
        else:
            raise ValueError(f"unknown SNB variant {variant!r}; use 'arx' or 'corrected'")
        top_right = np.sum((1.0 - q) ** j * c)
        bottom_right = np.sum(j * q * (1.0 - q) ** (j - 1.0) * c)
        return float(u + c1 * (top_left / bottom_left) * (top_right / bottom_right) ** 2)


def _snb_log_moments(alpha, beta, k, f, variant):
    """log E[c_1] and log E[c_2] under the SNB model (module doc), vectorised over alpha/beta."""
    d = (1.0 - f) * (1.0 - beta)
    s = 1.0 - d
    log1 = math.log(k) + math.log(f) + alpha * np.log(beta) - alpha * np.log(s) + np.log1p(alpha * d / s)
    sign = -1.0 if variant == "corrected" else 1.0
    log2 = (
        math.log(k)
        + np.log(alpha)
        + 2.0 * math.log(f)
        + alpha * np.log(beta)
        + np.log1p(-beta)
        + sign * (alpha + 2.0) * np.log(s)
        + np.log(2.0 - (1.0 - alpha) * d)
        - math.log(2.0)
    )
    return log1, log2


# Deterministic starting points for the SNB root search: (alpha, beta).
_SNB_STARTS = [(a, b) for a in (1.0, 0.1, 10.0, 0.01, 100.0) for b in (0.5, 0.1, 0.9, 0.01, 0.99)]


def snb_fit(
    sizes: np.ndarray,
    counts: np.ndarray,
    population_size: float,
    *,
    variant: SNBVariant = "arx",
    rtol: float = 1e-9,
) -> SNBFit:
    """Fit the SNB model by matching E[c_1] = c_1 and E[c_2] = c_2 (Chen & Keller-McNulty 1998).

    The two equations are solved in log form for (log alpha, logit beta), so every iterate stays
    in alpha > 0, 0 < beta < 1, with MINPACK's hybrid method from a fixed list of starting points;
    the first start whose root matches both counts to relative precision ``rtol`` wins.
    Returns population uniques K beta^alpha divided by N.
    """
    if variant not in ("arx", "corrected"):
        raise ValueError(f"unknown SNB variant {variant!r}; use 'arx' or 'corrected'")
    sizes, counts = _check_histogram(sizes, counts)
    n = float(np.dot(sizes, counts))
    big_n = float(population_size)
    f = n / big_n
    c1 = float(counts[sizes == 1].sum())
    c2 = float(counts[sizes == 2].sum())
    k = shlosser_classes(sizes, counts, f, variant)
    failed = SNBFit(math.nan, False, math.nan, math.nan, k, variant)
    if c1 == 0.0 or c2 == 0.0 or not (math.isfinite(k) and k > 0.0) or f >= 1.0:
        return failed  # the equations have no interior root (or the model does not apply)
    target = np.array([math.log(c1), math.log(c2)])

    def residual(z: np.ndarray) -> np.ndarray:
        alpha = math.exp(min(z[0], 700.0))
        beta = special.expit(z[1])
        if not (0.0 < beta < 1.0):
            return np.array([1e6, 1e6])
        out = np.array(_snb_log_moments(alpha, beta, k, f, variant), dtype=np.float64) - target
        return np.where(np.isfinite(out), out, 1e6)

    # scipy.optimize is imported here, not at module level: it slows every CLI start-up, and
    # this module is imported whenever the uniqueness assessor is registered.
    from scipy import optimize

    with np.errstate(all="ignore"):
        for alpha0, beta0 in _SNB_STARTS:
            z0 = np.array([math.log(alpha0), special.logit(beta0)])
            sol = optimize.root(residual, z0, method="hybr")
            if not np.all(np.abs(residual(sol.x)) <= rtol):
                continue
            alpha = math.exp(sol.x[0])
            beta = float(special.expit(sol.x[1]))
            if not (alpha > 0.0 and 0.0 < beta < 1.0):
                continue
            uniques = k * beta**alpha
            if not (0.0 < uniques <= big_n):
                continue
            return SNBFit(uniques / big_n, True, alpha, beta, k, variant)
    return failed


# --------------------------------------------------------------------------------------------
# Dankar's rule
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PopulationUniqueness:
    """Population-uniqueness estimates for one sample (all shares of population records).

    pitman, zayatz, snb: each model's population uniques / N (NaN where the model gives no
        valid estimate; all 0 when the sample has no uniques).
    dankar: the estimate chosen by Dankar et al.'s rule (NaN only if no model applies).
    dankar_model: "pitman", "zayatz", "snb", "census" (f = 1: sample uniqueness) or "none"
        (no sample uniques, all estimates 0).
    pitman_converged: the Pitman ML solver converged to a valid estimate.
    sample_uniqueness: c_1 / n. average_prosecutor_risk: u / n (classes per record).
    sampling_fraction: the effective n / N; population_size: N; n_records: n; n_classes: u.
    pitman_theta/pitman_alpha, snb_alpha/snb_beta/snb_classes (K): fitted parameters (NaN if
    not fitted); snb_converged: an admissible SNB root was found; snb_variant: "arx"/"corrected".
    """

    pitman: float
    zayatz: float
    snb: float
    dankar: float
    dankar_model: str
    pitman_converged: bool
    sample_uniqueness: float
    average_prosecutor_risk: float
    sampling_fraction: float
    population_size: int
    n_records: int
    n_classes: int
    pitman_theta: float = math.nan
    pitman_alpha: float = math.nan
    snb_converged: bool = False
    snb_alpha: float = math.nan
    snb_beta: float = math.nan
    snb_classes: float = math.nan
    snb_variant: str = "arx"


def _valid(value: float) -> bool:
    """ARX's notion of an available estimate: finite and non-zero."""
    return math.isfinite(value) and value != 0.0


def population_uniqueness_from_histogram(
    sizes: np.ndarray,
    counts: np.ndarray,
    sampling_fraction: float | None = None,
    *,
    population_size: int | None = None,
    snb_variant: SNBVariant = "arx",
    tol: float = 1e-6,
) -> PopulationUniqueness:
    """As :func:`population_uniqueness`, from the class-size histogram (size -> number of classes)."""
    sizes, counts = _check_histogram(sizes, counts)
    n = int(np.dot(sizes, counts))
    u = int(counts.sum())
    c1 = int(counts[sizes == 1].sum())
    if (sampling_fraction is None) == (population_size is None):
        raise ValueError("give exactly one of sampling_fraction and population_size")
    if population_size is None:
        big_n = population_size_from_sampling_fraction(n, float(sampling_fraction))
    else:
        if population_size != int(population_size):
            raise ValueError("population_size must be a whole number")
        big_n = int(population_size)
        sampling_fraction_from_population_size(n, big_n)  # validates N >= n
    f = n / big_n
    base = dict(
        sample_uniqueness=c1 / n,
        average_prosecutor_risk=u / n,
        sampling_fraction=f,
        population_size=big_n,
        n_records=n,
        n_classes=u,
        snb_variant=snb_variant,
    )
    if snb_variant not in ("arx", "corrected"):
        raise ValueError(f"unknown SNB variant {snb_variant!r}; use 'arx' or 'corrected'")
    if c1 == 0:
        return PopulationUniqueness(0.0, 0.0, 0.0, 0.0, "none", False, **base)
    if big_n == n:
        su = c1 / n
        return PopulationUniqueness(su, su, su, su, "census", False, **base)

    zayatz = zayatz_uniqueness(sizes, counts, big_n)
    pitman = pitman_fit(sizes, counts, big_n, tol=tol)
    snb = snb_fit(sizes, counts, big_n, variant=snb_variant)

    if f <= DANKAR_SAMPLING_FRACTION_THRESHOLD * (1.0 + _THRESHOLD_SLACK):
        if _valid(pitman.uniqueness):
            dankar, model = pitman.uniqueness, "pitman"
        else:
            dankar, model = zayatz, "zayatz"
    elif _valid(snb.uniqueness) and not zayatz < snb.uniqueness:
        dankar, model = snb.uniqueness, "snb"
    else:
        dankar, model = zayatz, "zayatz"
    if not _valid(dankar) and dankar != 0.0:
        model = "none"

    return PopulationUniqueness(
        pitman=pitman.uniqueness,
        zayatz=zayatz,
        snb=snb.uniqueness,
        dankar=dankar,
        dankar_model=model,
        pitman_converged=pitman.converged,
        pitman_theta=pitman.theta,
        pitman_alpha=pitman.alpha,
        snb_converged=snb.converged,
        snb_alpha=snb.alpha,
        snb_beta=snb.beta,
        snb_classes=snb.classes,
        **base,
    )


def population_uniqueness(
    class_sizes: np.ndarray,
    sampling_fraction: float | None = None,
    *,
    population_size: int | None = None,
    snb_variant: SNBVariant = "arx",
    tol: float = 1e-6,
) -> PopulationUniqueness:
    """Estimate the share of population records that are population-unique (ARX's models).

    class_sizes: sizes f_k of the sample's equivalence classes, one entry per class.
    sampling_fraction: f = n / N in (0, 1]; N is taken as round(n / f) as in ARX.
        Alternatively give ``population_size`` N (>= n) and leave ``sampling_fraction`` out.
    snb_variant: "arx" (reproduce ARX's SNB equations, default) or "corrected" (see module doc).
    tol: convergence threshold on the Pitman score (ARX's default accuracy, 1e-6).
    """
    sizes, counts = class_size_histogram(class_sizes)
    return population_uniqueness_from_histogram(
        sizes,
        counts,
        sampling_fraction,
        population_size=population_size,
        snb_variant=snb_variant,
        tol=tol,
    )
