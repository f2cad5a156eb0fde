"""Record-linkage attacks on a release.

Distance-based linkage (:mod:`.distance`, with :mod:`.encoding`, :mod:`.neighbours`,
:mod:`.assignment`, :mod:`.worst_case`) and probabilistic Fellegi-Sunter linkage
(:mod:`.fellegi_sunter`).
"""

from .distance import ClassSizeRate, DistanceLinkageResult, distance_linkage, intruder_sample
from .encoding import AttributeSpec

__all__ = [
    "AttributeSpec",
    "ClassSizeRate",
    "DistanceLinkageResult",
    "distance_linkage",
    "intruder_sample",
]
