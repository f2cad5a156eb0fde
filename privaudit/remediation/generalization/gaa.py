"""The Greedy Anonymization Algorithm (GAA) of Mauger, Le Mahec & Dequen (TDP 16(3), 2023; ../shared/seeds/003):
Algorithm 1 of Section 2.2 with the merging strategies S1-S7 of Section 4.2 (Definitions 15-17).

Local recoding by greedy class merging. Start from the release's equivalence classes; while some class
breaks the privacy model Phi (the policy's class-based error checks), take a smallest such class ``C_s``,
choose a partner ``C`` among all other classes with a *strategy*, and generalize both to their lowest
common ancestor (LCA) on every QI. The merged class is published with the LCA labels; if that label
vector is already another class's, that class joins too (the published table could not tell them
apart).

Merging cost: Definition 6's ``mu_bar(C_s, C) = sum_j M_j(s_j, c_j) + M_j(c_j, s_j)`` on the two classes'
label vectors, ``M_j(u, v) = C_j(LCA(u, v)) - C_j(u)`` (:mod:`privaudit.remediation.generalization.metrics`),
not weighted by the classes' sizes (Definition 17 compares ``mu_bar`` of the classes). It is computed for
``C_s`` against every class at once: per QI, the LCA of ``s_j`` with every node is one vector, gathered at
the classes' nodes -- one numpy gather per QI and merge, no loop over classes or records.

Strategies (Definition 17). ``l_div`` and ``t_clo`` are values of the *whole table* after the candidate
merge (Definitions 11, 14 and 15-16): ``l_div(T)`` = the smallest, over its classes, of the entropy
l-diversity ``exp(-sum_s p ln p)``; ``t_clo(T)`` = the largest, over its classes, of the norm-1 distance
``sum_s |p_C(s) - p_T(s)|`` between the class's and the table's sensitive distributions:

* S1 mu_bar;                 S2 mu_bar, ties by larger l_div;   S3 larger l_div, ties by mu_bar;
* S4 mu_bar / l_div;         S5 mu_bar, ties by smaller t_clo;  S6 smaller t_clo, ties by mu_bar;
* S7 mu_bar x t_clo (ties by mu_bar).

The table after merging ``C_s`` with ``C`` is evaluated as ``C_s`` and ``C`` replaced by their union; a
third class already published with the union's labels joins at the merge (above) but is not anticipated
while choosing. Remaining ties go to the class listed first (classes are numbered in sorted key order,
merged classes after them), so the result is deterministic. If every record ends in one class that still
breaks Phi, GAA stops with a note (generalization alone cannot satisfy the policy).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

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


def strategy_column(problem: GeneralizationProblem, strategy: str, sensitive: str | None) -> str | None:
    """The sensitive column a strategy reads (None for S1): ``sensitive``, else the column of the policy's
    l-diversity (S2-S4) or t-closeness (S5-S7) error check, else the policy's first sensitive column."""
    policy = problem.policy
    if strategy not in _NEEDS_L + _NEEDS_T:
        return None
    wanted = "diversity" if strategy in _NEEDS_L else "max_distance"  # the ClassRule field the strategy balances
    column = sensitive
    if column is None:
        rules = (c.assessor.rule(c.params, policy) for c in policy.checks if c.severity == "error")
        column = next((next(iter(getattr(r, wanted))) for r in rules if r is not None and getattr(r, wanted)), None)
    if column is None:
        if not policy.sensitive:
            raise ValueError(f"strategy {strategy} needs a sensitive column, and the policy has none")
        column = policy.sensitive[0]
    if column not in policy.sensitive:
        raise ValueError(f"sensitive: {column!r} is not a sensitive column of the policy")
    return column


