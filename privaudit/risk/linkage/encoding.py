"""Euclidean embedding of mixed-type records for distance-based record linkage.

Every record is mapped to a real vector so that the squared Euclidean distance between two
vectors is the record-linkage distance of Torra and Domingo-Ferrer (2003)::

    d(x, y)^2 = (1 / W) * sum_a w_a * d_a(x_a, y_a)^2,        W = sum_a w_a

with one per-attribute distance ``d_a``:

* numeric: ``d_a = (x_a - mean_o) / sd_o - (y_a - mean_r) / sd_r``: each file standardized by its own
  mean and standard deviation, as Torra defines ``diff_i`` (Privacy models and disclosure risk, 2020 lecture, distance-based record linkage:
  ``((a_i - mean(a_i))/sd(a_i) - (b_i - mean(b_i))/sd(b_i))^2``);
* categorical without hierarchy: ``d_a = 0`` if equal, ``1`` otherwise (one-hot coding);
* categorical with a hierarchy of height ``H``: ``d_a = h / H`` where ``h`` is the level of the
  lowest common ancestor of the two leaves (0 for equal leaves, ``H`` when they only meet at the
  root).

Hierarchical embedding (our construction).  ``d_a = h / H`` is an ultrametric, and every finite
ultrametric embeds isometrically in Euclidean space (Lemin 1985).  We use the tree embedding:
for every level ``k = 0 .. H-1`` there is a one-hot block over the nodes of that level, and the
block of level ``k`` is scaled by ``c_k = sqrt((2k + 1) / (2 H^2))``.  Two leaves whose lowest
common ancestor is at level ``h`` differ in the blocks ``k < h`` only, each contributing
``2 c_k^2``, so their squared distance is ``sum_{k<h} (2k + 1) / H^2 = h^2 / H^2``: exactly
``d_a^2``.  A flat categorical attribute is the special case ``H = 1`` (one-hot scaled by
``1/sqrt(2)``).

Values that are not leaves:

* a generalised value (an interior node at level ``j``, e.g. ``"Higher education"`` or ``"*"``)
  keeps the blocks ``k >= j`` of its node and zeros below, i.e. it sits at the centre of its
  subtree: it is at distance ``j / (H sqrt 2)`` from every leaf below it and farther from every
  leaf outside it (the root ``"*"`` is equidistant, ``1/sqrt 2``, from all leaves);
* a value that is in neither the hierarchy nor (for flat attributes) the original column, and a
  missing value, is its own category: a leaf hanging directly from the root, at distance 1 from
  every other value (all missing values are equal to each other).  Labels are compared as
  strings (``39`` and ``"39"`` are the same value).

Missing numeric values are imputed by their own file's mean, i.e. contribute z = 0.  Released
numeric columns are coerced with :func:`pandas.to_numeric`; values that cannot be parsed
(e.g. an interval ``"[30-40["``) become missing, with a warning.

Mahalanobis metric: the numeric attributes form one group whose z-scores are whitened with the
original's correlation matrix ``C`` (``z -> C^{-1/2} z``, pseudo-inverse on a singular ``C``) and
scaled by ``1/sqrt(p)`` (``p`` numeric attributes) with the summed weight of the numeric
attributes, so the group contributes ``(W_num / p) * dz' C^{-1} dz`` - for unit weights exactly
the Mahalanobis distance - while categorical attributes contribute as above.  The Mahalanobis
form is invariant to rescaling single numeric attributes, so individual numeric weights only
matter through their sum.

Hierarchies are given as a mapping ``leaf -> [ancestor at level 1, ..., root]`` (ARX layout) or
as any object with ``leaves`` and ``leaf_ancestors(leaves)`` (e.g. :class:`privaudit.core.hierarchy.Hierarchy`).
All chains must have the same length; if their top labels differ, a virtual root is added above.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric

__all__ = [
    "AttributeSpec",
    "CategoricalTable",
    "EncodedPair",
    "build_categorical_table",
    "encode_pair",
    "hierarchy_chains",
]

#: Exact pairwise minimum of a categorical table is computed up to this many values; above it a
#: lower bound (``c_0^2``) is used.
_EXACT_MIN_VALUES = 1024


@dataclass(frozen=True)
class AttributeSpec:
    """One quasi-identifier known to the intruder.

    ``hierarchy`` (categorical only) maps each leaf to its ancestors from level 1 to the root, or
    is an object with ``leaves`` and ``leaf_ancestors`` such as :class:`privaudit.core.hierarchy.Hierarchy`.
    ``weight`` is the non-negative weight ``w_a`` of the attribute in the averaged distance.
    """

    name: str
    kind: Literal["numeric", "categorical"]
    hierarchy: Mapping[str, Sequence[str]] | Any | None = None
    weight: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in ("numeric", "categorical"):
            raise ValueError(f"attribute {self.name!r}: kind must be 'numeric' or 'categorical', not {self.kind!r}")
        if self.hierarchy is not None and self.kind != "categorical":
            raise ValueError(f"attribute {self.name!r}: a hierarchy is only meaningful for a categorical attribute")
        w = float(self.weight)
        if not math.isfinite(w) or w < 0:
            raise ValueError(f"attribute {self.name!r}: weight must be a finite number >= 0, not {self.weight!r}")


# --------------------------------------------------------------------------- hierarchies


def hierarchy_chains(hierarchy: Mapping[str, Sequence[str]] | Any) -> tuple[list[str], np.ndarray]:
    """Leaves and their label chains ``chains[i] = [leaf, level 1, ..., top]`` as an object array.

    Raises ``ValueError`` on chains of different lengths or an empty hierarchy.
    """
    if hasattr(hierarchy, "leaves") and hasattr(hierarchy, "leaf_ancestors"):
        leaves = [str(v) for v in hierarchy.leaves]
        chains = np.asarray(hierarchy.leaf_ancestors(list(hierarchy.leaves)), dtype=object)
        chains = np.vectorize(str, otypes=[object])(chains) if chains.size else chains
        return leaves, chains
    if not isinstance(hierarchy, Mapping) or not hierarchy:
        raise ValueError("a hierarchy must be a non-empty mapping leaf -> [ancestors up to the root]")
    leaves = [str(k) for k in hierarchy]
    rows = [[str(k), *(str(a) for a in (v if not isinstance(v, str) else [v]))] for k, v in hierarchy.items()]
    lengths = {len(r) for r in rows}
    if len(lengths) != 1:
        raise ValueError(
            f"hierarchy chains have different lengths {sorted(lengths)}; every leaf needs the same number of levels"
        )
    return leaves, np.asarray(rows, dtype=object)


@dataclass(frozen=True)
class CategoricalTable:
    """Embedding of the distinct values of one categorical attribute, stored sparsely.

    Value ``v`` has, in level block ``k``, one non-zero coordinate: column ``level_columns[v, k]``
    (``-1``: none) with value ``level_scales[k]``; ``width`` columns in all.  ``min_sq`` is a lower
    bound (exact for up to 1024 values) on the squared distance between two different values.
    """

    values: tuple[str, ...]
    height: int
    min_sq: float
    level_columns: np.ndarray = field(repr=False)
    level_scales: np.ndarray = field(repr=False)
    width: int

    @property
    def embedding(self) -> np.ndarray:
        """Dense ``len(values) x width`` matrix (``d_a`` is the Euclidean distance between rows)."""
        emb = np.zeros((len(self.values), self.width))
        for k, scale in enumerate(self.level_scales):
            hit = self.level_columns[:, k] >= 0
            emb[np.flatnonzero(hit), self.level_columns[hit, k]] = scale
        return emb


def _level_scales(height: int) -> np.ndarray:
    k = np.arange(height, dtype=float)
    return np.sqrt((2.0 * k + 1.0) / (2.0 * height * height))


def build_categorical_table(
    values: Sequence[str], hierarchy: Mapping[str, Sequence[str]] | Any | None
) -> CategoricalTable:
    """Embed the distinct string ``values`` (missing already replaced by a sentinel) of one attribute.

    Without a hierarchy every value is a leaf of a height-1 tree (one-hot / sqrt 2).  With one,
    leaves, interior labels (lowest level where the label occurs) and foreign values are placed
    as described in the module docstring.
    """
    values = tuple(values)
    n_values = len(values)
    if hierarchy is None:
        min_sq = 1.0 if n_values > 1 else math.inf
        return CategoricalTable(values, 1, min_sq, np.arange(n_values)[:, None], _level_scales(1), n_values)

    leaves, chains = hierarchy_chains(hierarchy)
    top = chains[:, -1]
    single_root = bool(np.all(top == top[0]))
    levels = chains.shape[1]  # leaf + ancestors
    height = levels - 1 if single_root else levels
    if height == 0:  # a one-level "hierarchy": every value its own category
        return build_categorical_table(values, None)
    # node id of every leaf at every level k < height, keyed by the path from k to the top
    node_ids = np.empty((len(leaves), height), dtype=np.int64)
    n_nodes = []
    for k in range(height):
        path = pd.Series(["\x1f".join(map(str, row)) for row in chains[:, k:]])
        node_ids[:, k], uniq = pd.factorize(path)
        n_nodes.append(len(uniq))
    # locate each value: a leaf, an interior label (level j, via the first leaf below it), or foreign
    leaf_pos = {leaf: i for i, leaf in enumerate(leaves)}
    interior: dict[str, tuple[int, int]] = {}
    for j in range(1, levels):
        col = chains[:, j]
        for label, first in zip(*np.unique(col, return_index=True), strict=False):
            if label not in leaf_pos:
                interior.setdefault(str(label), (j, int(first)))
    value_nodes = np.full((n_values, height), -1, dtype=np.int64)
    extra_ids = np.asarray(n_nodes, dtype=np.int64).copy()
    for v, value in enumerate(values):
        if value in leaf_pos:
            value_nodes[v] = node_ids[leaf_pos[value]]
        elif value in interior:
            j, first = interior[value]
            if j < height:
                value_nodes[v, j:] = node_ids[first, j:]
            # j == height: the root itself, all blocks zero
        else:  # foreign or missing value: its own leaf directly below the root
            value_nodes[v] = extra_ids
            extra_ids += 1
    # keep only the nodes some present value passes through (the others are all-zero columns)
    sizes = np.zeros(height, dtype=np.int64)
    for k in range(height):
        present = value_nodes[:, k] >= 0
        used, value_nodes[present, k] = np.unique(value_nodes[present, k], return_inverse=True)
        sizes[k] = len(used)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    scales = _level_scales(height)
    level_columns = np.where(value_nodes >= 0, offsets[:-1][None, :] + value_nodes, -1)
    table = CategoricalTable(values, height, float(scales[0] ** 2), level_columns, scales, int(offsets[-1]))
    if n_values <= 1:
        return CategoricalTable(values, height, math.inf, level_columns, scales, int(offsets[-1]))
    if n_values <= _EXACT_MIN_VALUES:
        emb = table.embedding
        sq = np.sum(emb * emb, axis=1)
        d2 = sq[:, None] + sq[None, :] - 2.0 * emb @ emb.T
        np.fill_diagonal(d2, np.inf)
        exact = float(max(d2.min() * (1 - 1e-9), scales[0] ** 2 * (1 - 1e-9)))
        table = CategoricalTable(values, height, exact, level_columns, scales, int(offsets[-1]))
    return table


# --------------------------------------------------------------------------- the encoded pair


@dataclass(frozen=True)
class EncodedPair:
    """Unit-weight embeddings of the intruder's records and of the release.

    Columns are grouped: group ``g`` occupies ``columns[g] = (start, stop)``; the squared distance
    of group ``g`` between two rows is the squared Euclidean distance on those columns, and the
    record distance is ``sum_g weights[g] * d_g^2 / sum_g weights[g]``.  Under ``euclidean`` each
    attribute is one group; under ``mahalanobis`` the numeric attributes form one group.
    ``codes_*[:, c]`` are the value codes of the ``c``-th categorical group (``categorical_groups[c]``)
    and ``min_sq[c]`` the smallest non-zero unit squared distance between two of its values.
    """

    group_names: tuple[str, ...]
    group_kinds: tuple[str, ...]
    columns: tuple[tuple[int, int], ...]
    weights: np.ndarray
    query: np.ndarray = field(repr=False)
    released: np.ndarray = field(repr=False)
    categorical_groups: tuple[int, ...]
    codes_query: np.ndarray = field(repr=False)
    codes_released: np.ndarray = field(repr=False)
    min_sq: np.ndarray

    @property
    def continuous_groups(self) -> tuple[int, ...]:
        return tuple(g for g, kind in enumerate(self.group_kinds) if kind == "numeric")

    def column_scale(self, weights: np.ndarray | None = None) -> np.ndarray:
        """Per-column factor ``sqrt(w_g / W)`` turning unit embeddings into the weighted distance."""
        w = self.weights if weights is None else np.asarray(weights, dtype=float)
        total = float(w.sum())
        if total <= 0:
            raise ValueError("at least one attribute needs a positive weight")
        scale = np.empty(self.query.shape[1])
        for g, (a, b) in enumerate(self.columns):
            scale[a:b] = math.sqrt(w[g] / total)
        return scale


def _numeric(frame: pd.DataFrame, name: str, role: str) -> np.ndarray:
    col = frame[name]
    out = to_numeric(col, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = int(np.count_nonzero(np.isnan(out) & ~col.isna().to_numpy()))
    if bad:
        warnings.warn(
            f"{role} column {name!r}: {bad} non-numeric value(s) treated as missing (imputed by its file's mean)",
            stacklevel=3,
        )
    return out


_MISSING = "\x00<missing>"


def _joint_labels(first: pd.Series, second: pd.Series) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Codes of two columns in one shared space of string labels (missing -> its own label).

    Values are factorized in their own dtype first, so only the distinct values are converted
    to strings."""
    codes_out, labels, index = [], [], {}
    for col in (first, second):
        codes, uniques = pd.factorize(col, use_na_sentinel=True)
        names = [str(u) for u in uniques] + [_MISSING]
        remap = np.empty(len(names), dtype=np.int64)
        for j, name in enumerate(names):
            if name not in index:
                index[name] = len(labels)
                labels.append(name)
            remap[j] = index[name]
        codes = np.where(codes < 0, len(names) - 1, codes)
        codes_out.append(remap[codes])
    # drop the missing label if no value is missing (keeps one-hot blocks minimal)
    used = np.zeros(len(labels), dtype=bool)
    for c in codes_out:
        used[np.unique(c)] = True
    if not used.all():
        new = np.cumsum(used) - 1
        codes_out = [new[c] for c in codes_out]
        labels = [lab for lab, u in zip(labels, used, strict=False) if u]
    return codes_out[0], codes_out[1], labels


