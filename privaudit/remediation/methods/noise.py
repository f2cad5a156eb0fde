"""noise: noise added to numeric columns (sdcMicro 5.8's addNoise) and to the sampling weight (µ-ARGUS).

sdcMicro's ``addNoise(obj, variables = NULL, noise = 150, method = "additive", ...)`` (R/addNoise.r, commit
cf32510, ``addNoiseWORK``; Brand 2002; Hundepool et al., *Statistical Disclosure Control*, Wiley 2012,
§3.4.2), the algorithms in :mod:`privaudit.remediation.noise_addition`. Options, with sdcMicro's defaults:

* ``variables``: the numeric columns to perturb, quasi-identifiers or sensitive ones (default every numeric
  quasi-identifier and sensitive column: sdcMicro's continuous key variables ``numVars``); ``[]`` with
  ``weight_noise`` perturbs the weight only;
* ``method``: ``additive`` (sdcMicro's default: noise of sd ``noise/100`` times each variable's sd),
  ``correlated`` (noise of covariance ``noise/100`` times the variables' covariance), ``correlated2``
  (``x sqrt(1 - delta^2)`` plus noise of sd ``delta`` times each variable's: means, variances and the
  covariance structure kept in expectation) or ``restr`` (deterministic shrinking towards the means);
* ``noise`` (percent, >= 0, default 150), ``delta`` (``correlated2``'s, in (0, 1], default 0.1);
* ``weight_noise``: a percentage in (0, 100]: the policy's weight column multiplied by ``1 + k``, k uniform
  in ``[-weight_noise/100, weight_noise/100)`` (µ-ARGUS 4.2 manual §3.6: a weight can give away a stratum
  or region), written with the weight's own decimals as µ-ARGUS writes it;
* ``digits``: round the perturbed values to this many decimals (default none: sdcMicro does not round);
* ``seed`` (NumPy's generator, not R's draws).

What is written, so that the output audits again under the same policy: a numeric column stays numeric.
A column whose hierarchy lists its values (a numeric quasi-identifier with a hierarchy) gets each perturbed
value moved to the nearest of the hierarchy's leaves (which also keeps it inside the leaves' range), so the
hierarchy still reads every released value. The noise's parameters are written beside the output as
``<out>.noise.csv`` (per variable the method, the noise sd or delta, and the released mean and sd), as
analysts need them to correct variance estimates (Brand 2002, §2). sdcMicro warns that k-anonymity of
perturbed key variables is not meaningful: the re-audit counts the released values; record linkage or
interval disclosure against the original (``--original``) measures the risk left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

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

if TYPE_CHECKING:  # numpy and pandas load when a remediation runs, not with the registry
    import numpy as np
    import pandas as pd


class NoiseOptions(Params):
    variables: list[str] | None = Field(
        default=None,
        description="Numeric quasi-identifiers or sensitive columns (default: every numeric QI and sensitive column).",
    )
    method: Literal["additive", "correlated", "correlated2", "restr"] = Field(
        default="additive", description="sdcMicro's addNoise method."
    )
    noise: float = Field(default=150.0, ge=0, description="Amount of noise in percent (additive: of the sd).")
    delta: float = Field(default=0.1, gt=0, le=1, description="correlated2's delta.")
    weight_noise: float | None = Field(
        default=None, gt=0, le=100, description="Percent by which each weight may go up or down (µ-ARGUS)."
    )
    digits: int | None = Field(default=None, ge=0, le=15, description="Round perturbed values to these decimals.")
    seed: int = Field(default=0, description="Seed of the draws (NumPy's generator).")


def numeric_columns(ctx: Any, given: list[str] | None, option: str = "variables") -> list[str]:
    """The numeric quasi-identifiers and sensitive columns named by ``option`` (default all of them); a
    ValueError naming the option for any other."""
    policy = ctx.policy
    numeric = [
        c
        for c, spec in policy.columns.items()
        if spec.type == "numeric" and spec.role in ("quasi_identifier", "sensitive")
    ]
    if given is None:
        return numeric
    for name in given:
        if name not in numeric or as_numbers(ctx.table[name]) is None:
            raise ValueError(f"{option}: {name!r} is not a numeric quasi-identifier or sensitive column")
    return list(dict.fromkeys(given))


def as_numbers(column: pd.Series) -> np.ndarray[Any, Any] | None:
    """The column as floats (NaN missing), or None when a value is not a number."""
    from privaudit.remediation.methods.top_bottom_coding import _numbers

    return _numbers(column)


def released(ctx: Any, column: str, values: np.ndarray[Any, Any], digits: int | None = None) -> pd.Series:
    """Perturbed ``values`` of ``column`` as the output holds them: rounded to ``digits``, and moved to the
    nearest leaf of the column's hierarchy when it has one (so the re-audit reads every value)."""
    import numpy as np
    import pandas as pd

    out = np.round(values, digits) if digits is not None else values.copy()
    hierarchy = ctx.policy.hierarchies.get(column)
    if hierarchy is not None:
        from privaudit.common.numeric import to_numbers

        leaves = to_numbers(list(hierarchy.leaves))
        leaves = np.unique(leaves[~np.isnan(leaves)])
        if not len(leaves):
            raise ValueError(f"column {column!r}: its hierarchy {hierarchy.source} has no numeric leaf to release")
        present = ~np.isnan(out)
        at = np.clip(np.searchsorted(leaves, out[present]), 1, max(len(leaves) - 1, 1))
        below, above = leaves[at - 1], leaves[np.minimum(at, len(leaves) - 1)]
        out[present] = np.where(np.abs(out[present] - below) <= np.abs(above - out[present]), below, above)
    return pd.Series(out, index=ctx.table.index, name=column)


