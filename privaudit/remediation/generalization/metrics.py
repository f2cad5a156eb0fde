"""Information-loss metrics of generalization, as weights on hierarchy edges (Mauger, Le Mahec & Dequen,
"Optimizing Privacy and Data Utility: Metrics and Strategies", TDP 16(3), 2023; ../shared/seeds/003).

Definition 3: a metric puts a weight ``omega(x, x')`` on every edge from a node ``x`` to its parent ``x'``.
Definition 4: generalizing ``v`` to its ancestor ``v'`` costs the weights on the path, so every node ``u``
has a cumulative cost ``C(u)`` (``C(leaf) = 0``) and ``cost(v, v') = C(v') - C(v)``. Definition 5: the cost
matrix ``M(v, v') = cost(v, LCA(v, v'))``. Definition 6: two records generalized together cost
``sum_j M(f_j, f'_j) + M(f'_j, f_j)``; a generalized table costs the sum over its records of the cost
from the original record to the published one. Definition 7: alteration = 100 x cost(T_gen) / cost(T*),
``T*`` every QI at its root.

Section 3.2 gives the seven metrics by their edge weights. With ``h`` the height of the QI's hierarchy --
the number of nodes on its longest path, one more than its edges -- ``lvl(x)`` the level of ``x`` (leaves
0, root ``h - 1``), ``nl(x)`` the leaves below ``x`` and ``r`` the root:

==========  ===================================================================  ==============
metric      omega(x, x')                                                         C(u)
==========  ===================================================================  ==============
Distortion  (1 / (h - lvl(x'))) / sum_{i=1}^{h-1} 1 / (h - i)  x  w1             see below
NCP         (nl(x') - nl(x)) / nl(r)                                             (nl(u)-1)/nl(r)
Total       (lvl(x') - lvl(x)) / (h - 1)                                         lvl(u)/(h-1)
LLM         (nl(x') - nl(x))  x  w2                                              (nl(u)-1) w2
NLLM        (nl(x') - nl(x)) / nl(r)  x  w2                                      (nl(u)-1)/nl(r) w2
WLLM        (nl(x') - nl(x))  x  w1                                              (nl(u)-1) w1
WNLLM       (nl(x') - nl(x)) / nl(r)  x  w1                                      (nl(u)-1)/nl(r) w1
==========  ===================================================================  ==============

Definition 8's attribute weights, over the m quasi-identifiers: ``w1(Q_j) = 1 - (h_j - 1)^m / sum_i
(h_i - 1)^m`` (the exponent is the number of QIs; 1 for every QI when every hierarchy is a single node)
and ``w2(Q_j) = h_max / h_j``. Distortion's edge into a parent at level ``p`` weighs ``1/(h - p)``
normalised so that a leaf-to-root path sums to 1 (times w1): edges near the root weigh most.

Options beyond the paper (documented in :class:`privaudit.remediation.methods.generalize`): ``weighting``
forces w1 or w2 on every weighted metric (``auto`` is the paper's pairing above), ``m`` replaces w1's
exponent, ``beta`` raises Distortion's ``1/(h - p)`` to a power (1 in the paper).

Beyond the seven (not in the paper):

* ``Weights`` -- Definition 3 in its general form: the hierarchy's own explicit edge weights (see
  :mod:`privaudit.core.hierarchy`; unlisted edges weigh 1, padding edges of an uneven tree 0). Definition
  4's ``cost(v, v')`` is the weight of the path, ``R(v) - R(v')`` with ``R(u)`` the weight from ``u`` up
  to the root, so the node cost is ``C(u) = R_max - R(u)`` with ``R_max`` the largest ``R`` of a leaf:
  exact for every cost matrix, merge cost and comparison of tables; when leaves lie at different weighted
  distances from the root a table's absolute cost counts each record from ``R_max`` (documented deviation).
  Example 1 (Cat, Lion, Dog, Felid, Mammal; weights 1, 1, 4, 3) gives the paper's cost matrix.
* ``Loss`` and ``Precision`` -- ARX's names (ARX 3.9, arithmetic-mean aggregation): Iyengar's loss
  ``(nl(u) - 1) / (nl(r) - 1)`` and Sweeney's precision ``lvl(u) / height`` (height: the root's level),
  each QI weighing 1, so Definition 7's alteration is 100 x ARX's figure (mean over records and QIs).

A suppressed or missing QI value costs ``C(root)``. Definition 9: the share of QI cells whose published
value is generalized (above the leaf level, or missing) and the share at the root (root or missing).
Costs are of the published table, counted from the leaf level: a value that was already generalized in
the input counts with its own cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from privaudit.remediation.generalization.domain import AttributeDomain

Metric = Literal["Distortion", "NCP", "Total", "LLM", "NLLM", "WLLM", "WNLLM"]
METRICS: tuple[str, ...] = ("Distortion", "NCP", "Total", "LLM", "NLLM", "WLLM", "WNLLM")
#: metrics beyond the paper's seven: Definition 3 with the hierarchy's own weights, and ARX's Loss and Precision
EXTRA_METRICS: tuple[str, ...] = ("Weights", "Loss", "Precision")
ALL_METRICS: tuple[str, ...] = METRICS + EXTRA_METRICS
#: the metrics whose node cost is normalised (Table 2 of the paper)
NORMALISED: tuple[str, ...] = ("Distortion", "NCP", "Total", "NLLM", "WNLLM")
#: Definition 8's weighting each metric uses (Section 3.2; NCP and Total use none)
PAPER_WEIGHTING = {"Distortion": "w1", "LLM": "w2", "NLLM": "w2", "WLLM": "w1", "WNLLM": "w1"}


def attribute_weights(heights: Sequence[int], weighting: str = "w1", m: float | None = None) -> np.ndarray:
    """Definition 8 over QIs whose hierarchies have ``heights`` (nodes on the longest path):
    ``w1`` = 1 - (h_j - 1)^m / sum_i (h_i - 1)^m with ``m`` the number of QIs unless given,
    ``w2`` = h_max / h_j."""
    h = np.asarray(heights, dtype=float)
    if weighting == "w1":
        exponent = float(len(h)) if m is None else float(m)
        excess = np.maximum(h - 1.0, 0.0) ** exponent
        total = excess.sum()
        return 1.0 - excess / total if total > 0 else np.ones_like(h)
    if weighting == "w2":
        return np.where(h > 0, h.max(initial=0.0) / np.where(h > 0, h, 1.0), 0.0)
    raise ValueError(f"unknown weighting {weighting!r} (use w1 or w2)")


def resolve_weighting(metric: str, weighting: str = "auto") -> str | None:
    """The weighting ``metric`` is multiplied by: the paper's (``auto``), or the one forced; None for the
    unweighted NCP and Total."""
    if metric not in PAPER_WEIGHTING:
        return None
    return PAPER_WEIGHTING[metric] if weighting == "auto" else weighting


def node_costs(domain: AttributeDomain, metric: str, weight: float = 1.0, beta: float = 1.0) -> np.ndarray:
    """Cumulative cost ``C(u)`` of every node of ``domain`` under ``metric`` (Section 3.2), the attribute
    weight ``weight`` (w1 or w2) applied; the ``missing`` node costs ``C(root)``."""
    edges = domain.height  # the paper's h - 1
    level = domain.level.astype(float)
    lost = np.maximum(domain.leaves_under.astype(float) - 1.0, 0.0)  # nl(u) - nl(leaf)
    n_root = float(max(domain.n_leaves, 1))
    if metric in ("LLM", "WLLM"):
        cost = lost * weight
    elif metric in ("NCP", "NLLM", "WNLLM"):
        cost = lost / n_root * (1.0 if metric == "NCP" else weight)
    elif metric in ("Total", "Precision"):  # Precision (Sweeney, ARX) is Total without the paper's h - 1 naming
        cost = level / edges if edges > 0 else np.zeros_like(level)
    elif metric == "Loss":
        cost = lost / (n_root - 1.0) if n_root > 1 else np.zeros_like(level)
    elif metric == "Weights":
        cost = weighted_node_costs(domain)
    elif metric == "Distortion":
        if edges == 0:
            cost = np.zeros_like(level)
        else:
            h = edges + 1
            edge = (1.0 / (h - np.arange(1, h))) ** beta  # edge into a parent at level p = 1 .. h-1
            cumulative = np.concatenate(([0.0], np.cumsum(edge))) / edge.sum()
            cost = cumulative[domain.level] * weight
    else:
        raise ValueError(f"unknown metric {metric!r} (use one of {', '.join(ALL_METRICS)})")
    cost = np.asarray(cost, dtype=float)
    cost[domain.missing] = cost[domain.ancestors[0, edges]] if domain.n_nodes > 1 else 0.0
    # a node published as missing costs what the root costs
    return cost[domain.canonical]


def weighted_node_costs(domain: AttributeDomain) -> np.ndarray:
    """``C(u) = R_max - R(u)`` (Definitions 3-4): ``R(u)`` the summed explicit weights from ``u`` up to the
    root. Without explicit weights every edge weighs 1, except an edge to a node of the same label (the
    padding of an uneven tree, or a repeated label), which weighs 0."""
    n = domain.n_nodes
    tree = np.arange(n - 1)
    if domain.edge_weight is not None:
        weight = np.nan_to_num(domain.edge_weight, nan=0.0)
    else:
        weight = np.zeros(n)
        below = tree[domain.level[:-1] < domain.height]
        parents = domain.ancestors[below, domain.level[below] + 1]
        weight[below] = np.where(domain.labels[parents] == domain.labels[below], 0.0, 1.0)
    up = np.zeros(n)
    for level in range(domain.height - 1, -1, -1):  # R(u) = R(parent) + omega(u, parent), root first
        nodes = tree[domain.level[:-1] == level]
        up[nodes] = up[domain.ancestors[nodes, level + 1]] + weight[nodes]
    leaves = tree[domain.level[:-1] == 0]
    top = up[leaves].max(initial=0.0)
    cost = top - up
    cost[-1] = 0.0
    return cost


def edge_weights(domain: AttributeDomain, costs: np.ndarray) -> np.ndarray:
    """Weight of the edge from every non-root tree node to its parent: ``C(parent) - C(node)``.

    Returned over node ids; the root and the ``missing`` node get NaN.
    """
    out = np.full(domain.n_nodes, np.nan)
    below_root = np.flatnonzero(domain.level[:-1] < domain.height)
    parents = domain.ancestors[below_root, domain.level[below_root] + 1]
    out[below_root] = costs[parents] - costs[below_root]
    return out


def cost_matrix(domain: AttributeDomain, costs: np.ndarray, nodes: np.ndarray | None = None) -> np.ndarray:
    """``M[i, j] = C(LCA(v_i, v_j)) - C(v_i)`` over ``nodes`` (default: the leaves), vectorised."""
    nodes = domain.leaves if nodes is None else np.asarray(nodes, dtype=np.int64)
    k = len(nodes)
    u = np.repeat(nodes, k)
    v = np.tile(nodes, k)
    lca = domain.lca(u, v).reshape(k, k)
    return costs[lca] - costs[nodes][:, None]


class CostModel:
    """Node costs of every QI under one metric, and table-level figures (Definitions 7 and 9)."""

    def __init__(
        self,
        domains: Sequence[AttributeDomain],
        metric: str,
        weighting: str = "auto",
        m: float | None = None,
        beta: float = 1.0,
    ):
        self.metric = metric
        self.domains = list(domains)
        self.weighting = resolve_weighting(metric, weighting)
        heights = [d.height + 1 for d in self.domains]  # nodes on the longest path (the paper's h)
        self.weights = (
            attribute_weights(heights, self.weighting, m) if self.weighting is not None else np.ones(len(self.domains))
        )
        self.costs = [node_costs(d, metric, w, beta) for d, w in zip(self.domains, self.weights, strict=False)]
        self.root_costs = np.array([c[d.missing] for c, d in zip(self.costs, self.domains, strict=False)])

    def table_cost(self, nodes: np.ndarray) -> float:
        return float(sum(c[nodes[:, j]].sum() for j, c in enumerate(self.costs)))

    def top_cost(self, n_records: int) -> float:
        """cost(T*): every QI of every record at its root."""
        return float(n_records * self.root_costs.sum())

    def alteration(self, nodes: np.ndarray) -> float:
        """Definition 7: 100 * cost(T_gen) / cost(T*) (0 when T* costs nothing)."""
        top = self.top_cost(len(nodes))
        return 100.0 * self.table_cost(nodes) / top if top > 0 else 0.0


def generalization_shares(domains: Sequence[AttributeDomain], nodes: np.ndarray) -> dict[str, float]:
    """Definition 9: % of QI cells published above the leaf level, and % at the root (or missing)."""
    cells = nodes.size
    if cells == 0:
        return {"generalized_values_pct": 0.0, "root_values_pct": 0.0}
    generalized = root = 0
    for j, d in enumerate(domains):
        level = d.level[nodes[:, j]]
        generalized += int((level > 0).sum())
        root += int((level >= d.height).sum())
    return {"generalized_values_pct": 100.0 * generalized / cells, "root_values_pct": 100.0 * root / cells}


def all_metrics(
    domains: Sequence[AttributeDomain],
    nodes: np.ndarray,
    weighting: str = "auto",
    m: float | None = None,
    beta: float = 1.0,
) -> dict[str, object]:
    """Every figure the report shows for a generalized table: alteration under each metric and Def. 9.

    Each figure is a sum over records of a per-node quantity, so it is read off the per-column node counts
    (one ``bincount`` per column), not regathered from the (n, q) node matrix for each of the ten metrics."""
    n = len(nodes)
    counts = [np.bincount(nodes[:, j], minlength=d.n_nodes) for j, d in enumerate(domains)]
    alteration = {}
    for metric in ALL_METRICS:
        model = CostModel(domains, metric, weighting, m, beta)
        top = model.top_cost(n)
        cost = float(sum(float(c @ cost_j) for c, cost_j in zip(counts, model.costs, strict=False)))
        alteration[metric] = 100.0 * cost / top if top > 0 else 0.0
    per_column = {}
    generalized = root = 0
    for c, d in zip(counts, domains, strict=False):
        above, top_level = int(c[d.level > 0].sum()), int(c[d.level >= d.height].sum())
        generalized, root = generalized + above, root + top_level
        per_column[d.column] = {
            "generalized_values_pct": 100.0 * (above / n) if n else 0.0,
            "root_values_pct": 100.0 * (top_level / n) if n else 0.0,
        }
    cells = n * len(domains)
    shares = {
        "generalized_values_pct": 100.0 * generalized / cells if cells else 0.0,
        "root_values_pct": 100.0 * root / cells if cells else 0.0,
    }
    return {"alteration_pct": alteration, **shares, "per_column": per_column}
