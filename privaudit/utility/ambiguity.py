"""Ambiguity: ARX 3.9's ``QualityModelRowOrientedAmbiguity`` (its source is the
definition followed here; the ambiguity metric of Nergiz & Clifton, "Thoughts on k-anonymization",
Data & Knowledge Engineering 2007).

Per record, the number of original combinations its released quasi-identifier values could stand for:
the product over the quasi-identifiers of ``share x leaves`` (leaves under the released value; a
suppressed value all of them). ``raw`` is ARX's result, the sum over the records; ARX normalises it between
records (every value a leaf) and records x the product of the domain sizes (every value suppressed).
Release and hierarchies only.
"""

from __future__ import annotations

import numpy as np

from privaudit.utility.entries import arx_scale, entry
from privaudit.utility.inputs import UtilityInputs

NAME = "ambiguity"


def measure(inputs: UtilityInputs) -> list[dict]:
    s = inputs.summary
    n = float(s.n_records)
    per_class = np.ones(s.n_classes, dtype=float)
    product = 1.0
    for q in inputs.quasi_identifiers:
        dom = inputs.domains[q]
        col = inputs.class_column(q)
        missing = inputs.missing_figure(q, 1.0, 1.0 / dom.size if dom.size else 1.0)  # a leaf's share when kept
        share = np.append(dom.share_of(col.labels), missing)[col.codes]
        share[inputs.suppressed_classes] = 1.0  # a suppressed record says nothing of any column
        per_class *= share * dom.size
        product *= dom.size
    raw = float(np.dot(s.sizes, per_class))
    return [
        entry(
            NAME,
            None,
            arx_scale(raw, n, n * product),
            raw,
            minimum=n,
            maximum=n * product,
            mean_per_record=raw / n if n else None,
        )
    ]