def decimals(values: np.ndarray[Any, Any]) -> int:
    """The fewest decimals (up to 10) that hold every value: µ-ARGUS's nDec of a variable."""
    import numpy as np

    finite = values[np.isfinite(values)]
    for d in range(10):
        if np.allclose(np.round(finite, d), finite, rtol=0, atol=1e-9 * max(1.0, float(np.abs(finite).max(initial=0)))):
            return d
    return 10


def _weight(ctx: Any, options: NoiseOptions) -> str | None:
    if options.weight_noise is None:
        return None
    weights = ctx.policy.columns_with("weight")
    if not weights:
        raise ValueError("weight_noise: the policy has no weight column")
    if as_numbers(ctx.table[weights[0]]) is None:
        raise ValueError(f"weight_noise: the weight column {weights[0]!r} holds a value that is not a number")
    return str(weights[0])


def run(ctx: Any, options: NoiseOptions) -> Remediation:
    import numpy as np

    from privaudit.remediation.noise_addition import add_noise, column_sd, weight_noise

    variables = numeric_columns(ctx, options.variables)
    weight = _weight(ctx, options)
    if not variables and weight is None:
        raise ValueError("variables: the policy has no numeric quasi-identifier or sensitive column to perturb")
    rng = np.random.default_rng(options.seed)
    table = ctx.table.copy()
    per: dict[str, dict[str, Any]] = {}
    changed = 0
    if variables:
        x = np.column_stack([as_numbers(ctx.table[c]) for c in variables])  # type: ignore[misc]  # numeric_columns refused others
        noised = add_noise(x, options.method, options.noise, options.delta, rng)
        sd = column_sd(x)
        for j, column in enumerate(variables):
            table[column] = out = released(ctx, column, noised[:, j], options.digits)
            after = out.to_numpy(dtype=float)
            changed += int((after != x[:, j]).sum() - np.isnan(x[:, j]).sum())
            per[column] = _figures(options, x[:, j], after, float(sd[j]))
    if weight is not None:
        w = as_numbers(ctx.table[weight])
        assert w is not None and options.weight_noise is not None
        table[weight] = np.round(weight_noise(w, options.weight_noise, rng), decimals(w))
        changed += int((table[weight].to_numpy(dtype=float) != w).sum() - np.isnan(w).sum())
        per[weight] = {"weight_noise": options.weight_noise, **_moments(w, table[weight].to_numpy(dtype=float))}
    return Remediation(
        table=table,
        changes={
            "method": options.method,
            "noise": None if options.method == "correlated2" else options.noise,
            "delta": options.delta if options.method == "correlated2" else None,
            "variables": variables,
            "weight": weight,
            "weight_noise": options.weight_noise,
            "digits": options.digits,
            "seed": options.seed,
            "columns": per,
        },
        loss={
            "share_values_changed": changed / max(len(table) * (len(variables) + (weight is not None)), 1),
            "largest_mean_shift_in_sd": max((f.get("mean_shift_in_sd", 0.0) for f in per.values()), default=0.0),
        },
        artefacts={".noise.csv": _parameters_csv(per)},
        notes=[
            "sdcMicro warns that k-anonymity of perturbed key variables is not meaningful: the re-audit counts the "
            "released values; record_linkage or interval_disclosure against the original measures the risk left"
        ],
    )


