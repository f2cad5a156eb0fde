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

from typing import Literal

import numpy as np
from pydantic import Field

from privaudit.common.params import Params
from privaudit.core.context import AuditContext
from privaudit.core.hookspecs import hookimpl
from privaudit.discovery import hierarchies
from privaudit.remediation import importance as importance_of
from privaudit.remediation.api import Remediation, Remediator, unsupported_checks
from privaudit.remediation.generalization import ClassModel, CostModel, LatticeSearch, all_metrics, gaa
from privaudit.remediation.generalization.builders import working_problem
from privaudit.remediation.generalization.risk_targets import risk_targets


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
    hierarchy_builders: dict[str, str] | None = Field(
        default=None,
        description="Column -> semantic hierarchy builder (us_states, countries, schooling, postcodes), built "
        "from the column's values in place of any other hierarchy.",
    )
    write_hierarchies: bool = Field(
        default=False,
        description="Write every built hierarchy beside the output (<out>.hierarchy-<column>.csv), "
        "so that the release can be audited again with them.",
    )


def run(ctx: AuditContext, options: GeneralizeOptions) -> Remediation:
    builders = hierarchies.builders_option(options.hierarchy_builders, ctx.policy.quasi_identifiers)
    problem, built = working_problem(ctx, options.build_hierarchies, builders)
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
                "written beside it"
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
        if options.max_suppression:
            notes.append("max_suppression applies to algorithm=lattice only; GAA does not suppress records")
        if ctx.policy.data.missing_qi == "wildcard":
            notes.append("GAA takes a class's size as its f_k (missing_qi: wildcard can only make f_k larger)")
        model = ClassModel(problem.policy, problem.table, ctx.summary)
        result = gaa(problem, costs, model, options.strategy, options.sensitive, ctx.progress)
        nodes = result.nodes
        suppressed = np.zeros(n, dtype=bool)
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
    else:
        budget = int(np.floor(options.max_suppression * n + 1e-9))
        search = LatticeSearch(problem, costs, budget, ctx.progress, _importance(ctx, problem.columns))
        result = search.search(prune=True)
        nodes, suppressed = result.nodes, result.suppressed
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


def _importance(ctx: AuditContext, columns: list[str]) -> np.ndarray | None:
    """The policy's importance of each QI (:mod:`privaudit.remediation.importance`) when it declares any:
    among level vectors of equal loss the search then generalizes the less important QIs."""
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
)


@hookimpl
def privaudit_remediators():
    return [REMEDIATOR]
