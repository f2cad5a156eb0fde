"""pram: invariant post-randomisation of nominal quasi-identifiers, as sdcMicro 5.8 defines it.

sdcMicro's ``pram(obj, variables = NULL, strata_variables = NULL, pd = 0.8, alpha = 0.5)`` (R/pram.R, commit
cf32510; Gouweleeuw, Kooiman, Willenborg & de Wolf, J. Official Statistics 14(4), 1998; Hundepool et al.,
*Statistical Disclosure Control*, Wiley 2012, §3.4.6): each record's category of a variable is replaced by one
drawn from row i of an invariant transition matrix (P's diagonal drawn in [pd, 1], its Bayes inverse Q,
``Rs = alpha P Q + (1 - alpha) I``: the expected released marginal is the original one), within each stratum of
``strata_variables``. The algorithm is :mod:`privaudit.remediation.perturbation`. Options: ``variables`` (default
every nominal quasi-identifier), ``strata_variables``, ``pd`` in (0, 1], ``alpha`` in [0, 1], ``seed`` (NumPy's
generator: not R's draws).

The matrices used are written beside the output, as ``randomize`` writes its distortion matrices: without
strata, ``<out>.pram-<column>.csv``, the square CSV ``rr_attribute_disclosure`` reads (rows the released value,
columns the original: the transpose of sdcMicro's ``Rs``, whose rows are the original), so a policy can
publish it as that check's ``randomized: {<column>: {matrix: <file>}}``; with strata,
``<out>.pram-<column>.strata.csv``, one such block per stratum under the strata's columns, which that check
cannot read (its model has one matrix per column for every record). sdcMicro warns that k-anonymity and
risk measures of pramed key variables are not useful anymore: the re-audit counts the released values.
"""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import Field

from privaudit.common.params import Params
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.remediator import ExploreCandidate, ExploreRequest, Remediation, Remediator, option_settings

if TYPE_CHECKING:  # numpy and pandas load when a remediation runs, not with the registry
    import numpy as np
    import pandas as pd


class PramOptions(Params):
    variables: list[str] | None = Field(
        default=None, description="Nominal quasi-identifiers to pram (default: every nominal quasi-identifier)."
    )
    strata_variables: list[str] | None = Field(
        default=None, description="Columns whose combinations are strata: records move only within their stratum."
    )
    pd: float = Field(default=0.8, gt=0, le=1, description="Least diagonal of the matrix P (drawn in [pd, 1]).")
    alpha: float = Field(default=0.5, ge=0, le=1, description="Share of the invariant matrix mixed with I.")
    seed: int = Field(default=0, description="Seed of the draws (NumPy's generator).")


def _variables(ctx, options: PramOptions) -> list[str]:
    policy = ctx.policy
    nominal = [c for c in policy.quasi_identifiers if policy.columns[c].type == "nominal"]
    if options.variables is None:
        if not nominal:
            raise ValueError("the policy has no nominal quasi-identifier to pram")
        return nominal
    for name in options.variables:
        if name not in nominal:
            raise ValueError(f"variables: {name!r} is not a nominal quasi-identifier of the policy")
    if not options.variables:
        raise ValueError("variables: give at least one nominal quasi-identifier")
    return list(dict.fromkeys(options.variables))


def _strata(ctx, options: PramOptions, variables: list[str]) -> tuple[np.ndarray[Any, Any], pd.DataFrame | None]:
    """Each record's stratum (0..S-1) and the strata's values (one row per stratum; None without strata)."""
    import numpy as np

    names = list(dict.fromkeys(options.strata_variables or []))
    for name in names:
        if name not in ctx.table.columns:
            raise ValueError(f"strata_variables: {name!r} is not a column of the table")
        if name in variables:
            raise ValueError(f"strata_variables: {name!r} is also pramed; a stratum must not change")
    if not names:
        return np.zeros(len(ctx.table), dtype=np.int64), None
    frame = ctx.table[names].astype(object).where(ctx.table[names].notna(), None)
    ids = frame.groupby(names, dropna=False, sort=True).ngroup().to_numpy(dtype=np.int64)
    keys = frame.assign(_stratum=ids).drop_duplicates("_stratum").set_index("_stratum")[names]
    return ids, keys.sort_index()


