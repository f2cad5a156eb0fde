"""randomize: randomized response with keep probabilities chosen to meet the policy's risk bound.

Seed paper: Guo, Ying & Wu (JCSE 2011). The target is the policy's first error-severity check declaring a
``ResponseBound`` (its sensitive column, quasi-identifiers and ``max_risk``: the built-in
``rr_attribute_disclosure``), or the option ``max_risk`` in place of the check's bound. For the chosen columns (``mode``: RR-QI,
RR-S or RR-Both, or an explicit ``columns`` list) the keep probabilities p_i minimise the utility loss
prod_i ||P_i^-1||_F^2 subject to max risk <= max_risk (see :mod:`privaudit.risk.rr_selection`);
the table is then randomized with a seeded generator. The distortion matrices are written beside the
output (``<out>.rr-<column>.csv``) so they can be published, and the re-audit uses the chosen keep
probabilities with the pre-randomization table as the original.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from privaudit.common.params import Params
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.remediator import (
    ExploreCandidate,
    ExploreRequest,
    Remediation,
    Remediator,
    error_checks,
    sweep,
)

if TYPE_CHECKING:  # numpy and pandas load when a remediation runs, not with the registry
    import numpy as np


class RandomizeOptions(Params):
    mode: Literal["qi", "sensitive", "both"] = Field(default="qi", description="RR-QI, RR-S or RR-Both.")
    columns: list[str] | None = Field(default=None, description="Columns to randomize (overrides mode).")
    seed: int = Field(default=0, description="Seed of the randomization and of the optimiser's starts.")
    max_risk: float | None = Field(default=None, ge=0, le=1, description="Aim at this bound instead of the check's.")


def _target(ctx):
    """The first error check declaring a randomized-response bound, and the bound."""
    for check in error_checks(ctx):
        declared = check.assessor.response_bound
        bound = None if declared is None else declared(check.params, ctx.policy)
        if bound is not None:
            return check, bound
    raise ValueError(
        "the policy has no error-severity rr_attribute_disclosure check (a check bounding the "
        "reconstruction of a sensitive value under randomized response) to aim at"
    )


def matrix_csv(labels, matrix: np.ndarray) -> bytes:
    """A distortion matrix as the square CSV ``rr_attribute_disclosure`` reads (labels on both axes)."""
    import pandas as pd

    from privaudit.remediation.export import neutralise

    frame = pd.DataFrame(matrix, index=[str(v) for v in labels], columns=[str(v) for v in labels])
    buffer = io.StringIO()  # labels that start like a formula are neutralised (read back by load_distortion_matrix)
    neutralise(frame).to_csv(buffer, index_label="released \\ original", float_format="%.12g", lineterminator="\n")
    return buffer.getvalue().encode("utf-8")


def run(ctx, options: RandomizeOptions) -> Remediation:
    import numpy as np
    import pandas as pd

    from privaudit.risk.randomized_response import randomize
    from privaudit.risk.rr_selection import select_keep_probabilities

    check, bound = _target(ctx)
    qi = list(bound.quasi_identifiers)
    sensitive = bound.sensitive
    if options.columns:
        columns = list(options.columns)
        bad = [c for c in columns if c not in qi and c != sensitive]
        if bad:
            raise ValueError(f"columns: {bad[0]!r} is neither a quasi-identifier of the check nor its sensitive column")
    else:
        columns = {"qi": qi, "sensitive": [sensitive], "both": [*qi, sensitive]}[options.mode]
    labels = pd.DataFrame(
        {c: ctx.table[c].astype(object).where(ctx.table[c].notna(), np.nan) for c in [*qi, sensitive]}
    )
    max_risk = bound.max_risk if options.max_risk is None else options.max_risk
    selection = select_keep_probabilities(labels, qi, sensitive, columns, max_risk, seed=options.seed)
    randomized = randomize(labels, {c: selection.matrices[c] for c in columns}, seed=options.seed)
    table = ctx.table.copy()
    for column in columns:
        table[column] = pd.Categorical(
            randomized[column].astype(object), categories=list(ctx.table[column].cat.categories)
        )
    changed = int(sum((randomized[c].astype(str) != labels[c].astype(str)).sum() for c in columns))
    notes = [] if selection.feasible else ["even the strongest allowed randomization leaves the risk above max_risk"]
    keep = {c: float(p) for c, p in selection.keep_probabilities.items() if c in columns}
    # the re-audit knows the keep probabilities (check_overrides); a fresh `privaudit audit` of the output
    # only knows them from the policy, so say exactly what to add (JSON is YAML flow syntax)
    overrides = bound.overrides(keep)
    published = ", ".join(f"{name}: {json.dumps(value)}" for name, value in overrides.items())
    notes.append(
        f"to audit the output as it was re-audited, add to check {check.id!r}: {published}, "
        "and give the input as --original (the risk is then measured against its true joint)"
    )
    return Remediation(
        table=table,
        changes={
            "randomized_columns": columns,
            "keep_probabilities": keep,
            "values_changed": changed,
            "target_check": check.id,
            "seed": options.seed,
        },
        loss={
            "utility_loss": selection.utility_loss,
            "utility_loss_full": selection.utility_loss_full,
            "reconstruction_error": selection.reconstruction_error,
            "initial_risk": selection.initial_risk,
            "achieved_risk": selection.achieved_risk,
            "share_values_changed": changed / max(len(table) * len(columns), 1),
        },
        artefacts={f".rr-{c}.csv": matrix_csv(*selection.matrices[c]) for c in columns},
        notes=notes,
        check_overrides={check.id: overrides},
    )


def explore(ctx, request: ExploreRequest) -> list[ExploreCandidate]:
    """Randomized response aimed at several risk bounds around the bound of the policy's first error check
    declaring a ``ResponseBound`` (only when the policy has one); ``--option max_risk=...`` replaces them."""
    from privaudit.remediation.methods.generalize import spread

    try:
        _, bound = _target(ctx)
    except ValueError:
        request.notes.append(
            "randomize: left out, the policy has no error-severity check bounding randomized-response disclosure"
        )
        return []
    aim = float(bound.max_risk)
    base = [{"max_risk": min(1.0, aim * f)} for f in spread([0.5, 0.75, 1.0, 1.25, 1.5], request.limit)]
    return sweep(ctx, base, request, RandomizeOptions, run)


REMEDIATOR = Remediator(
    name="randomize",
    options=RandomizeOptions,
    run=run,
    title="Randomized response",
    description="randomize categorical columns with keep probabilities chosen to meet the rr_attribute_disclosure bound",
    explore=explore,
)


@hookimpl
def privaudit_remediators():
    return [REMEDIATOR]
