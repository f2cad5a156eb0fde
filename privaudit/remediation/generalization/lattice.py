"""Optimal full-domain generalization: search the lattice of level vectors (Flash / OLA idea).

Full-domain generalization publishes every value of QI ``j`` at the same hierarchy level ``L_j``. The
candidate transformations are the level vectors ``(L_1, ..., L_q)`` with ``0 <= L_j <= h_j``, ordered
componentwise: a lattice from ``(0, ..., 0)`` to ``(h_1, ..., h_q)``.

**Privacy (Phi) is monotone on the lattice** for the class-based models privaudit ships: going up
merges classes, and k-anonymity, p-sensitivity, distinct/entropy/recursive l-diversity and EMD
t-closeness are all preserved by merging classes that satisfy them (Machanavajjhala et al. 2007; Li,
Li & Venkatasubramanian 2007, "generalization property"). With a suppression budget the useful
quantity is the number of records in violating classes, which only k-anonymity, p-sensitivity and
distinct l-diversity keep monotone (a violating class merged into a passing one can stay violating
under t-closeness or entropy l-diversity, with more records). The search tags each node *candidate*
when at most ``budget`` records are in classes breaking the *tagging checks* (every class-based error
check without suppression; only the suppression-monotone ones with a budget -- a necessary condition),
and uses monotonicity to infer tags (El Emam et al., OLA, JAMIA 2009; Kohlmayer et al., Flash, 2012):
a candidate's successors are candidates, a non-candidate's predecessors are not. Nodes are evaluated
along chains: take the lowest untagged node, walk up through untagged nodes to a maximal chain, and
binary-search the chain for its lowest candidate; repeat until every node is tagged.

**Speed (Flash's pruning).** :meth:`LatticeSearch.search` does not tag the whole lattice: it takes nodes in
increasing order of the lower bound ``gen(N)`` below and classifies each only when monotonicity has not
already (a chain binary search from it), so nodes whose bound exceeds the best loss are never evaluated.
A node's violating-record count comes from class counts rolled up from the nearest evaluated finer node
(:mod:`privaudit.remediation.generalization.rollup`) rather than from the table, where that gives the
re-audit's verdict exactly (k-anonymity and distinct l-diversity, ``missing_qi: value``); so does the exact
step with suppression, the records being rebuilt for the winner only (the records of the classes its
snapshot suppressed: :meth:`LatticeSearch._records_of`).

**Many quasi-identifiers.** The lattice grows as the product of the heights (13 QIs: over a million nodes), so
nothing per tag may cost the whole lattice. The nodes are the C-order grid of the lattice's shape, so the nodes
above (below) a node form one box of that grid, and a tag is written by one slice per QI
(:meth:`LatticeSearch._propagate`): work in the box, not a comparison against every node. The traversal
skips runs of nodes already known to fail a block at a time. The searches of one problem (``remediate
--explore`` runs one per suppression limit) share what they evaluated (:class:`SharedTags`): a node's count of
records in violating classes tags it, and by monotonicity its successors or predecessors, at every budget,
so a later search evaluates only what no earlier one did and finds the node it would find on its own.

**Utility.** The loss of node ``N`` without suppression is separable:
``gen(N) = sum_j gen_j(L_j)``, ``gen_j(L) = sum over records of C_j(ancestor at level L)``, and
monotone. With a suppression budget, the records of violating classes are suppressed (every QI
published as missing, so with ``missing_qi: value`` they form one class ``*``; if that class itself
breaks Phi, the smallest remaining classes join it while the budget allows), and a suppressed record
costs the root on every QI. As suppression can only cost more than generalization, ``gen(N)`` is a
lower bound of the exact loss: candidates are visited in increasing ``gen(N)`` and evaluated exactly
until the bound reaches the best exact loss found (branch and bound). With ``budget = 0`` the answer
is the candidate of least ``gen(N)``. Ties go to the lower node, then the lexicographically smaller
level vector.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privaudit.plugin.remediator import class_violations
from privaudit.remediation.generalization.metrics import CostModel
from privaudit.remediation.generalization.model import coded_context
from privaudit.remediation.generalization.packed import pack
from privaudit.remediation.generalization.problem import GeneralizationProblem
from privaudit.remediation.generalization.risk_targets import enforce, risk_targets
from privaudit.remediation.generalization.rollup import SnapshotCounter

MAX_LATTICE = 2_000_000


class LatticeTooLarge(ValueError):
    """The full-domain lattice of the quasi-identifiers' hierarchies has more nodes than :data:`MAX_LATTICE`: a
    search would not fit; GAA (local recoding, one class at a time) still can."""


MAX_SUPPRESSION_ROUNDS = 100


def suppression_monotone(check, policy) -> bool:
    """Whether the number of records in classes breaking ``check`` can only fall as classes merge, as its
    assessor declares (``ClassRule.monotone``).

    True for k-anonymity, p-sensitive k-anonymity and distinct l-diversity (a merged class is at least
    as large / diverse as its largest / most diverse part). Not for entropy or recursive l-diversity or
    t-closeness: a violating class merged into a passing one can make a larger violating class.
    """
    rule = check.assessor.rule(check.params, policy)
    return rule is not None and rule.monotone


def tagging_checks(policy, budget: int) -> list:
    """The class-based error checks whose verdict is monotone on the lattice for this budget.

    Without suppression every class-based check shipped with privaudit is (generalization property);
    with a budget only the suppression-monotone ones are, and the others are left to the exact
    evaluation of the branch and bound.
    """
    checks = [c for c in policy.checks if c.severity == "error" and c.assessor.class_violations is not None]
    return checks if budget == 0 else [c for c in checks if suppression_monotone(c, policy)]


class SharedTags:
    """The per-node figures behind the tags, kept across the lattice searches of one problem (one per
    suppression limit in ``remediate --explore``): per set of tagging checks, each evaluated node's number of
    records in violating classes; per set of monotone risk targets, whether they hold at the node.

    A search at budget ``b`` starts from every figure known: a node with at most ``b`` violating records passes
    (and so does every node above it), one with more fails (and so does every node below it), since that
    count only falls as classes merge (the suppression monotonicity the tagging checks are chosen for:
    :func:`tagging_checks`). A node passing at limit ``s`` thus passes at every limit ``>= s``. These are the
    inferences the search itself makes from a node it evaluates (Flash's predictive tagging, Kohlmayer et al.
    2012, Section IV), applied to nodes another search evaluated, so each search still ends with the same tags
    -- and the same optimum -- as on its own, having evaluated fewer nodes."""

    def __init__(self) -> None:
        self.lattice: np.ndarray | None = None  # lattice_nodes of the problem's heights (read only)
        self.counts: dict[tuple, dict[int, int]] = {}
        self.risk: dict[tuple, dict[int, bool]] = {}

    @staticmethod
    def of(problem: GeneralizationProblem) -> SharedTags:
        found = problem.shared.get("lattice")
        if not isinstance(found, SharedTags):
            found = problem.shared["lattice"] = SharedTags()
        return found


@dataclass
class LatticeResult:
    levels: tuple[int, ...] | None  # the chosen node (None: no node passes)
    nodes: np.ndarray  # (n, q) published canonical node ids (suppressed records: missing)
    suppressed: np.ndarray  # bool per record
    cost: float
    satisfied: bool
    lattice_size: int
    evaluated: int  # nodes whose classes were computed in the tagging phase
    candidates: int  # nodes tagged candidate
    exact_evaluations: int = 0
    notes: list[str] = field(default_factory=list)
    reused: int = 0  # nodes tagged from what earlier searches of the same problem evaluated (SharedTags)


def lattice_nodes(heights: list[int]) -> np.ndarray:
    """Every level vector, in lexicographic order (row index = mixed-radix number of the vector)."""
    size = int(np.prod([h + 1 for h in heights])) if heights else 1
    if size > MAX_LATTICE:
        raise LatticeTooLarge(
            f"the generalization lattice has {size:,} nodes (more than {MAX_LATTICE:,}); "
            "use algorithm=gaa, or give fewer QIs hierarchies"
        )
    if not heights:
        return np.zeros((1, 0), dtype=np.int64)
    # the C-order grid of the lattice's shape: row i is the mixed-radix digits of i (itertools.product's order)
    return np.indices([h + 1 for h in heights], dtype=np.int64).reshape(len(heights), -1).T.copy()


def _untagged(order: np.ndarray, status: np.ndarray, block: int = 64):
    """The nodes of ``order`` still untagged when reached, in that order (tags may be added between two
    yields): runs of tagged nodes are skipped a block at a time rather than one by one."""
    pos, size = 0, len(order)
    while pos < size:
        width = block
        while pos < size:
            hits = np.flatnonzero(status[order[pos : pos + width]] == 0)
            if len(hits):
                pos += int(hits[0])
                break
            pos += width
            width *= 2
        else:
            return
        yield int(order[pos])
        pos += 1


class LatticeSearch:
    """Full-domain generalization of ``problem`` with at most ``budget`` suppressed records."""

    def __init__(
        self,
        problem: GeneralizationProblem,
        costs: CostModel,
        budget: int = 0,
        progress: Callable[[str, int, int], None] | None = None,
        importance: np.ndarray | None = None,
    ):
        self.problem, self.costs, self.budget, self.progress = problem, costs, int(budget), progress
        self.heights = [d.height for d in problem.domains]
        shared = SharedTags.of(problem)
        if shared.lattice is None:  # the same lattice for every search of the problem: built once
            shared.lattice = lattice_nodes(self.heights)
            shared.lattice.flags.writeable = False
        self.lattice = shared.lattice
        self.strides = np.array(
            [int(np.prod([h + 1 for h in self.heights[j + 1 :]])) for j in range(len(self.heights))], dtype=np.int64
        )
        self.shape = tuple(h + 1 for h in self.heights)
        self.height_sum = self.lattice.sum(axis=1)
        #: among nodes of equal loss, the one generalizing the less important QIs first: levels weighted by
        #: importance (1 the most important weighs most; no importance given: no preference)
        weight = np.zeros(len(self.heights)) if importance is None else importance.max() + 1.0 - importance
        self.tie = self.lattice @ weight
        self.gen_cost = self._generalization_costs()
        self.evaluated = 0
        self.tagging_checks = tagging_checks(problem.policy, self.budget)
        # class counts rolled up from finer nodes where that gives the re-audit's verdict (rollup.py)
        self.counter = SnapshotCounter(problem, self.tagging_checks) if self.tagging_checks else None
        every = [c for c in problem.policy.checks if c.severity == "error" and c.assessor.class_violations is not None]
        #: sample-based criteria (ARX's risk-based models: risk_targets.py), enforced in the exact step
        self.risk, self.unsteerable = risk_targets(problem.policy, problem.n_records)
        #: with no suppression, the risk targets other than population uniqueness are monotone under
        #: generalization (merging classes lowers classes/records, sample uniques and records in small classes):
        #: they tag nodes too (packed QI keys of the node, when they fit an int64)
        radices = [d.n_nodes for d in problem.domains]
        self.monotone_risk = (
            [t for t in self.risk if t.monotone]
            if self.budget == 0 and float(np.prod(np.array(radices, dtype=float))) < 2.0**62
            else []
        )
        self.risk_strides = [int(np.prod(radices[j + 1 :])) for j in range(len(radices))]
        self.known_counts = shared.counts.setdefault(tuple(c.id for c in self.tagging_checks), {})
        self.known_risk = shared.risk.setdefault(tuple(t.check_id for t in self.monotone_risk), {})
        self.reused = 0
        #: the exact step can run on snapshots too when the tagging checks are all the class-based error checks
        self.fast_exact = (
            self.counter is not None
            and self.counter.supported
            and not self.risk
            and len(every) == len(self.tagging_checks)
        )

    # ------------------------------------------------------------------ costs and evaluations
    def _generalization_costs(self) -> np.ndarray:
        """gen(N) for every lattice node, from per-QI, per-level sums (separable)."""
        total = np.zeros(len(self.lattice))
        for j, d in enumerate(self.problem.domains):
            count = np.bincount(self.problem.nodes[:, j], minlength=d.n_nodes)
            per_level = np.array(
                [
                    float(count @ self.costs.costs[j][d.generalize(np.arange(d.n_nodes), level)])
                    for level in range(d.height + 1)
                ]
            )
            total += per_level[self.lattice[:, j]]
        return total

    def generalized(self, levels) -> np.ndarray:
        """(n, q) canonical nodes of the table generalized to ``levels``."""
        if "_columns" not in self.__dict__:  # each QI's node ids, contiguous (the matrix is row-major)
            self._columns = [np.ascontiguousarray(self.problem.nodes[:, j]) for j in range(len(self.heights))]
        out = np.empty(self.problem.nodes.shape, dtype=self.problem.nodes.dtype, order="F")  # columns contiguous
        for j, d in enumerate(self.problem.domains):
            out[:, j] = d.generalize(self._columns[j], int(levels[j]))
        return out

    def violating_records(self, nodes: np.ndarray, checks=None) -> np.ndarray:
        """Per record: is it in a class that breaks Phi (as the re-audit would build the classes)?"""
        ctx = coded_context(self.problem.policy, self.problem.table, self.problem.domains, nodes)
        bad = class_violations(ctx, checks)
        return bad[ctx.summary.class_of]

    def is_candidate(self, index: int, shared: bool = True) -> bool:
        """The monotone tag: at most ``budget`` records in classes breaking the tagging checks. ``shared``: the
        figures are read from and kept in :class:`SharedTags` for the next search of the same problem (off:
        computed afresh and kept from no one, as the brute-force ``tag(prune=False)`` does)."""
        if not self.tagging_checks and not self.monotone_risk:
            return True
        self.evaluated += 1
        if self.progress is not None:
            self.progress("searching the generalization lattice", self.evaluated, len(self.lattice))
        risk, counts = (self.known_risk, self.known_counts) if shared else ({}, {})
        if self.monotone_risk:
            holds = risk.get(index)
            if holds is None:
                holds = risk[index] = self._risk_holds(self.lattice[index])
            if not holds:
                return False
        if not self.tagging_checks:
            return True
        count = counts.get(index)
        if count is None:
            count = counts[index] = self._violating_count(index)
        return count <= self.budget

    def _violating_count(self, index: int) -> int:
        """Records in classes breaking the tagging checks at node ``index`` (no suppression)."""
        if self.counter is not None and self.counter.supported:
            return int(self.counter.violating_records(self.lattice[index]))
        nodes = self.generalized(self.lattice[index])
        return int(self.violating_records(nodes, self.tagging_checks).sum())

    def _known_tag(self, index: int) -> int:
        """The tag an earlier search's figures give node ``index`` at this budget (0: they do not tell)."""
        holds = self.known_risk.get(index) if self.monotone_risk else True
        if holds is False:
            return -1
        count = self.known_counts.get(index) if self.tagging_checks else 0
        if count is not None and count > self.budget:
            return -1
        return 0 if count is None or holds is None else 1

    def _seed(self, status: np.ndarray) -> None:
        """Tag what the figures of earlier searches of the problem tell (:class:`SharedTags`); a node already
        tagged by then adds nothing under monotonicity and is passed over."""
        for index in dict.fromkeys([*self.known_risk, *self.known_counts]):
            if status[index] == 0 and (tag := self._known_tag(index)):
                self._propagate(status, index, tag)
                self.reused += 1

    def exact(self, levels) -> tuple[bool, np.ndarray, np.ndarray]:
        """Generalize to ``levels`` and suppress within the budget; (passes, nodes, suppressed)."""
        nodes = self.generalized(levels)
        n = len(nodes)
        suppressed = np.zeros(n, dtype=bool)
        missing = np.array([d.missing for d in self.problem.domains], dtype=np.int64)
        current = nodes
        for _ in range(MAX_SUPPRESSION_ROUNDS):
            ctx = coded_context(self.problem.policy, self.problem.table, self.problem.domains, current)
            bad = class_violations(ctx)
            if not bad.any():
                rows = self._risk_rows(ctx, current, suppressed) if self.risk else None
                if rows is None:
                    return True, current, suppressed
                if rows is False:
                    return False, current, suppressed
                suppressed = suppressed | rows
                current = np.where(suppressed[:, None], missing[None, :], nodes)
                continue
            rows = bad[ctx.summary.class_of] & ~suppressed
            if not rows.any():  # only the class of suppressed records breaks Phi: the smallest other joins it
                s = ctx.summary
                hit = np.bincount(s.class_of, weights=suppressed.astype(float), minlength=s.n_classes) > 0
                untouched = ~hit & (s.sizes > 0)
                if not untouched.any():
                    return False, current, suppressed
                smallest = np.flatnonzero(untouched)[np.argmin(s.sizes[untouched])]
                rows = s.class_of == smallest
            suppressed = suppressed | rows
            if suppressed.sum() > self.budget:
                return False, current, suppressed
            current = np.where(suppressed[:, None], missing[None, :], nodes)
        return False, current, suppressed  # pragma: no cover - the budget ends the loop first

    def _risk_holds(self, levels) -> bool:
        """The monotone risk targets on the classes of node ``levels`` (no suppression; the class of records
        missing on every QI left out, as ARX leaves fully generalized records out)."""
        nodes = self.generalized(levels)
        key = pack([nodes[:, j] for j in range(nodes.shape[1])], self.risk_strides, len(nodes))
        codes, uniques = pd.factorize(key)
        sizes = np.bincount(codes, minlength=len(uniques))
        missing_key = sum(d.missing * s for d, s in zip(self.problem.domains, self.risk_strides, strict=False))
        sizes = sizes[np.asarray(uniques) != missing_key]
        return all(t.fulfilled(sizes) for t in self.monotone_risk)

    def _risk_rows(self, ctx, current: np.ndarray, suppressed: np.ndarray):
        """ARX's enforcement of the sample-based criteria on the classes of ``ctx``: None when they hold, False
        when they cannot within the budget, else the records to suppress (the classes ARX suppresses: smallest
        first, then least information loss, then first record). Suppressed and fully generalized records are
        left out of the distribution, as ARX leaves them out."""
        s = ctx.summary
        missing = np.array([d.missing for d in self.problem.domains], dtype=np.int64)
        reps = current[s.first_row]
        retained = np.flatnonzero(~(reps == missing[None, :]).all(axis=1) & (s.sizes > 0))
        per_record = np.zeros(len(reps))
        for j, c in enumerate(self.costs.costs):
            per_record += c[reps[:, j]]
        order = retained[np.lexsort((s.first_row[retained], per_record[retained], s.sizes[retained]))]
        ok, m = enforce(s.sizes.astype(np.int64), order, self.risk, self.budget - int(suppressed.sum()))
        if not ok:
            return False
        if m == 0:
            return None
        hit = np.zeros(s.n_classes, dtype=bool)
        hit[order[:m]] = True
        return hit[s.class_of] & ~suppressed

    # ------------------------------------------------------------------ tagging
    def tag(self, prune: bool = True) -> np.ndarray:
        """+1 candidate / -1 not, for every lattice node (evaluating as few nodes as monotonicity allows)."""
        size = len(self.lattice)
        status = np.zeros(size, dtype=np.int8)
        if not prune:
            for i in range(size):
                status[i] = 1 if self.is_candidate(i, shared=False) else -1
            return status
        # chains start at the lowest untagged node (fewest levels, then lowest index): one pass over that order,
        # as tags are only ever added
        self._seed(status)
        lowest_first = np.lexsort((np.arange(size), self.height_sum))
        for start in _untagged(lowest_first, status):
            self._search_chain(self._chain(start, status), status)
        return status

    def _chain(self, start: int, status: np.ndarray) -> list[int]:
        """A maximal upward path of untagged nodes from ``start`` (first raisable QI at each step)."""
        chain = [start]
        current = self.lattice[start].copy()
        index = start
        while True:
            for j, h in enumerate(self.heights):
                if current[j] < h and status[index + self.strides[j]] == 0:
                    current[j] += 1
                    index += int(self.strides[j])
                    chain.append(index)
                    break
            else:
                return chain

    # ------------------------------------------------------------------ search
    def _classify(self, index: int, status: np.ndarray) -> int:
        """Tag of node ``index``, evaluating it only when monotonicity has not told it yet (predictive
        tagging: a candidate's successors are candidates, a non-candidate's predecessors are not)."""
        if status[index] == 0:  # binary search of the maximal chain of untagged nodes above it (as tag())
            self._search_chain(self._chain(index, status), status)
        return int(status[index])

    def _search_chain(self, chain: list[int], status: np.ndarray) -> None:
        """Binary search of ``chain`` for its lowest candidate, tagging by monotonicity as it goes."""
        lo, hi = 0, len(chain) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            node = chain[mid]
            if self.is_candidate(node):
                self._propagate(status, node, 1)
                hi = mid - 1
            else:
                self._propagate(status, node, -1)
                lo = mid + 1

    def _propagate(self, status: np.ndarray, node: int, tag: int) -> None:
        """Tag the untagged successors (``tag`` +1) or predecessors (-1) of ``node``, the node included. In the
        lexicographic order of :func:`lattice_nodes` the status array is the C-order grid of the lattice's shape,
        so the nodes above (below) a level vector form one box of that grid: a slice per QI, touching only the
        box's nodes (not a comparison against the whole lattice, as Flash's predictive tagging only
        materialises what it reaches; Kohlmayer et al. 2012, Section IV)."""
        levels = self.lattice[node]
        grid = status.reshape(self.shape)  # a view: status is contiguous
        box = grid[(*(slice(int(v), None) if tag > 0 else slice(0, int(v) + 1) for v in levels), Ellipsis)]
        box[box == 0] = tag

    def search(self, prune: bool = True) -> LatticeResult:
        """The passing node of least loss. With ``prune`` (default), nodes are taken in the order of their
        lower bound ``gen(N)`` and tagged lazily: the search stops at the first candidate without a budget,
        or once the bound reaches the best exact loss, so nodes whose bound is too high are never evaluated
        (Flash's pruning, Kohlmayer et al. 2012, with the bound as the traversal order). ``candidates`` then
        counts the nodes known to pass when the search stops. Without ``prune`` every node is tagged first."""
        if prune and (self.tagging_checks or self.risk):
            return self._lazy_search()
        status = self.tag(prune)
        candidates = np.flatnonzero(status == 1)
        if not len(candidates):
            return self._outcome(None, np.inf, 0, 0)
        order = candidates[
            np.lexsort((candidates, self.height_sum[candidates], self.tie[candidates], self.gen_cost[candidates]))
        ]
        if self.budget == 0:
            return self._as_generalized(int(order[0]), len(candidates))
        best_cost, best = np.inf, None
        exact_runs = 0
        for index in order:
            if self.gen_cost[index] >= best_cost - 1e-9 * max(1.0, abs(best_cost)):
                break
            exact_runs += 1
            ok, nodes, suppressed = self.exact(self.lattice[index])
            if not ok:
                continue
            cost = self.costs.table_cost(nodes)
            if cost < best_cost - 1e-9 * max(1.0, abs(cost)):
                best_cost, best = cost, (int(index), nodes, suppressed)
        return self._outcome(best, best_cost, len(candidates), exact_runs)

    def _as_generalized(self, index: int, candidates: int) -> LatticeResult:
        """The node at ``index`` as the result, generalized and nothing suppressed (no budget to spend, or
        every check passes on the generalization alone)."""
        nodes = self.generalized(self.lattice[index])
        return LatticeResult(
            tuple(int(x) for x in self.lattice[index]),
            nodes,
            np.zeros(self.problem.n_records, dtype=bool),
            float(self.gen_cost[index]),
            True,
            len(self.lattice),
            self.evaluated,
            candidates,
            0,
            [],
            reused=self.reused,
        )

    def _outcome(self, best: tuple | None, best_cost: float, candidates: int, exact_runs: int) -> LatticeResult:
        """The search's result: ``best`` ``(index, nodes, suppressed)`` at ``best_cost``, or, when no node
        passes, the top of the lattice (everything generalized) with a note saying why."""
        size = len(self.lattice)
        if best is None:
            ok, nodes, suppressed = self.exact(self.lattice[-1])
            why = (
                "(not even every QI at its root)"
                if not candidates
                else "once the suppressed records' own class is checked"
            )
            note = f"no level vector satisfies the policy within the suppression budget {why}; the best attempt generalizes everything"
            return LatticeResult(
                None,
                nodes,
                suppressed,
                self.costs.table_cost(nodes),
                False,
                size,
                self.evaluated,
                candidates,
                exact_runs + 1,
                [note],
                reused=self.reused,
            )
        index, nodes, suppressed = best
        return LatticeResult(
            tuple(int(x) for x in self.lattice[index]),
            nodes,
            suppressed,
            best_cost,
            True,
            size,
            self.evaluated,
            candidates,
            exact_runs,
            [],
            reused=self.reused,
        )

    def _records_of(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """The winner's published nodes and suppressed records, as :meth:`exact` gives them: the records of
        the classes the snapshot's exact step suppressed (the same rounds on the same classes), without
        re-auditing the table each round; :meth:`exact` itself where the snapshot cannot tell."""
        levels = self.lattice[index]
        found = self.counter.exact_suppression(levels, self.costs, self.budget, MAX_SUPPRESSION_ROUNDS)
        if found is None or not found[0]:
            ok, nodes, suppressed = self.exact(levels)
            return nodes, suppressed
        nodes = self.generalized(levels)
        suppressed = np.zeros(len(nodes), dtype=bool)
        if len(found[2]):
            suppressed = pd.Index(found[2]).get_indexer(self.counter.record_keys(nodes)) >= 0
            nodes[suppressed] = np.array([d.missing for d in self.problem.domains], dtype=np.int64)
        return nodes, suppressed

    def _next_open(self, order: np.ndarray, status: np.ndarray, pos: int, bound: float, block: int = 64) -> int:
        """The first position from ``pos`` in ``order`` whose node is not known to fail or whose lower bound
        reaches ``bound`` (NaN: no bound); runs of failing nodes are skipped a block at a time."""
        size = len(order)
        while pos < size:
            nodes = order[pos : pos + block]
            hits = np.flatnonzero((status[nodes] != -1) | (self.gen_cost[nodes] >= bound))
            if len(hits):
                return pos + int(hits[0])
            pos += block
            block *= 2
        return size

    def _lazy_search(self) -> LatticeResult:
        size = len(self.lattice)
        status = np.zeros(size, dtype=np.int8)
        self._seed(status)
        order = np.lexsort((np.arange(size), self.height_sum, self.tie, self.gen_cost))
        best_cost, best = np.inf, None
        exact_runs = 0
        pos = 0
        while True:
            # the next node not yet known to fail, unless the bound stops the search first
            pos = self._next_open(order, status, pos, best_cost - 1e-9 * max(1.0, abs(best_cost)))
            if pos >= size or self.gen_cost[order[pos]] >= best_cost - 1e-9 * max(1.0, abs(best_cost)):
                break
            index = int(order[pos])
            pos += 1
            if self._classify(index, status) != 1:
                continue
            if self.budget == 0 and not self.risk:  # every class-based error check is a tagging check: it passes
                return self._as_generalized(index, int((status == 1).sum()))
            exact_runs += 1
            quick = (
                self.counter.exact_cost(self.lattice[index], self.costs, self.budget, MAX_SUPPRESSION_ROUNDS)
                if self.fast_exact
                else None
            )
            if quick is not None:
                ok, cost = quick
                if ok and cost < best_cost - 1e-9 * max(1.0, abs(cost)):
                    best_cost, best = cost, (index, None, None)
                continue
            ok, nodes, suppressed = self.exact(self.lattice[index])
            if not ok:
                continue
            cost = self.costs.table_cost(nodes)
            if cost < best_cost - 1e-9 * max(1.0, abs(cost)):
                best_cost, best = cost, (index, nodes, suppressed)
        candidates = int((status == 1).sum())
        if best is not None and best[1] is None:  # rebuild the winner's records from the table
            nodes, suppressed = self._records_of(best[0])
            best_cost, best = self.costs.table_cost(nodes), (best[0], nodes, suppressed)
        return self._outcome(best, best_cost, candidates, exact_runs)
