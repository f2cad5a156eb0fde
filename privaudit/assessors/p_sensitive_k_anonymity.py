"""p_sensitive_k_anonymity: k-anonymity plus at least p distinct sensitive values in every class.

value = smallest number of distinct values of a listed sensitive attribute in any class (min over the
listed attributes); pass iff the smallest class has >= k records and value >= p.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np
from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, ClassRule, Details, Disclosure, Measurement, Params
from privaudit.plugin.details import WorstClass
from privaudit.plugin.helpers import check_sensitive
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only: the report's modules load when a report is drawn
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


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


def report_section(check: CheckEntry[PSensitiveParams, PSensitiveDetails], audit: AuditResult) -> ReportSection:
    """The report section of a p_sensitive_k_anonymity check: who is in too-small or too-uniform classes."""
    from privaudit.plugin import figures as rf
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d = check.details
    p, k, n, bad = check.params.p, check.params.k, audit.table.rows, d.records_failing
    columns = ", ".join(d.per_attribute)
    if bad:
        summary = (
            f"{rt.people(bad)} ({rt.percent(bad, n)}) {'is' if bad == 1 else 'are'} in groups smaller than "
            f"k = {k} or with fewer than p = {p} different values of {columns}: finding their group narrows "
            f"a sensitive value down to fewer than {p} possibilities, or the person to fewer than {k} records."
        )
    else:
        summary = (
            f"Every group has at least k = {k} records and p = {p} different values of {columns}: finding a "
            f"person's group leaves at least {p} possibilities for each sensitive value."
        )
    return rs.ReportSection(
        summary=summary,
        value_text=f"p = {rt.fmt(check.value)}, k = {rt.fmt(d.smallest_class)}",
        threshold_text=f"p ≥ {p}, k ≥ {k}",
        facts=rt.facts(
            ("classes", d.classes),
            ("smallest class", d.smallest_class),
            *[(f"fewest distinct values of {c}", v) for c, v in d.per_attribute.items()],
            ("classes failing", d.classes_failing),
            ("records in those classes", f"{rt.fmt(bad)} ({rt.percent(bad, n)})"),
        ),
        tables=[
            x
            for x in [
                rf.worst_classes_table(
                    check, audit, [("distinct_values", "distinct values")], failing=d.classes_failing
                )
            ]
            if x
        ],
        limitations="p different values can still be skewed (one value in almost every record) or mean nearly "
        "the same thing; it does not bound how likely each value is.",
    )


ASSESSOR = Assessor(
    name="p_sensitive_k_anonymity",
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
    report_section=report_section,
    disclosure=Disclosure(show_values_from=lambda p: p.k, sensitive=lambda p: p.sensitive or []),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
