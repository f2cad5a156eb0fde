"""Running out of memory: one line naming the step, never a ``MemoryError`` traceback.

``--max-memory SIZE`` sets the process's address-space limit (``RLIMIT_AS``, what ``ulimit -v`` sets
from outside). Under such a limit an allocation that does not fit fails with ``MemoryError`` instead of
the kernel killing the process, and privaudit reports it in one line naming the step that ran
(:func:`step`, :func:`out_of_memory_message`) with the way out: ``--engine chunked`` or ``duckdb``,
whose memory follows the number of classes, not of records.

Where it can see it coming, privaudit refuses before the work: a released file the in-process engine
would load whose estimated in-memory size (:data:`EXPANSION` times the file, as for the control table in
:mod:`privaudit.risk.synthetic.memory`) exceeds what the limit leaves (:func:`refuse_oversized_release`).
"""

from __future__ import annotations

import contextlib
import re
import resource
from pathlib import Path
from typing import Any, Iterator

from privaudit.core.errors import DataError, PrivauditError

#: in-memory size of a loaded, coded table per byte of its file (measured: an 8.2 MB CSV peaks 42 MB)
EXPANSION = 6.0
#: the smallest --max-memory accepted: the libraries take about 370 MiB of address space once imported and
#: their threads more (an audit of the adult extract needs about 900 MiB; at 512 MiB Arrow aborted the process)
FLOOR = 1 << 30
_UNITS = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}
_current = ["starting (loading the libraries privaudit uses)"]


def parse_size(text: str, flag: str = "--max-memory") -> int:
    """``"512M"``, ``"2G"``, ``"1.5G"``, ``"1000000"`` (bytes) -> bytes; one line when it is not a size."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", str(text).upper())
    if not match:
        raise PrivauditError(f"{flag} {text!r}: expected a size such as 512M or 4G")
    size = int(float(match.group(1)) * _UNITS[match.group(2)])
    if size <= 0:
        raise PrivauditError(f"{flag} {text!r}: the size must be positive")
    return size


def _in_use() -> int | None:
    """The process's address space now (``VmSize``), None where unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def limit() -> int | None:
    """The address-space limit in force (``--max-memory`` or ``ulimit -v``), None when unlimited."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def apply_max_memory(text: str) -> None:
    """Set ``RLIMIT_AS`` to ``--max-memory``'s size (never above a limit set from outside)."""
    size = parse_size(text)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    used = _in_use()
    if size < FLOOR or (used is not None and size <= used):
        raise PrivauditError(f"--max-memory {text}: privaudit needs at least {FLOOR // 2 ** 20} MiB of address "
                             "space for itself (Python, numpy, pandas, Arrow); give a larger size")
    if hard != resource.RLIM_INFINITY and size > hard:
        size = hard
    if size >= 2 ** 62:  # more than any machine has: no limit (setrlimit takes a C long)
        return
    resource.setrlimit(resource.RLIMIT_AS, (size, hard))


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    """Name the work under way, for :func:`out_of_memory_message`."""
    previous = _current[0]
    _current[0] = name
    try:
        yield
    finally:
        _current[0] = previous


def current_step() -> str:
    return _current[0]


def out_of_memory_message() -> str:
    """One line: the step that ran out of memory, the limit, and what to do."""
    cap = limit()
    within = f" within the memory limit of {cap / 2 ** 20:,.0f} MiB (--max-memory or ulimit -v)" if cap else ""
    return (f"out of memory while {current_step()}{within}: audit with --engine chunked or --engine duckdb "
            "(their memory follows the number of classes), or give more memory")


def refuse_oversized_release(released: Any, engine: str) -> None:
    """Before loading a released file in process, one line when its estimated in-memory size exceeds what
    the address-space limit leaves; nothing without a limit, for other engines or for in-memory tables."""
    cap = limit()
    if cap is None or engine != "in-process" or not isinstance(released, (str, Path)) or "://" in str(released):
        return
    path = Path(released)
    try:
        size = path.stat().st_size if path.is_file() else None
    except OSError:
        size = None
    used = _in_use()
    if size is None or used is None:
        return
    need, left = int(size * EXPANSION), cap - used
    if need > left:
        raise DataError(f"{path}: about {need / 2 ** 20:,.0f} MiB once loaded in memory, more than the "
                        f"{max(left, 0) / 2 ** 20:,.0f} MiB the memory limit leaves (--max-memory or ulimit -v): "
                        "audit it with --engine chunked or --engine duckdb")