def run(ctx, options: PramOptions) -> Remediation:
    import numpy as np
    import pandas as pd

    from privaudit.remediation.perturbation import pram_codes

    variables = _variables(ctx, options)
    strata, keys = _strata(ctx, options, variables)
    rng = np.random.default_rng(options.seed)
    table = ctx.table.copy()
    artefacts: dict[str, bytes] = {}
    changed: dict[str, int] = {}
    shift: dict[str, float] = {}
    for column in variables:
        values = ctx.table[column]
        codes, labels = pd.factorize(values, sort=True)
        if not len(labels):  # every value missing (a column a step before suppressed): nothing to draw from
            changed[column], shift[column] = 0, 0.0
            continue
        result = pram_codes(codes.astype(np.int64), strata, len(labels), options.pd, options.alpha, rng)
        released = np.where(result.codes >= 0, np.asarray(labels, dtype=object)[result.codes], None)
        new = pd.Series(released, index=values.index, dtype=object).where(result.codes >= 0, np.nan)
        table[column] = pd.Categorical(new, categories=values.cat.categories) if hasattr(values, "cat") else new
        changed[column] = int((result.codes != codes).sum())
        before = np.bincount(codes[codes >= 0], minlength=len(labels)) / max(int((codes >= 0).sum()), 1)
        after = np.bincount(result.codes[result.codes >= 0], minlength=len(labels)) / max(int((codes >= 0).sum()), 1)
        shift[column] = float(np.abs(after - before).max()) if len(labels) else 0.0
        artefacts.update(_matrix_files(column, [str(v) for v in labels], result.matrices, keys))
    total = sum(changed.values())
    notes = [
        "sdcMicro warns that k-anonymity and risk measures of pramed key variables are not useful anymore: "
        "the re-audit counts the released values, which may not be the records' own"
    ]
    if keys is None:
        published = ", ".join(f"{c}: {{matrix: <out stem>{_suffix(c)}}}" for c in variables)
        notes.append(
            f"to audit the output under randomized response, give an rr_attribute_disclosure check "
            f"randomized: {{{published}}} (the matrices written beside it)"
        )
    return Remediation(
        table=table,
        changes={
            "variables": variables,
            "strata_variables": list(options.strata_variables or []),
            "strata": 1 if keys is None else len(keys),
            "pd": options.pd,
            "alpha": options.alpha,
            "seed": options.seed,
            "values_changed": changed,
        },
        loss={
            "share_values_changed": total / max(len(table) * len(variables), 1),
            "largest_marginal_shift": max(shift.values(), default=0.0),
        },
        artefacts=artefacts,
        notes=notes,
    )


def _suffix(column: str, strata: bool = False) -> str:
    """The side file's suffix for ``column`` (a name reduced to characters safe in a file name)."""
    return f".pram-{re.sub(r'[^A-Za-z0-9_.-]', '_', column)}{'.strata' if strata else ''}.csv"


def _matrix_files(
    column: str, labels: list[str], matrices: np.ndarray[Any, Any], keys: pd.DataFrame | None
) -> dict[str, bytes]:
    """The matrices used, as ``rr_attribute_disclosure``'s square CSV (rows released, columns original); with
    strata, one block per stratum, the strata's values in front."""
    import io

    import pandas as pd

    from privaudit.remediation.export import neutralise
    from privaudit.remediation.methods.randomize import matrix_csv

    if keys is None:
        return {_suffix(column): matrix_csv(labels, matrices[0].T)}
    blocks = []
    for s, (_, key) in enumerate(keys.iterrows()):  # one block per stratum (not per record)
        block = pd.DataFrame(matrices[s].T, columns=labels)
        block.insert(0, "released \\ original", labels)
        for position, name in enumerate(keys.columns):
            block.insert(position, name, key[name])
        blocks.append(block)
    buffer = io.StringIO()
    neutralise(pd.concat(blocks, ignore_index=True)).to_csv(
        buffer, index=False, float_format="%.12g", lineterminator="\n"
    )
    return {_suffix(column, strata=True): buffer.getvalue().encode("utf-8")}


def explore(ctx, request: ExploreRequest) -> list[ExploreCandidate]:
    """Invariant PRAM of every nominal quasi-identifier at pd 0.9, 0.8 (sdcMicro's default), 0.7, 0.6 and
    0.5, alpha 0.5 (sdcMicro's default); ``--option pd=...`` (or alpha, strata_variables) crosses them."""
    from privaudit.remediation.methods.generalize import spread

    policy = ctx.policy
    if not any(policy.columns[c].type == "nominal" for c in policy.quasi_identifiers):
        request.notes.append("pram: left out, the policy has no nominal quasi-identifier")
        return []
    from privaudit.plugin.remediator import error_checks

    if not any(
        c.assessor.response_bound is not None or "original" in c.assessor.needs for c in error_checks(ctx)
    ):  # class sizes of pramed key variables say nothing of the risk: a candidate would pass k-anonymity unearned
        request.notes.append(
            "pram: left out, no error-severity check measures the risk of perturbed values (a randomized-response "
            "bound, or record linkage against --original); sdcMicro warns that k-anonymity and risk measures of "
            "pramed key variables are not useful anymore"
        )
        return []
    base = [{"pd": value} for value in spread([0.9, 0.8, 0.7, 0.6, 0.5], request.limit)]
    out = []
    for given in option_settings(base, request.fixed)[: request.limit]:
        options = PramOptions.model_validate(given)  # each run guarded on its own by explore
        out.append(ExploreCandidate({**given, **options.model_dump(mode="json")}, make=partial(run, ctx, options)))
    return out


REMEDIATOR = Remediator(
    name="pram",
    options=PramOptions,
    run=run,
    title="Post-randomisation (PRAM)",
    description="replace nominal quasi-identifiers' categories by draws from an invariant transition matrix "
    "(sdcMicro's pram)",
    explore=explore,
)


@hookimpl
def privaudit_remediators() -> list[Remediator]:
    return [REMEDIATOR]
