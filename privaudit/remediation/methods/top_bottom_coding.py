"""top_bottom_coding: replace the extreme values of numeric columns, as sdcMicro 5.8 defines it.

sdcMicro's ``topBotCoding(obj, value, replacement, kind = "top", column = NULL)`` (R/topBotCoding.R, commit
cf32510): values strictly above (``kind = "top"``) or below (``"bottom"``) ``value`` become ``replacement``;
Hundepool et al., *Statistical Disclosure Control* (Wiley 2012) §3.4.4. Here one run codes several columns
at once, each at its own thresholds:

* ``columns``: the numeric quasi-identifiers and the sampling weight to code (default every numeric
  quasi-identifier; the weight only when named: µ-ARGUS manual 4.2 §5.4.6 top codes weights, as an extreme
  weight identifies a rare population group);
* ``top`` / ``bottom``: the thresholds as values, one number for every column or ``{column: value}``;
  ``top_quantile`` / ``bottom_quantile``: as shares of the records in (0, 1) (0.99: the 99th percentile, taken
  as a value of the column, R's ``quantile(type = 1)``), the same two forms; a value wins over a share;
* ``top_replacement`` / ``bottom_replacement``: sdcMicro's ``replacement`` (same two forms); default the
  threshold itself (sdcMicro has no default).

What is written, so that the output audits again under the same policy: a column the policy types
``numeric`` stays numeric, holding the replacement number. A quasi-identifier typed ``nominal`` whose values
are all numbers (a generalised or coded column) gets the label privaudit's hierarchies give a top or bottom
code (:func:`privaudit.discovery.hierarchies.interval_label`: ``80+``, ``>=-5`` below zero, ``<15``), or the
replacement's text when one is given; when the column has a hierarchy the label must be one of its nodes.
Anything else (an ordinal or text column) is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from privaudit.common.params import Params
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.remediator import (
    ExploreCandidate,
    ExploreRequest,
    Remediation,
    Remediator,
    sweep,
)

if TYPE_CHECKING:  # numpy and pandas load when a remediation runs, not with the registry
    import numpy as np
    import pandas as pd


class TopBottomOptions(Params):
    columns: list[str] | None = Field(
        default=None, description="Numeric quasi-identifiers (or the weight) to code; default every numeric QI."
    )
    top: float | dict[str, float] | None = Field(default=None, description="Values above it are top coded.")
    bottom: float | dict[str, float] | None = Field(default=None, description="Values below it are bottom coded.")
    top_quantile: float | dict[str, float] | None = Field(
        default=None, description="The top threshold as a share of the records in (0, 1), e.g. 0.99."
    )
    bottom_quantile: float | dict[str, float] | None = Field(
        default=None, description="The bottom threshold as a share of the records in (0, 1), e.g. 0.01."
    )
    top_replacement: float | dict[str, float] | None = Field(
        default=None, description="What top-coded values become (default the threshold)."
    )
    bottom_replacement: float | dict[str, float] | None = Field(
        default=None, description="What bottom-coded values become (default the threshold)."
    )

    @field_validator("top_quantile", "bottom_quantile")
    @classmethod
    def _share(cls, value: float | dict[str, float] | None) -> float | dict[str, float] | None:
        for v in value.values() if isinstance(value, dict) else [value]:
            if v is not None and not 0 < v < 1:
                raise ValueError("not a share in (0, 1)")
        return value


def _of(options: TopBottomOptions, name: str, column: str) -> float | None:
    """Option ``name`` for ``column``: its one number, its mapping's entry, or None."""
    value = getattr(options, name)
    if isinstance(value, dict):
        return None if value.get(column) is None else float(value[column])
    return None if value is None else float(value)


def _refuse_unknown(options: TopBottomOptions, columns: list[str]) -> None:
    """A mapping naming a column that is not coded."""
    for name in ("top", "bottom", "top_quantile", "bottom_quantile", "top_replacement", "bottom_replacement"):
        value = getattr(options, name)
        for column in value if isinstance(value, dict) else []:
            if column not in columns:
                raise ValueError(f"{name}: {column!r} is not one of the columns coded ({', '.join(columns)})")


def _columns(ctx, options: TopBottomOptions) -> list[str]:
    policy = ctx.policy
    numeric = [c for c in policy.quasi_identifiers if policy.columns[c].type == "numeric"]
    if options.columns is None:
        if not numeric:
            raise ValueError("the policy has no numeric quasi-identifier to top or bottom code")
        return numeric
    if not options.columns:
        raise ValueError("columns: give at least one numeric quasi-identifier")
    for name in options.columns:
        spec = policy.columns.get(name)
        coded = spec is not None and spec.role in ("quasi_identifier", "weight")
        if not coded or spec.type == "ordinal" or _numbers(ctx.table[name]) is None:
            raise ValueError(f"columns: {name!r} is not a numeric quasi-identifier (nor the sampling weight)")
    return list(dict.fromkeys(options.columns))


