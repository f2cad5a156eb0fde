"""Which registered reader reads a file: by suffix, then by content.

The table formats privaudit reads are registered :class:`~privaudit.plugin.reader.Reader` records (the
built-ins, CSV and Parquet, in :mod:`privaudit.pipeline.readers`), read here through
:mod:`privaudit.common.extensions`, so this package never imports the plugin host. A file goes to the reader
claiming the longest of its suffixes (``.csv.gz`` before ``.gz``, any case); a file whose suffix no reader
claims goes to the reader whose ``sniff(head)`` recognises its first bytes (Parquet: the ``PAR1`` magic
number; CSV: any text without NUL bytes), as ``file(1)`` does, asked in reverse registration order: a third
party's format (registered after the built-ins) before Parquet, and CSV, which takes any text, last; otherwise one line names the file and the
formats available.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from privaudit.common.extensions import registered
from privaudit.core.errors import DataError, first_line

#: bytes of a file's beginning a reader's ``sniff`` sees
HEAD_BYTES = 4096


def function(ref: str | Callable[..., Any]) -> Callable[..., Any]:
    """A record's function: itself, or the one ``"module:function"`` names (imported on first use)."""
    if callable(ref):
        return ref
    module, _, name = ref.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found


def readers() -> list[Any]:
    """The registered readers, in registration order."""
    return list(registered("reader").values())


def _suffix_match(name: str, known: Iterable[Any]) -> Any:
    best, length = None, 0
    for reader in known:
        for suffix in reader.suffixes:
            if name.endswith(suffix.lower()) and len(suffix) > length:
                best, length = reader, len(suffix)
    return best


def reader_for(path: Path) -> Any:
    """The reader of ``path`` (an existing, non-empty file): by suffix, then by content; a DataError naming
    the file and the formats available when no reader recognises it."""
    known = readers()
    found = _suffix_match(path.name.lower(), known)
    if found is not None:
        return found
    sniffers = [r for r in reversed(known) if r.sniff is not None]  # the CSV catch-all, first registered, last
    if sniffers:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
        for reader in sniffers:
            if function(reader.sniff)(head):
                return reader
    formats = "; ".join(f"{r.name} ({', '.join(r.suffixes)})" for r in known) or "none installed"
    suffix = "".join(path.suffixes[-2:]) or "no suffix"
    raise DataError(f"{path}: not a table format privaudit reads ({suffix}); formats: {formats}")


def read_with(reader: Any, path: Path, policy: Any) -> Any:
    """``reader``'s table of ``path``: a pyarrow Table (a pandas DataFrame is converted, as an in-memory table
    is), its columns text, or typed as a Parquet file's may be."""
    import pandas as pd
    import pyarrow as pa

    try:
        raw = function(reader.read)(path, policy)
    except (DataError, MemoryError):  # bad input, or the memory step's own message (runtime/memory.py)
        raise
    except Exception as exc:  # a reader's failure is one line naming it, never a traceback
        raise DataError(f"{path}: the {reader.name} reader failed: {type(exc).__name__}: {first_line(exc)}") from None
    if isinstance(raw, pd.DataFrame):
        try:
            raw = pa.Table.from_pandas(raw.rename(columns=str), preserve_index=False)
        except (pa.ArrowException, ValueError, TypeError) as exc:
            raise DataError(
                f"{path}: the {reader.name} reader gave a table pyarrow cannot hold: {first_line(exc)}"
            ) from None
    if not isinstance(raw, pa.Table):
        raise DataError(
            f"{path}: the {reader.name} reader returned {type(raw).__name__}, not a pyarrow Table or pandas DataFrame"
        )
    return raw


__all__ = ["HEAD_BYTES", "function", "read_with", "reader_for", "readers"]
