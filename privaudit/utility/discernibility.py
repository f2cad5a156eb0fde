"""Discernibility: ARX 3.9's ``QualityModelRowOrientedDiscernibility`` (its source is the
definition followed here; the discernibility metric of Bayardo & Agrawal, ICDE 2005, "Data privacy
through optimal k-anonymization").

``raw`` = the sum of the squared class sizes, plus records x suppressed records (a suppressed record is
indistinguishable from every record). ARX normalises it between the original's own figure (the sum of its
squared class sizes on the same quasi-identifiers) and records squared: ``value = 1 - (raw - original) /
(records^2 - original)``. Without the original only ``raw`` is given, and ``details.reason`` says why.
"""

from __future__ import annotations

import numpy as np

from privaudit.utility.entries import arx_scale, entry
from privaudit.utility.inputs import UtilityInputs
from privaudit.utility.original_classes import original_class_sizes

NAME = "discernibility"


def measure(inputs: UtilityInputs) -> list[dict]:
    s = inputs.summary
    n = float(s.n_records)
    kept = ~inputs.suppressed_classes
    sizes = s.sizes[kept].astype(float)
    suppressed = float(s.sizes[~kept].sum())
    raw = float(np.dot(sizes, sizes)) + suppressed * n
    details = {"records": int(n), "records_suppressed": int(suppressed)}
    if inputs.original is None:
        return [
            entry(
                NAME,
                None,
                None,
                raw,
                **details,
                reason="ARX normalises discernibility by the original's own; pass --original",
            )
        ]
    original = original_class_sizes(inputs).astype(float)
    minimum = float(np.dot(original, original))
    return [entry(NAME, None, arx_scale(raw, minimum, n * n), raw, **details, minimum=minimum, maximum=n * n)]
