"""Average equivalence class size: ARX 3.9's ``QualityModelRowOrientedAECS`` (its source is the
definition followed here; the average class size metric of LeFevre, DeWitt & Ramakrishnan, ICDE 2006,
"Mondrian multidimensional k-anonymity", without its division by k).

``raw`` = records / classes of the release, suppressed records (every quasi-identifier suppressed: ARX's
outliers) left out of both. ARX normalises it between the original's own figure (its records / its
classes on the same quasi-identifiers) and the number of records: ``value = 1 - (raw - original) /
(records - original)``. Without the original only ``raw`` is given, and ``details.reason`` says why.
"""

from __future__ import annotations

from privaudit.utility.entries import arx_scale, entry
from privaudit.utility.inputs import UtilityInputs
from privaudit.utility.original_classes import original_class_sizes

NAME = "aecs"


def measure(inputs: UtilityInputs) -> list[dict]:
    s = inputs.summary
    kept = ~inputs.suppressed_classes
    classes, records = int(kept.sum()), int(s.sizes[kept].sum())
    raw = records / classes if classes else float("nan")
    details = {"classes": classes, "records_in_classes": records, "records": s.n_records}
    if inputs.original is None:
        return [
            entry(
                NAME,
                None,
                None,
                raw,
                **details,
                reason="ARX normalises the average class size by the original's own; pass --original",
            )
        ]
    sizes = original_class_sizes(inputs)
    minimum = float(len(inputs.original) / len(sizes)) if len(sizes) else float("nan")
    maximum = float(s.n_records)
    return [
        entry(
            NAME,
            None,
            arx_scale(raw, minimum, maximum),
            raw,
            **details,
            minimum=minimum,
            maximum=maximum,
            original_classes=int(len(sizes)),
        )
    ]
