"""Rank swapping of one numeric variable, as sdcMicro 5.8 defines it (Moore 1996), vectorised.

sdcMicro's ``rankSwap(obj, variables = NULL, TopPercent = 5, BottomPercent = 5, K0 = NULL, R0 = NULL,
P = NULL, missing = NA, seed = NULL)`` (sdcTools/sdcMicro, commit cf32510, R/rankSwap.R) calls the IHSN C++
routine ``RankSwap`` (src/RankSwapping.h). Per variable:

1. the non-missing values are sorted from the highest to the lowest (ties: the later record first);
   missing values (NA, or the value ``missing``) are never swapped;
2. the ``Top = (int)(n * TopPercent/100)`` highest values are replaced by their mean, the
   ``floor(n * BottomPercent/100)`` lowest by theirs (n the non-missing values; float arithmetic as the C++
   has it), and those records are not swapped: so with sdcMicro's defaults (5 and 5) the released values are
   a permutation of the original ones only between the two coded groups;
3. the share P of the rank range: given (``P``), or from ``R0`` (the correlation kept, ``P =
   sqrt(2 Var (1 - R0)) / Delta``) or ``K0`` (the subset-mean preservation factor, ``P = sqrt(8/3) K0
   |mean| / Delta``), ``Var`` and ``mean`` those of the N' values left to swap (population variance),
   ``Delta = |BottomValue - TopValue|`` the range between the two coded groups' inner values; with none
   given, sdcMicro sets ``R0 = 0.95``;
4. in rank order, each value not yet swapped is swapped with one drawn uniformly among the values not yet
   swapped whose rank is above its own by less than ``N' P`` (``r = min(N', (int)(j + N' P))``, candidates
   ``j < k < r``): two records swap only when their ranks differ by at most ``D = floor(N' P) - 1``; a value
   with no such partner is kept.

sdcMicro's documentation calls ``P`` a percentage (``|i - j| <= P N / 100``) but its C++ uses the number as
a share (``P = 15`` lets any two values swap); here ``P`` is the documented percentage, so privaudit's
``P = 15`` is sdcMicro's ``P = 0.15``. The figures of steps 1-3 are sdcMicro's (the coded means, P from R0
or K0, the bound D).

Step 4 is sequential in the C++ (each choice depends on every earlier one). It is drawn here in rounds, each
vectorised over records: every value still free proposes a partner drawn uniformly among the free values
above it within D ranks (the C++ law, given the free set); a proposal is kept when its proposer is the lowest
rank proposing that partner and nobody proposed the proposer (so the kept pairs never share a record and the
lowest free rank always gets its pair, as in the C++); the rest draw again among what is left. After
:data:`ROUNDS` rounds (or a round that pairs hardly any, as when D is one rank) the few values still free are paired in rank order with their next free neighbour within
D (what the C++ does when each has one candidate). Every pair is within D ranks, each value swaps at most
once, the released middle values are a permutation of the original ones; the pairs are not the C++'s draws
(nor its law exactly: the C++'s lower ranks choose before the higher ones), and a value can be left
unswapped when every value within D ranks of it is already paired: about 1.4 % of the values at D = 10 and 4 %
at D = 2, next to none from D = 100 (the C++ leaves only the last ranks). The random numbers are NumPy's
(``numpy.random.default_rng(seed)``), not sdcMicro's ``CRandom``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Proposal rounds before the remaining free values are paired with their next free neighbour.
ROUNDS = 40
#: A round that pairs fewer than 1 in SLOW of the values still free ends the rounds.
SLOW = 100


@dataclass(frozen=True)
class RankSwapResult:
    values: np.ndarray  # the released values (NaN where missing)
    share: float  # P as a share of the values swapped (sdcMicro's P)
    max_distance: int  # D: two swapped values' ranks differ by at most this
    swapped: int  # records whose value was swapped with another's
    top: int  # records top coded (their mean)
    bottom: int  # records bottom coded
    top_mean: float | None
    bottom_mean: float | None


def coded_counts(n: int, top_percent: float, bottom_percent: float) -> tuple[int, int]:
    """The C++'s ``Top = (int)(n * TopRatio)`` and ``n - Bottom = (int)floor(n * BottomRatio)``, ratios
    ``Bound(percent * 0.01f, 0, 1)`` in single precision as the C++ computes them."""
    f32 = np.float32
    top_ratio = min(max(f32(top_percent) * f32(0.01), f32(0)), f32(1))
    bottom_ratio = min(max(f32(bottom_percent) * f32(0.01), f32(0)), f32(1))
    return int(f32(n) * top_ratio), int(np.floor(f32(n) * bottom_ratio))


def share_of_ranks(
    middle: np.ndarray, delta_value: float, p: float | None, r0: float | None, k0: float | None
) -> float:
    """The C++'s P: ``P`` percent as a share, or from ``R0`` or ``K0`` (single precision, as RankSwapping.h)."""
    f32 = np.float32
    if p is not None:
        return p / 100.0
    n = len(middle)
    mean = float(middle.mean()) if n else 0.0
    variance = f32(float(np.square(middle).sum()) / n - mean**2) if n else f32(0)
    if not delta_value:
        return 0.0
    if r0 is not None:
        return float(f32(np.sqrt(f32(2.0) * variance * (f32(1.0) - f32(r0))) / delta_value))
    assert k0 is not None
    return float(f32(np.sqrt(8.0 / 3.0) * f32(k0) * abs(mean) / delta_value))


