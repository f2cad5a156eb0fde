"""Earth Mover's Distance between each class's sensitive distribution and the whole table's.

Closed forms from Li, Li & Venkatasubramanian (t-closeness, ICDE 2007), evaluated for all classes at
once on the sparse class x value count matrix:

* ordered distance d(i, j) = |i - j| / (m - 1):  EMD = 1/(m-1) * sum_i |sum_{j<=i} (p_j - q_j)|;
* equal distance d = 1 (i != j):                EMD = 1/2 * sum_i |p_i - q_i|;
* hierarchical distance d = height(LCA) / H:    EMD = sum over non-root nodes N of
  |extra(N)| * (height(parent N) - height(N)) / (2H), where extra(N) is the (p - q) mass of the leaves
  under N. (This equals the paper's sum over inner nodes of height/H * min(pos_extra, neg_extra),
  because min(a, b) = (a + b - |a - b|) / 2 and the children's extras add up to the parent's.)

Each function returns one EMD per class (row); classes with no sensitive value get NaN. A class whose
distribution is the table's has EMD 0 by definition; floating-point sums leave ~1e-16 there (a signed report
showed "1.249e-16"), so a magnitude below :data:`ROUNDING` is returned as 0 (:func:`_exact_zeros`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from privaudit.core.summary import entry_rows, row_blocks


def ground_distance(column: str, policy, requested: str = "auto") -> str:
    """The ground distance t-closeness uses for ``column`` (Li, Li & Venkatasubramanian, ICDE 2007, Section 4): ``requested``
    unless ``"auto"``; then ordered distance for numeric and ordinal values, the hierarchical distance when
    the policy gives the column a hierarchy, else the equal distance."""
    if requested != "auto":
        return requested
    spec = policy.columns[column]
    if spec.type in ("numeric", "ordinal"):
        return "ordered"
    return "hierarchical" if column in policy.hierarchies else "equal"


#: EMDs lie in [0, 1]; a magnitude below this is floating-point noise of a sum that is 0 exactly.
ROUNDING = 1e-12


def _exact_zeros(out: np.ndarray) -> np.ndarray:
    out[np.abs(out) < ROUNDING] = 0.0
    return out


def _sorted(counts: sp.csr_matrix) -> sp.csr_matrix:
    """The count matrix with column indices sorted within each row (the summary builds it so)."""
    return counts if counts.has_sorted_indices else counts.sorted_indices()


def _class_totals(counts: sp.csr_matrix) -> np.ndarray:
    return np.asarray(counts.sum(axis=1)).ravel().astype(float)


def emd_equal(counts: sp.csr_matrix, q: np.ndarray, totals: np.ndarray | None = None) -> np.ndarray:
    """EMD under the equal ground distance, per class: 1/2 (sum over the class's values |p - q| plus
    the table mass q of the values the class lacks)."""
    totals = _class_totals(counts) if totals is None else np.asarray(totals, dtype=float)
    out = np.empty(counts.shape[0])
    q_sum = float(q.sum())
    for c0, c1, e0, e1, rows in row_blocks(counts):
        qv = q[counts.indices[e0:e1]]
        p = counts.data[e0:e1] / np.maximum(totals[c0:c1], 1.0)[rows]
        diff = np.bincount(rows, weights=np.abs(p - qv), minlength=c1 - c0)
        covered = np.bincount(rows, weights=qv, minlength=c1 - c0)
        out[c0:c1] = 0.5 * (diff + (q_sum - covered))
    out[totals == 0] = np.nan
    return _exact_zeros(out)


def emd_ordered(counts: sp.csr_matrix, q: np.ndarray, totals: np.ndarray | None = None) -> np.ndarray:
    """EMD under the ordered ground distance |i - j| / (m - 1), per class.

    The class's cumulative distribution P is a step function that only changes at the class's own
    values; the table's cumulative Q is non-decreasing, so on each step sum_i |c - Q_i| splits at the
    one point where Q crosses c and is read off prefix sums of Q. Cost: O(nnz log m), a block of classes
    at a time.
    """
    counts = _sorted(counts)
    totals = _class_totals(counts) if totals is None else np.asarray(totals, dtype=float)
    n_classes, m = counts.shape
    out = np.zeros(n_classes)
    if m <= 1:
        out[totals == 0] = np.nan
        return out
    Q = np.cumsum(q)[: m - 1]  # Q_i for i = 0 .. m-2 (Q_{m-1} = 1 contributes nothing)
    S = np.concatenate(([0.0], np.cumsum(Q)))  # S[a] = sum_{i<a} Q_i

    def seg(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        """sum_{a <= i < b} |c - Q_i| for non-decreasing Q (vectorised)."""
        a = np.minimum(a, m - 1)
        b = np.minimum(b, m - 1)
        s = np.clip(np.searchsorted(Q, c, side="left"), a, b)
        return (s - a) * c - (S[s] - S[a]) + (S[b] - S[s]) - (b - s) * c

    for c0, c1, e0, e1, rows in row_blocks(counts):
        local_ptr = counts.indptr[c0 : c1 + 1] - e0
        nnz_rows = np.diff(local_ptr)
        cols = counts.indices[e0:e1].astype(np.int64)
        # cumulative class mass at each stored entry (entries are sorted by column within a row)
        cum = np.cumsum(counts.data[e0:e1], dtype=float)
        offset = np.concatenate(([0.0], cum))[local_ptr[:-1]]
        c = (cum - offset[rows]) / np.maximum(totals[c0:c1], 1.0)[rows]
        nxt = np.empty_like(cols)
        if len(cols):
            nxt[:-1] = cols[1:]
            nxt[local_ptr[1:][nnz_rows > 0] - 1] = m - 1
        contrib = seg(cols, nxt, c)
        block = np.bincount(rows, weights=contrib, minlength=c1 - c0).astype(float)  # int64 when empty
        has = nnz_rows > 0
        first_col = np.zeros(c1 - c0, dtype=np.int64)
        first_col[has] = cols[local_ptr[:-1][has]]
        block += S[np.minimum(first_col, m - 1)]  # leading segment [0, first) where P = 0
        out[c0:c1] = block
    out /= m - 1
    out[totals == 0] = np.nan
    return _exact_zeros(out)


def hierarchy_incidence(leaf_paths: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray, float]:
    """Leaf-to-node incidence for the hierarchical EMD.

    ``leaf_paths[i, j]`` is the label of leaf i at level j (0 = the leaf, last = root). Returns the
    matrix A (leaves x non-root nodes), each node's weight (height(parent) - height(node)) / (2H), and H.
    """
    m, levels = leaf_paths.shape
    height = levels - 1
    cols, rows, weights = [], [], []
    n_nodes = 0
    for level in range(height):  # root level excluded: its extra is always 0
        # a node is identified by its path from the root, so equal labels under different parents differ
        keys = ["\x1f".join(map(str, leaf_paths[i, level:])) for i in range(m)]
        uniq, inv = np.unique(np.array(keys, dtype=object), return_inverse=True)
        rows.append(np.arange(m))
        cols.append(inv + n_nodes)
        weights.append(np.full(len(uniq), 1.0 / (2 * height)))
        n_nodes += len(uniq)
    if height == 0:
        return sp.csr_matrix((m, 0)), np.zeros(0), 0.0
    A = sp.csr_matrix((np.ones(m * height), (np.concatenate(rows), np.concatenate(cols))), shape=(m, n_nodes))
    return A, np.concatenate(weights), float(height)


def emd_hierarchical(
    counts: sp.csr_matrix, q: np.ndarray, leaf_paths: np.ndarray, totals: np.ndarray | None = None
) -> np.ndarray:
    """EMD under the hierarchical ground distance height(LCA)/H, per class."""
    totals = _class_totals(counts) if totals is None else np.asarray(totals, dtype=float)
    A, w, height = hierarchy_incidence(leaf_paths)
    out = np.zeros(counts.shape[0])
    if height == 0:
        out[totals == 0] = np.nan
        return out
    qn = np.asarray(q @ A.toarray()).ravel() if A.shape[1] < 4096 else np.asarray(A.T @ q).ravel()
    base = float(w @ np.abs(qn))
    for c0, c1, _e0, _e1, _rows in row_blocks(counts):
        block = counts[c0:c1]
        p = sp.csr_matrix(
            (block.data / np.maximum(totals[c0:c1], 1.0)[_rows], block.indices, block.indptr), shape=block.shape
        )
        pn = sp.csr_matrix(p @ A)
        rows = entry_rows(pn.indptr)
        qv, wv = qn[pn.indices], w[pn.indices]
        out[c0:c1] = np.bincount(rows, weights=wv * (np.abs(pn.data - qv) - np.abs(qv)), minlength=c1 - c0) + base
    out[totals == 0] = np.nan
    return _exact_zeros(out)


# ----------------------------------------------------------------------------- single distributions
def emd_single(p: np.ndarray, q: np.ndarray, distance: str, leaf_paths: np.ndarray | None = None) -> float:
    """EMD between two distributions over the same domain (convenience for tests and tools)."""
    counts = sp.csr_matrix(np.asarray(p, dtype=float).reshape(1, -1))
    q = np.asarray(q, dtype=float)
    if distance == "ordered":
        return float(emd_ordered(counts, q)[0])
    if distance == "equal":
        return float(emd_equal(counts, q)[0])
    if distance == "hierarchical":
        return float(emd_hierarchical(counts, q, leaf_paths)[0])
    raise ValueError(f"unknown ground distance {distance!r}")
