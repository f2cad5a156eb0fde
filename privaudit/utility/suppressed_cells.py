"""Suppressed cells: the share of each quasi-identifier's released values that say nothing, as ARX 3.9
counts "missings" (``StatisticsQuality.getMissings``): a suppressed record (every quasi-identifier
suppressed: ARX's outlier), a suppressed or missing value (``*``, privaudit's missing tokens), or the
hierarchy's root (generalized all the way up).

Without the original the release stands in for it: a missing value of a column the release did not generalize
was missing from the input too (an answer never given), not suppressed
(:meth:`privaudit.utility.inputs.UtilityInputs.missing_suppressed`). With the original, a value missing from it
too is no suppressed cell either (``missing_in_both``): the release compared with itself keeps everything.

``raw`` is the share of such cells, the figure ARX's ``getMissings().getValue(column)`` prints; ``value`` is
``1 - raw``, the share of cells kept, so that 1 means nothing lost as for every other measure. Over all
quasi-identifiers (``column`` null), the share of all quasi-identifier cells.
"""

from __future__ import annotations

import numpy as np

from privaudit.utility.entries import entry
from privaudit.utility.inputs import UtilityInputs

NAME = "suppressed_cells"


def measure(inputs: UtilityInputs) -> list[dict]:
    s = inputs.summary
    n = s.n_records
    out, total = [], 0
    for q in inputs.quasi_identifiers:
        dom = inputs.domains[q]
        col = inputs.class_column(q)
        root = dom.root if dom.source == "hierarchy" else None
        missing = inputs.missing_suppressed(q)  # without the original, a missing value may be the input's own
        empty = np.array([(missing and t in ("*", "")) or t == root for t in col.labels] + [missing], dtype=bool)[
            col.codes
        ]
        empty |= inputs.suppressed_classes
        cells = int(s.sizes[empty].sum())
        both = inputs.missing_in_both(q)  # missing in the original too: an answer never given
        if both is not None and missing:
            cells -= int(both.sum())
        total += cells
        share = cells / n if n else float("nan")
        out.append(
            entry(
                NAME,
                q,
                1.0 - share,
                share,
                cells=cells,
                records=n,
                records_suppressed=int(s.sizes[inputs.suppressed_classes].sum()),
            )
        )
    if inputs.quasi_identifiers:
        all_cells = n * len(inputs.quasi_identifiers)
        share = total / all_cells if all_cells else float("nan")
        out.insert(
            0,
            entry(
                NAME,
                None,
                1.0 - share,
                share,
                cells=total,
                of_cells=all_cells,
                records_suppressed=int(s.sizes[inputs.suppressed_classes].sum()),
            ),
        )
    return out
