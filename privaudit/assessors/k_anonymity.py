"""k_anonymity: every record hides among at least k records sharing its quasi-identifier values.

value = smallest class size f_k (min over records); pass iff value >= k.
details: ``classes``, ``records``, ``records_below_k``, ``classes_below_k``, ``class_size_histogram``
(``[[size, classes], ...]``), ``worst_classes``.
"""

from __future__ import annotations

from pydantic import Field

from ..assessor import Assessor, Measurement, Params
from ..hookspecs import hookimpl
from ._common import fmt, size_histogram


class KAnonymityParams(Params):
    k: int = Field(ge=1, description="Smallest allowed class size.")


def run(ctx, params: KAnonymityParams) -> Measurement:
    s = ctx.summary
    k = params.k
    class_fk = s.class_record_size
    value = int(s.record_size.min())
    records_below = int((s.record_size < k).sum())
    classes_below = int((class_fk < k).sum())
    details = {
        "classes": s.n_classes,
        "records": s.n_records,
        "records_below_k": records_below,
        "classes_below_k": classes_below,
        "sample_uniques": int((s.record_size == 1).sum()),
        "class_size_histogram": size_histogram(class_fk),
        "worst_classes": ctx.worst_classes(class_fk, failing=class_fk < k),
    }
    if records_below:
        message = (f"{fmt(records_below)} records in {fmt(classes_below)} classes are in classes smaller "
                   f"than k={k}; the smallest has {fmt(value)}")
    else:
        message = f"every record shares its quasi-identifiers with at least {fmt(value)} records (k={k})"
    return Measurement(value, k, value >= k, message, details)


ASSESSOR = Assessor(
    name="k_anonymity",
    params=KAnonymityParams,
    run=run,
    title="k-anonymity",
    protects="identity",
    measures="how many records share each combination of quasi-identifier values; a person alone or nearly "
    "alone in their group can be singled out by anyone who knows those values",
    formula="value = min over records of f_k, the number of records with the same quasi-identifier values; "
    "pass iff value >= k",
    reference="Samarati & Sweeney (1998); Sweeney, Int. J. Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 2002",
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
