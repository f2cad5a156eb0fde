"""local_suppression: blank the fewest, least important quasi-identifier cells until k-anonymity holds.

sdcMicro's ``localSuppression(obj, k, importance, combs)`` (``R/localSuppression.R``) and µ-ARGUS's local
suppression: where the ``suppress`` method blanks every quasi-identifier of a violating record, this one
blanks single cells, choosing them by importance (the option, else the policy's ``importance``; see
:mod:`privaudit.remediation.importance`) and by how many records the blanked record then matches; the
algorithm is in :mod:`privaudit.remediation.local_suppression`. A missing value counts as sdcMicro counts it
under ``data.missing_qi: wildcard`` (it matches any value); under ``missing_qi: value`` a blanked cell is a
value of its own, which needs more cells.

k is the option when given, else the largest class size the policy's error checks imply (their declared
``ClassRule.min_size``); ``combs`` asks, as sdcMicro's, k-anonymity for every subset of that many
quasi-identifiers instead (k then one value or one per entry). Without ``combs``, the policy's combination
rules (:mod:`privaudit.core.combinations`, µ-ARGUS's combinations) are steered when it has them: every
quasi-identifier at the k the option or the error checks imply (when either does), then each combination the
rules name at its own k, the largest first, in passes until one blanks nothing (at most 10: under
``missing_qi: value`` a cell blanked for one combination is a value that may leave another short), so that
the output passes the check of those rules. Records are never removed; columns other
than the quasi-identifiers are untouched. :func:`after` applies it to another method's output
(generalization followed by local suppression).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from privaudit.common.numbers import fmt
from privaudit.common.params import Params
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.remediator import Remediation, Remediator, error_checks

if TYPE_CHECKING:  # pandas and the suppression algorithm load when a remediation runs, not with the registry
    import pandas as pd


class LocalSuppressionOptions(Params):
    k: int | list[int] | None = Field(
        default=None,
        description="k to reach (sdcMicro's k); with combs, one value or one per entry of combs. Default: the "
        "largest class size the policy's error checks imply.",
    )
    importance: list[int] | dict[str, int] | None = Field(
        default=None,
        description="Importance of each quasi-identifier, 1 the most important (suppressed last): a list in the "
        "policy's order of quasi-identifiers or a mapping column -> importance. Default: the policy's "
        "'importance' of each column, then sdcMicro's default (more categories, less important).",
    )
    combs: list[int] | None = Field(
        default=None,
        description="sdcMicro's combs: k-anonymity for every subset of this many quasi-identifiers, in turn.",
    )

    @field_validator("k")
    @classmethod
    def _k_positive(cls, value: Any) -> Any:
        values = value if isinstance(value, list) else [value]
        if any(v is not None and v < 1 for v in values):
            raise ValueError("k must be a whole number >= 1")
        return value


@dataclass
class Outcome:
    """A table after local suppression: the table, the cells blanked per column, and what to say."""

    table: pd.DataFrame
    per_column: dict[str, int]
    ok: bool
    k: list[int]
    importance: dict[str, int]
    rounds: int
    records_affected: int
    notes: list[str] = field(default_factory=list)
    combinations: int = 0  # combinations of the policy's combination rules made safe (0: none)


def target_k(policy: Any, checks: list, k: int | list[int] | None, combs: list[int] | None) -> list[int]:
    """The k of each step: the option, else the largest class size the error checks imply."""
    if k is None:
        sizes = [r.min_size for c in checks if (r := c.assessor.rule(c.params, policy)) and r.min_size is not None]
        if not sizes:
            raise ValueError("the policy has no error-severity check implying a class size (k): give --option k=...")
        k = max(sizes)
    ks = list(k) if isinstance(k, list) else [k]
    steps = len(combs) if combs else 1
    if len(ks) == 1:
        return ks * steps
    if len(ks) != steps:
        raise ValueError(f"k: {len(ks)} values for {steps} entries of combs (give one, or one per entry)")
    return ks


def _rule_steps(
    policy: Any, checks: list, options: LocalSuppressionOptions, columns: list[str]
) -> list[tuple[tuple[int, ...], int]]:
    """The subsets to make safe under the policy's combination rules (:mod:`privaudit.core.combinations`), as
    (column positions, k): every quasi-identifier with the k the option or the error checks imply (when
    either does), then the rules' combinations, the largest first (sdcMicro's combs = c(4, 3, 2) order)."""
    if isinstance(options.k, list):
        raise ValueError("k: a list of k goes with combs; the policy's combination rules carry their own k")
    position = {c: j for j, c in enumerate(columns)}
    steps: list[tuple[tuple[int, ...], int]] = []
    implied = [r.min_size for c in checks if (r := c.assessor.rule(c.params, policy)) and r.min_size is not None]
    k = options.k if options.k is not None else max(implied, default=None)
    if k is not None:
        steps.append((tuple(range(len(columns))), int(k)))
    combos = sorted(policy.combinations, key=lambda c: -len(c.columns))
    steps += [(tuple(position[c] for c in combo.columns), combo.k) for combo in combos]
    return steps


def suppress_table(
    table: pd.DataFrame,
    policy: Any,
    checks: list,
    options: LocalSuppressionOptions,
    progress: Any = None,
) -> Outcome:
    """Local suppression of ``table`` (typed as the audit types it) under ``policy``: the function
    ``--explore`` calls on a generalized table. The input is not changed."""
    import numpy as np

    from privaudit.core.summary import column_codes
    from privaudit.remediation import importance as importance_of
    from privaudit.remediation.local_suppression import (
        suppress_for_combinations,
        suppress_for_k,
        suppress_for_subsets,
    )

    columns = list(policy.quasi_identifiers)
    if not columns:
        raise ValueError("the policy declares no quasi-identifier to suppress")
    combs = options.combs
    if combs and any(c < 1 or c > len(columns) for c in combs):
        bad = next(c for c in combs if c < 1 or c > len(columns))
        raise ValueError(f"combs: {bad} is not between 1 and the {len(columns)} quasi-identifiers")
    rules = getattr(policy, "combinations", None) if not combs else None
    steps = _rule_steps(policy, checks, options, columns) if rules else None
    ks = [k for _, k in steps] if steps else target_k(policy, checks, options.k, combs)
    importance = importance_of.resolve(policy, columns, table, options.importance)
    codes = np.column_stack([np.asarray(column_codes(table[c])[0], dtype=np.int32) for c in columns])
    wildcard = policy.data.missing_qi == "wildcard"

    def report(round_: int) -> None:
        if progress:
            progress("local suppression", round_, round_ + 1)

    if steps:
        result = suppress_for_subsets(codes, steps, importance, wildcard=wildcard, progress=report, passes=10)
    elif combs:
        result = suppress_for_combinations(codes, ks, combs, importance, wildcard=wildcard, progress=report)
    else:
        result = suppress_for_k(codes, ks[0], importance, wildcard=wildcard, progress=report)
    out = table.copy()
    for j, column in enumerate(columns):
        rows = result.suppressed[:, j]
        if rows.any():
            out.loc[rows, column] = np.nan
    per_column = {c: int(result.suppressed[:, j].sum()) for j, c in enumerate(columns)}
    affected = int(result.suppressed.any(axis=1).sum())
    notes = list(result.notes)
    for j, column in enumerate(columns):
        spec = policy.columns[column]
        present = codes[:, j] >= 0
        if spec.keep and present.any() and result.suppressed[present, j].all():
            notes.append(f"every value of {column!r} (keep: true) is suppressed")
    if not wildcard:
        notes.append(
            "data.missing_qi is 'value': a suppressed cell is a value of its own; 'wildcard' (sdcMicro's "
            "semantics) lets it match any value and needs fewer cells"
        )
    return Outcome(
        out,
        per_column,
        result.ok,
        ks,
        dict(zip(columns, importance.tolist(), strict=True)),
        result.rounds,
        affected,
        notes,
        len(rules) if steps and rules else 0,
    )


def _remediation(outcome: Outcome, n: int, combs: list[int] | None) -> tuple[dict, dict, list[str]]:
    cells = sum(outcome.per_column.values())
    columns = len(outcome.per_column)
    changes = {
        "k": outcome.k if combs or outcome.combinations else outcome.k[0],
        "combs": combs,
        **({"policy_combinations": outcome.combinations} if outcome.combinations else {}),
        "importance": outcome.importance,
        "cells_suppressed_per_column": outcome.per_column,
        "rounds": outcome.rounds,
    }
    loss = {
        "cells_suppressed": cells,
        "share_of_cells": cells / (n * columns) if n and columns else 0.0,
        "cells_suppressed_per_column": outcome.per_column,
        "records_affected": outcome.records_affected,
        "share_of_records": outcome.records_affected / n if n else 0.0,
    }
    notes = list(outcome.notes)
    if outcome.combinations:
        notes.append(f"the policy's {outcome.combinations} combinations of quasi-identifiers were made safe in turn")
    if not outcome.ok:
        notes.append("the combinations' k was not reached" if outcome.combinations else "k-anonymity was not reached")
    return changes, loss, notes


def run(ctx: Any, options: LocalSuppressionOptions) -> Remediation:
    checks = error_checks(ctx)
    outcome = suppress_table(ctx.table, ctx.policy, checks, options, ctx.progress)
    changes, loss, notes = _remediation(outcome, len(ctx.table), options.combs)
    others = [
        c.id
        for c in checks
        if c.assessor.class_violations is not None
        and ((r := c.assessor.rule(c.params, ctx.policy)) is None or r.min_size is None)
        and not (r is not None and r.combinations and outcome.combinations)
    ]
    if others:
        notes.append("local suppression aims at k only; checks it does not steer: " + ", ".join(others))
    notes.insert(0, f"{fmt(loss['cells_suppressed'])} cells suppressed in {fmt(loss['records_affected'])} records")
    return Remediation(outcome.table, changes, loss, notes=notes)


def after(ctx: Any, first: Remediation, options: LocalSuppressionOptions | None = None) -> Remediation:
    """``first`` (another method's output on ``ctx``, e.g. generalization) followed by local suppression of
    its table, audited as ``first`` says (its column overrides: built hierarchies, retyped columns).
    Changes, loss and notes of both are kept, the second's under ``local_suppression``."""
    from privaudit.core.policy import with_columns

    options = options or LocalSuppressionOptions()
    policy = with_columns(ctx.policy, first.column_overrides) if first.column_overrides else ctx.policy
    checks = [c for c in policy.checks if c.severity == "error"]
    outcome = suppress_table(first.table, policy, checks, options, ctx.progress)
    changes, loss, notes = _remediation(outcome, len(first.table), options.combs)
    return Remediation(
        outcome.table,
        {**first.changes, "local_suppression": changes},
        {**first.loss, "local_suppression": loss},
        artefacts=first.artefacts,
        notes=list(first.notes) + notes,
        records_removed=first.records_removed,
        check_overrides=first.check_overrides,
        column_overrides=first.column_overrides,
    )


def generalize_then_suppress(
    ctx: Any, levels: dict[str, int], options: LocalSuppressionOptions | None = None, build_hierarchies: bool = True
) -> Remediation:
    """The table of ``ctx`` generalized to the full-domain ``levels`` (QI -> hierarchy level; a QI not named
    stays at 0; hierarchies built as generalize builds them), then locally suppressed until k holds: the
    candidate "generalize then local suppression", for a level vector coarse enough that few cells remain to
    blank. ValueError names a column that is no generalizable QI or a level above its hierarchy."""
    from privaudit.remediation.generalization import CostModel, LatticeSearch, all_metrics
    from privaudit.remediation.generalization.builders import working_problem

    problem, built = working_problem(ctx, build_hierarchies)
    heights = {d.column: d.height for d in problem.domains}
    for column, level in levels.items():
        if column not in heights:
            raise ValueError(f"levels: {column!r} is not a quasi-identifier with a hierarchy")
        if not 0 <= int(level) <= heights[column]:
            raise ValueError(f"levels: {column!r} has levels 0 to {heights[column]}, not {level}")
    vector = [int(levels.get(c, 0)) for c in problem.columns]
    nodes = LatticeSearch(problem, CostModel(problem.domains, "NLLM")).generalized(vector)
    first = Remediation(
        problem.publish(nodes),
        {"algorithm": "fixed levels", "levels": dict(zip(problem.columns, vector, strict=True)),
         **({"built_hierarchies": built.report} if built.hierarchies else {})},
        all_metrics(problem.domains, nodes, "auto", None, 1.0),
        column_overrides=built.overrides,
    )  # fmt: skip
    return after(ctx, first, options)


REMEDIATOR = Remediator(
    name="local_suppression",
    options=LocalSuppressionOptions,
    run=run,
    title="Local suppression (fewest cells)",
    description="blank the fewest, least important quasi-identifier cells until k-anonymity holds "
    "(sdcMicro's localSuppression: importance, combs)",
    refines=True,  # explore also runs it on the failing candidates of the other methods (recode, then suppress)
)


@hookimpl
def privaudit_remediators():
    return [REMEDIATOR]
