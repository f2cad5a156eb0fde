"""Probabilistic (Fellegi–Sunter) record linkage of an intruder's records to a release.

Threat model.  The auditor holds the original table and the release, row
``i`` of one being row ``i`` of the other.  An intruder holds a seeded sample
``B`` of the original restricted to some columns and links it to the release
with the Fellegi–Sunter (1969) decision rule:

* every candidate pair (from exact-match blocking, :mod:`.blocking`) gets a
  comparison vector ``gamma``; attribute ``a`` is compared at levels
  ``0 = exact``, ``k = |x - y| <= tolerances[k-1]`` (numeric only, first
  tolerance that holds) and ``L_a = disagree``;
* the match weight is ``W(gamma) = sum_a log2(m_a[gamma_a] / u_a[gamma_a])``
  with ``m_a[l] = P(gamma_a = l | match)`` and ``u_a[l] = P(gamma_a = l | non-match)``
  (conditional independence);
* pairs with ``W >= upper`` are links, ``lower <= W < upper`` go to clerical
  review, the rest are non-links.  The thresholds follow FS's optimal rule:
  ``upper`` is the smallest weight with ``P(W >= upper | U) <= mu`` (false
  match rate) and ``lower`` the largest with ``P(W < lower | M) <= lambda``
  (false non-match rate), both computed from the model's own ``m``/``u``
  distribution of ``W`` (exact convolution over attributes).  When the two
  conditions leave no clerical region ``lower`` is set to ``upper``.

``m`` and ``u`` come from

* ``labels`` - the worst-case intruder: ``m`` = level frequencies over all true
  pairs ``(i, i)``, ``u`` = exact level frequencies over *all* non-matching
  pairs of ``B x release`` (counted from value frequencies in
  ``O(n log n)``, no sampling);
* ``em`` - an intruder without labels: EM (:mod:`.em`) on the counts of the
  distinct agreement patterns (never on pairs), one session per blocking
  rule with the rule's own columns marginalised, ``u`` fixed at the level
  frequencies over all pairs (the label-free analogue of Splink's random
  sampling) or fitted too (``em_u="em"``); ``m`` is averaged over sessions
  and the match prior among the candidates is fitted last.  Diagnostics
  compare that prior with ``n_intruder / n_pairs`` (expected if every
  intruder record has its match among the candidates; ``1 / n_released``
  over the full product), check ``m > u`` on exact agreement and report
  non-convergence, as warning strings.

Risk value of one estimation: the share of intruder records whose top
candidate (highest weight) is above ``upper`` and is their own record.  Ties
at the top weight are broken at random *in expectation*: a record whose own
record is one of ``t`` tied top candidates counts ``1 / t``.

Pairs are generated and scored chunk by chunk; only the per-record best
weight, its tie count and the pattern counts are kept (the own record's
weight follows from its pattern), so memory is ``O(n + chunk_size)``
whatever the number of pairs.  ``labels`` needs one pass over the pairs,
``em``/``both`` two (pattern counts, then scoring with the fitted weights).

Modules: :mod:`.model` (specs and results), :mod:`.comparisons` (levels of one column), :mod:`.patterns`
(the pattern space and counts), :mod:`.weights` (weights and thresholds), :mod:`.parameters` (m/u from
labels or EM), :mod:`.scan` (the pass over the pairs), :mod:`.linkage` (the entry point), :mod:`.sql` (the
same linkage with the pairs in DuckDB, past memory: blocking, patterns and their counts in SQL).
"""

from privaudit.risk.linkage.fellegi_sunter.linkage import probabilistic_linkage
from privaudit.risk.linkage.fellegi_sunter.model import (
    AttributeParameters,
    ComparisonSpec,
    EstimationResult,
    ProbabilisticLinkageResult,
    Thresholds,
)
from privaudit.risk.linkage.fellegi_sunter.weights import fs_thresholds

__all__ = [
    "AttributeParameters",
    "ComparisonSpec",
    "EstimationResult",
    "ProbabilisticLinkageResult",
    "Thresholds",
    "fs_thresholds",
    "probabilistic_linkage",
]
