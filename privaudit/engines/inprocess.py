"""The default ``in-process`` engine: the whole typed table in memory, summarised by ``build_summary``.

It is the reference the other engines are tested against; audits through it keep the path of
:func:`privaudit.core.audit.run_audit` (it also serves checks that need the whole table).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from privaudit.core.context import AuditContext
from privaudit.core.data import load_table
from privaudit.core.policy import Policy

NAME = "in-process"


def summarize(path: str | Path, policy: Policy, *, progress: Callable[[str, int, int], None] | None = None,
              what: str = "released table"):
    """Load ``path`` whole and build its class summary; returns an :class:`~privaudit.engines.EngineResult`
    whose ``table.frame`` is the loaded table."""
    from privaudit.engines import EngineResult

    table = load_table(path, policy, what)
    summary = AuditContext(policy, table.frame).summary
    counts = {str(c): int(table.frame[c].notna().sum()) for c in table.frame.columns}
    return EngineResult(summary, table, counts)
