"""The built-in table formats, registered through the ``privaudit_readers`` hook as a third party's are.

CSV (any of the suffixes below, or a file of text whose suffix no reader claims: privaudit read every file
that is not Parquet as CSV before formats were registered) and Parquet (by suffix, or its ``PAR1`` magic
number). Both are read by :mod:`privaudit.io.data` and streamed by the out-of-memory engines
(:mod:`privaudit.io.source`); listing them imports neither pyarrow nor pandas.
"""

from __future__ import annotations

from privaudit.common.formats import PARQUET_SUFFIXES
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.reader import Reader


@hookimpl
def privaudit_readers() -> list[Reader]:
    return [
        Reader(
            "csv",
            (".csv", ".tsv", ".tab", ".txt", ".psv"),
            "privaudit.io.data:read_csv_file",
            sniff="privaudit.io.data:looks_like_text",
            stream="csv",
            description="delimited text (comma, semicolon, tab or pipe, sniffed), UTF-8 or the policy's encoding",
        ),
        Reader(
            "parquet",
            PARQUET_SUFFIXES,
            "privaudit.io.data:read_parquet_file",
            sniff="privaudit.io.data:looks_like_parquet",
            stream="parquet",
            description="Apache Parquet",
        ),
    ]
