"""generalize: replace quasi-identifier values by hierarchy ancestors until the policy holds.

Two algorithms (see :mod:`privaudit.remediation.generalization`):

* ``lattice`` (default) -- full-domain generalization: one hierarchy level per QI for the whole table,
  the optimal level vector found by a monotonicity-pruned lattice search, with up to
  ``max_suppression`` (share of records) of records suppressed (every QI published as missing);
* ``gaa`` -- the Greedy Anonymization Algorithm (local recoding): merge a smallest violating class with
  the partner chosen by ``strategy`` (S1-S7), both generalized to their per-QI lowest common ancestor.

``metric`` (Distortion, NCP, Total, LLM, NLLM, WLLM, WNLLM, exactly as Section 3.2 of Mauger, Le Mahec &
Dequen, TDP 2023, gives their edge weights: :mod:`privaudit.remediation.generalization.metrics`) drives the
choice; ``weighting`` (``auto``: the paper's w1/w2 pairing), ``m`` (w1's exponent; default the number of
QIs) and ``beta`` (Distortion) are documented departures. The report's loss section gives the alteration
under every metric, the share of generalized values and the share at the root (Definitions 7 and 9).

Column rules: a QI with a hierarchy must be typed nominal (or ordinal with every hierarchy label in its
``order``): a numeric column cannot hold "20-29", and asking for it is an error. A QI without a
hierarchy can only stay as it is or be suppressed. Records are never dropped or reordered; sensitive
and other columns are untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from privaudit.common.params import Params
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.remediator import (
    ExploreCandidate,
    ExploreRequest,
    Remediation,
    Remediator,
    option_settings,
    unsupported_checks,
)

if TYPE_CHECKING:  # numpy and the generalization machinery load when a remediation runs, not with the registry
    import numpy as np

    from privaudit.core.context import AuditContext


class GeneralizeOptions(Params):
    algorithm: Literal["lattice", "gaa"] = Field(
        default="lattice", description="'lattice': optimal full-domain generalization; 'gaa': greedy local recoding."
    )
    metric: Literal["Distortion", "NCP", "Total", "LLM", "NLLM", "WLLM", "WNLLM", "Weights", "Loss", "Precision"] = (
        Field(default="NLLM", description="Information-loss metric to minimise.")
    )
    strategy: Literal["S1", "S2", "S3", "S4", "S5", "S6", "S7"] = Field(
        default="S1",
        description="GAA partner choice: S1 cost; S2 cost then l; S3 l then cost; S4 cost/l; "
        "S5 cost then t; S6 t then cost; S7 cost*t.",
    )
    weighting: Literal["auto", "w1", "w2"] = Field(
        default="auto",
        description="Attribute weight (Definition 8): w1 = 1-(h_j-1)^m/sum_i(h_i-1)^m, "
        "w2 = h_max/h_j; auto = the paper's: w1 for Distortion, WLLM and WNLLM, w2 for LLM and NLLM.",
    )
    m: float | None = Field(
        default=None, ge=0, description="Exponent of w1 (default: the number of quasi-identifiers, as Definition 8)."
    )
    beta: float = Field(
        default=1.0, gt=0, description="Exponent on Distortion's edge weights 1/(h - lvl) (1 in the paper)."
    )
    max_suppression: float = Field(
        default=0.0, ge=0, le=1, description="Lattice: largest share of records that may be suppressed."
    )
    levels: dict[str, int] | None = Field(
        default=None,
        description="Lattice: publish this node (quasi-identifier -> hierarchy level, 0 = as is) instead of "
        "searching, suppressing within max_suppression (ARX's node chosen by hand; what --explore's "
        "--write-recipe names).",
    )
    sensitive: str | None = Field(
        default=None,
        description="Sensitive column the GAA strategies S2-S7 read (default: the policy's "
        "l-diversity / t-closeness check's).",
    )
    build_hierarchies: bool = Field(
        default=True,
        description="Build a hierarchy for each quasi-identifier the policy gives none (intervals, "
        "dates, postcode masking, flat), as privaudit init does; off: such a QI is only kept or suppressed.",
    )
    hierarchy_builders: dict[str, str | dict[str, Any]] | None = Field(
        default=None,
        description="Column -> semantic hierarchy builder (us_states, countries, schooling, postcodes) or one of "
        "ARX's builders with ARX's parameters ({builder: intervals|order|redaction|dates, ...}: "
        "docs/hierarchies.md), built from the column's values in place of any other hierarchy.",
    )
    write_hierarchies: bool = Field(
        default=True,
        description="Write every built hierarchy beside the output (<out>.hierarchy-<column>.csv), with the "
        "policy the output audits again with (<out>.reaudit.policy.yaml); off: neither is written.",
    )


def run(ctx: AuditContext, options: GeneralizeOptions) -> Remediation:
    from privaudit.discovery import hierarchies
    from privaudit.remediation.generalization.builders import working_problem

    builders = hierarchies.builders_option(options.hierarchy_builders, ctx.policy.quasi_identifiers)
    return _run(ctx, options, *working_problem(ctx, options.build_hierarchies, builders))


def _run(ctx: AuditContext, options: GeneralizeOptions, problem, built) -> Remediation:
    from privaudit.remediation.generalization import CostModel, all_metrics
    from privaudit.remediation.generalization.risk_targets import risk_targets

    costs = CostModel(problem.domains, options.metric, options.weighting, options.m, options.beta)
    n = problem.n_records
    notes: list[str] = []
    targets, _ = risk_targets(ctx.policy, n)
    steered = {t.check_id for t in targets} if options.algorithm == "lattice" else set()
    unsupported = [c for c in unsupported_checks(ctx) if c not in steered]
    if unsupported:
        notes.append(
            "generalization cannot steer checks without per-class violations"
            + (
                " (the lattice search steers ARX's risk-based models: reidentification_risk, uniqueness and "
                "k_map without a population table)"
                if options.algorithm == "lattice"
                else " (algorithm=lattice steers the risk-based ones)"
            )
            + ": "
            + ", ".join(unsupported)
        )
    implicit = [d.column for d in problem.domains if d.implicit]
    if implicit:
        notes.append("quasi-identifiers without a hierarchy can only be kept or suppressed: " + ", ".join(implicit))
    changes: dict = {"algorithm": options.algorithm, "metric": options.metric, "columns": problem.columns}
    if built.hierarchies:
        changes["built_hierarchies"] = built.report
        notes.append(
            "hierarchies built for "
            + ", ".join(f"{c} ({built.notes[c]})" for c in built.hierarchies)
            + "; the output holds their labels, so audit it with these columns typed nominal and the "
            "hierarchies "
            + (
                "written beside it (the policy written beside it does so)"
                if options.write_hierarchies
                else "that --option write_hierarchies=true writes beside it"
            )
        )
    if costs.weighting is not None:
        changes["weights"] = {
            "weighting": costs.weighting,
            **{d.column: float(w) for d, w in zip(problem.domains, costs.weights, strict=False)},
        }
    if options.algorithm == "gaa":
        nodes, suppressed = _run_gaa(ctx, options, problem, costs, notes, changes)
    else:
        nodes, suppressed = _run_lattice(ctx, options, problem, costs, targets, notes, changes)
    changes["records_suppressed"] = int(suppressed.sum())
    changes["records_changed"] = int((nodes != problem.nodes).any(axis=1).sum()) if n else 0
    loss = all_metrics(problem.domains, nodes, options.weighting, options.m, options.beta)
    loss = {
        "metric": options.metric,
        "alteration": loss["alteration_pct"][options.metric],
        **loss,
        "records_suppressed": int(suppressed.sum()),
        "share_suppressed": float(suppressed.mean()) if n else 0.0,
    }
    artefacts = (
        {"." + built.report[c]["file"]: text.encode("utf-8") for c, text in built.csv.items()}
        if options.write_hierarchies
        else {}
    )
    return Remediation(
        problem.publish(nodes), changes, loss, artefacts=artefacts, notes=notes, column_overrides=built.overrides
    )


def _run_gaa(
    ctx: AuditContext, options: GeneralizeOptions, problem, costs, notes: list[str], changes: dict
) -> tuple[np.ndarray, np.ndarray]:
    """The Greedy Anonymization Algorithm's nodes (no record suppressed); its notes and figures added to
    ``notes`` and ``changes``."""
    import numpy as np

    from privaudit.remediation.generalization import ClassModel, gaa

    if options.max_suppression:
        notes.append("max_suppression applies to algorithm=lattice only; GAA does not suppress records")
    if ctx.policy.data.missing_qi == "wildcard":
        notes.append("GAA takes a class's size as its f_k (missing_qi: wildcard can only make f_k larger)")
    model = ClassModel(problem.policy, problem.table, ctx.summary)
    result = gaa(problem, costs, model, options.strategy, options.sensitive, ctx.progress)
    notes += result.notes
    changes.update(
        {
            "strategy": options.strategy,
            "strategy_sensitive": result.sensitive,
            "merges": result.merges,
            "classes_before": result.classes_before,
            "classes_after": result.classes_after,
        }
    )
    return result.nodes, np.zeros(problem.n_records, dtype=bool)


def _run_lattice(
    ctx: AuditContext, options: GeneralizeOptions, problem, costs, targets: list, notes: list[str], changes: dict
) -> tuple[np.ndarray, np.ndarray]:
    """The lattice search's nodes and suppressed records within ``max_suppression``; its notes and figures
    added to ``notes`` and ``changes``."""
    import numpy as np

    from privaudit.remediation.generalization import LatticeSearch

    n = problem.n_records
    budget = int(np.floor(options.max_suppression * n + 1e-9))
    search = LatticeSearch(problem, costs, budget, ctx.progress, _importance(ctx, problem.columns))
    if options.levels is not None:
        return _chosen_node(options.levels, problem, search, changes)
    result = search.search(prune=True)
    notes += result.notes
    changes.update(
        {
            "levels": None if result.levels is None else dict(zip(problem.columns, result.levels, strict=False)),
            "heights": {d.column: d.height for d in problem.domains},
            "lattice_nodes": result.lattice_size,
            "nodes_evaluated": result.evaluated,
            "nodes_passing": result.candidates,
            "suppression_budget": budget,
            **({"risk_targets": {t.check_id: t.model for t in targets}} if targets else {}),
        }
    )
    return result.nodes, result.suppressed


#: The suppression limits (share of records) explore tries beside the policy's own: from none to ARX's usual 10 %
#: (with a small share of candidates, the first ones: 5 and 10 %, then 1 %, then none).
SUPPRESSION_LIMITS = (0.05, 0.1, 0.01, 0.0)


def explore(ctx: AuditContext, request: ExploreRequest) -> list[ExploreCandidate]:
    """The candidates an expert tries with generalization: the lattice search's answer at several suppression
    limits (ARX's default configuration: recode, then suppress the few outliers left, up to a limit), and
    a spread of lattice nodes without suppression on both sides of the policy's border (the trade-off).
    ``--option max_suppression=...`` replaces the limits; other fixed options apply to every search."""
    from privaudit.remediation.generalization.builders import working_problem

    fixed = dict(request.fixed)
    build = bool(fixed.get("build_hierarchies", [True])[0])
    problem, built = working_problem(ctx, build)
    spec = ctx.policy.model.remediation
    own = spec.options.get("max_suppression") if spec and spec.method in (None, REMEDIATOR.name) else None
    if built.hierarchies:  # the written candidate can only be audited again with the hierarchies built for it
        fixed.setdefault("write_hierarchies", [True])
    no_limit = "max_suppression" not in fixed or 0.0 in [float(v) for v in fixed["max_suppression"]]
    if "max_suppression" not in fixed:  # the policy's own first, then the limits an expert tries, most useful first
        mine = [float(own)] if own is not None else []
        fixed["max_suppression"] = list(dict.fromkeys([*mine, *SUPPRESSION_LIMITS]))
        if len(fixed["max_suppression"]) > max(1, request.limit // 2):  # leave room for the lattice's nodes
            fixed["max_suppression"] = fixed["max_suppression"][: max(1, request.limit // 2)]
    settings = option_settings([{}], fixed)
    out: list[ExploreCandidate] = []
    seen: set = set()
    from privaudit.remediation.generalization.lattice import LatticeTooLarge

    for given in settings[: request.limit]:
        options = GeneralizeOptions.model_validate(given)
        try:
            rem = _run(ctx, options, problem, built)
        except LatticeTooLarge as exc:
            return _gaa_instead(ctx, problem, built, request, str(exc))
        levels = rem.changes.get("levels")
        key = (str(levels), rem.loss.get("records_suppressed"))
        if levels is None or key in seen:  # no passing node within the limit, or the same release again
            continue
        seen.add(key)
        shown = {"levels": {c: int(v) for c, v in levels.items()}, **given}
        if "write_hierarchies" not in request.fixed:  # set by explore itself, not a choice to show
            shown.pop("write_hierarchies", None)
        out.append(ExploreCandidate(shown, rem))
    out.sort(key=lambda c: float(c.options.get("max_suppression", 0.0)))
    rest = request.limit - len(out)
    if no_limit and rest > 0 and fixed.keys() <= {"max_suppression", "build_hierarchies", "write_hierarchies"}:
        out += _lattice_nodes(ctx, problem, built, rest, request.notes, seen)
    return out


def _gaa_instead(ctx: AuditContext, problem, built, request: ExploreRequest, why: str) -> list[ExploreCandidate]:
    """Where the lattice is too large to search (many quasi-identifiers with hierarchies), the candidate an
    expert falls back to: GAA's local recoding (Sanchez et al. 2016, section 4: one class merged at a time,
    the lattice never built), which explore can then finish with local suppression (``refines``)."""
    given = {"algorithm": "gaa", **({"write_hierarchies": True} if built.hierarchies else {})}
    request.notes.append(f"generalize: {why.split(';')[0]}: GAA's local recoding searched instead of the lattice")
    rem = _run(ctx, GeneralizeOptions.model_validate(given), problem, built)
    shown = {k: v for k, v in given.items() if k != "write_hierarchies" or "write_hierarchies" in request.fixed}
    return [ExploreCandidate(shown, rem)]


def _lattice_nodes(
    ctx: AuditContext, problem, built, limit: int, notes: list[str], seen: set
) -> list[ExploreCandidate]:
    """Lattice nodes without suppression, tagged with the policy's error checks as the search tags them: the
    *minimal* passing nodes (the only ones an optimal search can return) and a spread of the maximal failing
    nodes (the other side of the border), each published as the search publishes it."""
    import numpy as np

    from privaudit.remediation.generalization import CostModel, LatticeSearch

    costs = CostModel(problem.domains, "NLLM", "auto", None, 1.0)
    search = LatticeSearch(problem, costs, 0, ctx.progress)
    status = search.tag(prune=True)
    lattice, strides = search.lattice, search.strides

    # passing nodes with no passing predecessor; failing nodes whose successors all pass (one pass per QI:
    # the lattice is in grid order, a predecessor along QI j is the node one stride below)
    passing = status == 1
    low, high = passing.copy(), status == -1
    for j, h in enumerate(search.heights):
        below = np.flatnonzero(lattice[:, j] > 0)
        low[below] &= ~passing[below - int(strides[j])]
        above = np.flatnonzero(lattice[:, j] < h)
        high[above] &= passing[above + int(strides[j])]
    minimal, maximal = [int(i) for i in np.flatnonzero(low)], [int(i) for i in np.flatnonzero(high)]

    def order(xs) -> list[int]:
        return sorted(xs, key=lambda i: (search.gen_cost[i], search.height_sum[i], i))

    minimal, maximal = order(minimal), order(maximal)
    n_pass = min(len(minimal), max(limit - min(len(maximal), limit // 3), limit // 2 + 1, 1))
    chosen = spread(minimal, n_pass) + spread(maximal, max(limit - min(n_pass, len(minimal)), 0))
    if not search.tagging_checks and not search.monotone_risk:
        notes.append(
            "generalize: the policy has no class-based or monotone risk-based error check to tag the "
            "lattice with; the candidates are a spread of lattice nodes"
        )
        chosen = spread(order(range(len(lattice))), limit)
    out = []
    artefacts = {"." + built.report[col]["file"]: text.encode("utf-8") for col, text in built.csv.items()}
    for index in chosen:
        levels = {c: int(x) for c, x in zip(problem.columns, lattice[index], strict=False)}
        if (str(levels), 0) in seen:
            continue
        nodes = search.generalized(lattice[index])
        changes: dict[str, Any] = {
            "algorithm": "lattice",
            "levels": levels,
            "columns": problem.columns,
            "records_suppressed": 0,
            **({"built_hierarchies": built.report} if built.hierarchies else {}),
        }
        loss = {"records_suppressed": 0, "share_suppressed": 0.0}
        rem = Remediation(problem.publish(nodes), changes, loss, artefacts=artefacts, column_overrides=built.overrides)
        out.append(ExploreCandidate({"levels": levels, "max_suppression": 0.0}, rem))
    return out


def _chosen_node(levels: dict[str, int], problem, search, changes: dict) -> tuple[np.ndarray, np.ndarray]:
    """The node ``levels`` published as the search publishes a node it tagged (:meth:`LatticeSearch.exact`:
    generalized, then the violating records suppressed within the budget); beyond the budget, the node
    without suppression, as ``--explore`` offers a lattice node (the re-audit says what still fails)."""
    import numpy as np

    heights = {d.column: d.height for d in problem.domains}
    for column, level in levels.items():
        if column not in heights:
            raise ValueError(f"levels: {column!r} is not a generalized quasi-identifier ({', '.join(heights)})")
        if not 0 <= int(level) <= heights[column]:
            raise ValueError(f"levels: {column!r} has levels 0 to {heights[column]}, not {level}")
    node = np.array([int(levels.get(c, 0)) for c in problem.columns], dtype=np.int64)
    passes, nodes, suppressed = search.exact(node)
    if not passes:
        nodes, suppressed = search.generalized(node), np.zeros(problem.n_records, dtype=bool)
    changes.update(
        {
            "levels": dict(zip(problem.columns, (int(x) for x in node), strict=False)),
            "heights": heights,
            "suppression_budget": search.budget,
        }
    )
    return nodes, suppressed


def spread(items: Sequence[Any], n: int) -> list[Any]:
    """``n`` items spread evenly over ``items`` (all of them when there are fewer), first and last included."""
    items = list(items)
    if n <= 0 or not items:
        return []
    if n >= len(items):
        return items
    if n == 1:
        return [items[0]]
    import numpy as np

    picks = np.unique(np.round(np.linspace(0, len(items) - 1, n)).astype(int))
    return [items[i] for i in picks]


def _importance(ctx: AuditContext, columns: list[str]) -> np.ndarray | None:
    """The policy's importance of each QI (:mod:`privaudit.remediation.importance`) when it declares any:
    among level vectors of equal loss the search then generalizes the less important QIs."""
    import numpy as np

    from privaudit.remediation import importance as importance_of

    specs = [ctx.policy.columns[c] for c in columns]
    if not any(s.importance is not None or s.keep for s in specs):
        return None
    return importance_of.resolve(ctx.policy, columns, ctx.table).astype(np.float64)


REMEDIATOR = Remediator(
    name="generalize",
    options=GeneralizeOptions,
    run=run,
    title="Generalization over hierarchies",
    description="replace quasi-identifier values by hierarchy ancestors (optimal full-domain lattice search or "
    "greedy GAA merging), minimising an information-loss metric",
    explore=explore,
)


@hookimpl
def privaudit_remediators():
    return [REMEDIATOR]
