"""Snapshot rows as packed keys: the inner loop of the lattice search's roll-ups.

Speed trick, isolated here (used by :mod:`privaudit.remediation.generalization.rollup`). A snapshot row is a
mixed-radix number: its QI node ids and sensitive codes packed into one int64 with fixed strides, kept as
two parts (``qkey``, the QIs: equal iff same equivalence class; ``skey``, the sensitive codes). A column is
read back by one division and one remainder (numpy divides by a scalar without a hardware division per
element). Generalizing QI ``j`` from a finer node to level ``L`` maps node ``u`` to
``canonical[ancestors[u, L]]`` (:class:`~privaudit.remediation.generalization.domain.AttributeDomain`), which
changes the key by ``(map(u) - u) * stride_j``: one table per (column, level), one gather per QI whose
level differs from the finer node's, and no (rows, q) temporary. Equal keys are merged by hash
factorisation (``pd.factorize``: codes in order of first appearance), so a merged snapshot lists its rows
in the order of their first occurrence, the order the row-wise roll-up gave.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def key_steps(domain, stride: int) -> list[np.ndarray]:
    """Per level ``L`` of ``domain``: how generalizing node ``u`` to ``L`` changes a key, ``(map(u) - u) * stride``."""
    nodes = np.arange(domain.n_nodes, dtype=np.int64)
    return [
        (domain.generalize(nodes, level).astype(np.int64) - nodes) * np.int64(stride)
        for level in range(domain.height + 1)
    ]


def column(key: np.ndarray, stride: int, radix: int) -> np.ndarray:
    """The digit of every packed ``key`` at ``stride`` (a node id or a sensitive code)."""
    return (key // stride) % radix


def pack(cols: list[np.ndarray], strides: list[int], length: int) -> np.ndarray:
    """Packed key of rows given column-wise."""
    key = np.zeros(length, dtype=np.int64)
    for values, stride in zip(cols, strides, strict=False):
        key += values.astype(np.int64) * np.int64(stride)
    return key


def generalized_key(qkey: np.ndarray, changes: list[tuple[np.ndarray, int, int]]) -> np.ndarray:
    """``qkey`` with each QI of ``changes`` ``(step table, stride, radix)`` generalized (a new array)."""
    key = qkey.copy()
    for steps, stride, radix in changes:
        key += np.take(steps, column(qkey, stride, radix))
    return key


def merge(key: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of each distinct key's first row, in order of first appearance; summed ``counts`` per key)."""
    codes, uniques = pd.factorize(key)
    merged = np.bincount(codes, weights=counts, minlength=len(uniques)).astype(np.int64)
    # codes appear in increasing order of first appearance: a row is a first one where the running maximum rises
    rising = np.maximum.accumulate(codes)
    is_first = np.empty(len(codes), dtype=bool)
    is_first[:1] = True
    np.greater(rising[1:], rising[:-1], out=is_first[1:])
    return np.flatnonzero(is_first), merged
