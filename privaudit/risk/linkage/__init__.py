"""Record-linkage attacks on a release.

Distance-based linkage (:mod:`.distance`, with :mod:`.encoding`, :mod:`.neighbours`,
:mod:`.assignment`, :mod:`.worst_case`) and probabilistic Fellegi-Sunter linkage
(:mod:`.fellegi_sunter`).
"""

from privaudit.risk.linkage.distance import ClassSizeRate, DistanceLinkageResult, distance_linkage, intruder_sample
from privaudit.risk.linkage.encoding import AttributeSpec

__all__ = [
    "AttributeSpec",
    "ClassSizeRate",
    "DistanceLinkageResult",
    "distance_linkage",
    "intruder_sample",
]
