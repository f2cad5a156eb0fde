"""beta_likeness: no class may make a sensitive value much more frequent than in the whole table.

Basic β-likeness (Cao & Karras, PVLDB 5(11), 2012, Def. 2) bounds the relative gain
``D(c, s) = (p_c(s) - p_t(s)) / p_t(s)`` of every value ``s`` over-represented in a class ``c`` by β;
enhanced β-likeness (Def. 3) bounds it by ``min(β, -ln p_t(s))``, which also caps the gain of common
values (so that no posterior ``p_c(s)`` can exceed ``p_t(s) (1 - ln p_t(s)) < 1``).

Policy parameters (:class:`BetaLikenessParams`): ``sensitive`` (a column with role sensitive),
``beta`` (> 0), ``variant`` (``basic`` or ``enhanced``, default ``basic``).

* ``value``: the smallest β the table satisfies: ``max_{c,s} D(c, s)`` (basic); the same, or ``inf``
  when some class exceeds a ``-ln p_t`` cap that no β relaxes (enhanced). Pass iff ``value <= beta``
  (decided entry-wise, as ARX's check).
* ``details``: ``variant``, ``classes``, ``classes_failing``, ``records_failing``,
  ``classes_without_values`` (every sensitive value missing), ``missing_sensitive`` (records),
  ``values`` (distinct values in the table), ``per_class_histogram`` (each class's figure, bins split
  at β), ``worst_classes`` (failing classes, largest figure first, with ``beta`` and, for enhanced,
  ``largest_gain``); for enhanced also ``basic_value`` (the basic β* of the same table) and
  ``classes_over_cap``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from privaudit.plugin import Assessor, ClassRule, Details, Disclosure, Measurement, Params, hookimpl
from privaudit.plugin.details import Histogram, WorstClass
from privaudit.plugin.helpers import check_sensitive, exceeds
from privaudit.plugin.text import fmt

if TYPE_CHECKING:  # numpy and the formulas load when a check runs: loading the plugin stays light
    import numpy as np

    from . import likeness


NAME = "beta_likeness"


class BetaLikenessParams(Params):
    """Parameters of a ``beta_likeness`` check."""

    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)

    sensitive: str = Field(description="The sensitive column.")
    beta: float = Field(gt=0, description="Largest allowed relative gain (p_class - p_table) / p_table.")
    variant: Literal["basic", "enhanced"] = Field(
        default="basic", description="'basic': gain <= beta; 'enhanced': gain <= min(beta, -ln p_table)."
    )


class BetaWorstClass(WorstClass):
    beta: float | None = Field(description="the smallest β the class satisfies (null: no sensitive value)")
    largest_gain: float | None = Field(default=None, description="enhanced: the class's largest relative gain")


class BetaLikenessDetails(Details):
    """What a ``beta_likeness`` check's details hold (``basic_value`` and ``classes_over_cap`` for enhanced)."""

    variant: Literal["basic", "enhanced"]
    classes: int
    classes_failing: int
    records_failing: int
    classes_without_values: int
    missing_sensitive: int
    values: int
    basic_value: float | None = None
    classes_over_cap: int | None = None
    per_class_histogram: Histogram
    worst_classes: list[BetaWorstClass]


@dataclass(frozen=True)
class Figures:
    """Per-class figures of one check: ``per_class`` (the smallest β each class satisfies; NaN without
    values), ``failing``, ``basic`` (largest relative gain) and ``capped`` (enhanced: over a -ln p cap)."""

    per_class: np.ndarray
    failing: np.ndarray
    basic: np.ndarray
    capped: np.ndarray | None
    entries: likeness.Entries


def figures(ctx, params: BetaLikenessParams) -> Figures:
    from . import likeness

    e = likeness.entries(ctx.summary.sensitive[params.sensitive])
    basic = likeness.basic_beta(e)
    if params.variant == "basic":
        return Figures(basic, exceeds(basic, params.beta), basic, None, e)
    per_class, capped = likeness.enhanced_beta(e, basic)
    return Figures(per_class, likeness.enhanced_failing(e, params.beta), basic, capped, e)


def violations(ctx, params: BetaLikenessParams) -> np.ndarray:
    """Per class: True where the class breaks the check (for remediators)."""
    return figures(ctx, params).failing


def run(ctx, params: BetaLikenessParams) -> Measurement:
    import numpy as np

    from . import likeness
    from .binning import threshold_histogram

    s = ctx.summary
    f = figures(ctx, params)
    per_class, failing = f.per_class, f.failing
    value = likeness.table_figure(per_class)
    defined = ~np.isnan(per_class)
    details = {
        "variant": params.variant,
        "classes": s.n_classes,
        "classes_failing": int(failing.sum()),
        "records_failing": int(s.sizes[failing].sum()),
        "classes_without_values": int((~defined).sum()),
        "missing_sensitive": int(s.sensitive[params.sensitive].missing),
        "values": f.entries.values_in_table,
    }
    extra, order = {"beta": per_class}, per_class
    if f.capped is not None:
        details["basic_value"] = likeness.table_figure(f.basic)
        details["classes_over_cap"] = int(f.capped.sum())
        extra["largest_gain"] = f.basic
        order = f.basic + f.capped * (details["basic_value"] + 1.0)  # over the cap first, then by gain
    details["per_class_histogram"] = threshold_histogram(per_class[defined], params.beta, closed="right")
    details["worst_classes"] = ctx.worst_classes(
        order, failing=failing, sensitive=params.sensitive, descending=True, extra=extra
    )
    where = f"{params.variant} β-likeness of {params.sensitive!r}; β={params.beta:g}"
    if f.capped is not None and details["classes_over_cap"]:
        over = details["classes_over_cap"]
        message = (
            f"{_classes(over)} {'makes' if over == 1 else 'make'} a value more frequent than p·(1 − ln p) allows "
            f"whatever β is (largest relative gain {fmt(details['basic_value'])}; {where})"
        )
    else:
        message = f"largest relative gain (p_class − p_table)/p_table of a value in a class: {fmt(value)} ({where})"
    return Measurement(value, params.beta, not bool(failing.any()), message, details)


def _classes(n: int) -> str:
    return f"{n:,} class{'es' if n != 1 else ''}"


def validate(params: BetaLikenessParams, policy) -> str | None:
    return check_sensitive(policy, [params.sensitive])


ASSESSOR = Assessor(
    name=NAME,
    params=BetaLikenessParams,
    details=BetaLikenessDetails,
    run=run,
    title="β-likeness",
    protects="attribute",
    measures="how much more frequent a sensitive value becomes inside a group of look-alike records than in "
    "the whole table, relative to its overall frequency; a large gain means finding a person's group makes "
    "an intruder much more confident about that value",
    formula="D(c,s) = (p_c(s) - p_t(s)) / p_t(s); basic: value = max over classes c and values s of D(c,s), "
    "pass iff D(c,s) <= beta wherever p_c(s) > p_t(s); enhanced: pass iff D(c,s) <= min(beta, -ln p_t(s)), "
    "value = the smallest beta satisfied (infinite when D(c,s) > -ln p_t(s) somewhere)",
    reference="Cao & Karras, Publishing Microdata with a Robust Privacy Guarantee (PVLDB 5(11), 2012)",
    validate_policy=validate,
    class_violations=violations,
    # bounds each class's distribution against the table's: a merged class can break it anew (not monotone),
    # and it implies no class size, so remediators steer it by its per-class violations alone
    class_rule=lambda params, policy: ClassRule(),
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
