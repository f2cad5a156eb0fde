"""p_sensitive_k_anonymity: k-anonymity plus at least p distinct sensitive values in every class.

value = smallest number of distinct values of a listed sensitive attribute in any class (min over the
listed attributes); pass iff the smallest class has >= k records and value >= p.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, ClassRule, Details, Disclosure, Measurement, Params
from privaudit.plugin.details import WorstClass
from privaudit.plugin.helpers import check_sensitive
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import numpy as np


NAME = "p_sensitive_k_anonymity"


class PSensitiveParams(Params):
    better: ClassVar[str] = "higher"  # which way the value improves (privaudit diff)
    p: int = Field(ge=1, description="Smallest allowed number of distinct sensitive values per class.")
    k: int = Field(ge=1, description="Smallest allowed class size.")
    sensitive: list[str] | None = Field(default=None, description="Sensitive columns (default: all).")


class PSensitiveWorstClass(WorstClass):
    distinct_values: int


class PSensitiveDetails(Details):
    """What a p_sensitive_k_anonymity check's details hold."""

    classes: int
    smallest_class: int
    per_attribute: dict[str, int] = Field(description="sensitive column -> fewest distinct values in a class")
    classes_failing: int
    records_failing: int
    worst_classes: list[PSensitiveWorstClass]


def validate(params: PSensitiveParams, policy) -> str | None:
    return check_sensitive(policy, params.sensitive)


def fewest_distinct(ctx, params: PSensitiveParams) -> np.ndarray:
    """Per class, the fewest distinct values over the listed sensitive attributes."""
    import numpy as np

    columns = params.sensitive or ctx.policy.sensitive
    return np.min(np.vstack([ctx.summary.sensitive[c].distinct for c in columns]), axis=0)


def violations(ctx, params: PSensitiveParams) -> np.ndarray:
    return (fewest_distinct(ctx, params) < params.p) | (ctx.summary.class_fk < params.k)


def rule(params: PSensitiveParams, policy) -> ClassRule:
    """Classes smaller than k, or with fewer than p distinct values of a listed column, break the check."""
    columns = params.sensitive or policy.sensitive
    return ClassRule(min_size=params.k, min_distinct={c: params.p for c in columns}, monotone=True, exact=True)


def run(ctx, params: PSensitiveParams) -> Measurement:
    s = ctx.summary
    columns = params.sensitive or ctx.policy.sensitive
    distinct = fewest_distinct(ctx, params)
    value = int(distinct.min())
    smallest = int(s.class_fk.min())
    failing = violations(ctx, params)
    per_attribute = {c: int(s.sensitive[c].distinct.min()) for c in columns}
    details = {
        "classes": s.n_classes,
        "smallest_class": smallest,
        "per_attribute": per_attribute,
        "classes_failing": int(failing.sum()),
        "records_failing": int(s.sizes[failing].sum()),
        "worst_classes": ctx.worst_classes(
            distinct.astype(float), failing=failing, extra={"distinct_values": distinct}
        ),
    }
    passed = smallest >= params.k and value >= params.p
    message = (
        f"fewest distinct sensitive values in a class: {fmt(value)} (p={params.p}); "
        f"smallest class: {fmt(smallest)} (k={params.k})"
    )
    return Measurement(value, {"p": params.p, "k": params.k}, passed, message, details)


ASSESSOR = Assessor(
    name=NAME,
    params=PSensitiveParams,
    details=PSensitiveDetails,
    run=run,
    title="p-sensitive k-anonymity",
    protects="attribute",
    measures="whether every group of look-alike records holds at least p different sensitive values, so "
    "finding a person's group does not reveal their sensitive value",
    formula="value = min over classes and listed sensitive attributes of the number of distinct values; "
    "pass iff min class size >= k and value >= p",
    reference="Truta & Vinay, Privacy Protection: p-Sensitive k-Anonymity Property (ICDE Workshops, 2006)",
    validate_policy=validate,
    class_violations=violations,
    class_rule=rule,
    concurrent=True,
    disclosure=Disclosure(show_values_from=lambda p: p.k, sensitive=lambda p: p.sensitive or []),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
