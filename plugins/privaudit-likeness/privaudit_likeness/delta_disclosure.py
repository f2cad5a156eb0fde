"""delta_disclosure: no class may change any sensitive value's share by a factor of e^δ or more.

δ-disclosure privacy (Brickell & Shmatikov, *The Cost of Privacy*, KDD 2008, Def. 4) requires
``|ln(p_c(s) / p_t(s))| < δ`` for every class ``c`` and every value ``s`` of the table: a group may
neither make a value much more likely nor much less likely — and may not rule it out (a value the
table holds but a class lacks gives ``|ln 0| = inf``).

Policy parameters (:class:`DeltaDisclosureParams`): ``sensitive`` (a column with role sensitive),
``delta`` (> 0), ``log_base`` (``e``, the default, or ``2`` as ARX computes it).

* ``value``: ``δ* = max_{c,s} |log(p_c(s) / p_t(s))|`` (``inf`` when a class lacks a value of the
  table). Pass iff ``value < delta`` (strict, as in the paper and ARX).
* ``details``: ``log_base``, ``classes``, ``classes_failing``, ``records_failing``,
  ``classes_lacking_a_value`` (infinite δ), ``classes_without_values``, ``missing_sensitive``,
  ``values``, ``delta_present_values`` (the maximum over the values each class holds only: pycanon's
  figure, and ARX's with ``log_base: "2"``), ``per_class_histogram`` (bins split at δ),
  ``worst_classes`` (failing classes, largest δ first, with ``delta``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from privaudit.plugin import Assessor, ClassRule, Details, Disclosure, Measurement, Params, hookimpl
from privaudit.plugin.details import Histogram, WorstClass
from privaudit.plugin.helpers import check_sensitive, reaches
from privaudit.plugin.text import fmt

if TYPE_CHECKING:  # numpy and the formulas load when a check runs: loading the plugin stays light
    import numpy as np

    from . import likeness


NAME = "delta_disclosure"
BASES = {"e": math.e, "2": 2.0}


class DeltaDisclosureParams(Params):
    """Parameters of a ``delta_disclosure`` check."""

    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)

    sensitive: str = Field(description="The sensitive column.")
    delta: float = Field(gt=0, description="Bound on |log(p_class / p_table)|; the check needs every value below it.")
    log_base: Literal["e", "2"] = Field(default="e", description="Base of the logarithm ('2' as in ARX).")


class DeltaWorstClass(WorstClass):
    delta: float | None = Field(description="the class's δ (inf: it lacks a value of the table; null: no value)")


class DeltaDisclosureDetails(Details):
    """What a ``delta_disclosure`` check's details hold."""

    log_base: Literal["e", "2"]
    classes: int
    classes_failing: int
    records_failing: int
    classes_lacking_a_value: int
    classes_without_values: int
    missing_sensitive: int
    values: int
    delta_present_values: float | None
    per_class_histogram: Histogram
    worst_classes: list[DeltaWorstClass]


def per_class_figures(
    ctx, params: DeltaDisclosureParams
) -> tuple[np.ndarray, np.ndarray, np.ndarray, likeness.Entries]:
    """Each class's δ (inf when it lacks a value; NaN without values), its δ over the values it holds,
    whether it fails, and the entries."""
    from . import likeness

    e = likeness.entries(ctx.summary.sensitive[params.sensitive])
    per_class, present = likeness.delta(e, BASES[params.log_base])
    return per_class, present, reaches(per_class, params.delta), e


def violations(ctx, params: DeltaDisclosureParams) -> np.ndarray:
    """Per class: True where the class breaks the check (for remediators)."""
    return per_class_figures(ctx, params)[2]


def run(ctx, params: DeltaDisclosureParams) -> Measurement:
    import numpy as np

    from . import likeness
    from .binning import threshold_histogram

    s = ctx.summary
    sc = s.sensitive[params.sensitive]
    per_class, present, failing, e = per_class_figures(ctx, params)
    value = likeness.table_figure(per_class)
    defined = ~np.isnan(per_class)
    lacking = int(np.isinf(per_class).sum())
    details = {
        "log_base": params.log_base,
        "classes": s.n_classes,
        "classes_failing": int(failing.sum()),
        "records_failing": int(s.sizes[failing].sum()),
        "classes_lacking_a_value": lacking,
        "classes_without_values": int((~defined).sum()),
        "missing_sensitive": int(sc.missing),
        "values": e.values_in_table,
        "delta_present_values": likeness.table_figure(present),
        "per_class_histogram": threshold_histogram(per_class[defined], params.delta, closed="left"),
        # lacking a value first, then by the largest log ratio over the values held
        "worst_classes": ctx.worst_classes(
            present + np.isinf(per_class) * (likeness.table_figure(present) + 1.0),
            failing=failing,
            sensitive=params.sensitive,
            descending=True,
            extra={"delta": per_class},
        ),
    }
    log = "ln" if params.log_base == "e" else "log2"
    message = f"largest |{log}(p_class / p_table)| of a {params.sensitive!r} value: {fmt(value)} (δ={params.delta:g})"
    if lacking:
        message += (
            f"; {_classes(lacking)} {'lacks' if lacking == 1 else 'lack'} a value of the table (largest over the values they hold: "
            f"{fmt(details['delta_present_values'])})"
        )
    return Measurement(value, params.delta, not bool(failing.any()), message, details)


def _classes(n: int) -> str:
    return f"{n:,} class{'es' if n != 1 else ''}"


def validate(params: DeltaDisclosureParams, policy) -> str | None:
    return check_sensitive(policy, [params.sensitive])


ASSESSOR = Assessor(
    name=NAME,
    params=DeltaDisclosureParams,
    details=DeltaDisclosureDetails,
    run=run,
    title="δ-disclosure privacy",
    protects="attribute",
    measures="how far the share of each sensitive value inside a group of look-alike records moves from its "
    "share in the whole table, up or down, as a log ratio; a group that lacks a value rules it out for "
    "everyone in the group",
    formula="value = max over classes c and values s of the table of |log(p_c(s) / p_t(s))| (infinite when a "
    "class lacks a value); pass iff value < delta",
    reference="Brickell & Shmatikov, The Cost of Privacy: Destruction of Data-Mining Utility in Anonymized "
    "Data Publishing (KDD 2008)",
    validate_policy=validate,
    class_violations=violations,
    # bounds each class's distribution against the table's: not monotone as classes merge, no class size
    class_rule=lambda params, policy: ClassRule(),
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