def rank_swap(
    values: np.ndarray,
    rng: np.random.Generator,
    top_percent: float = 5.0,
    bottom_percent: float = 5.0,
    p: float | None = None,
    r0: float | None = None,
    k0: float | None = None,
    missing: float | None = None,
) -> RankSwapResult:
    """sdcMicro's ``rankSwap`` of one variable (float array, NaN missing); with none of ``p``, ``r0``, ``k0``,
    ``r0 = 0.95``."""
    if p is None and r0 is None and k0 is None:
        r0 = 0.95
    values = np.asarray(values, dtype=np.float64)
    absent = np.isnan(values) if missing is None else np.isnan(values) | (values == missing)
    index = np.flatnonzero(~absent)
    order = index[np.lexsort((-index, -values[index]))]  # highest first, ties: the later record first
    ranked = values[order]
    n = len(order)
    top, bottom = coded_counts(n, top_percent, bottom_percent)
    if top + bottom > n:
        raise ValueError("TopPercent and BottomPercent: together more than every value")
    out = values.copy()
    top_value = ranked[top - 1] if top else (ranked[0] if n else 0.0)
    bottom_value = ranked[n - bottom] if bottom else (ranked[n - 1] if n else 0.0)
    top_mean = float(ranked[:top].mean()) if top else None
    bottom_mean = float(ranked[n - bottom :].mean()) if bottom else None
    if top:
        out[order[:top]] = top_mean
    if bottom:
        out[order[n - bottom :]] = bottom_mean
    rest = order[top : n - bottom]
    rest = rest[np.lexsort((rest, -values[rest]))]  # the C++'s second sort: ties, the earlier record first
    share = share_of_ranks(values[rest], abs(bottom_value - top_value), p, r0, k0)
    reach = int(np.float32(len(rest)) * np.float32(share)) if share > 0 else 0
    partner = pair_within(len(rest), reach - 1, rng)
    out[rest] = values[rest[partner]]
    return RankSwapResult(
        out, share, max(reach - 1, 0), int((partner != np.arange(len(rest))).sum()), top, bottom, top_mean, bottom_mean
    )


def pair_within(m: int, distance: int, rng: np.random.Generator) -> np.ndarray:
    """A random pairing of positions 0..m-1 in which paired positions differ by at most ``distance``:
    ``partner[i]`` is i's partner (i itself when unpaired). See the module's step 4."""
    partner = np.arange(m)
    if distance < 1 or m < 2:
        return partner
    free = np.arange(m)
    for _ in range(ROUNDS):
        if len(free) < 2:
            break
        positions = np.arange(len(free))
        reach = np.searchsorted(free, free + distance, side="right")  # free values within D above
        count = reach - positions - 1
        proposers = np.flatnonzero(count > 0)
        if not len(proposers):
            return partner
        offsets = (rng.random(len(proposers)) * count[proposers]).astype(np.int64)
        picks = proposers + 1 + np.minimum(offsets, count[proposers] - 1)
        targeted = np.zeros(len(free), dtype=bool)
        targeted[picks] = True
        owner = np.empty(len(free), dtype=np.int64)
        owner[picks[::-1]] = proposers[::-1]  # repeated partners: the last write, the lowest proposer, stays
        first = owner[picks] == proposers
        kept = first & ~targeted[proposers]
        a, b = free[proposers[kept]], free[picks[kept]]
        partner[a], partner[b] = b, a
        matched = np.zeros(len(free), dtype=bool)
        matched[proposers[kept]] = matched[picks[kept]] = True
        free = free[~matched]
        if kept.sum() * SLOW < len(free):  # proposals mostly collide (D of one or two ranks): pair neighbours
            break
    _pair_neighbours(free, distance, partner)
    return partner


def _pair_neighbours(free: np.ndarray, distance: int, partner: np.ndarray) -> None:
    """The values still free paired in rank order with their next free neighbour: runs of free values whose
    gaps are at most D, paired (1st, 2nd), (3rd, 4th) ... within each run."""
    if len(free) < 2:
        return
    starts = np.concatenate(([True], np.diff(free) > distance))
    run = np.cumsum(starts) - 1
    first_of_run = np.flatnonzero(starts)
    within = np.arange(len(free)) - first_of_run[run]
    lead = np.flatnonzero((within % 2 == 0)[:-1] & (run[1:] == run[:-1]))
    a, b = free[lead], free[lead + 1]
    partner[a], partner[b] = b, a
