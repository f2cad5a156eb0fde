"""Information-loss metrics of generalization, as weights on hierarchy edges (Mauger, Le Mahec & Dequen).

Seed paper: C. Mauger, G. Le Mahec, G. Dequen, "Optimizing Privacy and Data Utility: Metrics and
Strategies", Transactions on Data Privacy 16(3):153-189, 2023, Definitions 3-9. Its full text was not
available to us; what follows is our reading, built from the metrics' original papers, and every choice
is stated so it can be checked against the paper.

A metric puts a weight on every edge ``child -> parent`` of a QI's hierarchy. Generalizing value ``v``
to its ancestor ``a`` costs the sum of the weights on the path, so every node ``u`` has a cumulative cost
``C(u)`` (``C(leaf) = 0``) and ``cost(v, a) = C(a) - C(v)``. The cost matrix of Definition 3 is
``M(v, v') = cost(v, LCA(v, v'))`` over leaves: what ``v`` loses when it is merged with ``v'``.

With ``h`` the height of the QI's hierarchy, ``lambda(u)`` the level of node ``u`` (leaves 0, root h),
``|L(u)|`` the number of leaves below ``u`` and ``|A|`` the number of leaves of the hierarchy:

* ``LLM``  (level loss): every edge weighs 1, ``C(u) = lambda(u)``. Not normalised: a tall hierarchy
  (age, height 4) costs 4 at its root where sex costs 1.
* ``NLLM`` (normalised LLM): every edge weighs ``1/h``; ``C(root) = 1`` for every QI.
* ``WLLM`` / ``WNLLM``: LLM / NLLM times an attribute weight ``omega_j``, either
  ``w1 = 1 - (h_j - 1)^m / sum_i (h_i - 1)^m`` (``m`` a parameter, default 1; 1 for every QI when all
  heights are 1) or ``w2 = h_max / h_j`` (``h_max``: the tallest QI hierarchy). By default
  (``weighting="auto"``) WLLM uses w1 and WNLLM uses w2: w2 x LLM would be ``h_max`` x NLLM, the same
  ranking as NLLM, so we read the paper as pairing w1 with LLM and w2 with NLLM; either weight can be
  forced for both.
* ``Distortion`` (Li, Wong, Fu & Pei, "Achieving k-anonymity by clustering in attribute hierarchical
  structures", DaWaK 2006, weighted hierarchical distance): numbering levels from the root (1) down to
  the leaves (h+1), climbing from level i to i-1 weighs ``1/(i-1)^beta`` (beta = 1 by default), and the
  distance is normalised by the sum of all weights on a leaf-to-root path, so ``C(root) = 1`` and edges
  near the root weigh most. In our numbering, edge ``lambda -> lambda+1`` weighs
  ``(h - lambda)^-beta / sum_{i=1..h} i^-beta``.
* ``NCP`` (Xu, Wang, Pei, Wang, Shi & Fu, "Utility-based anonymization using local recoding",
  KDD 2006): ``C(u) = |L(u)| / |A|`` when ``|L(u)| > 1``, else 0; ``C(root) = 1``.
* ``Total``: Iyengar's loss metric (KDD 2002), ``C(u) = (|L(u)| - 1) / (|A| - 1)``; ``C(root) = 1``.
  (Our reading of the paper's "Total"; it counts the leaves a published value could stand for.)

NCP, Total, Distortion and NLLM (and WNLLM up to the attribute weight) have the normalisation step: the
root costs 1 on every QI. A suppressed or missing QI value costs ``C(root)``.

Definition 7, alteration: ``100 * cost(T_gen) / cost(T*)`` with ``cost(T) = sum over records and QIs
of C(published node)`` and ``T*`` the table with every QI at its root (``n * sum_j C_j(root)``).
Definition 9: the share of QI cells whose published value is generalized (above the leaf level, or
missing) and the share at the root (root or missing). Costs are of the published table, counted from
the leaf level: a value that was already generalized in the input counts with its own cost.
"""

from __future__ import annotations

from typing import Literal, Sequence

import numpy as np

from privaudit.remediation.generalization.domain import AttributeDomain

Metric = Literal["Distortion", "NCP", "Total", "LLM", "NLLM", "WLLM", "WNLLM"]
METRICS: tuple[str, ...] = ("Distortion", "NCP", "Total", "LLM", "NLLM", "WLLM", "WNLLM")
#: the metrics with a normalisation step (root cost 1 on every QI)
NORMALISED: tuple[str, ...] = ("Distortion", "NCP", "Total", "NLLM")


