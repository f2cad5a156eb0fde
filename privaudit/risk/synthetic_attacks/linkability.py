"""Linkability attack on a synthetic release (Giomi et al., PETS 2023, the section on the linkability
attack; the Article 29 Working Party's second criterion, WP216 § 3).

The attacker holds two files about the same people, one with the attribute subset ``A``, the other with
the subset ``B``, and wants to know which records of the two belong to the same person. Using the
synthetic release as a bridge, they look up, for a target, the ``k`` synthetic records nearest to its
``A`` part and the ``k`` nearest to its ``B`` part; the two parts are linked when the two lists share a
record. The attack is run on ``n_attacks`` training records and on as many control records, and the
naive baseline links two parts when two random ``k``-subsets of the release intersect. The risk is
:func:`~privaudit.risk.synthetic_attacks.rates.residual_risk` of the two rates.

Distances are Gower's (1971), as in the paper: per numeric column ``|x - y| / range`` (the range over
the three tables), per categorical (nominal or ordinal) column 0 when equal and 1 otherwise; a missing
value is at 0 from a missing value and at 1 from anything else. The search is exact and vectorised
(:mod:`.neighbours`: distances from blocks of targets to the release's distinct records, no tree, no
per-pair Python loop), and ties are broken by a seeded random order of the synthetic records (one
shuffled copy of the release for both subsets, as an attacker would hold it).

The three tables are encoded by :mod:`.shared` (once per audit for all its synthetic checks); :func:`encode`
is that encoding for frames given directly.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privaudit.risk.synthetic_attacks.neighbours import gower_block, gower_neighbours
from privaudit.risk.synthetic_attacks.rates import AttackOutcome, fewer_targets, outcome
from privaudit.risk.synthetic_attacks.shared import EncodedTables

__all__ = ["encode", "gower_block", "gower_neighbours", "linkability_attack", "linked", "numeric_ranges"]


def encode(frames: Sequence[pd.DataFrame], columns: Sequence[str], numeric: Mapping[str, bool]) -> list[np.ndarray]:
    """The ``columns`` of every frame as float matrices in one shared code space: numeric columns as
    their values, the others as category codes common to all frames; missing values are NaN (one audit
    shares the work through :class:`.shared.EncodedTables`)."""
    return EncodedTables(*frames).matrices(columns, numeric)


def numeric_ranges(matrices: Sequence[np.ndarray], numeric_mask: np.ndarray) -> np.ndarray:
    """Per column, the range of a numeric column over all matrices (1 where it is 0 or undefined, and
    for categorical columns)."""
    stacked = np.vstack([m for m in matrices if len(m)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-missing column has no range
        span = np.nanmax(stacked, axis=0) - np.nanmin(stacked, axis=0)
    span = np.where(numeric_mask & np.isfinite(span) & (span > 0), span, 1.0)
    return span


def _sample(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    return rng.choice(n, size=min(size, n), replace=False)


def linked(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Per row, whether the two neighbour lists share a record."""
    return (first[:, :, None] == second[:, None, :]).any(axis=(1, 2))


def linkability_attack(
    training: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    aux_columns: tuple[Sequence[str], Sequence[str]],
    numeric: Mapping[str, bool],
    *,
    n_attacks: int = 500,
    n_neighbors: int = 1,
    confidence_level: float = 0.95,
    seed: int = 0,
    tables: EncodedTables | None = None,
) -> AttackOutcome:
    """Run the linkability attack on ``n_attacks`` training and control records (fewer when a table is
    smaller) and the naive baseline; ``numeric`` says which columns are numeric; ``tables``: the three
    tables already encoded (shared by the checks of an audit, :mod:`.shared`)."""
    first, second = list(aux_columns[0]), list(aux_columns[1])
    columns = list(dict.fromkeys([*first, *second]))
    if tables is None or not tables.holds(synthetic, training, control):
        tables = EncodedTables(synthetic, training, control)
    syn, train, ctrl = tables.matrices(columns, numeric)
    mask = np.array([bool(numeric[c]) for c in columns])
    ranges = numeric_ranges([syn, train, ctrl], mask)
    a = [columns.index(c) for c in first]
    b = [columns.index(c) for c in second]
    rng = np.random.default_rng(seed)
    priority = rng.permutation(len(syn))
    k = min(n_neighbors, len(syn))

    def attack(targets: np.ndarray) -> int:
        ia, _ = gower_neighbours(targets[:, a], syn[:, a], mask[a], ranges[a], k, priority)
        ib, _ = gower_neighbours(targets[:, b], syn[:, b], mask[b], ranges[b], k, priority)
        return int(linked(ia, ib).sum())

    train_targets = train[_sample(rng, len(train), n_attacks)]
    control_targets = ctrl[_sample(rng, len(ctrl), n_attacks)]
    n_success, n_control = attack(train_targets), attack(control_targets)
    n_base = min(n_attacks, len(train))
    if k == 1:
        n_baseline = int((rng.integers(len(syn), size=n_base) == rng.integers(len(syn), size=n_base)).sum())
    else:
        guesses = [(_sample(rng, len(syn), k), _sample(rng, len(syn), k)) for _ in range(n_base)]
        n_baseline = int(sum(bool(np.intersect1d(x, y).size) for x, y in guesses))
    return outcome(
        n_success,
        len(train_targets),
        n_control,
        len(control_targets),
        n_baseline,
        n_base,
        confidence_level,
        fewer_targets(len(train_targets), len(control_targets), n_attacks),
    )