def gaa(
    problem: GeneralizationProblem,
    costs: CostModel,
    model: ClassModel,
    strategy: str = "S1",
    sensitive: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> GAAResult:
    """Run GAA on ``problem`` with the merge costs of ``costs`` and the privacy model ``model``."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r} (use one of {', '.join(STRATEGIES)})")
    column = strategy_column(problem, strategy, sensitive)
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
        raise ValueError(
            f"GAA keeps per-class counts of the sensitive values ({nc:,} classes x {width:,} distinct "
            "sensitive values is too large); use algorithm=lattice"
        )
    partners = _PartnerCosts(domains, costs)
    state = _State(cap, q, model, costs, partners)
    state.add_initial(nodes[first], sizes, model.dense_counts(class_of, nc))
    notes: list[str] = []
    if column is not None:
        sc = model.template.sensitive[column]
        q_dist = sc.total / max(sc.total.sum(), 1)
    merges = 0
    while True:
        a = state.pop_smallest_violating()
        if a is None:
            break
        if state.n_alive == 1:
            notes.append(
                "every record is in one class and it still breaks the policy: generalization alone cannot satisfy it"
            )
            break
        n_act = state.n_act
        slots = state.act_slots[:n_act]
        total = partners.lca_costs(state.R[a], state.B_act[:, :n_act])
        # cost(a, b) = |a| (sum_j C_j(LCA_j) - CC_a) + |b| (sum_j C_j(LCA_j) - CC_b); dead slots get +inf
        # mu_bar(a, b) = sum_j [C_j(LCA_j) - C_j(a_j)] + [C_j(LCA_j) - C_j(b_j)]; dead slots get +inf
        cost = 2.0 * total - state.CC_act[:n_act]
        cost -= state.CC[a]
        cost += state.dead_act[:n_act]
        cost[state.pos_of[a]] = np.inf
        if column is None:  # S1: least cost; near-equal costs (summed in another order) tie, first wins
            best = cost.min()
            pick = int(np.argmax(cost <= best + _TOL * max(1.0, abs(best))))
        else:
            usable = np.isfinite(cost)
            merged = state.counts[column][slots] + state.counts[column][a]
            per_class = state.class_value(column, slots[:n_act], strategy in _NEEDS_L, q_dist)
            if strategy in _NEEDS_L:  # l_div of the table: min over the merged class and all the others
                other = np.minimum(_entropy_l(merged), _extreme_without(per_class, usable, state.pos_of[a], min))
            else:  # t_clo of the table: max over the merged class and all the others
                other = np.maximum(
                    _l1_distance(merged, q_dist), _extreme_without(per_class, usable, state.pos_of[a], max)
                )
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


def _entropy_l(counts: np.ndarray) -> np.ndarray:
    """Definition 11 per row of sensitive counts: exp(-sum_s p ln p) (0 for a row with no values)."""
    counts = np.asarray(counts, dtype=float)
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(totals > 0, counts / np.where(totals > 0, totals, 1.0), 0.0)
        h = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=1)
    return np.where(totals[:, 0] > 0, np.exp(h), 0.0)


def _l1_distance(counts: np.ndarray, q_dist: np.ndarray) -> np.ndarray:
    """Definitions 12-14 per row: sum_s |p_C(s) - p_T(s)| (0 for a row with no values)."""
    counts = np.asarray(counts, dtype=float)
    totals = counts.sum(axis=1, keepdims=True)
    p = counts / np.where(totals > 0, totals, 1.0)
    return np.where(totals[:, 0] > 0, np.abs(p - q_dist[None, :]).sum(axis=1), 0.0)


def _extreme_without(values: np.ndarray, usable: np.ndarray, a_pos: int, which) -> np.ndarray:
    """For every candidate b: the min (``which=min``) or max of ``values`` over the alive classes other than
    ``a`` and ``b`` (+inf for min, -inf for max when there are none), from the two most extreme values."""
    fill = np.inf if which is min else -np.inf
    v = np.where(usable, values, fill)
    if a_pos >= 0:
        v[a_pos] = fill
    if len(v) == 0:
        return v
    order = np.argsort(v if which is min else -v, kind="stable")[:2]
    first = v[order[0]]
    second = v[order[1]] if len(order) > 1 else fill
    out = np.full(len(v), first)
    out[order[0]] = second
    return out


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
        with np.errstate(invalid="ignore"):  # inf (unusable) x 0 is NaN, replaced below
            product = np.where(usable, cost * other, np.inf)
        tied = np.flatnonzero(near_min(product, usable))
        return int(tied[np.argmin(cost[tied])])
    raise ValueError(f"unknown strategy {strategy!r}")  # pragma: no cover


class _State:
    """Classes as slots (never reused): QI node vectors, sizes, sensitive counts, violation flags.

    Alive slots are also kept in a compacted copy of their block codes (``B_act``, see
    :class:`_PartnerCosts`) so scanning all partners is one contiguous gather per block of QIs.
    """

    def __init__(self, cap: int, q: int, model: ClassModel, costs: CostModel, partners: _PartnerCosts):
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

    def class_value(self, column: str, slots: np.ndarray, entropy: bool, q_dist: np.ndarray) -> np.ndarray:
        """Each class's own l_div (``entropy``) or t_clo (against the table's distribution ``q_dist``)."""
        counts = self.counts[column][slots]
        return _entropy_l(counts) if entropy else _l1_distance(counts, q_dist)

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
        rows = {c: d[slot : slot + 1] for c, d in self.counts.items()}
        key = b"".join([int(self.size[slot]).to_bytes(8, "little")] + [r.tobytes() for r in rows.values()])
        verdict = self.verdicts.get(key)
        if verdict is None:
            verdict = self.verdicts[key] = bool(self.model.violations(self.size[slot : slot + 1], rows)[0])
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
        for _column, dense in self.counts.items():
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
        keep = np.flatnonzero(self.alive_act[: self.n_act])
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
        for d, c in zip(domains, self.costs, strict=False):
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
        self.radix = [
            np.array(
                [int(np.prod([domains[i].n_nodes for i in block[k + 1 :]])) for k in range(len(block))], dtype=np.int64
            )
            for block in self.blocks
        ]

    def block_codes(self, R: np.ndarray) -> np.ndarray:
        """(blocks, len(R)) mixed-radix code of each class's nodes within each block."""
        return (
            np.vstack([R[:, block] @ radix for block, radix in zip(self.blocks, self.radix, strict=False)])
            if self.blocks
            else np.zeros((0, len(R)), dtype=np.int64)
        )

    def block_code(self, nodes: np.ndarray) -> list[int]:
        """Block codes of one class."""
        return [int(nodes[block] @ radix) for block, radix in zip(self.blocks, self.radix, strict=False)]

    def lca_costs(self, a: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """sum_j C_j(LCA(a_j, b_j)) for every column of ``codes`` (block codes of the classes b)."""
        total = np.zeros(codes.shape[1])
        for k, block in enumerate(self.blocks):
            table = None
            for j in block:
                row = (
                    self.cost_table[j][a[j]]
                    if self.cost_table[j] is not None
                    else self.costs[j][self.domains[j].lca_with(int(a[j]))]
                )
                table = row if table is None else np.add.outer(table, row).ravel()
            total += table[codes[k]]
        return total

    def lca(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The per-QI LCA vector of two classes."""
        out = np.empty(len(a), dtype=np.int64)
        for j, d in enumerate(self.domains):
            table = self.lca_table[j]
            out[j] = table[a[j], b[j]] if table is not None else d.lca(a[j : j + 1], b[j : j + 1])[0]
        return out