def attribute_weights(heights: Sequence[int], weighting: str = "w1", m: float = 1.0) -> np.ndarray:
    """Per-QI weights omega_j of WLLM/WNLLM: ``w1`` = 1 - (h_j-1)^m / sum_i (h_i-1)^m, ``w2`` = h_max / h_j."""
    h = np.asarray(heights, dtype=float)
    if weighting == "w1":
        excess = np.maximum(h - 1.0, 0.0) ** m
        total = excess.sum()
        return 1.0 - excess / total if total > 0 else np.ones_like(h)
    if weighting == "w2":
        return np.where(h > 0, h.max(initial=0.0) / np.where(h > 0, h, 1.0), 0.0)
    raise ValueError(f"unknown weighting {weighting!r} (use w1 or w2)")


def resolve_weighting(metric: str, weighting: str = "auto") -> str:
    """``auto`` -> w1 for WLLM (and the unweighted metrics), w2 for WNLLM."""
    if weighting != "auto":
        return weighting
    return "w2" if metric == "WNLLM" else "w1"


def node_costs(domain: AttributeDomain, metric: str, weight: float = 1.0, beta: float = 1.0) -> np.ndarray:
    """Cumulative cost ``C(u)`` of every node of ``domain`` (the ``missing`` node costs ``C(root)``).

    ``weight`` is omega_j (used by WLLM and WNLLM only); ``beta`` is Distortion's exponent.
    """
    h = domain.height
    level = domain.level.astype(float)
    if metric in ("LLM", "NLLM", "WLLM", "WNLLM"):
        cost = level.copy()
        if metric in ("NLLM", "WNLLM"):
            cost = cost / h if h > 0 else np.zeros_like(cost)
        if metric in ("WLLM", "WNLLM"):
            cost = cost * weight
    elif metric == "Distortion":
        if h == 0:
            cost = np.zeros_like(level)
        else:
            edge = np.arange(h, 0, -1, dtype=float) ** -beta  # edge lambda -> lambda+1, lambda = 0..h-1
            cumulative = np.concatenate(([0.0], np.cumsum(edge))) / edge.sum()
            cost = cumulative[domain.level]
    elif metric == "NCP":
        size = domain.leaves_under.astype(float)
        cost = np.where(size > 1, size / max(domain.n_leaves, 1), 0.0)
    elif metric == "Total":
        size = domain.leaves_under.astype(float)
        cost = (size - 1) / (domain.n_leaves - 1) if domain.n_leaves > 1 else np.zeros_like(size)
    else:
        raise ValueError(f"unknown metric {metric!r} (use one of {', '.join(METRICS)})")
    cost = np.asarray(cost, dtype=float)
    cost[domain.missing] = cost[domain.ancestors[0, h]] if domain.n_nodes > 1 else 0.0
    # a node published as missing costs what the root costs
    return cost[domain.canonical]


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

    def __init__(self, domains: Sequence[AttributeDomain], metric: str, weighting: str = "auto",
                 m: float = 1.0, beta: float = 1.0):
        self.metric = metric
        self.domains = list(domains)
        self.weighting = resolve_weighting(metric, weighting)
        self.weights = attribute_weights([d.height for d in self.domains], self.weighting, m)
        self.costs = [node_costs(d, metric, w, beta) for d, w in zip(self.domains, self.weights)]
        self.root_costs = np.array([c[d.missing] for c, d in zip(self.costs, self.domains)])

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


def all_metrics(domains: Sequence[AttributeDomain], nodes: np.ndarray, weighting: str = "auto", m: float = 1.0,
                beta: float = 1.0) -> dict[str, object]:
    """Every figure the report shows for a generalized table: alteration under each metric and Def. 9."""
    alteration = {metric: CostModel(domains, metric, weighting, m, beta).alteration(nodes) for metric in METRICS}
    per_column = {}
    for j, d in enumerate(domains):
        level = d.level[nodes[:, j]]
        per_column[d.column] = {
            "generalized_values_pct": 100.0 * float((level > 0).mean()) if len(level) else 0.0,
            "root_values_pct": 100.0 * float((level >= d.height).mean()) if len(level) else 0.0,
        }
    return {"alteration_pct": alteration, **generalization_shares(domains, nodes), "per_column": per_column}
