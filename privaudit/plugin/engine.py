"""Engines: who computes the class summary of a released table (``--engine NAME``).

An engine is an :class:`Engine` record listed by a ``privaudit_engines`` hook implementation, exactly as the
built-ins are (:mod:`privaudit.engines.builtin`)::

    from privaudit import hookimpl
    from privaudit.plugin.engine import Engine

    @hookimpl
    def privaudit_engines():
        return [Engine("polars", "Polars lazy frames over the file", "privaudit_polars.engine:summarize",
                       requires="polars", extra="polars")]

``summarize`` is the function ``summarize(source, policy, *, progress=None, **options) -> EngineResult``,
given as ``"module:function"`` (imported when the engine runs, so building the registry imports no engine's
dependencies) or as the function itself. It returns an :class:`EngineResult`: the class summary (None: the
audit builds it from ``table.frame``, as in-process does), the file's facts as a
:class:`~privaudit.io.data.Table` (``frame`` None unless the engine loaded the table) and the non-missing
counts per column it read (None: counted from the frame). Its keyword-only parameters are its
``--engine-option`` names (``progress`` and ``what`` excepted). An engine that is not ``in_memory`` serves
neither ``--original`` nor ``--control`` nor checks that need the records; it reads the table through
:func:`privaudit.io.dataset.open_input`, the one source every out-of-memory engine streams.
"""

from __future__ import annotations

import importlib
import importlib.util
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from privaudit.core.errors import PrivauditError, did_you_mean, shortened

if TYPE_CHECKING:  # the records are built when the registry is: importing this module stays light
    from privaudit.core.summary import ClassSummary
    from privaudit.io.data import Table


@dataclass
class EngineResult:
    """What an engine computed from a released table."""

    summary: ClassSummary | None  # None: built lazily from ``table.frame`` by the audit context
    table: Table  # file facts; ``frame`` is None unless the engine loaded the table
    column_counts: dict[str, int] | None  # non-missing values per column the engine read (None: ask the frame)


#: Integer engine options for which 0 means nothing (others: 0 is the engine's default or "none").
POSITIVE_OPTIONS = frozenset({"batch_rows", "block_bytes", "partition_rows", "shuffle_partitions"})


@dataclass(frozen=True)
class Engine:
    """One engine (see the module's docstring)."""

    name: str
    description: str  # one line, as ``--engine``'s help prints it
    summarize: str | Callable[..., EngineResult]  # "module:function", or the function
    requires: str | None = None  # the optional package it imports ...
    extra: str | None = None  # ... and the extra that installs it (pip install 'privaudit[EXTRA]')
    in_memory: bool = False  # it loads the whole table (checks that need it, --original and --control can run)

    def load(self) -> Callable[..., EngineResult]:
        """The engine's ``summarize`` function; one line naming the package to install when it is missing."""
        if self.requires:
            try:
                importlib.import_module(self.requires)
            except ImportError:
                extra = self.extra or self.requires
                raise PrivauditError(
                    f"the {self.name} engine needs the {self.requires} package: pip install 'privaudit[{extra}]'"
                ) from None
        if callable(self.summarize):
            return self.summarize
        module, _, function = self.summarize.partition(":")
        found: Callable[..., EngineResult] = getattr(importlib.import_module(module), function or "summarize")
        return found

    def check_options(self, options: dict[str, Any]) -> None:
        """Refuse, in one line, an option the engine's ``summarize`` does not take."""
        import inspect

        params = {
            name: p
            for name, p in inspect.signature(self.load()).parameters.items()
            if p.kind == p.KEYWORD_ONLY and name not in ("progress", "what")
        }
        taken = list(params)
        for name, value in options.items():
            if name not in taken:
                raise PrivauditError(
                    f"--engine-option {name}: the {self.name} engine takes "
                    f"{', '.join(taken) if taken else 'no options'}{did_you_mean(name, taken)}"
                )
            # a count or a size (batch_rows, threads, dense_cells ...): a whole number, at least 0 (or 1)
            kind, least = str(params[name].annotation), 1 if name in POSITIVE_OPTIONS else 0
            if (
                kind.startswith("int")
                and not (value is None and "None" in kind)
                and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least)
            ):
                raise PrivauditError(
                    f"--engine-option {name}={shortened(value)}: expected a whole number of at least {least}"
                )

    @property
    def available(self) -> bool:
        return self.requires is None or importlib.util.find_spec(self.requires) is not None


__all__ = ["Engine", "EngineResult", "POSITIVE_OPTIONS"]
