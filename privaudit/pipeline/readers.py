"""The built-in table formats, registered through the ``privaudit_readers`` hook as a third party's are.

CSV (any of the suffixes below, or a file of text whose suffix no reader claims: privaudit read every file
that is not Parquet as CSV before formats were registered) and Parquet (by suffix, or its ``PAR1`` magic
number). Both are read by :mod:`privaudit.io.data` and streamed by the out-of-memory engines
(:mod:`privaudit.io.source`); listing them imports neither pyarrow nor pandas.

The statistical offices' own files, SPSS, Stata, SAS, Excel and OpenDocument (:mod:`privaudit.io.office`, the
optional extra ``office``: pyreadstat, openpyxl and odfpy), each by its suffixes or its magic number; they are read whole, by the
in-process engine.

µ-ARGUS's data (``.asc``, :mod:`privaudit.io.muargus`), through the record description (``.rda``) beside it.
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
        *_office(),
        Reader(
            "muargus",
            (".asc",),
            "privaudit.io.muargus:read_asc",
            description="µ-ARGUS data (.asc), fixed-width or delimited, read through the .rda of the same name "
            "beside it: its missing codes made missing, its .cdl code lists as value labels",
        ),
    ]


def _office() -> list[Reader]:
    """The readers of :mod:`privaudit.io.office`: name, suffixes, read and sniff functions, description."""
    formats = [
        ("spss", (".sav", ".zsav"), "read_sav", "spss", "SPSS system file (pyreadstat): codes, with value labels"),
        ("spss-portable", (".por",), "read_por", "spss_portable", "SPSS portable file (pyreadstat)"),
        ("stata", (".dta",), "read_dta", "stata", "Stata data file, formats 102-119 (pyreadstat): codes, value labels"),
        ("sas7bdat", (".sas7bdat",), "read_sas7bdat", "sas7bdat", "SAS data set (pyreadstat)"),
        ("sas-xport", (".xpt",), "read_xport", "xport", "SAS transport file, version 5 or 8 (pyreadstat)"),
        (
            "xlsx",
            (".xlsx", ".xlsm"),
            "read_xlsx",
            "xlsx",
            "Excel workbook, one sheet (--sheet), formulas as saved values",
        ),
        (
            "ods",
            (".ods",),
            "read_ods",
            "ods",
            "OpenDocument spreadsheet, one sheet (--sheet), formulas as saved values",
        ),
    ]
    return [
        Reader(
            name,
            suffixes,
            f"privaudit.io.office:{read}",
            sniff=f"privaudit.io.office:looks_like_{sniff}",
            description=description,
        )
        for name, suffixes, read, sniff, description in formats
    ]
