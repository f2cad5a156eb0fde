"""The Greedy Anonymization Algorithm (GAA) of Mauger, Le Mahec & Dequen (TDP 16(3), 2023).

Local recoding by greedy class merging. Start from the release's equivalence classes; while some class
breaks the privacy model Phi (the policy's class-based error checks), take a smallest such class ``a``,
choose a partner ``b`` among all other classes with a *strategy*, and generalize both to their lowest
common ancestor (LCA) on every QI. The merged class is published with the LCA labels; if that label
vector is already another class's, that class joins too (the published table could not tell them
apart).

Merging cost (from the cost matrices of :mod:`privaudit.remediation.generalization.metrics`): the information lost
by the records of both classes,

    cost(a, b) = |a| * sum_j M_j(a_j, LCA_j) + |b| * sum_j M_j(b_j, LCA_j),   M_j(u, w) = C_j(w) - C_j(u),

computed for ``a`` against every class at once: per QI, the LCA of ``a_j`` with every node of the
hierarchy is one vector (:meth:`AttributeDomain.lca_with`), gathered at the classes' nodes -- one
numpy gather per QI and merge, no loop over classes or records.

Strategies (``l`` = distinct sensitive values of the merged class, ``t`` = EMD between the merged
class's sensitive distribution and the table's, with the ground distance of the policy's t-closeness
check on that column, else the ``auto`` choice):

* S1 cost only;            S2 cost, ties by larger l;     S3 larger l, ties by cost;   S4 cost / l;
* S5 cost, ties by smaller t;  S6 smaller t, ties by cost;  S7 cost x t (ties by cost).

Remaining ties go to the class listed first (classes are numbered in sorted key order, merged classes
after them), so the result is deterministic. If every record ends in one class that still breaks Phi,
GAA stops with a note (generalization alone cannot satisfy the policy).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import scipy.sparse as sp

from privaudit.risk import emd
from privaudit.core.summary import group_sorted, pack_keys
from privaudit.remediation.generalization.metrics import CostModel
from privaudit.remediation.generalization.model import ClassModel
from privaudit.remediation.generalization.problem import GeneralizationProblem

STRATEGIES = ("S1", "S2", "S3", "S4", "S5", "S6", "S7")
_NEEDS_L = ("S2", "S3", "S4")
_NEEDS_T = ("S5", "S6", "S7")
_TOL = 1e-9
MAX_COUNT_CELLS = 50_000_000  # dense per-class sensitive counts (int64): 400 MB at most


@dataclass
class GAAResult:
    nodes: np.ndarray  # (n, q) published canonical node ids
    merges: int
    classes_before: int
    classes_after: int
    satisfied: bool  # every class satisfies Phi (as the class model sees it)
    sensitive: str | None = None
    notes: list[str] = field(default_factory=list)


def strategy_column(problem: GeneralizationProblem, strategy: str, sensitive: str | None) -> tuple[str | None, str]:
    """The sensitive column (and EMD ground distance) a strategy reads; (None, "") for S1."""
    policy = problem.policy
    if strategy not in _NEEDS_L + _NEEDS_T:
        return None, ""
    wanted = "l_diversity" if strategy in _NEEDS_L else "t_closeness"
    column, distance = sensitive, None
    for check in (c for c in policy.checks if c.severity == "error"):
        if check.assessor.name == wanted and (column is None or check.params.sensitive == column):
            column = check.params.sensitive
            if wanted == "t_closeness":
                distance = emd.ground_distance(column, policy, check.params.distance)
            break
    if column is None:
        if not policy.sensitive:
            raise ValueError(f"strategy {strategy} needs a sensitive column, and the policy has none")
        column = policy.sensitive[0]
    if column not in policy.sensitive:
        raise ValueError(f"sensitive: {column!r} is not a sensitive column of the policy")
    if distance is None:
        distance = emd.ground_distance(column, policy)
    return column, distance


def gaa(problem: GeneralizationProblem, costs: CostModel, model: ClassModel, strategy: str = "S1",
        sensitive: str | None = None, progress: Callable[[str, int, int], None] | None = None) -> GAAResult:
    """Run GAA on ``problem`` with the merge costs of ``costs`` and the privacy model ``model``."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r} (use one of {', '.join(STRATEGIES)})")
    column, distance = strategy_column(problem, strategy, sensitive)
    domains = problem.domains
    q = len(domains)
    nodes = problem.nodes
    n = len(nodes)
    if n == 0:
        return GAAResult(nodes.copy(), 0, 0, 0, True, column)
    key = pack_keys([(nodes[:, j], d.n_nodes) for j, d in enumerate(domains)], n)
    class_of, sizes, first = group_sorted(key)
    nc = len(sizes)
    cap = 2 * nc + 1
    width = sum(sc.counts.shape[1] for sc in model.template.sensitive.values())
    if cap * width > MAX_COUNT_CELLS:
        raise ValueError(f"GAA keeps per-class counts of the sensitive values ({nc:,} classes x {width:,} distinct "
                         "sensitive values is too large); use algorithm=lattice")
    partners = _PartnerCosts(domains, costs)
    state = _State(cap, q, model, costs, partners)
    state.add_initial(nodes[first], sizes, model.dense_counts(class_of, nc))
    notes: list[str] = []
    if column is not None:
        sc = model.template.sensitive[column]
        q_dist = sc.total / max(sc.total.sum(), 1)
        paths = problem.policy.hierarchies[column].leaf_ancestors(list(sc.values)) if distance == "hierarchical" \
            else None
    merges = 0
    while True:
        a = state.pop_smallest_violating()
        if a is None:
            break
        if state.n_alive == 1:
            notes.append("every record is in one class and it still breaks the policy: generalization alone "
                         "cannot satisfy it")
            break
        n_act = state.n_act
        slots = state.act_slots[:n_act]
        total = partners.lca_costs(state.R[a], state.B_act[:, :n_act])
        # cost(a, b) = |a| (sum_j C_j(LCA_j) - CC_a) + |b| (sum_j C_j(LCA_j) - CC_b); dead slots get +inf
        sa = float(state.size[a])
        cost = total - state.CC_act[:n_act]
        cost *= state.size_act[:n_act]
        cost += sa * (total - state.CC[a])
        cost += state.dead_act[:n_act]
        cost[state.pos_of[a]] = np.inf
        if column is None:  # S1: least cost; near-equal costs (summed in another order) tie, first wins
            best = cost.min()
            pick = int(np.argmax(cost <= best + _TOL * max(1.0, abs(best))))
        else:
            usable = np.isfinite(cost)
            merged = state.counts[column][slots] + state.counts[column][a]
            if strategy in _NEEDS_L:
                other = (merged > 0).sum(axis=1).astype(float)
            else:
                other = _emd_rows(merged, q_dist, distance, paths)
            pick = _choose(strategy, cost, other, usable)
        b = int(slots[pick])
        lca = partners.lca(state.R[a], state.R[b])
        state.merge(a, b, lca)
        merges += 1
        if progress is not None and merges % 256 == 0:
            progress("generalizing (GAA)", merges, nc)
    final = state.final_slots()[:nc]
    out = state.R[final[class_of]]
    alive = np.flatnonzero(state.alive)
    satisfied = not state.bad[alive].any()
    return GAAResult(out, merges, nc, int(state.n_alive), satisfied, column, notes)


