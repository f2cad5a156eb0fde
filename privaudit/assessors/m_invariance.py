"""m_invariance: a series of releases re-publishes a population without composition leaks.

Xiao & Tao, "m-Invariance: Towards Privacy Preserving Re-publication of Dynamic Datasets" (SIGMOD 2007),
Section 3: a release is *m-unique* when every QI group holds at least m records, all with different
sensitive values; the *signature* of a record in a release is the set of sensitive values of its group;
a series is *m-invariant* when every release is m-unique and every record has the same signature in every
release it appears in. Then intersecting a person's groups across releases leaves the whole signature (at
least m values): the composition attack learns nothing more than from one release.

People are linked across releases as :mod:`privaudit.pipeline.series` says; signatures are compared with
:func:`privaudit.risk.composition.compose` (two sets are equal when their intersection is as large as
both). value = records in groups that are not m-unique (over every release) + people in two or more
releases whose signature changed; pass iff 0. A record without a sensitive value is not a different value:
its group is not m-unique.

details (:class:`MInvarianceDetails`): ``m``, ``linking``, ``per_release`` (path, classes, classes and
records not m-unique), ``people_linked``, ``people_changed``, ``share_changed`` and ``worst_classes``
(combinations of groups whose signature changed, described by the first release's class).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from privaudit.plugin.assessor import Assessor, Disclosure, Measurement, Params
from privaudit.plugin.assessor import Details as ApiDetails
from privaudit.plugin.details import SeriesExample
from privaudit.plugin.helpers import check_sensitive
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.text import fmt


class MInvarianceParams(Params):
    better: ClassVar[str] = "lower"  # the value counts records and people breaking m-invariance
    sensitive: str = Field(description="The sensitive column.")
    m: int = Field(
        default=2, ge=2, description="Each group must hold at least m records, all with different sensitive values."
    )


class ReleaseFigures(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    classes: int
    classes_not_m_unique: int
    records_not_m_unique: int


Example = SeriesExample


class MInvarianceDetails(ApiDetails):
    """What ``Measurement.details`` of an m_invariance check holds."""

    model_config = ConfigDict(extra="forbid")
    sensitive: str
    m: int
    linking: str
    per_release: list[ReleaseFigures]
    people_linked: int
    people_changed: int
    share_changed: float | None
    worst_classes: list[Example]


def validate(params: MInvarianceParams, policy) -> str | None:
    return check_sensitive(policy, [params.sensitive])


def run(ctx, params: MInvarianceParams) -> Measurement:
    import numpy as np

    from privaudit.risk.composition import m_unique

    series = ctx.series
    if series is None:
        raise ValueError("this check composes releases: pass --previous FILE (an earlier release)")
    comp, _domain = series.composition(params.sensitive)
    per_release = []
    bad_records = 0
    for release in series.releases:
        s = release.summary
        ok = m_unique(s.sizes, s.sensitive[params.sensitive].distinct, params.m)
        records = int(s.sizes[~ok].sum())
        bad_records += records
        per_release.append(
            {
                "path": release.path,
                "classes": s.n_classes,
                "classes_not_m_unique": int((~ok).sum()),
                "records_not_m_unique": records,
            }
        )
    linked = comp.releases_in >= 2
    changed = linked & comp.changed
    n_linked, n_changed = int(comp.people[linked].sum()), int(comp.people[changed].sum())
    rows = []
    ids = np.flatnonzero(changed)
    ids = ids[np.lexsort((ids, -comp.people[ids]))][: ctx.policy.report.max_classes]
    in_release = comp.groups >= 0
    for c in ids.tolist():
        r = int(np.argmax(in_release[c]))
        release = series.releases[r]
        group = int(comp.groups[c, r])
        cls = group if release.members is None else int(release.members.indices[release.members.indptr[group]])
        row = release.summary.describe([cls])[0]
        row.pop("class")
        rows.append(
            {
                "release": r,
                "release_path": release.path,
                **row,
                "people": int(comp.people[c]),
                "releases": int(comp.present[c, -1]),
            }
        )
    details = {
        "sensitive": params.sensitive,
        "m": params.m,
        "linking": series.linking,
        "per_release": per_release,
        "people_linked": n_linked,
        "people_changed": n_changed,
        "share_changed": n_changed / n_linked if n_linked else None,
        "worst_classes": rows,
    }
    MInvarianceDetails.model_validate(details)
    value = bad_records + n_changed
    unique_part = ", ".join(
        f"{fmt(p['records_not_m_unique'])} records in groups that are not {params.m}-unique in {p['path']}"
        for p in per_release
        if p["records_not_m_unique"]
    )
    message = f"{fmt(n_changed)} of {fmt(n_linked)} people in 2+ releases change signature of {params.sensitive!r}" + (
        f"; {unique_part}" if unique_part else f"; every release is {params.m}-unique"
    )
    return Measurement(value, 0, value == 0, message, details)


ASSESSOR = Assessor(
    name="m_invariance",
    params=MInvarianceParams,
    run=run,
    title="m-invariance",
    standards=frozenset({"wp29:linkability", "wp29:inference", "ico:composition"}),
    protects="attribute",
    measures="whether every release keeps groups of at least m different sensitive values and every person "
    "keeps the same set of values in their group from one release to the next",
    formula="m-unique: |G| >= m and all sensitive values of G distinct, for every group G of every release; "
    "invariant: sig_j(p) = sig_i(p) for every person p in releases i and j (sig = the values of p's group)",
    reference="Xiao & Tao, m-Invariance: Towards Privacy Preserving Re-publication of Dynamic Datasets "
    "(SIGMOD 2007), Section 3",
    needs=frozenset({"previous"}),
    validate_policy=validate,
    details=MInvarianceDetails,
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
