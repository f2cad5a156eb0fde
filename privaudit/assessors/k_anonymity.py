"""k_anonymity: every record hides among at least k records sharing its quasi-identifier values.

value = smallest class size f_k (min over records); pass iff value >= k.

With ``m`` (k^m-anonymity, Terrovitis, Mamoulis & Kalnis 2008, Definition 2, here on relational
quasi-identifiers as the issue asks): every combination of the values of any m quasi-identifiers that occurs
must be shared by at least k records -- an intruder knowing at most m of the values. Each of the C(q, m)
subsets is counted by regrouping the class summary's classes (a record's m-subset class holds its whole
class); per class the smallest of its m-subset class sizes is the figure, value = its minimum. ``m`` >= the
number of quasi-identifiers is plain k-anonymity. details then add ``m`` and ``weakest_subset``
(the quasi-identifiers of the smallest combination). Missing values count as values of their own here.

details: ``classes``, ``records``, ``records_below_k``, ``classes_below_k``, ``class_size_histogram``
(``[[size, classes], ...]``), ``worst_classes``.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, ClassRule, Details, Disclosure, Measurement, Params
from privaudit.plugin.details import WorstClass
from privaudit.plugin.helpers import size_histogram
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only: numpy loads when a check runs
    import numpy as np


class KAnonymityParams(Params):
    better: ClassVar[str] = "higher"  # which way the value improves (privaudit diff)
    k: int = Field(ge=1, description="Smallest allowed class size.")
    m: int | None = Field(
        default=None,
        ge=1,
        description="k^m-anonymity: an intruder knows at most m of the quasi-identifiers (default: all of them).",
    )
    count: Literal["records", "households"] = Field(
        default="records",
        description="what a class must hold k of: records, or distinct values of the policy's household_id "
        "column (a household, or a person with several records: a panel's yearly records of one person are "
        "one person, not k records)",
    )


class KAnonymityWorstClass(WorstClass):
    pass


class KAnonymityDetails(Details):
    """What a k_anonymity check's details hold (``m`` and ``weakest_subset`` only with ``m``)."""

    classes: int
    records: int
    records_below_k: int
    classes_below_k: int
    sample_uniques: int
    class_size_histogram: list[list[int]] = Field(description="[[size, number of classes], ...]")
    worst_classes: list[KAnonymityWorstClass]
    m: int | None = None
    weakest_subset: list[str] | None = None
    count: str | None = None


def km_sizes(ctx, m: int) -> tuple[np.ndarray, list[str]]:
    """Per class of the summary, the smallest size of its classes over every m-subset of the
    quasi-identifiers, and the subset where the table's smallest occurs."""
    import numpy as np

    s = ctx.summary
    qi = list(ctx.policy.quasi_identifiers)
    groups = s.representatives(np.arange(s.n_classes), qi)
    groups["f"] = np.asarray(s.sizes)
    smallest = np.full(s.n_classes, np.iinfo(np.int64).max, dtype=np.int64)
    weakest, weakest_size = list(qi[:m]), np.iinfo(np.int64).max
    for subset in itertools.combinations(qi, m):
        sizes = (
            groups.groupby(list(subset), sort=False, dropna=False, observed=True)["f"]
            .transform("sum")
            .to_numpy(np.int64)
        )
        np.minimum(smallest, sizes, out=smallest)
        if sizes.min() < weakest_size:
            weakest, weakest_size = list(subset), int(sizes.min())
    return smallest, weakest


def household_counts(ctx) -> np.ndarray:
    """Per class of the summary, the distinct values of the policy's ``household_id`` column among its records
    (sdcMicro's household-level view, :mod:`privaudit.risk.household`: k counted in entities)."""
    import numpy as np
    import pandas as pd

    from privaudit.core.errors import DataError

    column = ctx.policy.columns_with("household_id")[0]
    if ctx.table is None:
        raise DataError(
            f"check k_anonymity: count: households (column {column!r}) needs the records: use --engine in-process"
        )
    ids = pd.factorize(ctx.table[column])[0]
    s = ctx.summary
    pairs = np.unique(np.asarray(s.class_of, dtype=np.int64) * (int(ids.max()) + 2) + (ids + 1))
    return np.bincount(pairs // (int(ids.max()) + 2), minlength=s.n_classes).astype(np.int64)


def class_sizes(ctx, params: KAnonymityParams) -> np.ndarray:
    """The per-class figure compared with k: f_k, the k^m figure with ``m``, or the households of each class
    with ``count: households``."""
    if params.count == "households":
        return household_counts(ctx)
    if params.m is not None and params.m < len(ctx.policy.quasi_identifiers):
        return km_sizes(ctx, params.m)[0]
    return ctx.summary.class_fk


def violations(ctx, params: KAnonymityParams):
    """Classes whose records hide among fewer than k records (k^m: in some m-subset of the QIs)."""
    return class_sizes(ctx, params) < params.k


def rule(params: KAnonymityParams, policy) -> ClassRule:
    """Classes smaller than k break the check; with ``m`` below the number of quasi-identifiers the figure is
    the k^m one (not the class size alone), so it is not counted from class sizes."""
    plain = (params.m is None or params.m >= len(policy.quasi_identifiers)) and params.count == "records"
    return ClassRule(min_size=params.k, monotone=True, exact=plain)


def run(ctx, params: KAnonymityParams) -> Measurement:
    s = ctx.summary
    k = params.k
    km = params.m is not None and params.m < len(ctx.policy.quasi_identifiers)
    class_fk, weakest = km_sizes(ctx, params.m) if km else (class_sizes(ctx, params), None)
    failing = class_fk < k
    value = int(class_fk.min())
    records_below = int(s.sizes[failing].sum())
    classes_below = int(failing.sum())
    details = {
        "classes": s.n_classes,
        "records": s.n_records,
        "records_below_k": records_below,
        "classes_below_k": classes_below,
        "sample_uniques": int(s.sizes[class_fk == 1].sum()),
        "class_size_histogram": size_histogram(class_fk),
        "worst_classes": ctx.worst_classes(class_fk, failing=failing),
    }
    if km:
        details["m"] = params.m
        details["weakest_subset"] = weakest
    unit = "households" if params.count == "households" else "records"
    if params.count == "households":
        details["count"] = "households"
    if records_below:
        smaller = f"of fewer than k={k} households" if params.count == "households" else f"smaller than k={k}"
        message = (
            f"{fmt(records_below)} records in {fmt(classes_below)} classes are in classes {smaller}; "
            f"the smallest has {fmt(value)}"
        )
    else:
        message = f"every record shares its quasi-identifiers with at least {fmt(value)} {unit} (k={k})"
    return Measurement(value, k, value >= k, message, details)


ASSESSOR = Assessor(
    name="k_anonymity",
    params=KAnonymityParams,
    details=KAnonymityDetails,
    run=run,
    title="k-anonymity",
    protects="identity",
    measures="how many records share each combination of quasi-identifier values; a person alone or nearly "
    "alone in their group can be singled out by anyone who knows those values",
    formula="value = min over records of f_k, the number of records with the same quasi-identifier values; "
    "pass iff value >= k",
    reference="Samarati & Sweeney (1998); Sweeney, Int. J. Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 2002",
    class_violations=violations,
    class_rule=rule,
    validate_policy=lambda params, policy: (
        "count: households needs a column of role household_id"
        if params.count == "households" and not policy.columns_with("household_id")
        else None
    ),
    concurrent=True,
    disclosure=Disclosure(show_values_from=lambda p: p.k),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
