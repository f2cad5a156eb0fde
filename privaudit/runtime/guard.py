"""Plugin code runs behind a guard: whatever an assessor or remediator does, the gate stays honest.

A plugin (the thing the plugin API invites) may raise, hang, lie, print or scribble on what the checks
share. :func:`call_plugin` runs one call of plugin code and turns every way it can go wrong into a
:class:`PluginFailure` naming the plugin's package and version, which the audit reports as that check's
``error`` (exit code 2) while every other check still runs:

* any exception, ``SystemExit`` (``sys.exit(0)`` in a plugin used to end the run with exit 0 and no
  report: a PASS to a pipeline) and ``KeyboardInterrupt`` raised by the plugin itself included. A real
  Ctrl-C or SIGTERM (:func:`watch_interrupts` sees the signal arrive) still stops the run;
* a call that outlives its time limit (``--check-timeout``, the policy's ``check_timeout``): it runs on a
  daemon thread, which is asked to stop (an asynchronous exception) and abandoned;
* a result that is not what the API promises (:func:`privaudit.pipeline.measurements.measurement_problem`):
  not a ``Measurement``, a verdict that is not a boolean, a value that is NaN or not a number, details that
  are not JSON or that the assessor's declared details model rejects;
* what it prints to standard output goes to standard error (:func:`stdout_to_stderr`), so it cannot
  corrupt ``--json -`` or ``--sarif -``.

The shared class summary and the tables are read-only (:mod:`privaudit.core.readonly`) and each check
gets its own shallow copy of the tables (:func:`check_view`): a plugin cannot change the figures of
another check.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from privaudit.core.errors import PrivauditError

# numpy, pandas and the audit context are imported where they are used: the command line imports this
# module before anything else (a Ctrl-C while the command starts must be answered by the command)


class PluginFailure(Exception):
    """Plugin code failed; the message is one line naming what failed and the plugin."""


class CheckTimedOut(BaseException):
    """Raised asynchronously in a check that outlived its time limit (a BaseException: plugin code that
    catches ``Exception`` does not swallow it)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: the run stops, staged outputs are dropped (exit 143)."""


_signalled = threading.Event()  # a real SIGINT/SIGTERM arrived (not a KeyboardInterrupt a plugin raised)


def interrupted() -> bool:
    """Whether a real interrupt (SIGINT or SIGTERM) arrived in this run."""
    return _signalled.is_set()


def _on_sigterm(signum, frame):  # noqa: ARG001 - a signal handler's signature
    _signalled.set()
    raise Terminated()


def terminate_like_interrupt() -> None:
    """Make SIGTERM end the command as Ctrl-C does (the CLI calls this once, in the main thread)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)


@contextlib.contextmanager
def watch_interrupts() -> Iterator[None]:
    """While plugin code runs: note a real SIGINT before Python's handler raises ``KeyboardInterrupt``,
    so that a ``KeyboardInterrupt`` raised by a plugin itself can be told from the user's Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)

    def noted(signum, frame):
        _signalled.set()
        if callable(previous):
            return previous(signum, frame)
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGINT, noted)
    except (ValueError, OSError):  # not the main interpreter
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send what plugin code prints to standard error: Python's ``sys.stdout`` and, when it is the
    process's file descriptor 1, the descriptor itself (output of C code). Restored afterwards."""
    saved = None
    try:
        sys.stdout.flush()
        if sys.stdout.fileno() == 1:
            sys.stderr.flush()
            saved = os.dup(1)
            os.dup2(sys.stderr.fileno(), 1)
    except (AttributeError, OSError, ValueError):  # a stream without a descriptor (io.UnsupportedOperation)
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def plugin_label(origin: Any) -> str:
    """``package version`` of a plugin (a ``pipeline.plugins.PluginInfo``), for messages."""
    if origin is None:
        return "an unknown package"
    return f"{origin.package} {origin.version}"


