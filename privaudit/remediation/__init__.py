"""Remediation methods: the remediator API (:mod:`.api`), safe table export (:mod:`.export`), one module per
method in :mod:`.methods`, and the algorithms they use (:mod:`.generalization`, :mod:`.microaggregation`).
The drivers that re-audit a remediation and draw the risk-utility map are :mod:`privaudit.pipeline.remediate`
and :mod:`privaudit.pipeline.explore`."""
