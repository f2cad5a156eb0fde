"""``remediate --explore``: the risk-utility (R-U) confidentiality map of a family of candidate releases.

Duncan, Keller-McNulty & Stokes ("Disclosure risk vs. data utility: the R-U confidentiality map", NISS
technical report 121, 2001; "Database security and confidentiality: examining disclosure risk vs. data
utility through the R-U confidentiality map", NISS technical report 142, 2004) plot every candidate release
of a table by its disclosure risk R against its data utility U; the candidates that no other beats on both
form the frontier, and the policy's risk bound is a vertical line. This module builds the candidates, scores
each one on the same two axes and marks the frontier and the recommendation.

**Candidates** (:data:`METHODS`, narrowed by ``methods``, capped by ``max_candidates``):

* ``generalize`` -- nodes of the full-domain generalization lattice (:mod:`.generalization.lattice`),
  tagged with the policy's class-based error checks as the lattice search tags them: the *minimal* passing
  nodes (no predecessor passes; the only ones an optimal search can return) and a spread of the maximal
  failing nodes (the other side of the border, so that the trade-off is visible), each published as the
  ``generalize`` remediator publishes it (no suppression). Quasi-identifiers without a hierarchy get one
  built (:mod:`.generalization.builders`) unless ``build_hierarchies`` is off;
* ``suppress`` -- the ``suppress`` remediator at the suppression budgets :data:`SUPPRESSION_BUDGETS`;
* ``microaggregate`` -- MDAV at several k around the largest class size the error checks' class rules imply
  (5 when none does; when every quasi-identifier is numeric);
* ``randomize`` -- randomized response aimed at several risk bounds around the bound of the policy's first
  error check declaring a ``ResponseBound`` (only when the policy has one).

**Scores.** Every candidate is audited with the policy, as ``remediate`` re-audits its output (its
``check_overrides`` applied, the input as the original). Its **risk** is the average prosecutor
re-identification risk (ARX's ``RiskModelSampleSummary`` prosecutor success rate: the record-weighted mean
of 1/f_k, i.e. classes over records; El Emam 2013), with the worst failing error check's figure beside it.
Its **utility** is one :mod:`privaudit.utility` measure on ARX's quality scale (1 = nothing lost) for every
candidate, so that the axis compares like with like. The default, ``discernibility`` (ARX's
``QualityModelRowOrientedDiscernibility``, Bayardo & Agrawal 2005, normalised between the original's and
the fully suppressed table's), is computed from the class sizes alone, so it scores a generalized, a
suppressed, a microaggregated and a randomized release alike. ``non_uniform_entropy`` gives no figure for
released values outside the original's domain (microaggregation's centroids), and ``granularity`` without a
hierarchy measures a release against its own distinct values (a microaggregated release scores 1), so
neither can be the default. A candidate without a figure on the axis is left off the map and the frontier,
with a note. The other measures of :data:`TABLE_MEASURES` are in the
candidates' table.

**Frontier and recommendation.** A candidate is on the frontier when no other candidate has a risk at most
its own and a utility at least its own, one of them strictly. The recommended candidate is the passing
frontier candidate of highest utility (ties: lower risk, then the earlier candidate); None when no
candidate passes.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privaudit.core.context import AuditContext
from privaudit.core.data import Table
from privaudit.core.policy import Policy, with_check_overrides, with_columns
from privaudit.pipeline.audit import AuditResult, run_audit
from privaudit.pipeline.plugins import Registry
from privaudit.remediation.api import Remediation, error_checks
from privaudit.risk.attacker_models import attacker_risks

#: The candidate families, in the map's order.
METHODS = ("generalize", "suppress", "microaggregate", "randomize")
#: Suppression budgets (share of records) of the ``suppress`` candidates.
SUPPRESSION_BUDGETS = (0.01, 0.02, 0.05, 0.1, 0.2)
#: The default utility axis (see the module docstring).
DEFAULT_UTILITY = "discernibility"
#: Utility measures shown in the candidates' table beside the axis's.
TABLE_MEASURES = ("discernibility", "aecs", "granularity", "generalization_intensity", "suppressed_cells")
RISK_MEASURE = "average prosecutor re-identification risk"
DEFAULT_MAX_CANDIDATES = 40


@dataclass
class Candidate:
    """One candidate release and, once evaluated, its place on the map."""

    method: str
    options: dict[str, Any]
    table: pd.DataFrame
    remediation: Remediation
    records_removed: int = 0
    audit: AuditResult | None = None
    risk: float | None = None
    worst_check: dict | None = None
    utility: float | None = None
    utilities: dict[str, float | None] = field(default_factory=dict)
    checks_failed: int = 0
    passes: bool = False
    frontier: bool = False

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "options": self.options,
            "risk": self.risk,
            "utility": self.utility,
            "checks_failed": self.checks_failed,
            "passes": self.passes,
            "frontier": self.frontier,
            "worst_check": self.worst_check,
            "utilities": self.utilities,
            "records_removed": self.records_removed,
        }


@dataclass
class Exploration:
    candidates: list[Candidate]
    recommended: int | None
    utility_measure: str
    notes: list[str]
    built_hierarchies: dict[str, dict] = field(default_factory=dict)

    def to_dict(self, bound: tuple[float | None, str | None] = (None, None)) -> dict:
        return {
            "candidates": [c.to_dict() for c in self.candidates],
            "recommended": self.recommended,
            "risk_measure": RISK_MEASURE,
            "utility_measure": self.utility_measure,
            "risk_bound": bound[0],
            "risk_bound_source": bound[1],
            "notes": list(self.notes),
            "built_hierarchies": self.built_hierarchies,
        }


def utility_choices() -> list[str]:
    """Measures the utility axis can use: computed from the release and the original alone."""
    from privaudit.utility import available, family_of

    return [
        m for m in available() if family_of(m).needs <= {"original", "numeric"} and "microdata" in family_of(m).release
    ]


def parse_methods(text: str | Sequence[str] | None) -> list[str]:
    """``methods`` (``"a,b"`` or a list) as a list of known candidate families (one line for an unknown name;
    :data:`privaudit.pipeline.arguments.METHODS`, the validation the command line shares)."""
    from privaudit.pipeline.arguments import METHODS as ARGUMENT

    return list(METHODS) if text is None else ARGUMENT.value(text)


def risk_bound(policy: Policy, n_records: int) -> tuple[float | None, str | None]:
    """The policy's bound on the map's risk axis and where it comes from: the smallest bound an error check's
    declared sample criterion puts on the average prosecutor risk (``SampleCriterion.average_risk``), else
    1/k of the largest class size k an error check's class rule implies (``ClassRule.min_size``: such a check
    bounds every record's risk by 1/k, so the average too)."""
    errors = [c for c in policy.checks if c.severity == "error"]
    bounds = [
        (criterion.average_risk, c.id)
        for c in errors
        if c.assessor.sample_criterion is not None
        and (criterion := c.assessor.sample_criterion(c.params, n_records)) is not None
        and criterion.average_risk is not None
    ]
    if bounds:
        bound, source = min(bounds, key=lambda b: b[0])
        return float(bound), f"average risk bound of check {source!r}"
    ks = [
        (rule.min_size, c.id)
        for c in errors
        if (rule := c.assessor.rule(c.params, policy)) is not None and rule.min_size is not None
    ]
    if not ks:
        return None, None
    k, source = max(ks, key=lambda item: item[0])
    return 1.0 / k, f"1/k, k = {k} (check {source!r})"