def _first_line(exc: BaseException) -> str:
    """The exception's type and the first line of its message (:func:`privaudit.core.errors.first_line`)."""
    from privaudit.core.errors import first_line

    text = first_line(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def describe_failure(exc: BaseException) -> str:
    """What went wrong, in one line, for the plugin failure's message."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})"
    if isinstance(exc, KeyboardInterrupt):
        return "raised KeyboardInterrupt"
    if isinstance(exc, MemoryError):
        return (
            "ran out of memory (MemoryError): give it more memory (--max-memory) or audit with "
            "--engine chunked or duckdb"
        )
    return f"raised {_first_line(exc)}"


def call_plugin(fn: Callable[[], Any], what: str, origin: Any, timeout: float | None = None) -> Any:
    """``fn()`` guarded as the module says; :class:`PluginFailure` (``"<what> of <package> <version>
    <failure>"``) when it fails. ``PrivauditError`` (bad input a check reads itself) and a real interrupt
    pass through."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - everything plugin code can raise is a failure of it
            box["error"] = exc

    if timeout is None:
        target()
    else:
        worker = threading.Thread(target=target, name=f"privaudit {what}", daemon=True)
        try:
            worker.start()
        except RuntimeError as exc:  # no thread to spare (an address-space limit): one line, not a traceback
            raise PluginFailure(
                f"{what} of {plugin_label(origin)} could not be started with a time limit ({_first_line(exc)})"
            ) from None
        worker.join(timeout)
        if worker.is_alive():
            _stop(worker)
            raise PluginFailure(
                f"{what} of {plugin_label(origin)} did not finish within the time limit "
                f"of {timeout:g} s (--check-timeout, or the policy's check_timeout)"
            )
    exc = box.get("error")
    if exc is None:
        return box.get("value")
    if isinstance(exc, PrivauditError):
        raise exc
    if isinstance(exc, KeyboardInterrupt) and interrupted():
        raise exc
    raise PluginFailure(f"{what} of {plugin_label(origin)} {describe_failure(exc)}") from None


def _stop(worker: threading.Thread) -> None:
    """Ask an abandoned thread to stop: an asynchronous :class:`CheckTimedOut`, raised the next time it
    runs Python code (a daemon thread: it cannot keep the process alive either way)."""
    if worker.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident), ctypes.py_object(CheckTimedOut))


_views: list[type] = []


#: a view's own entries: its frozen copies of the tables, and the summary it reads from the shared context
_LOCAL = frozenset({"table", "original", "training", "control", "summary", "_shared"})


class _SharedEntries(dict):  # type: ignore[type-arg]
    """A check's view's attributes: its own frozen tables (:data:`_LOCAL`); every other entry is read from and
    written through to the shared context's, so a cache (a cached property such as ``utility`` or ``series``,
    or a memo an assessor keeps in ``ctx.__dict__``) is computed once per audit, by whichever check asks
    first, and the report sees it."""

    def __init__(self, shared: dict[str, Any], local: dict[str, Any]) -> None:
        super().__init__({k: v for k, v in shared.items() if k not in _LOCAL})
        super().update(local)
        self.shared = shared

    def _pull(self, key: Any) -> None:
        if key not in _LOCAL and not dict.__contains__(self, key) and key in self.shared:
            dict.__setitem__(self, key, self.shared[key])

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, value)
        if key not in _LOCAL:
            self.shared[key] = value

    def __getitem__(self, key: Any) -> Any:
        self._pull(key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._pull(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self._pull(key)
        return dict.__contains__(self, key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key in _LOCAL:
            return dict.setdefault(self, key, default)
        value = self.shared.setdefault(key, default)
        dict.__setitem__(self, key, value)
        return value


def _view_class() -> type:
    """:class:`AuditContext` whose summary is the shared context's (made on first use: see the imports)."""
    if not _views:
        from privaudit.core.context import AuditContext

        class CheckContext(AuditContext):
            """A check's view of the shared context (:func:`check_view`): the summary is the shared one."""

            @property
            def summary(self):  # type: ignore[override]
                return self.__dict__["_shared"].summary

        _views.append(CheckContext)
    return _views[0]


def check_view(ctx: Any) -> Any:
    """The context one check reads: the shared one, with its own shallow copies of the tables whose
    buffers are read-only (a check that adds, drops or writes a column changes only its own copy, or gets
    an error). The class summary (built on first use, once), the cached figures and the memos checks keep
    stay shared (:class:`_SharedEntries`)."""
    from privaudit.core.readonly import freeze_frame

    ctx.__dict__.setdefault("_scenarios", {})  # shared by the views (AuditContext.for_scenario)
    cls = _view_class()
    view = cls.__new__(cls)
    local: dict[str, Any] = {"_shared": ctx}
    for name in ("table", "original", "training", "control"):
        frame = getattr(ctx, name)
        local[name] = freeze_frame(frame).copy(deep=False) if frame is not None else None
    view.__dict__ = _SharedEntries(ctx.__dict__, local)
    return view
