"""Readers: the table formats privaudit reads, each a registered :class:`Reader` record.

A reader is listed by a ``privaudit_readers`` hook implementation, as the built-ins are
(:mod:`privaudit.pipeline.readers`)::

    from privaudit import hookimpl
    from privaudit.plugin.reader import Reader

    @hookimpl
    def privaudit_readers():
        return [Reader("spss", (".sav", ".zsav"), "privaudit_spss.read:read_sav", description="SPSS (pyreadstat)")]

``read(path, policy)`` (``policy`` None when ``privaudit init`` drafts a policy from the file) returns the file's table as a pyarrow Table or a pandas DataFrame, its columns text
(as CSV is read) or typed numbers and strings (as Parquet's are); privaudit then types it by the policy, checks
it and reports bad values exactly as for CSV and Parquet (:func:`privaudit.io.data.type_table`), naming rows
``row N``. Functions are given as ``"module:function"`` (imported when a file is read, so building the
registry imports no format library) or as the functions themselves. A format that labels its columns
(SPSS, Stata, SAS: :mod:`privaudit.io.office`) puts the labels on the Arrow fields it returns
(:mod:`privaudit.io.labels`: variable label, value labels, user-missing codes); the loaded table keeps them
and ``privaudit init`` reads the variable labels as evidence beside the headers. A file goes to the reader claiming the
longest of its ``suffixes``; a file whose suffix no reader claims, to one whose ``sniff(head)`` (the
file's first 4 KiB) recognises it, the last registered asked first (:mod:`privaudit.io.readers`). ``stream`` says how the out-of-memory
engines (chunked, duckdb, spark) read the format without loading it: ``"csv"`` or ``"parquet"`` (their native
streaming paths, :mod:`privaudit.io.source`); a reader without one is read whole, by the in-process engine
only: the others refuse its files in one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Reader:
    """One table format (see the module's docstring)."""

    name: str  # the format, as the report's ``file_format`` names it
    suffixes: tuple[str, ...]  # lower case, with the dot: (".csv", ".tsv")
    read: str | Callable[..., Any]  # read(path, policy) -> pyarrow Table | pandas DataFrame
    sniff: str | Callable[[bytes], bool] | None = None  # sniff(head) -> whether the bytes are this format
    stream: str | None = None  # "csv" or "parquet": how out-of-memory engines stream it; None: read whole
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "suffixes", tuple(s.lower() for s in self.suffixes))
        if self.stream not in (None, "csv", "parquet"):
            raise ValueError(f"reader {self.name!r}: stream must be 'csv', 'parquet' or None")


__all__ = ["Reader"]
