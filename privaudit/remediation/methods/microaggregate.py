"""microaggregate: replace numeric quasi-identifiers by cluster centroids (MDAV, t-closeness-aware).

Seed paper: Soria-Comas, Domingo-Ferrer, Sánchez & Martínez, "t-Closeness through Microaggregation"
(IEEE TKDE 2015); algorithms in :mod:`privaudit.remediation.microaggregation`. The targets come from the policy:
k is the option ``k`` when given, else the largest class size its error-severity checks imply (their declared ``ClassRule.min_size``:
k-anonymity's k, p-sensitive k-anonymity's k); t and the sensitive column from the distances they bound on a
numeric column (``ClassRule.max_distance``: t-closeness's t; the smallest t when there are several). The policy's ``importance`` of the quasi-identifiers weighs them in MDAV's distances (more important,
heavier: kept closer). Every quasi-identifier must be numeric with no missing values; the output keeps
all records and columns, with each record's QIs set to its cluster's centroid.
"""

from __future__ import annotations

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

if TYPE_CHECKING:  # numpy and the microaggregation algorithms load when a remediation runs, not with the registry
    import numpy as np


class MicroaggregateOptions(Params):
    algorithm: Literal["auto", "mdav", "merge", "k-anonymity-first", "t-closeness-first"] = Field(
        default="auto", description="auto: t-closeness-first when the policy has a numeric t-closeness check, else mdav"
    )
    k: int | None = Field(
        default=None, ge=1, description="The class size to aim at; default the largest the error checks imply."
    )


def targets(ctx, k: int | None = None) -> tuple[int, float | None, str | None]:
    """k, t and the sensitive column to aim at, from the class rules the error checks declare: the largest
    class size implied (or ``k`` when given: then no check need imply one), and the smallest distance allowed
    on a numeric column."""
    rules = [r for c in error_checks(ctx) if (r := c.assessor.rule(c.params, ctx.policy)) is not None]
    ks = [r.min_size for r in rules if r.min_size is not None]
    t, sensitive = None, None
    for rule in rules:
        for column, bound in rule.max_distance.items():
            if ctx.policy.columns[column].type == "numeric" and (t is None or bound < t):
                t, sensitive = bound, column
    if k is not None:
        return k, t, sensitive
    if not ks and t is None:
        raise ValueError(
            "the policy has no error-severity check implying a class size (k) or a distance on a numeric "
            "column (t) to aim at"
        )
    return (max(ks) if ks else 1), t, sensitive


def run(ctx, options: MicroaggregateOptions) -> Remediation:
    import numpy as np

    from privaudit.remediation.microaggregation import microaggregate

    qi = ctx.policy.quasi_identifiers
    categorical = [c for c in qi if ctx.policy.columns[c].type != "numeric"]
    if categorical:
        raise ValueError(
            f"microaggregation needs numeric quasi-identifiers; {categorical[0]!r} is "
            f"{ctx.policy.columns[categorical[0]].type} (generalize or suppress it instead)"
        )
    X = ctx.table[qi].to_numpy(dtype=float)
    if np.isnan(X).any():
        column = qi[int(np.flatnonzero(np.isnan(X).any(axis=0))[0])]
        raise ValueError(f"quasi-identifier {column!r} has missing values; microaggregation needs complete data")
    k, t, sensitive = targets(ctx, options.k)
    algorithm = options.algorithm
    if algorithm == "auto":
        algorithm = "t-closeness-first" if t is not None else "mdav"
    if algorithm != "mdav" and t is None:
        raise ValueError(
            f"algorithm {algorithm!r} needs an error-severity check bounding the distance (t) of a numeric column"
        )
    s = ctx.table[sensitive].to_numpy(dtype=float) if sensitive else None
    if s is not None and np.isnan(s).any():
        raise ValueError(f"sensitive column {sensitive!r} has missing values")

    def report(done: int, total: int) -> None:
        if ctx.progress:
            ctx.progress(f"microaggregating ({algorithm})", done, total)

    weights = _weights(ctx, qi)
    result = microaggregate(X, s, k, t, algorithm=algorithm, progress=report, weights=weights)
    table = ctx.table.copy()
    for j, column in enumerate(qi):
        table[column] = _without_float_noise(result.X_aggregated[:, j])
    changes = {
        "algorithm": algorithm,
        "k": k,
        "t": t,
        "sensitive": sensitive,
        "columns": qi,
        "k_effective": result.k_effective,
        "merges": result.n_merges,
        **({"weights": dict(zip(qi, weights.tolist(), strict=True))} if weights is not None else {}),
    }
    loss = {
        "normalized_sse": result.normalized_sse,
        "sse": result.sse,
        "clusters": result.n_clusters,
        "min_cluster_size": result.min_cluster_size,
        "mean_cluster_size": float(result.cluster_sizes.mean()),
        "max_cluster_emd": None if result.cluster_emd is None else float(result.cluster_emd.max()),
    }
    return Remediation(table, changes, loss)


def _weights(ctx, qi: list[str]) -> np.ndarray | None:
    """Distance weights of the standardised QIs from the policy's importance, when it ranks any
    (:mod:`privaudit.remediation.importance`): importance i of n levels weighs n + 1 - i, scaled to a mean of
    1, so clusters are tighter in the important QIs and their centroids move them less."""
    if not any(ctx.policy.columns[c].importance is not None for c in qi):
        return None
    import numpy as np

    from privaudit.remediation import importance as importance_of

    importance = importance_of.resolve(ctx.policy, qi, ctx.table).astype(np.float64)
    weights = importance.max() + 1.0 - importance
    return weights / weights.mean()


def _without_float_noise(centroids: np.ndarray) -> np.ndarray:
    """Centroids rounded to 15 significant digits: a mean of 0.3, 0.12, 0.18, 0.1 and 0.15 is published as
    0.17, not 0.16999999999999998 (the summation's rounding error, below a double's 15-16 digit precision,
    is no information). Done here, before the re-audit, so the audited table is the written one; each
    distinct centroid is rounded once."""
    import numpy as np

    uniques, inverse = np.unique(centroids, return_inverse=True)
    rounded = np.array([float(f"{v:.15g}") for v in uniques.tolist()], dtype=float)
    return rounded[inverse.reshape(-1)]


def explore(ctx, request: ExploreRequest) -> list[ExploreCandidate]:
    """MDAV at several k around the largest class size the error checks' class rules imply (5 when none does),
    when every quasi-identifier is numeric; ``--option k=...`` replaces them."""
    from privaudit.remediation.methods.generalize import spread

    policy = ctx.policy
    categorical = [c for c in policy.quasi_identifiers if policy.columns[c].type != "numeric"]
    if categorical:
        request.notes.append(f"microaggregate: left out, quasi-identifier {categorical[0]!r} is not numeric")
        return []
    rules = [r for c in error_checks(ctx) if (r := c.assessor.rule(c.params, policy)) is not None]
    k = max((r.min_size for r in rules if r.min_size is not None), default=5)
    values = sorted({max(2, k // 2), k, 2 * k, 3 * k, 5 * k})
    base = [{"k": value} for value in spread(values, request.limit)]
    return sweep(ctx, base, request, MicroaggregateOptions, run)


REMEDIATOR = Remediator(
    name="microaggregate",
    options=MicroaggregateOptions,
    run=run,
    title="Microaggregation",
    description="replace numeric quasi-identifiers by centroids of clusters of >= k records (MDAV; t-closeness-aware)",
    explore=explore,
)


@hookimpl
def privaudit_remediators():
    return [REMEDIATOR]
