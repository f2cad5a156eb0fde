"""Atomic output files: write to a temporary file beside the target, then rename over it.

A crash or Ctrl-C mid-write leaves the previous file (or none), never a partial one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import PrivauditError


def atomic_write(path: str | Path, data: bytes | str) -> None:
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise PrivauditError(f"{path}: the output folder {str(folder)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