def _numbers(column: pd.Series) -> np.ndarray[Any, Any] | None:
    """The column as floats (NaN missing), or None when a value is not a number."""
    import numpy as np
    import pandas as pd

    if pd.api.types.is_numeric_dtype(column.dtype):
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    from privaudit.common.numeric import to_numeric

    text = column.astype(object).where(column.notna(), None)
    numbers = to_numeric(pd.Series(text, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
    return None if (np.isnan(numbers) & column.notna().to_numpy()).any() else numbers


def _thresholds(
    options: TopBottomOptions, column: str, values: np.ndarray[Any, Any]
) -> tuple[float | None, float | None]:
    import numpy as np

    from privaudit.remediation.perturbation import threshold_at

    top, bottom = _of(options, "top", column), _of(options, "bottom", column)
    top_q, bottom_q = _of(options, "top_quantile", column), _of(options, "bottom_quantile", column)
    if (top is None and top_q is not None) or (bottom is None and bottom_q is not None):
        if np.isnan(values).all():
            raise ValueError(f"column {column!r} has no value to take a quantile of")
    if top is None and top_q is not None:
        top = threshold_at(values, top_q)
    if bottom is None and bottom_q is not None:
        bottom = threshold_at(values, bottom_q)
    if top is not None and bottom is not None and bottom > top:
        raise ValueError(f"column {column!r}: the bottom threshold {bottom:g} is above the top one {top:g}")
    return top, bottom


def run(ctx, options: TopBottomOptions) -> Remediation:

    columns = _columns(ctx, options)
    _refuse_unknown(options, columns)
    table = ctx.table.copy()
    changes: dict[str, dict[str, Any]] = {}
    changed = 0
    for column in columns:
        values = _numbers(ctx.table[column])
        assert values is not None  # _columns refused a column that is not numbers
        top, bottom = _thresholds(options, column, values)
        if top is None and bottom is None:
            continue
        top_to, bottom_to = _of(options, "top_replacement", column), _of(options, "bottom_replacement", column)
        coded, high, low = _code(ctx, column, values, (top, bottom), (top_to, bottom_to))
        table[column] = coded
        changes[column] = {
            "top": top,
            "bottom": bottom,
            **({"top_replacement": _written(coded, high)} if high.any() else {}),
            **({"bottom_replacement": _written(coded, low)} if low.any() else {}),
            "records_top_coded": int(high.sum()),
            "records_bottom_coded": int(low.sum()),
        }
        changed += int(high.sum() + low.sum())
    if not changes:
        raise ValueError("no threshold given: give top, bottom, top_quantile or bottom_quantile")
    cells = len(table) * len(changes)
    return Remediation(
        table=table,
        changes={"columns": changes},
        loss={"records_coded": changed, "share_values_changed": changed / max(cells, 1)},
        notes=[] if changed else ["no value lies beyond the thresholds: nothing changed"],
    )


def _written(coded: pd.Series, mask: np.ndarray[Any, Any]) -> float | str:
    value = coded[mask].iloc[0]
    return value if isinstance(value, str) else float(value)


def _code(
    ctx: Any,
    column: str,
    values: np.ndarray[Any, Any],
    thresholds: tuple[float | None, float | None],
    replacements: tuple[float | None, float | None],
) -> tuple[pd.Series, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The coded column as the output holds it (numbers for a numeric column, labels for a nominal one)."""
    import pandas as pd

    from privaudit.discovery.hierarchies import interval_label
    from privaudit.remediation.perturbation import top_bottom_code

    (top, bottom), (top_to, bottom_to) = thresholds, replacements
    numbers, high, low = top_bottom_code(values, top, bottom, top_to, bottom_to)
    source = ctx.table[column]
    if ctx.policy.columns[column].type == "numeric":
        hierarchy = ctx.policy.hierarchies.get(column)
        for mask, to in ((high, top_to), (low, bottom_to)):
            if hierarchy is not None and to is not None and mask.any() and not (values == to).any():
                raise ValueError(
                    f"column {column!r}: the replacement {to:g} is not a value of the column, so not in its hierarchy"
                )
        return pd.Series(numbers, index=source.index, name=column), high, low
    whole = bool((values[~pd.isna(values)] % 1 == 0).all())
    labels = source.astype(object).where(~(high | low), None)
    if top is not None:
        text = interval_label(top, None, whole) if top_to is None else _text(top_to)
        labels[high] = text
    if bottom is not None:
        text = interval_label(bottom, None, whole, below=True) if bottom_to is None else _text(bottom_to)
        labels[low] = text
    labels = labels.where(source.notna() | high | low, None)
    hierarchy = ctx.policy.hierarchies.get(column)
    for mask in (high, low):
        if hierarchy is not None and mask.any() and hierarchy.level_of(str(labels[mask].iloc[0])) is None:
            raise ValueError(
                f"column {column!r}: the code {labels[mask].iloc[0]!r} is not in its hierarchy {hierarchy.source}; "
                "top code at a threshold the hierarchy has a code for"
            )
    return labels.astype(object), high, low


def _text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else format(value, ".10g")


def explore(ctx, request: ExploreRequest) -> list[ExploreCandidate]:
    """Top coding of each numeric quasi-identifier on its own at its 99th, 98th and 95th percentiles (the
    shares of the records kept below the code); ``--option`` values cross them."""
    policy = ctx.policy
    numeric = [c for c in policy.quasi_identifiers if policy.columns[c].type == "numeric"]
    if not numeric:
        request.notes.append("top_bottom_coding: left out, the policy has no numeric quasi-identifier")
        return []
    base = [{"columns": [c], "top_quantile": q} for c in numeric for q in (0.99, 0.98, 0.95)]
    return sweep(ctx, base, request, TopBottomOptions, run)


REMEDIATOR = Remediator(
    name="top_bottom_coding",
    options=TopBottomOptions,
    run=run,
    title="Top and bottom coding",
    description="replace values beyond thresholds (values or quantiles) of numeric quasi-identifiers or the "
    "weight (sdcMicro's topBotCoding)",
    explore=explore,
)


@hookimpl
def privaudit_remediators() -> list[Remediator]:
    return [REMEDIATOR]
