"""Disclosure risk of synthetic releases: how close synthetic records come to the training records.

See :mod:`privaudit.risk.synthetic.distance` (Gower distance, exact blocked nearest-two-neighbour search,
DCR, NNDR and the holdout comparison).
"""

from privaudit.risk.synthetic.distance import (
    DistanceResult,
    Encoded,
    GowerSpace,
    Neighbours,
    binomial_interval,
    binomial_sf,
    count_within,
    distance_to_closest_record,
    gower_matrix,
    nearest_two,
)

__all__ = ["DistanceResult", "Encoded", "GowerSpace", "Neighbours", "binomial_interval", "binomial_sf", "count_within", "gower_matrix", "nearest_two", "distance_to_closest_record"]  # fmt: skip
