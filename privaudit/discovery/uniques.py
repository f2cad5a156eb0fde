"""Sample uniques of column combinations, for drafting: which columns make records unique, and how many.

Each column is factorised once (:class:`Codes`); a combination's classes are the unique rows of the codes,
combined column by column into one integer key (renumbered densely after each column, so the key never
overflows). A record is a *sample unique* when no other record of the table shares its combination
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
            key = _renumbered(key * cardinality + codes, self.rows)
        return key

    def unique_count(self, columns: list[str], start: np.ndarray | None = None) -> int:
        """The number of records that are sample uniques under ``columns``."""
        if not self.rows or (not columns and start is None):
            return 0
        return int((np.bincount(self.classes(columns, start)) == 1).sum())

    def unique_share(self, columns: list[str], start: np.ndarray | None = None) -> float:
        """The share of records that are sample uniques under ``columns``."""
        return self.unique_count(columns, start) / self.rows if self.rows else 0.0


def share_text(share: float, whole: float = 1.0, count: int | None = None) -> str:
    """``share`` of ``whole`` as a percentage that never reads 0 % or 100 % when it is not (as many decimals as
    it takes, up to four: a failing figure is never rounded away), with the number of records when given
    (``0.04% (19 records)``)."""
    ratio = share / whole if whole else 0.0
    text = f"{ratio:.1%}"
    for digits in (2, 3, 4):
        if not ((text == "0.0%" or text.startswith("0.00")) and ratio > 0) and not (
            text.startswith("100.0") and ratio < 1
        ):
            break
        text = f"{ratio:.{digits}%}"
    if ratio > 0 and float(text.rstrip("%")) == 0:
        text = "< 0.0001%"
    elif ratio < 1 and text.startswith("100"):
        text = "> 99.9999%"
    if count is None:
        return text
    return f"{text} ({count:,} record{'s' * (count != 1)})"


def _renumbered(combined: np.ndarray, rows: int) -> np.ndarray:
    """Dense ids 0 .. classes - 1 of combined keys: by a table of the keys present when they are few (linear
    time), else by hashing."""
    top = int(combined.max()) + 1 if len(combined) else 0
    if top <= max(4 * rows, 1 << 16):
        present = np.zeros(top, dtype=np.int64)
        present[combined] = 1
        return (np.cumsum(present) - 1)[combined]
    return pd.factorize(combined)[0].astype(np.int64)


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
