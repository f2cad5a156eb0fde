"""Sample uniques of column combinations, for drafting: which columns make records unique, and how many.

Each column is factorised once (:class:`Codes`); a combination's classes are the unique rows of the codes,
combined column by column into one integer key (renumbered by ``np.unique`` after each column, so the key
never overflows). A record is a *sample unique* when no other record of the table shares its combination
(Hundepool et al., *Statistical Disclosure Control*, 2012, section 3.4.2: "sample uniques").
"""

from __future__ import annotations

import numpy as np
import pandas as pd


class Codes:
    """Every column of a table (as text; missing is a value of its own, as the policy's default
    ``missing_qi: value``) as integer codes."""

    def __init__(self, frame: pd.DataFrame):
        self.rows = len(frame)
        self._codes: dict[str, tuple[np.ndarray, int]] = {}
        self._frame = frame

    def of(self, column: str) -> tuple[np.ndarray, int]:
        if column not in self._codes:
            codes, uniques = pd.factorize(self._frame[column], use_na_sentinel=False)
            self._codes[column] = (codes.astype(np.int64), max(len(uniques), 1))
        return self._codes[column]

    def classes(self, columns: list[str], start: np.ndarray | None = None) -> np.ndarray:
        """Each record's class id (0 .. classes - 1) under ``columns`` (after ``start``'s classes)."""
        key = np.zeros(self.rows, dtype=np.int64) if start is None else start
        for column in columns:
            codes, cardinality = self.of(column)
            key = np.unique(key * cardinality + codes, return_inverse=True)[1].reshape(-1)
        return key

    def unique_share(self, columns: list[str], start: np.ndarray | None = None) -> float:
        """The share of records that are sample uniques under ``columns``."""
        if not self.rows or (not columns and start is None):
            return 0.0
        counts = np.bincount(self.classes(columns, start))
        return float((counts == 1).sum()) / self.rows


#: a column proposed by content alone must make at least this share of records unique
MIN_GAIN = 0.01


def unique_makers(codes: Codes, base: list[str], candidates: list[str]) -> list[tuple[str, float]]:
    """The candidates whose combination, with ``base``, makes records unique, each with the share of
    records it made unique when it was added: greedy forward selection, each step adding the candidate
    that makes the most records unique (ties: the most classes), while the candidates left could still
    make at least :data:`MIN_GAIN` of the records unique."""
    if not candidates:
        return []
    chosen: list[tuple[str, float]] = []
    key = codes.classes(base)
    current = codes.unique_share(base)
    left = list(candidates)
    while left and codes.unique_share(left, key) - current >= MIN_GAIN:
        best = None
        for c in left:
            trial = codes.classes([c], key)
            counts = np.bincount(trial)
            score = (float((counts == 1).sum()) / codes.rows, len(counts))
            if best is None or score > best[0]:
                best = (score, c, trial)
        assert best is not None
        (share, _), column, key = best
        chosen.append((column, share - current))
        current = share
        left.remove(column)
    return chosen
