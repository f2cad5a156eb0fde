"""composition: the intersection attack across releases of one population (``audit NEW --previous OLD``).

Ganta, Kasiviswanathan & Smith, "Composition attacks and auxiliary information in data privacy" (KDD 2008),
Section 3 (the intersection attack): an intruder who knows a person is in several releases finds the
person's class in each and keeps the sensitive values every one of those classes holds. Each release may
be k-anonymous and l-diverse on its own; the intersection can still be a single value.

For every person in two or more releases (linked as :mod:`privaudit.pipeline.series` says: by ``record_id``,
or through the original's true quasi-identifiers and the hierarchies), the values left are counted
(:func:`privaudit.risk.composition.compose`). value = the share of those people left with fewer than ``l``
values; pass iff it does not exceed ``max_share`` (default 0: nobody). ``l`` defaults to the largest l of
the policy's l-diversity checks on the same column, else 2.

details (:class:`CompositionDetails`): ``l``, ``l_from``, ``linking``, ``releases``, ``people_linked``,
``people_below_l``, ``people_disclosed`` (exactly one value left), ``people_no_value`` (no value common to
every class: a missing sensitive value, or classes the intruder found wrongly), their shares,
``series_steps`` (after each added release: people in the releases so far, those linked, below l and
disclosed; the Series chapter draws them) and ``worst_classes`` (the combinations of classes leaving
fewest values, described by the person's class in the first release they are in; the value left is shown
only for disclosed combinations the report may show: as many people as the policy's largest k, or
``report.show_sensitive_values``). per_record ``values_left``: for each record of the audited release, the
values left to its person across the releases (empty for a person in this release only; ``--records``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from privaudit.plugin.assessor import Assessor, Disclosure, Measurement, Params
from privaudit.plugin.assessor import Details as ApiDetails
from privaudit.plugin.details import SeriesExample
from privaudit.plugin.helpers import check_sensitive, exceeds
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.text import fmt

if TYPE_CHECKING:  # pragma: no cover - types only: heavy modules load when a check runs
    import numpy as np


class CompositionParams(Params):
    better: ClassVar[str] = "lower"  # the value is a share of people at risk: lower is better
    sensitive: str = Field(description="The sensitive column whose values the intruder intersects.")
    l: float | None = Field(
        default=None,
        gt=1,
        description="Fewer than l values left is a failure; default: "
        "the largest l of the policy's l-diversity checks on this column, else 2.",
    )
    max_share: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Largest allowed share of the people in two or more releases left with fewer than l values.",
    )


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")
    release: str
    people: int
    linked: int
    below_l: int
    disclosed: int


class Example(SeriesExample):
    remaining: int
    sensitive_values: dict[str, int] | None = None


class CompositionDetails(ApiDetails):
    """What ``Measurement.details`` of a composition check holds."""

    model_config = ConfigDict(extra="forbid")
    sensitive: str
    l: float
    l_from: str
    linking: str
    releases: int
    people_linked: int
    people_below_l: int
    people_disclosed: int
    people_no_value: int
    share_below_l: float | None
    share_disclosed: float | None
    series_steps: list[Step]
    worst_classes: list[Example]


def validate(params: CompositionParams, policy) -> str | None:
    return check_sensitive(policy, [params.sensitive])


def resolved_l(policy, params: CompositionParams) -> tuple[float, str]:
    """``l`` and where it came from: the parameter, the diversity the policy's checks declare on the column
    (``ClassRule.diversity``: l-diversity's l, of any variant), or 2."""
    if params.l is not None:
        return float(params.l), "parameter"
    rules = [c.assessor.rule(c.params, policy) for c in policy.checks]
    ls = [float(r.diversity[params.sensitive]) for r in rules if r is not None and params.sensitive in r.diversity]
    return (max(ls), "the policy's l-diversity check") if ls else (2.0, "default")


def _label(v) -> str:
    import numpy as np

    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def examples(ctx, comp, domain, failing: np.ndarray, order_key: np.ndarray) -> list[dict]:
    """The worst combinations (``failing``, fewest values left, then most people), capped by
    ``report.max_classes``: the person's class in the first release they are in, and the value left when
    exactly one is left and the report may show it."""
    import numpy as np

    series = ctx.series
    ids = np.flatnonzero(failing)
    ids = ids[np.lexsort((ids, -comp.people[ids], order_key[ids]))][: ctx.policy.report.max_classes]
    rows = []
    in_release = comp.groups >= 0
    for c in ids.tolist():
        r = int(np.argmax(in_release[c]))
        release = series.releases[r]
        group = int(comp.groups[c, r])
        cls = group if release.members is None else int(release.members.indices[release.members.indptr[group]])
        row = release.summary.describe([cls])[0]
        row.pop("class")
        left = int(comp.remaining[c, -1])
        out = {
            "release": r,
            "release_path": release.path,
            **row,
            "people": int(comp.people[c]),
            "releases": int(comp.present[c, -1]),
            "remaining": left,
        }
        if left == 1 and ctx.may_show_sensitive(int(comp.people[c])):
            value = comp.remaining_values(c)
            out["sensitive_values"] = {_label(domain[value[0]]): int(comp.people[c])}
        rows.append(out)
    return rows


def run(ctx, params: CompositionParams) -> Measurement:
    import numpy as np

    series = ctx.series
    if series is None:
        raise ValueError("this check composes releases: pass --previous FILE (an earlier release)")
    comp, domain = series.composition(params.sensitive)
    l, l_from = resolved_l(ctx.policy, params)
    left = comp.remaining[:, -1]
    linked = comp.releases_in >= 2
    below = linked & ~(left >= l)
    disclosed = linked & (left == 1)
    empty = linked & (left == 0)
    n_linked = int(comp.people[linked].sum())
    n_below, n_disclosed = int(comp.people[below].sum()), int(comp.people[disclosed].sum())
    share = n_below / n_linked if n_linked else 0.0
    steps = []
    for j, release in enumerate(series.releases):
        seen = comp.present[:, j] >= 1
        rem = comp.remaining[:, j]
        steps.append(
            {
                "release": release.path,
                "people": int(comp.people[seen].sum()),
                "linked": int(comp.people[comp.present[:, j] >= 2].sum()),
                "below_l": int(comp.people[seen & (rem < l)].sum()),
                "disclosed": int(comp.people[seen & (rem == 1)].sum()),
            }
        )
    details = {
        "sensitive": params.sensitive,
        "l": l,
        "l_from": l_from,
        "linking": series.linking,
        "releases": len(series.releases),
        "people_linked": n_linked,
        "people_below_l": n_below,
        "people_disclosed": n_disclosed,
        "people_no_value": int(comp.people[empty].sum()),
        "share_below_l": share if n_linked else None,
        "share_disclosed": n_disclosed / n_linked if n_linked else None,
        "series_steps": steps,
        "worst_classes": examples(ctx, comp, domain, below, left),
    }
    CompositionDetails.model_validate(details)
    per_record = {}
    rows = series.releases[0].person_of_row
    if rows is not None:  # the audited release's records: values left, for people in two or more releases
        combo = comp.combo_of[rows]
        per_record["values_left"] = np.where(linked[combo], left[combo], np.nan)
    passed = not exceeds(share, params.max_share)
    message = (
        f"{fmt(n_below)} of {fmt(n_linked)} people in 2+ of {len(series.releases)} releases keep fewer than "
        f"l={fmt(l)} values of {params.sensitive!r} across them ({fmt(n_disclosed)} down to one value)"
    )
    return Measurement(share, params.max_share, passed, message, details, per_record=per_record)


ASSESSOR = Assessor(
    name="composition",
    params=CompositionParams,
    run=run,
    title="Composition across releases",
    standards=frozenset({"wp29:linkability", "wp29:inference", "ico:composition"}),
    protects="attribute",
    measures="how many people an intruder narrows down to fewer than l sensitive values by intersecting the "
    "groups they fall in across several releases of the same population",
    formula="for a person in releases R_1..R_n with classes c_1..c_n: V = S(c_1) ∩ ... ∩ S(c_n), S(c) the "
    "sensitive values of class c; failing when |V| < l; value = share of people in 2+ releases failing",
    reference="Ganta, Kasiviswanathan & Smith, Composition attacks and auxiliary information in data privacy "
    "(KDD 2008), Section 3",
    needs=frozenset({"previous"}),
    validate_policy=validate,
    details=CompositionDetails,
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
