"""The ``round`` remediator: round numeric quasi-identifiers to a base, as µ-ARGUS's rounding does.

Rounding replaces each value ``x`` of a numeric variable by the multiple of the rounding base ``b``
nearest to it, ``round(x / b) · b`` (a value halfway between two multiples goes to the even one, as
numpy rounds): Hundepool et al., *Statistical Disclosure Control*, Wiley 2012, section 3.4.2.3
("Rounding"); µ-ARGUS 4.2 user's manual, "Rounding" (the base chosen per variable; µ-ARGUS's own
rounding is deterministic like this one). Fewer distinct values means larger equivalence classes, so a
release that fails k-anonymity on an exact age or income may pass once they are rounded to 5 or 1,000.
Missing values stay missing; non-numeric columns are never touched.

Options: ``base`` (> 0; default 10) and ``columns`` (the numeric quasi-identifiers to round; default every
numeric quasi-identifier of the policy). privaudit audits the output again under the same policy and only
offers it when every error-severity check passes.

``remediate --explore`` asks :func:`explore` for candidates: rounding at several bases of the 1-2-5 series
between 1/200 and 1/4 of the widest numeric quasi-identifier's range that merge some values (a fine base
keeps detail, a coarse one protects more), spread over at most the number of candidates explore allows; the user's
``--option base=...`` values replace them.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from pydantic import Field

from privaudit.plugin import Params, Remediation, Remediator, hookimpl
from privaudit.plugin.remediator import ExploreCandidate, ExploreRequest, option_settings


class RoundOptions(Params):
    base: float = Field(default=10.0, gt=0, description="The rounding base: values become its nearest multiples.")
    columns: list[str] | None = Field(
        default=None, min_length=1, description="The numeric quasi-identifiers to round; default all of them."
    )


def rounded_columns(policy: Any, columns: list[str] | None) -> list[str]:
    """The columns to round; ValueError (the method does not apply) naming a column that cannot be."""
    numeric = [c for c in policy.quasi_identifiers if policy.columns[c].type == "numeric"]
    if columns is None:
        if not numeric:
            raise ValueError("round needs a numeric quasi-identifier; the policy declares none")
        return numeric
    for column in columns:
        if column not in numeric:
            raise ValueError(f"columns: {column!r} is not a numeric quasi-identifier of the policy")
    return list(columns)


def round_values(values: Any, base: float) -> Any:
    """``values`` (a float array, NaN missing) rounded to the nearest multiples of ``base``, without the
    floating-point noise of ``k · b`` (``3 · 0.1`` is written ``0.3``)."""
    import numpy as np

    out = np.round(np.asarray(values, dtype=float) / base) * base
    digits = max(0, -math.floor(math.log10(base)) + 12)
    return np.round(out, digits)


def run(ctx: Any, options: RoundOptions) -> Remediation:
    """Round ``options.columns`` of ``ctx.table`` (see the module's docstring)."""
    import numpy as np

    columns = rounded_columns(ctx.policy, options.columns)
    table = ctx.table.copy()
    changed, mean_shift, distinct = {}, {}, {}
    for column in columns:
        before = table[column].to_numpy(dtype=float)
        after = round_values(before, options.base)
        present = ~np.isnan(before)
        changed[column] = int(np.count_nonzero(after[present] != before[present]))
        mean_shift[column] = float(np.abs(after[present] - before[present]).mean()) if present.any() else 0.0
        distinct[column] = {
            "before": int(len(np.unique(before[present]))),
            "after": int(len(np.unique(after[present]))),
        }
        table[column] = after
    changes = {"base": options.base, "columns": columns, "values_changed": changed}
    loss = {"mean_absolute_change": mean_shift, "distinct_values": distinct}
    return Remediation(table, changes, loss)


def candidate_bases(ctx: Any, columns: list[str], limit: int) -> list[float]:
    """Bases of the 1-2-5 series between 1/200 and 1/4 of the widest column's range that merge some values
    (a base finer than the data's own steps changes nothing), at most ``limit`` of them, spread from the
    finest to the coarsest."""
    import numpy as np

    values = ctx.table[columns].to_numpy(dtype=float)
    present = [v[~np.isnan(v)] for v in values.T]
    span = max((float(v.max() - v.min()) for v in present if len(v)), default=0.0)
    if span <= 0:
        return []
    low, high = span / 200, span / 4
    exponents = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    series = [float(f"{m * 10.0**e:.12g}") for e in exponents for m in (1, 2, 5)]
    distinct = [len(np.unique(v)) for v in present]
    bases = [
        b
        for b in series
        if low <= b <= high
        and any(len(np.unique(round_values(v, b))) < d for v, d in zip(present, distinct, strict=True))
    ]
    if limit >= len(bases):
        return bases
    picks = sorted({round(i * (len(bases) - 1) / max(limit - 1, 1)) for i in range(limit)})
    return [bases[i] for i in picks]


def explore(ctx: Any, request: ExploreRequest) -> list[ExploreCandidate]:
    """The candidates ``round`` offers the risk-utility map (see the module's docstring)."""
    columns = rounded_columns(ctx.policy, None)  # a ValueError: a note that round does not apply
    given_columns = request.fixed.get("columns")
    fixed = dict(request.fixed)
    base: list[dict[str, Any]] = []
    if "base" not in fixed:
        bases = candidate_bases(ctx, columns, request.limit)
        if not bases:
            request.notes.append("round: left out, no base merges any value of the numeric quasi-identifiers")
            return []
        base = [{"base": b} for b in bases]
    out = []
    for setting in option_settings(base, fixed)[: request.limit]:
        options = RoundOptions.model_validate(setting)
        shown = {**options.model_dump(mode="json")}
        if given_columns is None:
            shown["columns"] = columns
        out.append(ExploreCandidate(shown, make=partial(run, ctx, options)))
    return out


REMEDIATOR = Remediator(
    name="round",
    options=RoundOptions,
    run=run,
    title="Rounding",
    description="round numeric quasi-identifiers to the nearest multiple of a base (µ-ARGUS rounding; privaudit-extras)",
    explore=explore,
)


@hookimpl
def privaudit_remediators() -> list[Remediator]:
    return [REMEDIATOR]
