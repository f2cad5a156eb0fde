"""The registered extensions of one kind, as the packages below the plugin host read them.

The plugin host (:mod:`privaudit.pipeline.plugins`) sits above ``io``, ``utility`` and ``engines``, which
must not import it; yet reading a table goes through the registered readers and computing utility goes
through the registered measures. The host hands them down through this module: it installs a *provider*
(``kind -> {name: record}``, the process-wide registry, installed by the package root,
:mod:`privaudit`), and a driver auditing with another registry (``run_audit(registry=...)``,
:func:`privaudit.testing.registry_with`) makes its extensions current for the call with :func:`using`.
Nothing here knows any kind or any record: it is pluggy's "hook relay" reduced to a lookup by kind.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

_provider: Callable[[str], Mapping[str, Any]] | None = None
_current: ContextVar[Callable[[str], Mapping[str, Any]] | None] = ContextVar("privaudit_extensions", default=None)


def provide(provider: Callable[[str], Mapping[str, Any]]) -> None:
    """Install the process-wide provider (the package root does, once)."""
    global _provider
    _provider = provider


def registered(kind: str) -> Mapping[str, Any]:
    """The extensions of ``kind`` (``"reader"``, ``"measure"``, ``"engine"`` ...) by name, in registration
    order: the current registry's (:func:`using`), else the process-wide one."""
    current = _current.get()
    if current is not None:
        return current(kind)
    if _provider is None:  # pragma: no cover - the package root installs it on import
        raise RuntimeError("no plugin host: import privaudit first")
    return _provider(kind)


@contextlib.contextmanager
def using(of: Callable[[str], Mapping[str, Any]] | None) -> Iterator[None]:
    """Make ``of`` (a registry's ``of``: ``kind -> {name: record}``) the current provider in this context
    (None: leave the current one)."""
    if of is None:
        yield
        return
    token = _current.set(of)
    try:
        yield
    finally:
        _current.reset(token)
