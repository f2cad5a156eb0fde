"""The default ``in-process`` engine: the whole typed table in memory.

It is the reference the other engines are tested against, and the only engine that serves checks needing
the whole table, ``--original`` and ``--control``. It loads the table (a path, a pandas DataFrame, a
pyarrow Table or an already loaded :class:`~privaudit.io.data.Table`) and leaves the class summary to
the audit context, which builds it on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from privaudit.core.policy import Policy
from privaudit.io.data import load_input


def summarize(
    source: Any,
    policy: Policy,
    *,
    progress: Callable[[str, int, int], None] | None = None,
    what: str = "released table",
):
    """Load ``source`` whole; returns an :class:`~privaudit.plugin.engine.EngineResult` whose ``table.frame`` is
    the loaded table and whose summary and non-missing counts are None (the audit context computes them when asked)."""
    from privaudit.plugin.engine import EngineResult

    return EngineResult(None, load_input(source, policy, what), None)
