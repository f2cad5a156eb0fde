"""The derived class-size threshold of k-map with an estimated population (ARX 3.9 ``KMap`` with a
``CellSizeEstimator``).

k-map (Sweeney 2002; El Emam & Dankar 2008, "Protecting Privacy Using k-Anonymity", JAMIA 15(5), section
"k-map"): every class of the release must match at least k people of the population. Without a population
table, ARX models the population cell size F of a release class by a Poisson law of mean λ = π k (π the
sampling fraction, release size / population size) -- or the same law truncated at zero, since a class
that occurs in the release has F >= 1 -- and derives the smallest release class size k' for which the
cumulative probability reaches 1 - α (α the significance level):

* Poisson: k' = the first c with P(X <= c - 1) >= 1 - α, plus one (ARX counts from 0 and returns the
  counter + 1); zero-truncated: accumulate P(X = c) / (1 - P(X = 0)) from c = 1 and return the counter.
  In both, the search stops once the counter reaches k (then k' is certain to be enough: type-1 error 0).
* k' = min(k, k', n). The type-1 error is 1 minus the probability reached.

These are ARX's loops, reproduced step for step so that ARX's derived thresholds are privaudit's.
"""

from __future__ import annotations

from dataclasses import dataclass

from scipy.stats import poisson


@dataclass(frozen=True)
class DerivedK:
    k: int  # the derived threshold on release class sizes
    type1_error: float
    lam: float


def derived_k(k: int, sampling_fraction: float, significance: float, estimator: str, n_records: int) -> DerivedK:
    lam = sampling_fraction * k
    threshold = 1.0 - significance
    dist = poisson(lam)
    if estimator == "poisson":
        counter, value = 0, 0.0
        while value < threshold:
            value = float(dist.cdf(counter))
            counter += 1
            if counter >= k:
                value = 1.0
                break
        result = counter + 1
    elif estimator == "zero_truncated_poisson":
        v2 = 1.0 - float(dist.pmf(0))
        counter, value = 1, 0.0
        while value < threshold:
            value += float(dist.pmf(counter)) / v2
            counter += 1
            if counter >= k:
                value = 1.0
                break
        result = counter
    else:
        raise ValueError(f"unknown estimator {estimator!r}")
    return DerivedK(min(k, result, n_records), 1.0 - value, lam)
