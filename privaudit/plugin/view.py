"""The audit as a report section reads it: :class:`AuditView`.

A section (a :class:`~privaudit.plugin.sections.
Section`'s ``draw``) is handed the audit the driver ran (:class:`privaudit.pipeline.audit.AuditResult`); the
plugin contract types it by the members sections read (PEP 544 structural typing), so neither a plugin nor
this package names the driver, even for type checking (``tests/test_layering.py`` counts type-only imports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from privaudit.core.context import AuditContext
    from privaudit.core.policy import Policy
    from privaudit.io.data import Table


class AuditView(Protocol):
    """What a report section may read of the audit: the policy it ran with (``policy.report.max_classes``,
    ``policy.quasi_identifiers``, ``policy.data``), the released table's facts (``table.rows``) and the
    context the checks shared (``context``: the class summary, for per-class figures)."""

    @property
    def policy(self) -> Policy: ...

    @property
    def table(self) -> Table: ...

    @property
    def context(self) -> AuditContext: ...
