"""The importance of quasi-identifiers to a release's users, as every remediator reads it.

The policy's ``importance`` (``ColumnSpec.importance``: 1 the most important, suppressed last) is sdcMicro's
``localSuppression(importance = ...)`` and µ-ARGUS's suppression priority; ``keep: true`` says a variable
must never be deleted, so it ranks before every other. Quasi-identifiers the policy ranks not are ranked
after the ranked ones by sdcMicro's default (``localSuppressionWORK``): the fewer categories a variable
has, the more important, since a variable with many categories is the one whose cells make records rare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd


def _categories(table: Any, columns: Sequence[str]) -> np.ndarray:
    if table is None:
        return np.zeros(len(columns))
    return np.array([pd.Series(table[c]).nunique(dropna=True) for c in columns], dtype=np.float64)


def resolve(
    policy: Any,
    columns: Sequence[str],
    table: Any = None,
    given: Sequence[int] | Mapping[str, int] | None = None,
) -> np.ndarray:
    """One importance per column of ``columns`` (1 = most important, ties allowed): ``given`` (a list in the
    order of ``columns`` or a mapping column -> importance, as a remediator's ``importance`` option) when
    there is one, else the policy's, completed as the module says. ValueError names a column ``given``
    does not fit."""
    columns = list(columns)
    if given is not None:
        if isinstance(given, Mapping):
            unknown = [c for c in given if c not in columns]
            if unknown:
                raise ValueError(f"importance: {unknown[0]!r} is not a quasi-identifier of the policy")
            declared = {c: int(v) for c, v in given.items()}
        else:
            values = list(given)
            if len(values) != len(columns):
                raise ValueError(
                    f"importance: {len(values)} values for {len(columns)} quasi-identifiers ({', '.join(columns)})"
                )
            declared = {c: int(v) for c, v in zip(columns, values, strict=True)}
        bad = [c for c, v in declared.items() if v < 1]
        if bad:
            raise ValueError(f"importance of {bad[0]!r}: must be a whole number >= 1")
    else:
        declared = {
            c: int(spec.importance)
            for c in columns
            if (spec := policy.columns.get(c)) is not None and spec.importance is not None
        }
    kept = (
        set()
        if given is not None
        else {c for c in columns if (spec := policy.columns.get(c)) is not None and getattr(spec, "keep", False)}
    )
    categories = _categories(table, columns)
    top = max(declared.values(), default=0)
    rank = {}
    for i, c in enumerate(columns):
        if c in declared:
            rank[c] = (0 if c in kept else 1, declared[c], 0.0)
        else:  # after every ranked column, fewer categories first
            rank[c] = (0 if c in kept else 1, top + 1, categories[i])
    order = sorted(range(len(columns)), key=lambda i: rank[columns[i]])
    out = np.empty(len(columns), dtype=np.int64)
    level, previous = 0, None
    for i in order:
        if rank[columns[i]] != previous:
            level += 1
            previous = rank[columns[i]]
        out[i] = level
    return out


def least_important_first(policy: Any, columns: Sequence[str], table: Any = None) -> list[str]:
    """``columns`` in the order a remediator should give them up: least important first."""
    importance = resolve(policy, columns, table)
    return [columns[i] for i in np.argsort(-importance, kind="stable")]
