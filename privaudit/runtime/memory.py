"""Memory: tables refused before they are loaded when they cannot fit, and running out of memory reported
in one line naming the step, never as a ``MemoryError`` traceback.

**Before loading.** A table's in-memory size is estimated from its file -- the file's size for CSV, the
uncompressed size the Parquet footer records for Parquet -- times :data:`EXPANSION` (loaded columns, their
codes and the checks' encoded copies; measured on the adult columns: loading a CSV of 8.2 MB peaks 42 MB
above the process). The synthetic-release checks read the control (holdout) table whole (there is no
chunked path for ``--control``), so it is compared with the memory available (:func:`refuse_oversized`):
``MemAvailable`` of ``/proc/meminfo``, else the free pages of ``os.sysconf``, or the limit the environment
variable ``PRIVAUDIT_MEMORY_LIMIT`` sets (``8G``; for tests and for machines whose limit is a container's,
not the kernel's). A released file the in-process engine would load is compared with what the
address-space limit leaves (:func:`refuse_oversized_release`).

**While running.** ``--max-memory SIZE`` sets the process's address-space limit (``RLIMIT_AS``, what
``ulimit -v`` sets from outside). Under such a limit an allocation that does not fit fails with
``MemoryError`` instead of the kernel killing the process, and privaudit reports it in one line naming the
step that ran (:func:`step`, :func:`out_of_memory_message`) with the way out: ``--engine chunked`` or
``duckdb``, whose memory follows the number of classes, not of records.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from privaudit.common.formats import is_parquet
from privaudit.core.errors import DataError, PrivauditError

#: in-memory size of a loaded, coded table per byte of its file (measured: an 8.2 MB CSV peaks 42 MB)
EXPANSION = 6.0
ENVIRONMENT = "PRIVAUDIT_MEMORY_LIMIT"
#: the smallest --max-memory accepted: the libraries take about 370 MiB of address space once imported and
#: their threads more (an audit of the adult extract needs about 900 MiB; at 512 MiB Arrow aborted the process)
FLOOR = 1 << 30
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
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
        raise PrivauditError(
            f"--max-memory {text}: privaudit needs at least {FLOOR // 2**20} MiB of address "
            "space for itself (Python, numpy, pandas, Arrow); give a larger size"
        )
    if hard != resource.RLIM_INFINITY and size > hard:
        size = hard
    if size >= 2**62:  # more than any machine has: no limit (setrlimit takes a C long)
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
    within = f" within the memory limit of {cap / 2**20:,.0f} MiB (--max-memory or ulimit -v)" if cap else ""
    return (
        f"out of memory while {current_step()}{within}: audit with --engine chunked or --engine duckdb "
        "(their memory follows the number of classes), or give more memory"
    )


def refuse_oversized_release(released: Any, engine: str) -> None:
    """Before loading a released file in process, one line when its estimated in-memory size exceeds what
    the address-space limit leaves; nothing without a limit, for other engines or for in-memory tables."""
    cap = limit()
    if cap is None or engine != "in-process" or not isinstance(released, (str, Path)) or "://" in str(released):
        return
    path = Path(released)
    need = estimated_bytes(path) if path.is_file() else None
    used = _in_use()
    if need is None or used is None:
        return
    left = cap - used
    if need > left:
        raise DataError(
            f"{path}: about {need / 2**20:,.0f} MiB once loaded in memory, more than the "
            f"{max(left, 0) / 2**20:,.0f} MiB the memory limit leaves (--max-memory or ulimit -v): "
            "audit it with --engine chunked or --engine duckdb"
        )


def available_memory() -> int | None:
    """Bytes the process may still use: ``PRIVAUDIT_MEMORY_LIMIT`` if set, else the kernel's estimate."""
    text = os.environ.get(ENVIRONMENT, "").strip()
    if text:
        return parse_size(text, ENVIRONMENT)
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def estimated_bytes(path: Path) -> int | None:
    """The memory a table file takes once loaded and encoded (see the module docstring), None if unknown."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if is_parquet(path):
        try:
            import pyarrow.parquet as pq

            meta = pq.ParquetFile(path).metadata
            size = max(size, sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)))
        except Exception:  # an unreadable footer is reported by the loader, with its own line
            pass
    return int(size * EXPANSION)


def refuse_oversized(data: Any, what: str = "control table") -> None:
    """One line (a :class:`~privaudit.core.errors.DataError`, exit 2) when ``data`` is a file whose table
    would not fit in the memory available; nothing for in-memory tables or when either figure is unknown."""
    if not isinstance(data, (str, Path)) or "://" in str(data):
        return
    path = Path(data)
    need = estimated_bytes(path) if path.is_file() else None
    have = available_memory()
    if need is None or have is None or need <= have:
        return
    raise DataError(
        f"{what} {path}: about {need / 2**30:.2f} GiB once loaded, more than the "
        f"{have / 2**30:.2f} GiB of memory available ({ENVIRONMENT} or MemAvailable); the "
        "synthetic-release checks load it whole (there is no chunked path for --control): "
        "pass a sample of it"
    )