# ---------------------------------------------------------------------------------------------- candidates
def _generalize(ctx: AuditContext, limit: int, build: bool, notes: list[str]) -> tuple[list[Candidate], dict]:
    from privaudit.remediation.generalization import CostModel, LatticeSearch
    from privaudit.remediation.generalization.builders import working_problem

    problem, built = working_problem(ctx, build)
    costs = CostModel(problem.domains, "NLLM", "auto", None, 1.0)
    search = LatticeSearch(problem, costs, 0, ctx.progress)
    status = search.tag(prune=True)
    lattice, strides = search.lattice, search.strides
    q = lattice.shape[1]

    def neighbours(i: int, up: bool) -> list[int]:
        out = []
        for j in range(q):
            level = lattice[i, j]
            if up and level < search.heights[j]:
                out.append(i + int(strides[j]))
            elif not up and level > 0:
                out.append(i - int(strides[j]))
        return out

    passing = np.flatnonzero(status == 1)
    minimal = [int(i) for i in passing if all(status[p] != 1 for p in neighbours(int(i), False))]
    failing = np.flatnonzero(status == -1)
    maximal = [int(i) for i in failing if all(status[s] == 1 for s in neighbours(int(i), True))]
    order = lambda xs: sorted(xs, key=lambda i: (search.gen_cost[i], search.height_sum[i], i))  # noqa: E731
    minimal, maximal = order(minimal), order(maximal)
    n_pass = min(len(minimal), max(limit - min(len(maximal), limit // 3), limit // 2 + 1, 1))
    chosen = _spread(minimal, n_pass) + _spread(maximal, max(limit - min(n_pass, len(minimal)), 0))
    if not search.tagging_checks and not search.monotone_risk:
        notes.append(
            "generalize: the policy has no class-based or monotone risk-based error check to tag the "
            "lattice with; the candidates are a spread of lattice nodes"
        )
        chosen = _spread(order(range(len(lattice))), limit)
    out = []
    for index in chosen:
        levels = lattice[index]
        nodes = search.generalized(levels)
        levels_dict = {c: int(x) for c, x in zip(problem.columns, levels, strict=False)}
        table = problem.publish(nodes)
        changes = {
            "algorithm": "lattice",
            "levels": levels_dict,
            "columns": problem.columns,
            **({"built_hierarchies": built.report} if built.hierarchies else {}),
        }
        artefacts = {"." + built.report[col]["file"]: text.encode("utf-8") for col, text in built.csv.items()}
        rem = Remediation(table, changes, {}, artefacts=artefacts, column_overrides=built.overrides)
        out.append(Candidate("generalize", {"levels": levels_dict, "max_suppression": 0.0}, table, rem))
    return out, built.report


def _spread(items: Sequence[Any], n: int) -> list[Any]:
    """``n`` items spread evenly over ``items`` (all of them when there are fewer), first and last included."""
    items = list(items)
    if n <= 0 or not items:
        return []
    if n >= len(items):
        return items
    if n == 1:
        return [items[0]]
    picks = np.unique(np.round(np.linspace(0, len(items) - 1, n)).astype(int))
    return [items[i] for i in picks]


def _suppress(ctx: AuditContext, limit: int, notes: list[str]) -> list[Candidate]:
    """Cell suppression at each budget: the records of the classes breaking a class-based error check,
    smallest classes first, while they fit in the budget (every QI published as missing); with risk-based
    checks (declaring a sample criterion) the other classes follow, smallest first, as ARX's
    ``RiskBasedCriterion.enforce`` suppresses. One class summary
    serves every budget; budgets that suppress the same records give one candidate."""
    from privaudit.remediation.api import class_violations
    from privaudit.remediation.generalization.risk_targets import risk_targets

    s = ctx.summary
    n = s.n_records
    violating = class_violations(ctx)
    bad = np.flatnonzero(violating)
    bad = bad[np.argsort(s.sizes[bad], kind="stable")]
    if risk_targets(ctx.policy, n)[0]:  # risk-based checks: then the other classes, smallest first, as ARX does
        rest = np.flatnonzero(~violating & (s.sizes > 0))
        bad = np.concatenate([bad, rest[np.argsort(s.sizes[rest], kind="stable")]])
    if not len(bad):
        notes.append("suppress: no class breaks a class-based error check, nothing to suppress")
    cumulative = np.cumsum(s.sizes[bad])
    qi = ctx.policy.quasi_identifiers
    out, seen = [], set()
    for budget in _spread(list(SUPPRESSION_BUDGETS), limit):
        allowed = int(np.floor(budget * n + 1e-9))
        take = int(np.searchsorted(cumulative, allowed, side="right"))
        if take in seen:
            continue
        seen.add(take)
        rows = np.isin(s.class_of, bad[:take])
        table = ctx.table.copy()
        for column in qi:
            table[column] = table[column].where(~rows)
        count = int(rows.sum())
        rem = Remediation(
            table,
            {"mode": "cells", "columns": qi, "records_affected": count},
            {"records_suppressed": count, "share_suppressed": count / n if n else 0.0},
        )
        out.append(Candidate("suppress", {"mode": "cells", "max_suppression": budget}, table, rem))
    return out


def _microaggregate(ctx: AuditContext, registry: Registry, limit: int, notes: list[str]) -> list[Candidate]:
    policy = ctx.policy
    categorical = [c for c in policy.quasi_identifiers if policy.columns[c].type != "numeric"]
    if categorical:
        notes.append(f"microaggregate: left out, quasi-identifier {categorical[0]!r} is not numeric")
        return []
    rules = [r for c in error_checks(ctx) if (r := c.assessor.rule(c.params, policy)) is not None]
    k = max((r.min_size for r in rules if r.min_size is not None), default=5)
    values = sorted({max(2, k // 2), k, 2 * k, 3 * k, 5 * k})
    return _candidates("microaggregate", ctx, registry, [{"k": value} for value in _spread(values, limit)], notes)


def _randomize(ctx: AuditContext, registry: Registry, limit: int, notes: list[str]) -> list[Candidate]:
    bounds = [
        b
        for c in error_checks(ctx)
        if c.assessor.response_bound is not None and (b := c.assessor.response_bound(c.params, ctx.policy)) is not None
    ]
    if not bounds:
        notes.append(
            "randomize: left out, the policy has no error-severity check bounding randomized-response disclosure"
        )
        return []
    bound = float(bounds[0].max_risk)  # the check the remediator aims at: the first declaring a bound
    targets = [{"max_risk": min(1.0, bound * f)} for f in _spread([0.5, 0.75, 1.0, 1.25, 1.5], limit)]
    return _candidates("randomize", ctx, registry, targets, notes)


def _candidates(
    method: str, ctx: AuditContext, registry: Registry, settings: list[dict], notes: list[str]
) -> list[Candidate]:
    """One candidate of ``method`` per setting (its remediator's options); none, and a note saying why, when
    the remediator cannot run on this table."""
    remediator = registry.remediators[method]
    out = []
    for given in settings:
        options = remediator.options.model_validate(given)
        try:
            rem = remediator.run(ctx, options)
        except ValueError as exc:
            notes.append(f"{method}: left out, {exc}")
            return []
        out.append(Candidate(method, {**given, **options.model_dump(mode="json")}, rem.table, rem))
    return out


# ---------------------------------------------------------------------------------------------- scoring
def _utility_entries(audit: AuditResult, names: Sequence[str], shared: dict) -> dict[str, float | None]:
    from privaudit.pipeline.derived import utility_inputs
    from privaudit.utility import measure_all

    ctx = audit.context
    inputs = utility_inputs(ctx, training=False)
    if ctx.original is not None:  # the original's classes on the same QIs: grouped once for every candidate
        inputs.__dict__["_original_classes"] = shared
    entries = measure_all(inputs, list(names))
    return {n: next((e["value"] for e in entries if e["measure"] == n and e["column"] is None), None) for n in names}


def _score(c: Candidate, audit: AuditResult, utility: str, names: Sequence[str], shared: dict) -> None:
    s = audit.context.summary
    risks = attacker_risks(s.sizes, None, 0.2)
    c.audit = audit
    c.risk = float(risks.prosecutor.average) if s.n_records else 0.0
    c.checks_failed = len(audit.failed) + len(audit.errored)
    c.passes = audit.passed
    failed = [r for r in audit.checks if r.severity == "error" and r.status in ("fail", "error")]
    c.worst_check = (
        None
        if not failed
        else {
            "id": failed[0].id,
            "value": _number(failed[0].value),
            "threshold": _number(failed[0].threshold),
            "status": failed[0].status,
        }
    )
    c.utilities = _utility_entries(audit, list(dict.fromkeys([utility, *names])), shared)
    c.utility = c.utilities.get(utility)


def _number(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def mark_frontier(candidates: Sequence[Candidate]) -> None:
    """``frontier``: no other candidate at most as risky and at least as useful, one of them strictly."""
    scored = [(i, c.risk, c.utility) for i, c in enumerate(candidates) if c.risk is not None and c.utility is not None]
    for i, r, u in scored:
        candidates[i].frontier = not any((r2 <= r and u2 >= u) and (r2 < r or u2 > u) for j, r2, u2 in scored if j != i)
    for c in candidates:
        if c.risk is None or c.utility is None:
            c.frontier = False


def recommend(candidates: Sequence[Candidate]) -> int | None:
    best = [i for i, c in enumerate(candidates) if c.passes and c.frontier]
    if not best:
        return None
    return min(best, key=lambda i: (-float(candidates[i].utility or 0.0), float(candidates[i].risk or 0.0), i))


def _audit_candidate(table: Table, policy: Policy, original: Table | None, before: AuditResult) -> AuditResult:
    """``run_audit`` of a candidate, less what the input's audit already settled: runnability (same checks,
    same inputs) and the checks that always run (the identifier scan): a candidate changes quasi-identifier
    values only, so it keeps the input's verdicts on them (the written candidate is scanned again by its
    re-audit, as ``remediate`` does)."""
    from privaudit.pipeline.audit import align_original, generated_at, run_checks
    from privaudit.pipeline.derived import DERIVED

    ctx = AuditContext(policy, table.frame, derived=DERIVED)
    if original is not None:
        ctx.training = original.frame
        ctx.original = align_original(table, original, policy)
    results = run_checks(ctx, list(policy.checks))
    own = {c.id for c in policy.checks}
    return AuditResult(
        policy, table, [r for r in before.checks if r.id not in own] + results, generated_at(), ctx, original
    )


def explore(
    before: AuditResult,
    registry: Registry,
    methods: Sequence[str] | None = None,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
    utility: str | None = None,
    build_hierarchies: bool = True,
    progress: Callable[[str, int, int], None] | None = None,
) -> Exploration:
    """Build, audit and place every candidate of ``methods`` for the release audited in ``before``."""
    from privaudit.pipeline.arguments import MAX_CANDIDATES, UTILITY

    utility = UTILITY.value(utility or DEFAULT_UTILITY)
    max_candidates = MAX_CANDIDATES.value(max_candidates)
    methods = parse_methods(methods)
    ctx = before.context
    notes: list[str] = []
    share = {m: max(1, max_candidates // len(methods)) for m in methods}
    if "generalize" in methods:  # the lattice gets what the other families leave
        others = {"suppress": len(SUPPRESSION_BUDGETS), "microaggregate": 5, "randomize": 5}
        share["generalize"] = max(
            1, max_candidates - sum(min(share[m], others[m]) for m in methods if m != "generalize")
        )
    candidates: list[Candidate] = []
    built: dict = {}
    for method in methods:
        if method not in registry.remediators:
            notes.append(f"{method}: left out, no such remediator is registered")
            continue
        try:
            if method == "generalize":
                found, built = _generalize(ctx, share[method], build_hierarchies, notes)
            elif method == "suppress":
                found = _suppress(ctx, share[method], notes)
            elif method == "microaggregate":
                found = _microaggregate(ctx, registry, share[method], notes)
            else:
                found = _randomize(ctx, registry, share[method], notes)
        except ValueError as exc:  # a method that cannot run on this policy or table: say so, keep the others
            notes.append(f"{method}: left out, {exc}")
            continue
        candidates += found
    candidates = candidates[:max_candidates]
    names = [m for m in TABLE_MEASURES if m in utility_choices()]
    original = before.original or before.table
    shared: dict = {}
    for i, c in enumerate(candidates):
        if progress is not None:
            progress("auditing the candidates", i, len(candidates))
        policy = copy.copy(
            with_check_overrides(
                with_columns(ctx.policy, c.remediation.column_overrides), c.remediation.check_overrides
            )
        )
        policy.utility = []  # the audit's own utility list is not needed: the map's measures are computed below
        # typed as the engine's re-audit types a remediation's output (the table as it will be written)
        table = Table(c.table.reset_index(drop=True), f"<candidate {i}>", "", 0, "arrow", fingerprint="candidate")
        audit = _audit_candidate(table, policy, original if c.records_removed == 0 else None, before)
        _score(c, audit, utility, names, shared)
    missing = [i for i, c in enumerate(candidates) if c.utility is None]
    if missing:
        notes.append(
            f"{utility}: no figure for {len(missing)} of {len(candidates)} candidates (left off the map and "
            "the frontier; e.g. values outside the hierarchies, or no numeric column)"
        )
    mark_frontier(candidates)
    return Exploration(candidates, recommend(candidates), utility, notes, built)


@dataclass
class ExploreOutcome:
    """What ``remediate --explore`` produced: the input's audit, the map, and the audit the report is of
    (the recommended candidate's, re-audited as written, when it is written; else the input's)."""

    before: AuditResult
    exploration: Exploration
    report: AuditResult
    outcome: Any = None  # the engine's RemediationOutcome of the written candidate, or None
    bound: tuple[float | None, str | None] = (None, None)

    @property
    def offered(self) -> bool:
        return self.outcome is not None and self.outcome.offered


def explore_release(
    released: Any,
    policy: Any,
    out: str | None = None,
    methods: Sequence[str] | str | None = None,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
    utility: str | None = None,
    registry: Registry | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    allow_outside_paths: bool = False,
) -> ExploreOutcome:
    """Audit ``released``, explore the candidates, and with ``out`` re-audit the recommended one as
    ``remediate`` does (its bytes in ``outcome.output`` when it passes)."""
    from privaudit.common.jsonable import jsonable
    from privaudit.pipeline.audit import open_policy
    from privaudit.pipeline.plugins import get_registry
    from privaudit.pipeline.remediate import reaudit

    registry = registry or get_registry()
    from privaudit.pipeline.arguments import UTILITY, optional

    methods = parse_methods(methods)
    utility = optional(UTILITY, utility)
    opened = open_policy(policy, registry, allow_outside_paths)
    before = run_audit(released, opened, registry=registry, progress=progress)
    exploration = explore(before, registry, methods, max_candidates, utility, progress=progress)
    bound = risk_bound(opened, before.context.summary.n_records)
    outcome = None
    report = before
    if out is not None and exploration.recommended is not None:
        c = exploration.candidates[exploration.recommended]
        title = registry.remediators[c.method].title
        outcome = reaudit(before, opened, c.remediation, out, c.method, title, c.options, registry, progress)
        report = outcome.after
    report.explore = jsonable(exploration.to_dict(bound))
    return ExploreOutcome(before, exploration, report, outcome, bound)