def _standardized(x: np.ndarray) -> np.ndarray:
    """z-scores of every column by the column's own mean and sample sd; missing values (NaN) at z = 0, a
    constant column all zeros. This is Torra's (Privacy models and disclosure risk, distance-based record linkage) ``diff_i(a, b) = ((a_i - mean(a_i))
    / sd(a_i) - (b_i - mean(b_i)) / sd(b_i))^2``: the intruder's file and the release each standardized by
    their own statistics, so that a release rescaled as a whole (``x -> 3x + 40``) links as the original
    does (by the original's statistics its values would all lie far from their own records)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-missing columns
        mean = np.nanmean(x, axis=0) if len(x) else np.zeros(x.shape[1])
        sd = np.nanstd(x, axis=0, ddof=1) if len(x) > 1 else np.ones(x.shape[1])
    mean = np.where(np.isnan(mean), 0.0, mean)
    sd = np.where(~np.isfinite(sd) | (sd <= 0), 1.0, sd)
    return np.where(np.isnan(x), 0.0, (x - mean) / sd)


def encode_pair(
    original: pd.DataFrame,
    released: pd.DataFrame,
    attributes: Sequence[AttributeSpec],
    query_rows: np.ndarray,
    *,
    metric: Literal["euclidean", "mahalanobis"] = "euclidean",
    max_bytes: int = 4 * 2**30,
) -> EncodedPair:
    """Embed ``original.iloc[query_rows]`` (the intruder's file) and all of ``released``.

    Each file is standardised by its own statistics (the whole original, the whole release); the
    ``mahalanobis`` whitening uses the correlation matrix of the original's z-scores for both.
    A categorical attribute takes one coordinate per value (per tree node with a hierarchy), so
    ``ValueError`` is raised when the two embeddings would exceed ``max_bytes``.
    """
    if metric not in ("euclidean", "mahalanobis"):
        raise ValueError(f"metric must be 'euclidean' or 'mahalanobis', not {metric!r}")
    query_rows = np.asarray(query_rows, dtype=np.int64)
    n, m = len(query_rows), len(released)
    groups = _Groups()
    numeric = [a for a in attributes if a.kind == "numeric"]
    if numeric:
        _add_numeric(groups, original, released, numeric, query_rows, metric)
    for a in attributes:
        if a.kind == "categorical":
            _add_categorical(groups, original, released, a, query_rows)
    if not groups.names:
        raise ValueError("no attributes given")
    starts = np.concatenate([[0], np.cumsum(groups.widths)]).astype(int)
    _refuse_oversized(groups, starts, n + m, max_bytes)
    return EncodedPair(
        group_names=tuple(groups.names),
        group_kinds=tuple(groups.kinds),
        columns=tuple((int(starts[g]), int(starts[g + 1])) for g in range(len(groups.names))),
        weights=np.asarray(groups.weights, dtype=float),
        query=_assemble(groups.q_blocks, n, starts),
        released=_assemble(groups.r_blocks, m, starts),
        categorical_groups=tuple(groups.cat_groups),
        codes_query=np.column_stack(groups.cq).astype(np.int64) if groups.cq else np.zeros((n, 0), np.int64),
        codes_released=np.column_stack(groups.cr).astype(np.int64) if groups.cr else np.zeros((m, 0), np.int64),
        min_sq=np.asarray(groups.min_sq, dtype=float),
    )


@dataclass
class _Groups:
    """The coordinate groups of an embedding as they are added: one per numeric attribute (or one for all
    of them, whitened), one per categorical attribute."""

    names: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    widths: list[int] = field(default_factory=list)
    q_blocks: list = field(default_factory=list)  # (array, or (table, codes) scattered by _assemble)
    r_blocks: list = field(default_factory=list)
    cat_groups: list[int] = field(default_factory=list)
    cq: list[np.ndarray] = field(default_factory=list)
    cr: list[np.ndarray] = field(default_factory=list)
    min_sq: list[float] = field(default_factory=list)

    def add(self, name: str, kind: str, weight: float, width: int, query, released) -> None:
        self.names.append(name)
        self.kinds.append(kind)
        self.weights.append(weight)
        self.widths.append(width)
        self.q_blocks.append(query)
        self.r_blocks.append(released)


def _add_numeric(
    groups: _Groups,
    original: pd.DataFrame,
    released: pd.DataFrame,
    numeric: list[AttributeSpec],
    query_rows: np.ndarray,
    metric: str,
) -> None:
    """The numeric attributes' z-scores (each file by its own mean and sd), one coordinate each; with
    ``mahalanobis`` one group whitened by the original's correlation matrix."""
    zo = np.column_stack([_numeric(original, a.name, "original") for a in numeric])
    zr = np.column_stack([_numeric(released, a.name, "released") for a in numeric])
    zo, zr = _standardized(zo), _standardized(zr)  # each file by its own mean and sd
    if metric == "euclidean":
        for j, a in enumerate(numeric):
            groups.add(a.name, "numeric", float(a.weight), 1, zo[query_rows, j : j + 1], zr[:, j : j + 1])
        return
    p = len(numeric)
    cov = np.atleast_2d(np.cov(zo, rowvar=False)) if len(zo) > 1 else np.eye(p)
    vals, vecs = np.linalg.eigh(cov)
    keep = vals > max(vals.max(), 0.0) * 1e-10
    whiten = vecs[:, keep] / np.sqrt(vals[keep]) / math.sqrt(p)
    groups.add(
        "+".join(a.name for a in numeric),
        "numeric",
        float(sum(a.weight for a in numeric)),
        int(keep.sum()),
        zo[query_rows] @ whiten,
        zr @ whiten,
    )


def _add_categorical(
    groups: _Groups, original: pd.DataFrame, released: pd.DataFrame, a: AttributeSpec, query_rows: np.ndarray
) -> None:
    """A categorical attribute: one coordinate per value (per tree node with a hierarchy)."""
    codes_q, codes_r, labels = _joint_labels(original[a.name].iloc[query_rows], released[a.name])
    table = build_categorical_table(labels, a.hierarchy)
    groups.cat_groups.append(len(groups.names))
    groups.add(a.name, "categorical", float(a.weight), table.width, (table, codes_q), (table, codes_r))
    groups.cq.append(codes_q)
    groups.cr.append(codes_r)
    groups.min_sq.append(table.min_sq)


def _refuse_oversized(groups: _Groups, starts: np.ndarray, records: int, max_bytes: int) -> None:
    need = records * int(starts[-1]) * 8
    if need > max_bytes:
        wide = sorted(zip(groups.widths, groups.names, strict=False), reverse=True)[:3]
        raise ValueError(
            f"the embedding needs {need / 2**30:.1f} GiB ({starts[-1]} coordinates for {records} records; widest: "
            + ", ".join(f"{nm} ({w})" for w, nm in wide)
            + "); generalise high-cardinality categorical attributes or raise max_bytes"
        )


def _assemble(blocks: list, rows: int, starts: np.ndarray) -> np.ndarray:
    """The embedding matrix of ``rows`` records from its groups' blocks."""
    out = np.zeros((rows, int(starts[-1])))
    every = np.arange(rows)
    for g, block in enumerate(blocks):
        if isinstance(block, tuple):  # scatter the <= H non-zeros of each categorical value
            table, codes = block
            for k, scale in enumerate(table.level_scales):
                cols = table.level_columns[codes, k]
                hit = cols >= 0
                out[every[hit], starts[g] + cols[hit]] = scale
        else:
            out[:, starts[g] : starts[g + 1]] = block
    return out
