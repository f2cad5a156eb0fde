"""What makes two JSON reports audits of different designs, so that their figures cannot be compared as they
stand: anything in the policy that changes what is measured. The scope (quasi-identifiers, sensitive and
identifier columns, missing values, hierarchies by digest, the columns' roles and types, the delimiter) and
each check (its assessor, severity, parameters and threshold, its own scenario of quasi-identifiers), and a
check of the baseline that the new report no longer runs. Sets are compared as sets: the same
quasi-identifiers in another order are the same design.

A check renamed but otherwise unchanged (same assessor, parameters, threshold and scenario, found once on
each side) is paired with its old id, so that its figures are still compared; the rename is a change of the
policy all the same.
"""

from __future__ import annotations

import json
from typing import Any

#: check parameters that state the population model (a change of one is named as such)
POPULATION_KEYS = ("population", "sampling_fraction", "population_size", "model", "population_model")
#: roles whose changes the scope's lists already name
LISTED_ROLES = ("quasi_identifier", "sensitive", "identifier")

Pair = tuple[dict | None, dict | None]


def design_changes(base: dict, new: dict) -> tuple[list[str], list[Pair]]:
    """The changes of design, one phrase each, and the checks paired (base, new) in the new report's order,
    then the base's checks the new report lacks (new None); a check only the new report has pairs with None."""
    bq, nq = base["scope"]["quasi_identifiers"], new["scope"]["quasi_identifiers"]
    changes = _scope_changes(base["scope"], new["scope"])
    bc, nc = {c["id"]: c for c in base["checks"]}, {c["id"]: c for c in new["checks"]}
    renamed = _renamed([bc[i] for i in bc if i not in nc], [nc[i] for i in nc if i not in bc], bq, nq)
    paired_base = {b_id for b_id in renamed.values()}
    pairs: list[Pair] = []
    for i, n in nc.items():
        b = bc.get(i) if i in bc else bc.get(renamed.get(i, ""))
        pairs.append((b, n))
        if b is not None:
            changes += _check_changes(b, n, bq, nq)
    for i, b in bc.items():
        if i not in nc and i not in paired_base:
            pairs.append((b, None))
            changes.append(f"check {i!r} dropped ({b.get('severity', 'error')} severity)")
    return changes, pairs


def _as_set(value: Any) -> frozenset:
    return frozenset(value or ())


def _scope_changes(bs: dict, ns: dict) -> list[str]:
    changes = []
    for key, what in (
        ("quasi_identifiers", "quasi-identifiers"),
        ("sensitive", "sensitive columns"),
        ("identifiers", "identifier columns"),
        ("missing_tokens", "missing-value tokens"),
    ):
        if key in bs and key in ns and _as_set(bs[key]) != _as_set(ns[key]):
            changes.append(f"{what} {bs[key]} -> {ns[key]}")
    if bs.get("missing_qi", "value") != ns.get("missing_qi", "value"):
        changes.append(f"missing quasi-identifier values {bs.get('missing_qi')!r} -> {ns.get('missing_qi')!r}")
    bh, nh = bs.get("hierarchies"), ns.get("hierarchies")
    if bh != nh:
        if bh is None or nh is None:
            changes.append(f"hierarchy digests only in the {'new' if bh is None else 'base'} report")
        else:
            cols = sorted(c for c in set(bh) | set(nh) if bh.get(c) != nh.get(c))
            changes.append(f"hierarchies of {', '.join(cols)} differ (by digest)")
    if "delimiter" in bs and "delimiter" in ns and bs["delimiter"] != ns["delimiter"]:
        changes.append(f"delimiter {bs['delimiter']!r} -> {ns['delimiter']!r}")
    bcols, ncols = bs.get("columns"), ns.get("columns")
    if isinstance(bcols, dict) and isinstance(ncols, dict):
        changes += _column_changes(bcols, ncols)
    return changes


def _column_changes(bcols: dict, ncols: dict) -> list[str]:
    changes = []
    for column in dict.fromkeys([*bcols, *ncols]):
        b, n = bcols.get(column), ncols.get(column)
        if b is None or n is None:
            changes.append(f"column {column!r} only in the {'base' if n is None else 'new'} policy")
            continue
        for key in sorted(set(b) | set(n)):
            if b.get(key) == n.get(key):
                continue
            if key == "role" and b.get(key) in LISTED_ROLES and n.get(key) in LISTED_ROLES:
                continue  # named by the scope's lists already
            changes.append(f"column {column!r}: {key} {b.get(key)!r} -> {n.get(key)!r}")
    return changes


def _scenario(check: dict, scope_qi: list[str]) -> frozenset:
    return _as_set(check.get("quasi_identifiers") or scope_qi)


def _key(check: dict, scope_qi: list[str]) -> str:
    """What a check measures, apart from its id and severity."""
    return json.dumps(
        [
            check.get("assessor"),
            check.get("params") or {},
            check.get("threshold"),
            sorted(_scenario(check, scope_qi)),
        ],
        sort_keys=True,
        default=str,
    )


def _renamed(only_base: list[dict], only_new: list[dict], bq: list[str], nq: list[str]) -> dict[str, str]:
    """New id -> base id of the checks that measure the same thing under another id (one of each)."""
    base_keys: dict[str, list[dict]] = {}
    for b in only_base:
        base_keys.setdefault(_key(b, bq), []).append(b)
    new_keys: dict[str, list[dict]] = {}
    for n in only_new:
        new_keys.setdefault(_key(n, nq), []).append(n)
    return {
        found[0]["id"]: base_keys[key][0]["id"]
        for key, found in new_keys.items()
        if len(found) == 1 and len(base_keys.get(key, ())) == 1
    }


def _check_changes(b: dict, n: dict, bq: list[str], nq: list[str]) -> list[str]:
    name = n["id"]
    changes = []
    if b["id"] != n["id"]:
        changes.append(f"check {b['id']!r} renamed {n['id']!r}")
    if b.get("assessor") != n.get("assessor"):
        changes.append(f"check {name!r}: assessor {b.get('assessor')!r} -> {n.get('assessor')!r}")
    bsev, nsev = b.get("severity", "error"), n.get("severity", "error")
    if bsev != nsev:
        changes.append(f"check {name!r}: severity {bsev} -> {nsev}")
    own = b.get("quasi_identifiers") or n.get("quasi_identifiers")
    if own and _scenario(b, bq) != _scenario(n, nq):
        shown = [c.get("quasi_identifiers") or "every quasi-identifier" for c in (b, n)]
        changes.append(f"check {name!r}: quasi-identifiers {shown[0]} -> {shown[1]}")
    bp, np_ = b.get("params") or {}, n.get("params") or {}
    if bp != np_:
        keys = sorted(k for k in set(bp) | set(np_) if bp.get(k) != np_.get(k))
        population = [k for k in keys if k in POPULATION_KEYS]
        what = "population model" if population and len(population) == len(keys) else "parameters"
        changes.append(f"check {name!r}: {what} " + ", ".join(f"{k} {bp.get(k)!r} -> {np_.get(k)!r}" for k in keys))
    elif b.get("threshold") != n.get("threshold"):
        changes.append(f"check {name!r}: threshold {b.get('threshold')!r} -> {n.get('threshold')!r}")
    return changes
