"""Refuse, before loading it, a control (holdout) table that cannot fit in memory.

The synthetic-release checks read the control table whole (there is no chunked path for ``--control``:
the engines stream only the released table). A control table larger than the memory available would
end in a ``MemoryError`` deep in a check, or in the process being killed. So its in-memory size is
estimated from the file before it is read -- the file's size for CSV, the uncompressed size the Parquet
footer records for Parquet -- times :data:`EXPANSION` (loaded columns, their codes and the checks'
encoded copies; measured on the adult columns: loading a CSV of 8.2 MB peaks 42 MB above the process),
and compared with the memory available: ``MemAvailable`` of ``/proc/meminfo``, else the free pages of
``os.sysconf``, or the limit in bytes the environment variable ``PRIVAUDIT_MEMORY_LIMIT`` sets (suffixes
``K``, ``M``, ``G``; for tests and for machines whose limit is a container's, not the kernel's).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from privaudit.common.formats import is_parquet
from privaudit.core.errors import DataError

EXPANSION = 6.0
ENVIRONMENT = "PRIVAUDIT_MEMORY_LIMIT"
SUFFIXES = {"K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}


def available_memory() -> int | None:
    """Bytes the process may still use: ``PRIVAUDIT_MEMORY_LIMIT`` if set, else the kernel's estimate."""
    text = os.environ.get(ENVIRONMENT, "").strip().upper().removesuffix("B")
    if text:
        scale = SUFFIXES.get(text[-1], 1)
        try:
            return int(float(text[:-1] if text[-1] in SUFFIXES else text) * scale)
        except ValueError:
            raise DataError(f"{ENVIRONMENT}={os.environ[ENVIRONMENT]!r} is not a number of bytes "
                            "(e.g. 8G)") from None
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
    raise DataError(f"{what} {path}: about {need / 2 ** 30:.2f} GiB once loaded, more than the "
                    f"{have / 2 ** 30:.2f} GiB of memory available ({ENVIRONMENT} or MemAvailable); the "
                    "synthetic-release checks load it whole (there is no chunked path for --control): "
                    "pass a sample of it")
