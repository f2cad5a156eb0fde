"""Remediation: the remediator API (:mod:`.api`), the engine that transforms and re-audits
(:mod:`.engine`), safe table export (:mod:`.export`), one module per method in :mod:`.methods`, and the
algorithms they use (:mod:`.generalization`, :mod:`.microaggregation`)."""
