"""Targeted record swapping of households across geography levels, as sdcMicro 5.8 does it.

sdcMicro's ``recordSwap(data, hid, hierarchy, similar, swaprate = 0.05, risk = NULL, risk_threshold = 0,
k_anonymity = 3, risk_variables, carry_along, seed)`` (R/recordSwap.R and its C++ port of the ONS census
code, src/recordSwap/recordSwap.cpp, sdcTools/sdcMicro commit cf32510), vectorised over households
(NumPy) where the C++ code loops over records. Households are numbered in the order of their ids
(sdcMicro sorts the data by ``hid``); each household's geography, similarity and carry-along values are
those of its first record.

1. **Risk** (``setRisk``): for each hierarchy level h, a record's risk is 1 / (the number of records sharing
   its values of ``risk_variables`` and of the geography columns down to level h); a household's risk at h
   is the largest of its records'. Or the user's ``risk`` columns, one per level, taken as the household's
   largest (sdcMicro's ``risk`` argument).
2. **Swap level** (``setLevels``): the threshold is ``risk_threshold``, or when it is 0, 1 / ``k_anonymity``
   (2, which no risk exceeds, when ``k_anonymity`` is 0); a household must be swapped across the first level
   whose risk exceeds it (counts < k), or at none.
3. **Quotas** (``distributeDraws``): ``nhid * swaprate / 2`` swaps, rounded up or down by a coin (one swap moves
   two households), shared among the finest areas in proportion to their households, the rounding remainders
   given to randomly chosen areas.
4. **Swapping** (``recordSwap``), from the coarsest level to the finest, area by area in the areas' order:
   at every level but the finest, the households that must be swapped at that level; at the finest, those
   that must be swapped there plus as many more as the area's quota lacks (its quota less the households of
   the area already swapped as the drawn side), drawn with probability from their finest-level risk
   (``randSample``: the largest ``risk / Exp(1)``, Efraimidis & Spirakis' weighted sampling without
   replacement). Each is given a donor (``sampleDonor``): a household not yet swapped, in another area of
   that level, with the same values of the first similarity profile (else the second ...), the donor with
   the largest ``risk_h / Exp(1)`` (drawn once per household and level), so risky households of other areas
   come first. A household with no donor is listed (sdcMicro's log file) and not drawn again.
   The loop is sdcMicro's, over areas (each area's households and its donors' search are vectorised): the
   households an area gives donors to depend on what the areas before it took.
5. **Output**: a pair exchanges the values of every geography column and of the ``carry_along`` columns, on
   all records of both households.

Departures, each where sdcMicro's order is not defined or its code does not do what its documentation says:
the random numbers are NumPy's (``default_rng(seed)``), not ``std::mt19937``'s, so the same seed does not give
sdcMicro's swaps; within an area, households are given donors in the order of their ids (sdcMicro's order is
an ``unordered_set``'s); an area's households try the first similarity profile before any tries the second
(sdcMicro tries both for one household before the next); a donor is never in the drawn household's area
(sdcMicro's ``sampleDonor`` accepts one of the same area that failed before, against its documentation); and
households whose donor key is 0 (a user risk of 0) are never donors (sdcMicro keeps one of them, a collision
of the keys of its ``std::map``), which makes its documented "only households with risk set to 0 are not
swapped" hold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class SwapInput:
    """Household-level inputs: ``geography`` (H x L codes, coarse to fine, each column's codes in value
    order), ``risk`` (H x L, the household's risk per level), ``profiles`` (one code array of H per
    similarity profile)."""

    geography: np.ndarray
    risk: np.ndarray
    profiles: list[np.ndarray]


@dataclass(frozen=True)
class SwapResult:
    partner: np.ndarray  # per household: the household it exchanged geography with (-1: not swapped)
    drawn: np.ndarray  # per household: True where it was the drawn side of its pair (not the donor)
    level: np.ndarray  # per household: the level it must be swapped across (L: none)
    swapped_at: np.ndarray  # per household: the level of its swap (-1: not swapped)
    failed: np.ndarray  # per household: True where it was drawn and no donor was found
    target: int  # swaps the swap rate asks for (households: twice this)


def codes_of(frame: pd.DataFrame) -> np.ndarray:
    """One code per row for the combination of ``frame``'s columns, codes in the combinations' order
    (lexicographic on the columns' own value orders)."""
    key = np.zeros(len(frame), dtype=np.int64)
    for column in frame.columns:
        values = frame[column]
        try:
            codes, uniques = pd.factorize(values, sort=True)
        except TypeError:  # values of mixed types (numbers and text): ordered as text
            codes, uniques = pd.factorize(values.astype(str), sort=True)
        key = key * max(len(uniques), 1) + codes
        key = pd.factorize(key, sort=True)[0].astype(np.int64)  # compressed: never overflows
    return key


def households(hid: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Each record's household (0..H-1 in the order of the ids) and each household's first record."""
    try:
        codes = pd.factorize(hid, sort=True)[0].astype(np.int64)
    except TypeError:  # ids of mixed types: ordered as text
        codes = pd.factorize(hid.astype(str), sort=True)[0].astype(np.int64)
    first = np.full(int(codes.max()) + 1 if len(codes) else 0, len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes), dtype=np.int64))
    return codes, first


def household_max(values: np.ndarray, household: np.ndarray, n_households: int) -> np.ndarray:
    """Per household, the largest of its records' ``values`` (n x L -> H x L)."""
    order = np.argsort(household, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(household[order]) != 0])
    return np.maximum.reduceat(values[order], starts, axis=0) if len(order) else np.zeros((0, values.shape[1]))


def count_risk(risk_codes: np.ndarray, geography_rows: np.ndarray, household: np.ndarray, n: int) -> np.ndarray:
    """sdcMicro's ``setRisk``: per household and level h, the largest 1 / count of its records' combination of
    the risk variables (one code per record) and the geography down to h (n x L codes)."""
    levels = geography_rows.shape[1]
    record = np.empty((len(household), levels))
    key = risk_codes.astype(np.int64)
    for h in range(levels):
        key = pd.factorize(key * (int(geography_rows[:, h].max()) + 1) + geography_rows[:, h])[0].astype(np.int64)
        record[:, h] = 1.0 / np.bincount(key)[key]
    return household_max(record, household, n)


def swap_levels(risk: np.ndarray, risk_threshold: float, k_anonymity: int) -> np.ndarray:
    """sdcMicro's ``setLevels``: the first level whose risk exceeds the threshold (L: none)."""
    threshold = risk_threshold if risk_threshold != 0 else (2.0 if k_anonymity == 0 else 1.0 / k_anonymity)
    above = risk > threshold
    return np.where(above.any(axis=1), above.argmax(axis=1), risk.shape[1])


def quotas(sizes: np.ndarray, swaprate: float, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """sdcMicro's ``distributeDraws``: the swaps of each finest area, and their total."""
    n = int(sizes.sum())
    half = n * (swaprate / 2)
    total = int(np.ceil(half)) if rng.integers(0, 2) == 0 else int(np.floor(half))
    share = sizes / max(n, 1) * total
    out = np.floor(share).astype(np.int64)
    extra = int(round(float((share - out).sum())))
    out[rng.permutation(len(sizes))[:extra]] += 1
    return out, total


class _Donors:
    """The donors of one level and profile: households ordered by (class, donor key descending), and per class
    a pointer before which every household is already swapped."""

    def __init__(self, classes: np.ndarray, key: np.ndarray, eligible: np.ndarray) -> None:
        self.order = np.lexsort((-key, classes))
        self.order = self.order[eligible[self.order]]
        n_classes = int(classes.max()) + 1 if len(classes) else 0
        bounds = np.searchsorted(classes[self.order], np.arange(n_classes + 1))
        self.start, self.end = bounds[:-1].copy(), bounds[1:].copy()
        self.classes = classes

    def take(self, wanted: np.ndarray, used: np.ndarray, area: np.ndarray, here: int) -> np.ndarray:
        """Donors for the households ``wanted`` of area ``here`` (in their order): per class, its households
        get, in turn, the not yet swapped households of other areas with the largest keys; -1 where none is
        left. Windows of the class's ordering are scanned from its pointer, doubled until enough are found."""
        cls = self.classes[wanted]
        by_class = np.argsort(cls, kind="stable")
        uniq, first, need = np.unique(cls[by_class], return_index=True, return_counts=True)
        donors = np.full(len(wanted), -1, dtype=np.int64)
        width = 2 * need + 16
        todo = np.arange(len(uniq))
        while len(todo):
            lo, end = self.start[uniq[todo]], self.end[uniq[todo]]
            hi = np.minimum(lo + width[todo], end)
            lengths = hi - lo
            seg = np.repeat(np.arange(len(todo)), lengths)
            pos = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
            cand = self.order[pos]
            ok = ~used[cand] & (area[cand] != here)
            found = np.bincount(seg, ok, minlength=len(todo)).astype(np.int64)
            done = (found >= need[todo]) | (hi >= end)
            rank = np.cumsum(ok) - np.repeat(np.cumsum(found) - found, lengths) - 1
            pick = ok & done[seg] & (rank < need[todo][seg])
            for_class = todo[seg[pick]]  # the swapper of class c with rank r takes the r-th pick
            slots = by_class[first[for_class] + rank[pick]]
            donors[slots] = cand[pick]
            used[cand[pick]] = True
            # the pointer moves past the swapped households at the window's front
            nonempty = lengths > 0
            if nonempty.any():
                leading = np.where(~used[cand], pos, hi[seg])
                heads = (np.cumsum(lengths) - lengths)[nonempty]
                self.start[uniq[todo[nonempty]]] = np.minimum.reduceat(leading, heads)
            width[todo] *= 2
            todo = todo[~done]
        return donors


@dataclass
class _State:
    used: np.ndarray
    failed: np.ndarray
    partner: np.ndarray
    drawn: np.ndarray
    swapped_at: np.ndarray


def _give_donors(state: _State, wanted: np.ndarray, pools: list[_Donors], area: np.ndarray, here: int, h: int) -> None:
    """Pair the households ``wanted`` of area ``here`` at level h, profile after profile; mark the rest failed."""
    if not len(wanted):
        return
    left = wanted  # in area ``here``: none is a donor of another (Donors.take takes other areas' only)
    for pool in pools:
        donors = pool.take(left, state.used, area, here)
        got = donors >= 0
        state.used[left[got]] = True
        state.partner[left[got]], state.partner[donors[got]] = donors[got], left[got]
        state.drawn[left[got]] = True
        state.swapped_at[left[got]] = state.swapped_at[donors[got]] = h
        left = left[~got]
        if not len(left):
            break
    state.failed[left] = True  # not swapped: not drawn again, but may still be a donor (as in sdcMicro)


def _segments(area: np.ndarray, order_key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Households ordered by (area, order_key) and each area's start and end in that order."""
    order = np.lexsort((order_key, area))
    n_areas = int(area.max()) + 1 if len(area) else 0
    bounds = np.searchsorted(area[order], np.arange(n_areas + 1))
    return order, bounds[:-1], bounds[1:]


def record_swap(data: SwapInput, swaprate: float, k_anonymity: int, risk_threshold: float, seed: int) -> SwapResult:
    """sdcMicro's ``recordSwap`` on household-level codes (see the module's text)."""
    rng = np.random.default_rng(seed)
    H, L = data.geography.shape
    level = swap_levels(data.risk, risk_threshold, k_anonymity)
    areas = [codes_of(pd.DataFrame(data.geography[:, : h + 1])) for h in range(L)]
    donor_key = data.risk / rng.exponential(1.0, size=(H, L))
    fine = areas[-1]
    quota, total = quotas(np.bincount(fine, minlength=int(fine.max()) + 1 if H else 0), swaprate, rng)
    state = _State(
        used=np.zeros(H, dtype=bool),
        failed=np.zeros(H, dtype=bool),
        partner=np.full(H, -1, dtype=np.int64),
        drawn=np.zeros(H, dtype=bool),
        swapped_at=np.full(H, -1, dtype=np.int64),
    )
    index = np.arange(H, dtype=np.int64)
    for h in range(L):
        pools = [_Donors(profile, donor_key[:, h], donor_key[:, h] > 0) for profile in data.profiles]
        area = areas[h]
        if h < L - 1:
            order, starts, ends = _segments(area, index)
            for a in np.unique(area[(level == h) & ~state.used & ~state.failed]):
                block = order[starts[a] : ends[a]]
                wanted = block[(level[block] == h) & ~state.used[block] & ~state.failed[block]]
                _give_donors(state, wanted, pools, area, int(a), h)
            continue
        _finest_level(state, data, level, area, quota, rng, pools)
    return SwapResult(state.partner, state.drawn, level, state.swapped_at, state.failed, total)


def _finest_level(
    state: _State,
    data: SwapInput,
    level: np.ndarray,
    area: np.ndarray,
    quota: np.ndarray,
    rng: np.random.Generator,
    pools: list[_Donors],
) -> None:
    """The finest level: each area's households that must be swapped there, and as many more, drawn by their
    finest-level risk, as its quota lacks (sdcMicro's ``randSample``)."""
    H, L = data.risk.shape
    h = L - 1
    done_before = np.bincount(area[state.drawn], minlength=len(quota))  # sdcMicro's countSwaps
    rest = np.maximum(0, quota - done_before)
    sample_key = data.risk[:, h] / rng.exponential(1.0, size=H)
    order, starts, ends = _segments(area, -sample_key)
    pooled = ~state.used & ~state.failed  # the areas' pools as the level starts (sdcMicro's group_hier_help)
    must = level == h
    busy = np.flatnonzero((rest > 0) | (np.bincount(area[must & pooled], minlength=len(quota)) > 0))
    for a in busy:
        block = order[starts[a] : ends[a]]
        block = block[pooled[block] & ~state.used[block]]
        forced = block[must[block]]
        others = block[~must[block]][: max(0, int(rest[a]) - len(forced))]
        wanted = np.sort(np.concatenate([forced, others]))
        _give_donors(state, wanted, pools, area, int(a), h)
