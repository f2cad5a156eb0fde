"""Generalization domains: a quasi-identifier's hierarchy as integer node arrays, and a table as node ids.

Every remediation by generalization works on integers: each node ``(level, label)`` of a QI's hierarchy
gets an id, and each record's value becomes the id of the node it names. An :class:`AttributeDomain`
holds, per node, its level, the number of leaves below it, and its ancestor at every level
(``ancestors[u, L]``; a node is its own "ancestor" below its level, so values already generalized in the
input are left where they are). Lowest common ancestors (LCA) are read off that matrix: the LCA of ``u``
and ``v`` is their common ancestor at the lowest level where ``ancestors[u] == ancestors[v]``.

Two extra conventions:

* **Missing / suppressed.** Each domain has one extra node, ``missing``, standing for a missing QI value
  (an input NaN, or a value the remediator suppresses). It is its own ancestor at every level, its LCA
  with anything is itself, and it counts as the root for information loss. A node whose label is one of
  the policy's missing tokens (ARX hierarchies put ``*`` at the root) is published as missing too, so it
  is *canonicalised* to ``missing``: two classes that print identically are one class.
* **QIs without a hierarchy** get an implicit one-level hierarchy ``value -> missing``: they can only stay
  as they are or be suppressed (published as missing).

**Uneven trees** arrive padded (:mod:`privaudit.core.hierarchy`): a leaf of a short branch is repeated on
the levels below its real parent. The copies are canonicalised to the leaf (they publish the same label),
so they never appear in a coded table, and they keep ``ancestors[u, L]`` defined at every level.

Node ids are assigned level by level (leaves first), labels in order of first appearance in the
hierarchy file, so everything built on them is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privaudit.core.hierarchy import Hierarchy


@dataclass(frozen=True)
class AttributeDomain:
    """A QI's generalization tree as arrays over node ids ``0 .. n_nodes-1`` (the last id is ``missing``)."""

    column: str
    height: int
    labels: np.ndarray  # object; the label each node publishes (None for ``missing``)
    level: np.ndarray  # int64; ``missing`` is at ``height``
    leaves_under: np.ndarray  # int64; leaves in each node's subtree (``missing``: every leaf)
    ancestors: np.ndarray  # int64 (n_nodes, height + 1)
    canonical: np.ndarray  # int64; node -> node it is published as (missing-token labels -> ``missing``)
    n_leaves: int
    implicit: bool  # True when built from the data (the QI has no hierarchy)
    #: explicit weight omega(u, parent) of every node's edge up (Definition 3); None: the hierarchy has none.
    #: Padding edges of an uneven tree weigh 0; the root and ``missing`` hold NaN.
    edge_weight: np.ndarray | None = None

    @property
    def n_nodes(self) -> int:
        return len(self.labels)

    @property
    def missing(self) -> int:
        return len(self.labels) - 1

    @property
    def root(self) -> int:
        """The root node (canonicalised: ``missing`` when the root label is a missing token)."""
        return int(self.canonical[self.ancestors[0, self.height]]) if self.n_nodes > 1 else self.missing

    @property
    def leaves(self) -> np.ndarray:
        return np.flatnonzero(self.level[:-1] == 0)

    # ------------------------------------------------------------------ generalization
    def generalize(self, nodes: np.ndarray, level: int) -> np.ndarray:
        """Canonical node of each of ``nodes`` generalized to ``level`` (nodes above it stay)."""
        return self.canonical[self.ancestors[nodes, level]]

    def lca_with(self, u: int) -> np.ndarray:
        """Canonical LCA of node ``u`` with every node (a vector over node ids)."""
        if self.canonical[u] == self.missing:
            return np.full(self.n_nodes, self.missing, dtype=np.int64)
        row = self.ancestors[u]
        equal = self.ancestors == row  # (n_nodes, height + 1)
        first = equal.argmax(axis=1)
        lca = row[first]
        lca[~equal.any(axis=1)] = self.missing  # only the missing node shares no ancestor
        return self.canonical[lca]

    def lca(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Canonical LCA of ``u[i]`` and ``v[i]`` for every i (vectorised)."""
        au, av = self.ancestors[u], self.ancestors[v]
        equal = au == av
        first = equal.argmax(axis=1)
        lca = au[np.arange(len(u)), first]
        lca[~equal.any(axis=1)] = self.missing
        return self.canonical[lca]


def domain_from_hierarchy(column: str, hierarchy: Hierarchy, missing_tokens: Sequence[str]) -> AttributeDomain:
    """Build the node arrays of a validated :class:`~privaudit.core.hierarchy.Hierarchy`."""
    table = hierarchy.table.to_numpy(dtype=object)  # (leaves, height + 1), column j = label at level j
    height = hierarchy.height
    ids: list[dict[str, int]] = []
    labels: list[Any] = []
    levels: list[int] = []
    for level in range(height + 1):
        mapping: dict[str, int] = {}
        for label in pd.unique(table[:, level]):
            mapping[label] = len(labels)
            labels.append(label)
            levels.append(level)
        ids.append(mapping)
    n = len(labels) + 1  # + missing
    missing = n - 1
    leaf_paths = np.column_stack(
        [
            np.fromiter((ids[level][x] for x in table[:, level]), dtype=np.int64, count=len(table))
            for level in range(height + 1)
        ]
    )  # node id of each leaf's ancestor at each level
    ancestors = np.full((n, height + 1), missing, dtype=np.int64)
    leaves_under = np.zeros(n, dtype=np.int64)
    for level in range(height + 1):
        nodes = leaf_paths[:, level]
        leaves_under += np.bincount(nodes, minlength=n)
        first_leaf = np.full(n, -1, dtype=np.int64)
        first_leaf[nodes[::-1]] = np.arange(len(nodes))[::-1]  # first leaf below each node
        present = np.flatnonzero(first_leaf >= 0)
        below = np.arange(height + 1) < level
        rows = leaf_paths[first_leaf[present]]  # (nodes at this level, height + 1)
        ancestors[present] = np.where(below, present[:, None], rows)
    leaves_under[missing] = len(table)
    level_arr = np.array(levels + [height], dtype=np.int64)
    labels_arr = np.array(labels + [None], dtype=object)
    canonical = _canonical(labels_arr, missing_tokens)
    for level, label in getattr(hierarchy, "padded", ()):  # copies of a short branch's leaf publish the leaf
        canonical[ids[level][label]] = canonical[ids[0][label]]
    edge_weight = None
    if getattr(hierarchy, "edge_weight", None) is not None:
        edge_weight = np.full(n, np.nan)
        for (level, label), w in hierarchy.edge_weight.items():
            edge_weight[ids[level][label]] = w
    return AttributeDomain(
        column,
        height,
        labels_arr,
        level_arr,
        leaves_under,
        ancestors,
        canonical,
        len(table),
        implicit=False,
        edge_weight=edge_weight,
    )


def implicit_domain(column: str, values: Sequence[Any], missing_tokens: Sequence[str]) -> AttributeDomain:
    """The one-level hierarchy ``value -> missing`` of a QI without a hierarchy (values: its distinct values)."""
    values = list(values)
    n = len(values) + 1
    missing = n - 1
    ancestors = np.column_stack([np.arange(n), np.full(n, missing)]).astype(np.int64)
    ancestors[missing, 0] = missing
    labels = np.array(values + [None], dtype=object)
    leaves_under = np.ones(n, dtype=np.int64)
    leaves_under[missing] = len(values)
    level = np.zeros(n, dtype=np.int64)
    level[missing] = 1
    return AttributeDomain(
        column,
        1,
        labels,
        level,
        leaves_under,
        ancestors,
        _canonical(labels, missing_tokens),
        len(values),
        implicit=True,
    )


def _canonical(labels: np.ndarray, missing_tokens: Sequence[str]) -> np.ndarray:
    tokens = set(missing_tokens)
    out = np.arange(len(labels), dtype=np.int64)
    for i, label in enumerate(labels):
        if label is None or (isinstance(label, str) and label.strip() in tokens):
            out[i] = len(labels) - 1
    return out


def encode_column(values: pd.Series, domain: AttributeDomain, hierarchy: Hierarchy | None) -> np.ndarray:
    """Canonical node id of every record's value (missing values -> ``missing``).

    With a hierarchy, a value is the node carrying its label at the lowest level where the label occurs
    (a released table may already hold generalized labels); without one, the value's own leaf.
    """
    series = pd.Series(values)
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy().astype(np.int64)
        uniques = list(series.cat.categories)
    else:
        codes, uniq = pd.factorize(series, use_na_sentinel=True)
        codes = codes.astype(np.int64)
        uniques = list(uniq)
    lookup = np.full(len(uniques) + 1, domain.missing, dtype=np.int64)  # last slot: code -1
    if hierarchy is None:
        position = {v: i for i, v in enumerate(domain.labels[:-1])}
        for i, value in enumerate(uniques):
            lookup[i] = position[value]
    else:
        node_of = {
            (int(lvl), lab): i for i, (lvl, lab) in enumerate(zip(domain.level[:-1], domain.labels[:-1], strict=False))
        }
        for i, value in enumerate(uniques):
            label = str(value)
            level = hierarchy.level_of(label)
            if level is None:
                raise ValueError(f"column {domain.column!r}: value {label!r} is not in its hierarchy")
            lookup[i] = node_of[(level, label)]
    return domain.canonical[lookup[codes]]
