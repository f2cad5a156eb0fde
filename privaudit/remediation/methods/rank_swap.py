"""rank_swap: rank swapping of numeric columns, as sdcMicro 5.8 defines it (Moore 1996).

sdcMicro's ``rankSwap(obj, variables = NULL, TopPercent = 5, BottomPercent = 5, K0 = NULL, R0 = NULL,
P = NULL, missing = NA, seed = NULL)`` (R/rankSwap.R and src/RankSwapping.h ``RankSwap``, commit cf32510;
Moore, "Controlled data-swapping techniques for masking public use microdata", US Census Bureau RR 96-04;
Hundepool et al., *Statistical Disclosure Control*, Wiley 2012, §3.4.7), the algorithm in
:mod:`privaudit.remediation.rank_swapping`. Each variable is swapped on its own: each value with another
whose rank differs by less than ``P`` percent of the values swapped. Options, with sdcMicro's defaults:

* ``variables``: numeric quasi-identifiers or sensitive columns (default every one of them: sdcMicro's
  ``numVars``);
* ``P`` (percent in (0, 100]: privaudit's ``P = 15`` is sdcMicro's ``P = 0.15``, which its C++ reads as a
  share), or ``R0`` (in (0, 1], the correlation kept) or ``K0`` (> 0, the subset-mean preservation factor):
  at most one; none gives ``R0 = 0.95``, as sdcMicro;
* ``TopPercent`` / ``BottomPercent`` (default 5 each, in [0, 100)): the highest and lowest values replaced by
  their mean and not swapped (set both to 0 for a release whose values are exactly the original ones,
  permuted);
* ``missing``: a value treated as missing (never swapped) besides empty cells (sdcMicro then writes its empty
  cells as that value; here they stay empty); ``seed`` (NumPy's generator: not sdcMicro's ``CRandom``).

What is written: numeric columns stay numeric; a column whose hierarchy lists its values keeps only those,
as swapped values are values of the column; the coded means are moved to the nearest leaf (see
:func:`privaudit.remediation.methods.noise.released`). The figures used are written beside the output as
``<out>.rank_swap.csv`` (per variable P, the largest rank distance D, records swapped, the coded groups and
their means).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from privaudit.common.params import Params
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.remediator import (
    ExploreCandidate,
    ExploreRequest,
    Remediation,
    Remediator,
    perturbation_measured,
    sweep,
)


class RankSwapOptions(Params):
    variables: list[str] | None = Field(
        default=None,
        description="Numeric quasi-identifiers or sensitive columns (default: every numeric QI and sensitive column).",
    )
    P: float | None = Field(default=None, gt=0, le=100, description="Rank range in percent of the values swapped.")
    R0: float | None = Field(default=None, gt=0, le=1, description="Multivariate preservation factor.")
    K0: float | None = Field(default=None, gt=0, description="Subset-mean preservation factor.")
    TopPercent: float = Field(default=5.0, ge=0, lt=100, description="Highest values grouped to their mean.")
    BottomPercent: float = Field(default=5.0, ge=0, lt=100, description="Lowest values grouped to their mean.")
    missing: float | None = Field(default=None, description="A value treated as missing (never swapped).")
    seed: int = Field(default=0, description="Seed of the draws (NumPy's generator).")

    @model_validator(mode="after")
    def _one_range(self) -> RankSwapOptions:
        if sum(v is not None for v in (self.P, self.R0, self.K0)) > 1:
            raise ValueError("P, R0, K0: give only one of them (sdcMicro's rankSwap)")
        if self.TopPercent + self.BottomPercent >= 100:
            raise ValueError("TopPercent, BottomPercent: together they must stay below 100")
        return self


def run(ctx: Any, options: RankSwapOptions) -> Remediation:
    import numpy as np

    from privaudit.remediation.methods.noise import as_numbers, numeric_columns, released
    from privaudit.remediation.rank_swapping import rank_swap

    variables = numeric_columns(ctx, options.variables)
    if not variables:
        raise ValueError("variables: the policy has no numeric quasi-identifier or sensitive column to swap")
    rng = np.random.default_rng(options.seed)
    table = ctx.table.copy()
    per: dict[str, dict[str, Any]] = {}
    changed = 0
    for column in variables:
        values = as_numbers(ctx.table[column])
        assert values is not None  # numeric_columns refused a column that is not numbers
        result = rank_swap(
            values, rng, options.TopPercent, options.BottomPercent, options.P, options.R0, options.K0, options.missing
        )
        table[column] = out = released(ctx, column, result.values)
        after = out.to_numpy(dtype=float)
        changed += int(((after != values) & ~np.isnan(values)).sum())
        per[column] = {
            "P": 100.0 * result.share,
            "max_rank_distance": result.max_distance,
            "records_swapped": result.swapped,
            "records_top_coded": result.top,
            "records_bottom_coded": result.bottom,
            "top_mean": result.top_mean,
            "bottom_mean": result.bottom_mean,
        }
    given = {k: getattr(options, k) for k in ("P", "R0", "K0") if getattr(options, k) is not None} or {"R0": 0.95}
    return Remediation(
        table=table,
        changes={
            "variables": variables,
            **given,
            "TopPercent": options.TopPercent,
            "BottomPercent": options.BottomPercent,
            "seed": options.seed,
            "columns": per,
        },
        loss={
            "share_values_changed": changed / max(len(table) * len(variables), 1),
            "largest_rank_distance": max(f["max_rank_distance"] for f in per.values()),
        },
        artefacts={".rank_swap.csv": _figures_csv(per)},
        notes=[
            "sdcMicro warns that k-anonymity of perturbed key variables is not meaningful: the re-audit counts the "
            "released values; record_linkage or interval_disclosure against the original measures the risk left"
        ],
    )


def _figures_csv(per: dict[str, dict[str, Any]]) -> bytes:
    import io

    import pandas as pd

    from privaudit.remediation.export import neutralise

    buffer = io.StringIO()
    frame = pd.DataFrame([{"column": column, **figures} for column, figures in per.items()])
    neutralise(frame).to_csv(buffer, index=False, float_format="%.12g", lineterminator="\n")
    return buffer.getvalue().encode("utf-8")


def explore(ctx: Any, request: ExploreRequest) -> list[ExploreCandidate]:
    """Rank swapping at sdcMicro's default (R0 = 0.95) and at P = 5, 10, 15 and 20 percent of the ranks;
    ``--option`` values cross them. Offered only when an error check measures the risk of perturbed values
    against the original (record linkage, interval disclosure), as for noise."""
    from privaudit.remediation.methods.generalize import spread
    from privaudit.remediation.methods.noise import numeric_columns

    if not numeric_columns(ctx, None):
        request.notes.append("rank_swap: left out, the policy has no numeric quasi-identifier or sensitive column")
        return []
    if not perturbation_measured(ctx):
        request.notes.append(
            "rank_swap: left out, no error-severity check measures the risk of perturbed values against the "
            "original (record linkage, interval disclosure); sdcMicro warns that k-anonymity of perturbed key "
            "variables is not meaningful"
        )
        return []
    settings: list[dict[str, Any]] = [{}] + [{"P": p} for p in (5.0, 10.0, 15.0, 20.0)]
    return sweep(ctx, spread(settings, request.limit), request, RankSwapOptions, run)


REMEDIATOR = Remediator(
    name="rank_swap",
    options=RankSwapOptions,
    run=run,
    title="Rank swapping",
    description="swap each numeric value with another within P percent of its rank, extremes grouped to their "
    "mean (sdcMicro's rankSwap)",
    explore=explore,
)


@hookimpl
def privaudit_remediators() -> list[Remediator]:
    return [REMEDIATOR]
