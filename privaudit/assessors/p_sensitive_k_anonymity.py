"""p_sensitive_k_anonymity: k-anonymity plus at least p distinct sensitive values in every class.

value = smallest number of distinct values of a listed sensitive attribute in any class (min over the
listed attributes); pass iff the smallest class has >= k records and value >= p.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from ..assessor import Assessor, Measurement, Params
from ..hookspecs import hookimpl
from ._common import check_sensitive, fmt


class PSensitiveParams(Params):
    p: int = Field(ge=1, description="Smallest allowed number of distinct sensitive values per class.")
    k: int = Field(ge=1, description="Smallest allowed class size.")
    sensitive: list[str] | None = Field(default=None, description="Sensitive columns (default: all).")


def validate(params: PSensitiveParams, policy) -> str | None:
    return check_sensitive(policy, params.sensitive)


def run(ctx, params: PSensitiveParams) -> Measurement:
    s = ctx.summary
    columns = params.sensitive or ctx.policy.sensitive
    distinct = np.min(np.vstack([s.sensitive[c].distinct for c in columns]), axis=0)
    value = int(distinct.min())
    smallest = int(s.record_size.min())
    failing = (distinct < params.p) | (s.class_record_size < params.k)
    per_attribute = {c: int(s.sensitive[c].distinct.min()) for c in columns}
    details = {
        "classes": s.n_classes,
        "smallest_class": smallest,
        "per_attribute": per_attribute,
        "classes_failing": int(failing.sum()),
        "records_failing": int(s.sizes[failing].sum()),
        "worst_classes": ctx.worst_classes(distinct.astype(float), failing=failing,
                                           extra={"distinct_values": distinct}),
    }
    passed = smallest >= params.k and value >= params.p
    message = (f"fewest distinct sensitive values in a class: {fmt(value)} (p={params.p}); "
               f"smallest class: {fmt(smallest)} (k={params.k})")
    return Measurement(value, {"p": params.p, "k": params.k}, passed, message, details)


ASSESSOR = Assessor(
    name="p_sensitive_k_anonymity",
    params=PSensitiveParams,
    run=run,
    title="p-sensitive k-anonymity",
    protects="attribute",
    measures="whether every group of look-alike records holds at least p different sensitive values, so "
    "finding a person's group does not reveal their sensitive value",
    formula="value = min over classes and listed sensitive attributes of the number of distinct values; "
    "pass iff min class size >= k and value >= p",
    reference="Truta & Vinay, Privacy Protection: p-Sensitive k-Anonymity Property (ICDE Workshops, 2006)",
    validate_policy=validate,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
