"""Microaggregation for k-anonymity and t-closeness.

MDAV (Domingo-Ferrer & Torra 2005) and the three k-anonymous t-close
microaggregation algorithms of Soria-Comas, Domingo-Ferrer, Sanchez &
Martinez (IEEE TKDE 2015), as pure numpy functions on numeric
quasi-identifiers and one ordered sensitive attribute.
"""

from privaudit.remediation.microaggregation.api import (
    ALGORITHMS,
    MicroaggregationResult,
    VerificationReport,
    microaggregate,
    verify,
)
from privaudit.remediation.microaggregation.cluster_emd import SensitiveDistribution, emd_ordered
from privaudit.remediation.microaggregation.mdav import mdav
from privaudit.remediation.microaggregation.sse import cluster_means, normalized_sse, sse, standardize
from privaudit.remediation.microaggregation.tcloseness import (
    EMD_ATOL,
    k_anonymity_first,
    merge_until_t_close,
    t_closeness_first,
    t_closeness_first_k,
)

__all__ = [
    "ALGORITHMS",
    "EMD_ATOL",
    "MicroaggregationResult",
    "SensitiveDistribution",
    "VerificationReport",
    "cluster_means",
    "emd_ordered",
    "k_anonymity_first",
    "mdav",
    "merge_until_t_close",
    "microaggregate",
    "normalized_sse",
    "sse",
    "standardize",
    "t_closeness_first",
    "t_closeness_first_k",
    "verify",
]
