"""The original's equivalence classes on the release's quasi-identifiers: the input figure ARX normalises
AECS and discernibility by (``StatisticsQuality.getGroupify(input, ...)``). Grouped once per audit with the
same packed keys as the release's class summary."""

from __future__ import annotations

import numpy as np

from privaudit.core.summary import column_codes, group, pack_keys
from privaudit.utility.inputs import UtilityInputs


def original_class_sizes(inputs: UtilityInputs) -> np.ndarray:
    cache = inputs.__dict__.setdefault("_original_classes", {})
    if "sizes" not in cache:
        frame = inputs.original
        qis = list(inputs.quasi_identifiers)
        key = pack_keys([column_codes(frame[q]) for q in qis], len(frame))
        cache["sizes"] = group(key, consume=True).sizes
    return cache["sizes"]
