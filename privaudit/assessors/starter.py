"""The checks ``privaudit init`` drafts (:mod:`privaudit.discovery.draft`): the built-in starter set, or a
profile's checks (``policies/``) fitted to the drafted columns, each class-based check repeated once per
attacker scenario. Kept here, beside the assessors they name, so that nothing outside this folder names a
built-in assessor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from privaudit.plugin.assessor import Assessor

#: the starter checks that need a quasi-identifier (without one they would pass vacuously)
_NEED_QI = ("k_anonymity", "uniqueness")
#: the assessor whose checks bound the share of sample uniques (``max_share``)
_UNIQUES = "uniqueness"


def _class_based(assessor: str, assessors: Mapping[str, Assessor]) -> bool:
    """Whether the assessor's figures are over the quasi-identifiers' classes (an attacker scenario applies):
    it flags classes, or it measures identity disclosure from the release alone."""
    found = assessors.get(assessor)
    return found is not None and (
        found.class_violations is not None or (found.protects == "identity" and not found.needs and not found.always)
    )


def starter_checks(
    profile: dict | None,
    sensitive: list[str],
    has_qi: bool,
    has_weight: bool,
    scenarios: dict[str, list[str]] | None = None,
    *,
    assessors: Mapping[str, Assessor],
    per_person: bool = False,
) -> list[dict]:
    """A profile's checks (its sensitive-column checks repeated for each drafted sensitive column), or the
    starter set; with several attacker scenarios, each class-based check once per scenario (its id names
    the scenario; the verdict is the stricter). ``assessors`` are the registered ones (the registry's), which
    say which checks are class-based. ``per_person``: the table holds several records per person (a panel's
    waves, their id drafted as ``household_id``), so k counts persons, not records."""
    if profile is not None:
        out = []
        for check in profile.get("checks", []):
            check = {k: v for k, v in check.items() if k not in ("id", "quasi_identifiers")}
            if "sensitive" in check:
                out += [{**check, "sensitive": s} for s in sensitive] if has_qi else []
            elif has_qi or check.get("assessor") not in _NEED_QI:
                if check.get("assessor") == _UNIQUES and not has_weight:
                    check.pop("individual_risk_threshold", None)
                out.append(check)
    else:
        out = []
        if has_qi:
            out.append({"assessor": "k_anonymity", "k": 5, **({"count": "households"} if per_person else {})})
        for s in sensitive if has_qi else []:  # class-based: without a quasi-identifier it would pass vacuously
            out.append({"assessor": "l_diversity", "sensitive": s, "l": 2})
            out.append({"assessor": "t_closeness", "sensitive": s, "t": 0.2, "severity": "warning"})
        if has_qi:
            out.append({"assessor": _UNIQUES, "max_share": 0.0})
    if not scenarios or len(scenarios) < 2:
        return out
    expanded: list[dict] = []
    for check in out:
        if not _class_based(str(check.get("assessor")), assessors):
            expanded.append(check)
            continue
        for scenario, qis in scenarios.items():
            base = check["assessor"] + (f"_{check['sensitive']}" if "sensitive" in check else "")
            extra = {} if scenario == "all_key_variables" else {"quasi_identifiers": qis}
            expanded.append({"id": f"{base}_{scenario}", **check, **extra})
    return expanded


def unique_share_limits(checks: list[dict]) -> list:
    """The limits (``max_share``) of the drafted checks that bound the share of sample uniques, as written
    (a profile may give any value; the caller keeps the numbers)."""
    return [c.get("max_share") for c in checks if c.get("assessor") == _UNIQUES]
