"""The check ``coding.check_hierarchies`` makes, on the distinct values an engine collected.

Every present value of a column with a hierarchy must be in it (a leaf, for sensitive columns). The
in-memory check names the first offender in the column's value order: category order for ordinal and
nominal columns (which engines know), first appearance for numeric ones (which an engine that groups
in SQL does not know: it then scans the file for the earliest row holding an offending value).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privaudit.core.policy import Policy
from privaudit.engines._domain import ColumnDomain, as_numbers
from privaudit.io.source import Source


def check_hierarchies(
    policy: Policy, domains: dict[str, ColumnDomain], source: Source, first_seen: bool = True
) -> None:
    """Raise the HierarchyError ``load_table`` raises, if any. ``first_seen``: numeric domains hold their
    values in order of first appearance (the chunked engine); otherwise the file is scanned."""
    for column, hierarchy in policy.hierarchies.items():
        domain = domains.get(column)
        if domain is None:
            continue
        leaves_only = policy.columns[column].role == "sensitive"
        labels = domain.hierarchy_labels()
        if domain.kind == "numeric" and not first_seen:
            allowed = set(hierarchy.leaves) if leaves_only else None
            bad = {v for v in labels if (v not in allowed if allowed is not None else hierarchy.level_of(v) is None)}
            if not bad:
                continue

            def offending(values: np.ndarray, bad=bad, spec=policy.columns[column]) -> np.ndarray:
                numbers = as_numbers(values, spec)
                return np.array([not np.isnan(x) and f"{x:g}" in bad for x in numbers], dtype=bool)

            hit = source.first_row(column, offending)
            if hit is not None:
                labels = [f"{as_numbers(np.array([hit[1]], dtype=object), policy.columns[column])[0]:g}"]
        hierarchy.check_values(pd.Series(labels, dtype=object), column, leaves_only=leaves_only)