def _emd_rows(merged: np.ndarray, q_dist: np.ndarray, distance: str, paths) -> np.ndarray:
    counts = sp.csr_matrix(merged)
    if distance == "ordered":
        out = emd.emd_ordered(counts, q_dist)
    elif distance == "equal":
        out = emd.emd_equal(counts, q_dist)
    else:
        out = emd.emd_hierarchical(counts, q_dist, paths)
    return np.nan_to_num(out, nan=0.0)


def _choose(strategy: str, cost: np.ndarray, other: np.ndarray, usable: np.ndarray) -> int:
    """Index of the partner chosen by ``strategy`` (``other`` is l for S2-S4, t for S5-S7)."""

    def near_min(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
        best = values[mask].min()
        return mask & (values <= best + _TOL * max(1.0, abs(best)))

    if strategy == "S2":  # cost, then larger l
        tied = np.flatnonzero(near_min(cost, usable))
        return int(tied[np.argmax(other[tied])])
    if strategy == "S3":  # larger l, then cost
        tied = usable & (other >= other[usable].max())
        return int(np.argmin(np.where(tied, cost, np.inf)))
    if strategy == "S4":  # cost / l
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(other > 0, cost / np.where(other > 0, other, 1.0), np.inf)
        ratio = np.where(usable, ratio, np.inf)
        if not np.isfinite(ratio).any():
            return int(np.argmin(cost))
        return int(np.argmin(ratio))
    if strategy == "S5":  # cost, then smaller t
        tied = np.flatnonzero(near_min(cost, usable))
        return int(tied[np.argmin(other[tied])])
    if strategy == "S6":  # smaller t, then cost
        tied = near_min(other, usable)
        return int(np.argmin(np.where(tied, cost, np.inf)))
    if strategy == "S7":  # cost x t, then cost
        product = np.where(usable, cost * other, np.inf)
        tied = np.flatnonzero(near_min(product, usable))
        return int(tied[np.argmin(cost[tied])])
    raise ValueError(f"unknown strategy {strategy!r}")  # pragma: no cover


class _State:
    """Classes as slots (never reused): QI node vectors, sizes, sensitive counts, violation flags.

    Alive slots are also kept in a compacted copy of their block codes (``B_act``, see
    :class:`_PartnerCosts`) so scanning all partners is one contiguous gather per block of QIs.
    """

    def __init__(self, cap: int, q: int, model: ClassModel, costs: CostModel, partners: "_PartnerCosts"):
        self.model, self.costs, self.q, self.partners = model, costs, q, partners
        self.R = np.zeros((cap, q), dtype=np.int64)
        self.size = np.zeros(cap, dtype=np.int64)
        self.CC = np.zeros(cap)  # sum over QIs of C_j(node): the cost of one record of the class
        self.alive = np.zeros(cap, dtype=bool)
        self.bad = np.zeros(cap, dtype=bool)
        self.parent = np.arange(cap)
        self.counts = {c: None for c in model.columns}
        self.cap = cap
        self.next = 0
        self.n_alive = 0
        self.keys: dict[bytes, int] = {}
        self.verdicts: dict[bytes, bool] = {}
        self.heap: list[tuple[int, int]] = []
        self.B_act = np.zeros((len(partners.blocks), cap), dtype=np.int64)
        self.act_slots = np.zeros(cap, dtype=np.int64)
        self.alive_act = np.zeros(cap, dtype=bool)
        self.dead_act = np.zeros(cap)  # 0 for alive entries, +inf for dead ones
        self.size_act = np.zeros(cap)
        self.CC_act = np.zeros(cap)
        self.pos_of = np.full(cap, -1, dtype=np.int64)
        self.n_act = 0

    def _class_cost(self, R: np.ndarray) -> np.ndarray:
        return sum(c[R[:, j]] for j, c in enumerate(self.costs.costs)) if self.q else np.zeros(len(R))

    def add_initial(self, R: np.ndarray, sizes: np.ndarray, counts: dict[str, np.ndarray]) -> None:
        nc = len(sizes)
        self.R[:nc] = R
        self.size[:nc] = sizes
        self.CC[:nc] = self._class_cost(R)
        for column, dense in counts.items():
            self.counts[column] = np.zeros((self.cap, dense.shape[1]), dtype=np.int64)
            self.counts[column][:nc] = dense
        self.alive[:nc] = True
        self.bad[:nc] = self.model.violations(sizes, counts)
        self.keys = {R[i].tobytes(): i for i in range(nc)}
        self.heap = [(int(sizes[i]), i) for i in np.flatnonzero(self.bad[:nc])]
        heapq.heapify(self.heap)
        self.next = self.n_alive = nc
        self.B_act[:, :nc] = self.partners.block_codes(R)
        self.act_slots[:nc] = np.arange(nc)
        self.alive_act[:nc] = True
        self.size_act[:nc] = sizes
        self.CC_act[:nc] = self.CC[:nc]
        self.pos_of[:nc] = np.arange(nc)
        self.n_act = nc

    def _violates(self, slot: int) -> bool:
        """Phi for one class; a class-level verdict depends only on its size and sensitive counts (cached)."""
        rows = {c: d[slot:slot + 1] for c, d in self.counts.items()}
        key = b"".join([int(self.size[slot]).to_bytes(8, "little")] + [r.tobytes() for r in rows.values()])
        verdict = self.verdicts.get(key)
        if verdict is None:
            verdict = self.verdicts[key] = bool(self.model.violations(self.size[slot:slot + 1], rows)[0])
        return verdict

    def pop_smallest_violating(self) -> int | None:
        while self.heap:
            _, slot = heapq.heappop(self.heap)
            if self.alive[slot] and self.bad[slot]:
                return slot
        return None

    def merge(self, a: int, b: int, lca: np.ndarray) -> int:
        key = lca.tobytes()
        members = {a, b}
        other = self.keys.get(key)
        if other is not None:
            members.add(other)
        members = sorted(members)
        new = self.next
        self.next += 1
        self.R[new] = lca
        self.size[new] = self.size[members].sum()
        for column, dense in self.counts.items():
            dense[new] = dense[members].sum(axis=0)
        self.CC[new] = sum(float(c[lca[j]]) for j, c in enumerate(self.costs.costs))
        for s in members:
            self.alive[s] = False
            self.parent[s] = new
            self.alive_act[self.pos_of[s]] = False
            self.dead_act[self.pos_of[s]] = np.inf
            self.keys.pop(self.R[s].tobytes(), None)
        self.keys[key] = new
        self.alive[new] = True
        self.n_alive -= len(members) - 1
        self.bad[new] = self._violates(new)
        if self.bad[new]:
            heapq.heappush(self.heap, (int(self.size[new]), new))
        if self.n_act == self.cap or self.n_act > 1.25 * self.n_alive + 64:
            self._compact()
        i = self.n_act
        self.B_act[:, i] = self.partners.block_code(lca)
        self.act_slots[i] = new
        self.alive_act[i] = True
        self.dead_act[i] = 0.0
        self.size_act[i] = self.size[new]
        self.CC_act[i] = self.CC[new]
        self.pos_of[new] = i
        self.n_act += 1
        return new

    def _compact(self) -> None:
        keep = np.flatnonzero(self.alive_act[:self.n_act])
        k = len(keep)
        self.B_act[:, :k] = self.B_act[:, keep]
        self.act_slots[:k] = self.act_slots[keep]
        self.size_act[:k] = self.size_act[keep]
        self.CC_act[:k] = self.CC_act[keep]
        self.alive_act[:k] = True
        self.alive_act[k:] = False
        self.dead_act[:k] = 0.0
        self.pos_of[self.act_slots[:k]] = np.arange(k)
        self.n_act = k

    def final_slots(self) -> np.ndarray:
        """The alive slot every slot ended in (parents always have larger ids than their children)."""
        final = self.parent.copy()
        for s in range(self.next - 1, -1, -1):
            p = final[s]
            if p != s:
                final[s] = final[p]
        return final


class _PartnerCosts:
    """sum_j C_j(LCA(a_j, b_j)) for one class ``a`` against many classes ``b``, vectorised.

    Per QI with at most ``TABLE_LIMIT`` nodes, the LCA of every node pair and its cost are tabulated
    once (the cost matrix of the whole hierarchy, internal nodes included). QIs are then grouped into
    blocks whose node-count product stays under ``BLOCK_LIMIT``: for class ``a`` a block's table
    ``T[b_1, ..., b_r] = sum_{j in block} G_j[a_j, b_j]`` is an outer sum of a few rows, and a class ``b``
    is read with one gather at its mixed-radix block code. Larger hierarchies get a block of their own
    and compute ``a_j``'s LCA row on the fly (:meth:`AttributeDomain.lca_with`).
    """

    TABLE_LIMIT = 2048
    BLOCK_LIMIT = 4096

    def __init__(self, domains, costs: CostModel):
        self.domains = domains
        self.costs = costs.costs
        self.lca_table: list[np.ndarray | None] = []
        self.cost_table: list[np.ndarray | None] = []
        for d, c in zip(domains, self.costs):
            if d.n_nodes <= self.TABLE_LIMIT:
                ids = np.arange(d.n_nodes)
                lca = d.lca(np.repeat(ids, d.n_nodes), np.tile(ids, d.n_nodes)).reshape(d.n_nodes, d.n_nodes)
                self.lca_table.append(lca)
                self.cost_table.append(c[lca])
            else:
                self.lca_table.append(None)
                self.cost_table.append(None)
        self.blocks: list[list[int]] = []
        current: list[int] = []
        product = 1
        for j, d in enumerate(domains):
            if self.cost_table[j] is None:
                self.blocks.append([j])
                continue
            if current and product * d.n_nodes > self.BLOCK_LIMIT:
                self.blocks.append(current)
                current, product = [], 1
            current.append(j)
            product *= d.n_nodes
        if current:
            self.blocks.append(current)
        self.radix = [np.array([int(np.prod([domains[i].n_nodes for i in block[k + 1:]])) for k in range(len(block))],
                               dtype=np.int64) for block in self.blocks]

    def block_codes(self, R: np.ndarray) -> np.ndarray:
        """(blocks, len(R)) mixed-radix code of each class's nodes within each block."""
        return np.vstack([R[:, block] @ radix for block, radix in zip(self.blocks, self.radix)]) if self.blocks \
            else np.zeros((0, len(R)), dtype=np.int64)

    def block_code(self, nodes: np.ndarray) -> list[int]:
        """Block codes of one class."""
        return [int(nodes[block] @ radix) for block, radix in zip(self.blocks, self.radix)]

    def lca_costs(self, a: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """sum_j C_j(LCA(a_j, b_j)) for every column of ``codes`` (block codes of the classes b)."""
        total = np.zeros(codes.shape[1])
        for k, block in enumerate(self.blocks):
            table = None
            for j in block:
                row = self.cost_table[j][a[j]] if self.cost_table[j] is not None else \
                    self.costs[j][self.domains[j].lca_with(int(a[j]))]
                table = row if table is None else np.add.outer(table, row).ravel()
            total += table[codes[k]]
        return total

    def lca(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The per-QI LCA vector of two classes."""
        out = np.empty(len(a), dtype=np.int64)
        for j, d in enumerate(self.domains):
            table = self.lca_table[j]
            out[j] = table[a[j], b[j]] if table is not None else d.lca(a[j:j + 1], b[j:j + 1])[0]
        return out