def _moments(before: np.ndarray[Any, Any], after: np.ndarray[Any, Any]) -> dict[str, float | None]:
    import numpy as np

    def figure(v: float) -> float | None:
        return None if np.isnan(v) else float(v)

    ok = ~np.isnan(before)
    mean, sd = (
        (figure(float(np.mean(before[ok]))), figure(float(np.std(before[ok], ddof=1))))
        if ok.sum() > 1
        else (None, None)
    )
    ok = ~np.isnan(after)
    mean2, sd2 = (
        (figure(float(np.mean(after[ok]))), figure(float(np.std(after[ok], ddof=1)))) if ok.sum() > 1 else (None, None)
    )
    return {"mean_before": mean, "mean_after": mean2, "sd_before": sd, "sd_after": sd2}


def _figures(
    options: NoiseOptions, before: np.ndarray[Any, Any], after: np.ndarray[Any, Any], sd: float
) -> dict[str, Any]:
    """Per variable: the noise's sd (additive: ``noise/100 sd``; correlated: ``sqrt(noise/100) sd``;
    correlated2: ``delta sd``; restr: none), and the released mean and sd against the original's."""
    import math

    scale = {
        "additive": options.noise / 100,
        "correlated": math.sqrt(options.noise / 100),
        "correlated2": options.delta,
    }
    out: dict[str, Any] = {
        "noise_sd": None if math.isnan(sd) or options.method == "restr" else scale[options.method] * sd
    }
    out.update(_moments(before, after))
    if out["mean_before"] is not None and out["mean_after"] is not None and sd > 0:
        out["mean_shift_in_sd"] = abs(out["mean_after"] - out["mean_before"]) / sd
    return out


def _parameters_csv(per: dict[str, dict[str, Any]]) -> bytes:
    """The parameters analysts need (Brand 2002): one row per perturbed column."""
    import io

    import pandas as pd

    from privaudit.remediation.export import neutralise

    rows = [{"column": column, **figures} for column, figures in per.items()]
    buffer = io.StringIO()
    neutralise(pd.DataFrame(rows)).to_csv(buffer, index=False, float_format="%.12g", lineterminator="\n")
    return buffer.getvalue().encode("utf-8")


def explore(ctx: Any, request: ExploreRequest) -> list[ExploreCandidate]:
    """Additive noise at 50, 100, 150 (sdcMicro's default) and 200 % of each variable's sd, and correlated2
    at delta 0.1 (sdcMicro's default), 0.3 and 0.5; ``--option`` values cross them. Offered only when an
    error check measures the risk of perturbed values against the original (record linkage, interval
    disclosure): class sizes of noised values say nothing of the risk."""
    from privaudit.remediation.methods.generalize import spread

    if not numeric_columns(ctx, None):
        request.notes.append("noise: left out, the policy has no numeric quasi-identifier or sensitive column")
        return []
    if not perturbation_measured(ctx):
        request.notes.append(
            "noise: left out, no error-severity check measures the risk of perturbed values against the original "
            "(record linkage, interval disclosure); sdcMicro warns that k-anonymity of perturbed key variables is "
            "not meaningful"
        )
        return []
    settings: list[dict[str, Any]] = [{"method": "additive", "noise": n} for n in (50.0, 100.0, 150.0, 200.0)]
    settings += [{"method": "correlated2", "delta": d} for d in (0.1, 0.3, 0.5)]
    return sweep(ctx, spread(settings, request.limit), request, NoiseOptions, run)


REMEDIATOR = Remediator(
    name="noise",
    options=NoiseOptions,
    run=run,
    title="Noise addition",
    description="add random noise to numeric quasi-identifiers and sensitive columns (sdcMicro's addNoise: "
    "additive, correlated, correlated2, restr) and to the sampling weight (µ-ARGUS's weight noise)",
    explore=explore,
)


@hookimpl
def privaudit_remediators() -> list[Remediator]:
    return [REMEDIATOR]
