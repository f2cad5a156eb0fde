"""The statistical offices' own files: SPSS (``.sav``, ``.zsav``, ``.por``), Stata (``.dta``), SAS (``.sas7bdat``,
``.xpt``), Excel workbooks (``.xlsx``) and OpenDocument spreadsheets (``.ods``), read as released tables
(registered in :mod:`privaudit.pipeline.readers`; written back by :mod:`privaudit.io.office_write`).

The statistical packages' files are read with pyreadstat (PyPI ``pyreadstat``, Apache-2.0), a wrapper of
Evan Miller's ReadStat C library, the library R's haven also reads them with: one maintained reader for all
six formats, returning the values as the codes stored, with the variable labels, value labels and
user-missing codes beside them (pyreadstat's ``metadata_container``). Workbooks are read with openpyxl
(PyPI ``openpyxl``, MIT): the sheet the policy's ``data.sheet`` or ``--sheet`` names (default: the first;
an unknown name is one line listing the sheets), its first row the header, a formula cell read as the value
the spreadsheet program saved with it (``data_only=True``), never evaluated; a formula saved without a value
(a workbook written by a program that computes nothing) is refused in one line rather than read as missing.
OpenDocument spreadsheets are read by pandas' ``odf`` reader on odfpy (PyPI ``odfpy``, Apache-2.0/GPL), a
formula cell as its saved ``office:value``. All are the optional extra ``office`` (``pip install 'privaudit[office]'``); without it, reading one of
these files is one line saying so.

Each format is chosen by its suffix and checked by its content before it is read (a ``.dta`` file that is
not Stata is one line, not a parser's message): the magic numbers are SPSS's ``$FL2``/``$FL3`` record type
(IBM SPSS Statistics, "SAV file format"; ``$FL3`` for zlib-compressed ``.zsav``), ``SPSSPORT`` after the
portable file's 200-byte vanity header and 256-byte character table (IBM, "SPSS portable file format"),
Stata's ``<stata_dta>`` (formats 117-119) or release byte 102-115 followed by a byte order of 1 or 2 and file
type 1 (Stata manual, [P] file formats .dta), the 32 bytes a SAS7BDAT file starts with (Shotwell, "SAS7BDAT
Database Binary Format", 2013; pandas' ``sas_constants.magic``), the ``HEADER RECORD*******LIBRARY`` (or
``LIBV8``) record a transport file starts with (SAS Institute, TS-140), and for a workbook a zip archive
holding ``xl/workbook.xml`` (ECMA-376 Part 2, Open Packaging Conventions). An encrypted (password-protected)
workbook is an OLE2 compound file instead (MS-OFFCRYPTO 2.3.4), and is named so.

Values come in as the codes: an SPSS or Stata numeric column of whole numbers becomes integers (``1``, as its
CSV export writes it, not ``1.0``); system-missing values and Stata's and SAS's extended missing values
(``.a`` .. ``.z``) are missing; SPSS's user-missing codes are kept as values, as the file stores them and its
CSV export writes them (the released file shows them), unless the policy's ``missing_codes.suppressed``
names them: those cells are missing, a suppression (:func:`suppressed_codes_missing`). The labels travel as
field metadata (:mod:`privaudit.io.labels`).

Importing this module imports neither pandas nor the format libraries; each reader imports what it uses.
"""

from __future__ import annotations

import importlib
import zipfile
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from privaudit.core.errors import DataError, first_line
from privaudit.io.labels import ColumnLabels, code_text

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

SAS7BDAT_MAGIC = b"\x00" * 12 + b"\xc2\xea\x81\x60\xb3\x14\x11\xcf\xbd\x92\x08\x00\x09\xc7\x31\x8c\x18\x1f\x10\x11"
XPORT_MAGIC = b"HEADER RECORD*******LIB"  # LIBRARY (version 5) or LIBV8 (version 8)
OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
STATA_OLD_RELEASES = frozenset(range(102, 116))
INSTALL = "pip install 'privaudit[office]'"


# -- content checks (each a reader's ``sniff``, and the check a file chosen by its suffix passes) ------------


def looks_like_spss(head: bytes) -> bool:
    """An SPSS system file: record type ``$FL2`` (``$FL3``: zlib-compressed, ``.zsav``)."""
    return head[:4] in (b"$FL2", b"$FL3")


def looks_like_spss_portable(head: bytes) -> bool:
    """An SPSS portable file: ``SPSSPORT`` after its 464-byte header (line breaks every 80 bytes included)."""
    return b"SPSSPORT" in head[:1024]


def looks_like_stata(head: bytes) -> bool:
    """A Stata file: ``<stata_dta>`` (formats 117-119), or an older format's release byte, byte order and type."""
    if head.startswith(b"<stata_dta>"):
        return True
    return len(head) >= 4 and head[0] in STATA_OLD_RELEASES and head[1] in (1, 2) and head[2] == 1


def looks_like_sas7bdat(head: bytes) -> bool:
    """A SAS data set: the 32-byte magic number."""
    return head.startswith(SAS7BDAT_MAGIC)


def looks_like_xport(head: bytes) -> bool:
    """A SAS transport file (version 5 or 8): its library header record."""
    return head.startswith(XPORT_MAGIC)


def looks_like_xlsx(head: bytes) -> bool:
    """An Excel workbook by its first bytes: a zip archive naming ``xl/`` parts near its start (the reader
    itself checks the archive's directory for ``xl/workbook.xml``)."""
    return head.startswith(b"PK\x03\x04") and b"xl/" in head


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(4096)


def _check(path: Path, test: Callable[[bytes], bool], what: str, expect: str) -> None:
    if not test(_head(path)):
        raise DataError(f"{path}: not {what} ({expect}); is the file's suffix wrong?")


def _need(module: str, path: Path, suffix: str) -> ModuleType:
    """The optional format library, or one line saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise DataError(f"{path}: reading {suffix} files needs {module}: {INSTALL}") from None


def _suffix(path: Path, suffixes: tuple[str, ...]) -> str:
    own = path.suffix.lower()
    return own if own in suffixes else suffixes[0]


# -- the statistical packages' files (pyreadstat) ------------------------------------------------------------


def _read_stat(
    path: Path, policy: Any, function: str, what: str, suffixes: tuple[str, ...], **options: Any
) -> pa.Table:
    """``pyreadstat.<function>(path)`` as an Arrow table of codes with the labels as field metadata."""
    pyreadstat = _need("pyreadstat", path, _suffix(path, suffixes))
    encoding = getattr(getattr(policy, "data", None), "encoding", "utf-8")
    if encoding != "utf-8" and function != "read_xport":  # the file states its own encoding otherwise
        options["encoding"] = encoding
    try:
        frame, meta = getattr(pyreadstat, function)(str(path), **options)
    except MemoryError:
        raise
    except Exception as exc:  # ReadstatError: truncated, damaged or unsupported; a bad encoding ...
        raise DataError(f"{path}: cannot be read as {what} (truncated or damaged?): {first_line(exc)}") from None
    table = to_arrow(frame, _labels(frame, meta), getattr(meta, "readstat_variable_types", None) or {})
    return suppressed_codes_missing(table, policy, path)


def suppressed_codes_missing(table: pa.Table, policy: Any, path: Path) -> pa.Table:
    """``table`` with the codes the policy's ``missing_codes.suppressed`` names (by code or value label) made
    missing, column by column: a suppressed value, as ``*`` is (µ-ARGUS's first missing code: its manual,
    section 6.1). A name that is neither a code nor a value label of a labelled column is one line."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from privaudit.core.errors import did_you_mean
    from privaudit.io.labels import code_of, labels_of

    labels = labels_of(table.schema)
    for name, spec in (getattr(policy, "columns", None) or {}).items():
        codes = getattr(spec, "missing_codes", None)
        if codes is None or name not in table.column_names:
            continue
        found = labels.get(name)
        resolved = []
        for field_name, given in (("suppressed", codes.suppressed), ("refused", codes.refused)):
            for text in given:
                code = code_of(text, found)
                if code is None:
                    hint = did_you_mean(text, list(found.values.values()) if found else [])
                    raise DataError(
                        f"{path}: policy column {name!r}: missing_codes.{field_name} {text!r} is neither a code nor "
                        f"a value label of the file's column{hint}"
                    )
                if field_name == "suppressed":
                    resolved.append(code)
        if not resolved:
            continue
        index = table.column_names.index(name)
        column = table.column(index)
        hit = pc.is_in(pc.cast(column, pa.string()), value_set=pa.array(resolved, pa.string())).fill_null(False)
        kept = pc.if_else(hit, pa.scalar(None, column.type), column)
        table = table.set_column(index, table.schema.field(index), kept)
    return table


def _missing_text(meta: Any, name: str) -> list[str]:
    """The codes the file declares missing for column ``name``: SPSS's values and ranges (``97 thru 99``)."""
    out = []
    for item in (getattr(meta, "missing_ranges", None) or {}).get(name, []):
        lo, hi = item.get("lo"), item.get("hi")
        out.append(code_text(lo) if lo == hi else f"{code_text(lo)} thru {code_text(hi)}")
    return out


def _labels(frame: pd.DataFrame, meta: Any) -> dict[str, ColumnLabels]:
    variable = getattr(meta, "column_names_to_labels", None) or {}
    values = getattr(meta, "variable_value_labels", None) or {}
    out = {}
    for name in map(str, frame.columns):
        coded = {code_text(k): str(v) for k, v in (values.get(name) or {}).items()}
        found = ColumnLabels(variable.get(name) or None, coded, tuple(_missing_text(meta, name)))
        if found.label or found.values or found.missing:
            out[name] = found
    return out


def to_arrow(frame: pd.DataFrame, labels: dict[str, ColumnLabels], types: dict[str, str]) -> pa.Table:
    """``frame``'s columns as Arrow arrays of codes (:func:`codes`), each field carrying its labels."""
    import pyarrow as pa

    arrays, fields = [], []
    for name in frame.columns:
        array, extended = codes(frame[name], types.get(name, ""))
        found = labels.get(str(name), ColumnLabels())
        if extended:  # Stata's and SAS's extended missing values met in the column (.a, .b ...)
            found = ColumnLabels(found.label, found.values, found.missing + tuple(f".{e}" for e in extended))
        arrays.append(array)
        fields.append(pa.field(str(name), array.type, metadata=found.metadata() or None))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def codes(series: pd.Series, stored: str = "") -> tuple[pa.Array, list[str]]:
    """One column as an Arrow array: numbers that are all whole become int64 (missing as null), other numbers
    float64, text and dates as pyarrow infers them. A numeric column holding letters (Stata's and SAS's
    extended missing values, which pyreadstat returns as ``a`` .. ``z`` when asked for user-missing values)
    has them made missing; the letters met are returned."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    extended: list[str] = []
    if series.dtype == object and stored and stored != "string":
        from privaudit.common.numeric import to_numeric

        numbers = to_numeric(series, errors="coerce")
        letters = series[numbers.isna() & series.notna()]
        extended = sorted({str(v) for v in letters.unique()})
        series = numbers.astype("float64")
    if series.dtype.kind == "f":
        values = series.to_numpy(dtype=np.float64)
        present = ~np.isnan(values)
        shown = values[present]
        if np.isfinite(shown).all() and (shown == np.round(shown)).all() and (np.abs(shown) < 2**53).all():
            return pa.array(np.where(present, values, 0).astype(np.int64), mask=~present), extended
        return pa.array(values, mask=~present), extended
    try:
        return pa.array(series, from_pandas=True), extended
    except (pa.ArrowException, TypeError, ValueError):  # mixed kinds of values: their text
        return pa.array(series.map(lambda v: None if pd.isna(v) else code_text(v)), type=pa.string()), extended


def read_sav(path: Path, policy: Any) -> pa.Table:
    """The SPSS reader's ``read`` (``.sav``, ``.zsav``): user-missing codes kept as values, and listed."""
    _check(path, looks_like_spss, "an SPSS system file", "a .sav file starts with $FL2, a .zsav file with $FL3")
    return _read_stat(path, policy, "read_sav", "an SPSS file", (".sav", ".zsav"), user_missing=True)


def read_por(path: Path, policy: Any) -> pa.Table:
    """The SPSS portable reader's ``read`` (``.por``)."""
    _check(path, looks_like_spss_portable, "an SPSS portable file", "a .por file holds SPSSPORT in its header")
    return _read_stat(path, policy, "read_por", "an SPSS portable file", (".por",))


#: the .dta formats ReadStat reads (its README, "Format support": Stata 104-119)
STATA_READ = range(104, 120)


def stata_release(head: bytes) -> int | None:
    """A .dta file's format number: ``<release>NNN</release>`` of formats 117-119, else its first byte."""
    if head.startswith(b"<stata_dta>"):
        start = head.find(b"<release>")
        end = head.find(b"</release>", start)
        text = head[start + 9 : end] if start >= 0 and end > start else b""
        return int(text) if text.isdigit() else None
    return head[0] if head else None


def read_dta(path: Path, policy: Any) -> pa.Table:
    """The Stata reader's ``read`` (``.dta``): extended missing values (.a .. .z) missing, and listed. A format
    ReadStat does not read (before 104, after 119) is one line naming it."""
    head = _head(path)
    release = stata_release(head)
    if head.startswith(b"<stata_dta>") and release not in STATA_READ:
        raise DataError(f"{path}: Stata file format {release} is not supported (formats 104 to 119 are read)")
    _check(path, looks_like_stata, "a Stata file", "a .dta file starts with <stata_dta> or a Stata release byte")
    if release not in STATA_READ:
        raise DataError(f"{path}: Stata file format {release} is not supported (formats 104 to 119 are read)")
    return _read_stat(path, policy, "read_dta", "a Stata file", (".dta",), user_missing=True)


def read_sas7bdat(path: Path, policy: Any) -> pa.Table:
    """The SAS data set reader's ``read`` (``.sas7bdat``; value labels live in a separate format catalog)."""
    _check(path, looks_like_sas7bdat, "a SAS data set", "a .sas7bdat file starts with SAS's 32-byte magic number")
    return _read_stat(path, policy, "read_sas7bdat", "a SAS data set", (".sas7bdat",), user_missing=True)


def read_xport(path: Path, policy: Any) -> pa.Table:
    """The SAS transport reader's ``read`` (``.xpt``, version 5 or 8)."""
    _check(path, looks_like_xport, "a SAS transport file", "an .xpt file starts with HEADER RECORD*******LIBRARY")
    return _read_stat(path, policy, "read_xport", "a SAS transport file", (".xpt",))


# -- Excel workbooks (openpyxl) ------------------------------------------------------------------------------


def _check_workbook(path: Path) -> None:
    head = _head(path)
    if head.startswith(OLE2_MAGIC):
        raise DataError(
            f"{path}: the workbook is encrypted (password-protected) or an old .xls file; save it as .xlsx "
            "without a password, or export the sheet as CSV"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            parts = set(archive.namelist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"{path}: not an Excel workbook (not a zip archive: {first_line(exc)}); truncated?") from None
    if "xl/workbook.xml" not in parts:
        raise DataError(f"{path}: not an Excel workbook (the zip archive holds no xl/workbook.xml)")


#: the sheet ``--sheet NAME`` chose, for the run it is set in (the policy's ``data.sheet`` wins)
SHEET: ContextVar[str | None] = ContextVar("privaudit_sheet", default=None)


def sheet_named(policy: Any) -> str | None:
    """The sheet to read: the policy's ``data.sheet``, else ``--sheet``'s, else None (the first)."""
    return getattr(getattr(policy, "data", None), "sheet", None) or SHEET.get()


def _pick_sheet(path: Path, names: list[str], wanted: str | None) -> str:
    """``wanted`` among the workbook's sheets (default: the first), or one line naming them."""
    from privaudit.core.errors import did_you_mean

    if not names:
        raise DataError(f"{path}: the workbook has no worksheet")
    if wanted is None:
        return names[0]
    if wanted not in names:
        listed = ", ".join(repr(n) for n in names[:12])
        raise DataError(f"{path}: no sheet named {wanted!r}{did_you_mean(wanted, names)}; its sheets: {listed}")
    return wanted


def read_xlsx(path: Path, policy: Any) -> pa.Table:
    """The workbook reader's ``read`` (``.xlsx``, ``.xlsm``): the sheet the policy's ``data.sheet`` or
    ``--sheet`` names (default: the first), its first row the header, each formula cell as its saved value.
    openpyxl parses cell by cell in Python (a workbook holds at most 2^20 rows); the columns are then built
    whole."""
    openpyxl = _need("openpyxl", path, _suffix(path, (".xlsx", ".xlsm")))
    _check_workbook(path)
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except MemoryError:
        raise
    except Exception as exc:  # a damaged part, bad XML ...
        raise DataError(f"{path}: cannot be read as an Excel workbook (damaged?): {first_line(exc)}") from None
    try:
        title = _pick_sheet(path, [str(n) for n in book.sheetnames], sheet_named(policy))
        rows = [row for row in book[title].iter_rows(values_only=True)]
    except DataError:
        raise
    except Exception as exc:
        raise DataError(f"{path}: cannot be read as an Excel workbook (damaged?): {first_line(exc)}") from None
    finally:
        book.close()
    return _sheet_table(path, title, rows)


# -- OpenDocument spreadsheets (odfpy, through pandas' odf reader) --------------------------------------------

ODS_MIME = b"mimetypeapplication/vnd.oasis.opendocument.spreadsheet"


def looks_like_ods(head: bytes) -> bool:
    """An OpenDocument spreadsheet: a zip archive whose first, stored part is ``mimetype`` holding the
    spreadsheet's media type (OASIS OpenDocument 1.2, Part 3, section 3.3)."""
    return head.startswith(b"PK\x03\x04") and ODS_MIME in head[:200]


def _check_ods(path: Path) -> None:
    """A zip archive holding ``content.xml``, not encrypted: a password-protected document lists
    ``manifest:encryption-data`` for its parts in ``META-INF/manifest.xml`` (OpenDocument 1.2, Part 3, 4.8)."""
    try:
        with zipfile.ZipFile(path) as archive:
            parts = set(archive.namelist())
            manifest = archive.read("META-INF/manifest.xml") if "META-INF/manifest.xml" in parts else b""
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(
            f"{path}: not an OpenDocument spreadsheet (not a zip archive: {first_line(exc)}); truncated?"
        ) from None
    if b"encryption-data" in manifest:
        raise DataError(
            f"{path}: the spreadsheet is encrypted (password-protected); save it without a password, or export the "
            "sheet as CSV"
        )
    if "content.xml" not in parts:
        raise DataError(f"{path}: not an OpenDocument spreadsheet (the zip archive holds no content.xml)")


def read_ods(path: Path, policy: Any) -> pa.Table:
    """The OpenDocument reader's ``read`` (``.ods``): the sheet named as for a workbook (default: the first),
    its first row the header; a formula cell is read as the value the spreadsheet program saved in its
    ``office:value`` attribute, never evaluated (pandas' ``odf`` reader, on odfpy)."""
    import pandas as pd

    _need("odf", path, ".ods")
    _check_ods(path)
    try:
        book = pd.ExcelFile(path, engine="odf")
        title = _pick_sheet(path, [str(n) for n in book.sheet_names], sheet_named(policy))
        frame = book.parse(title, header=None, dtype=object)
    except DataError:
        raise
    except MemoryError:
        raise
    except Exception as exc:  # damaged XML ...
        raise DataError(
            f"{path}: cannot be read as an OpenDocument spreadsheet (damaged?): {first_line(exc)}"
        ) from None
    values = frame.astype(object).where(frame.notna(), None)
    rows = list(values.itertuples(index=False, name=None))
    return _sheet_table(path, title, rows, formulas=False)


def _sheet_table(path: Path, title: str, rows: list[tuple[Any, ...]], formulas: bool = True) -> pa.Table:
    """A sheet's rows as a table: the header's names, the columns' values (:func:`cells`); trailing empty rows
    dropped; a value under no header, or a formula saved without its value, is one line."""
    import pyarrow as pa

    while rows and all(v is None for v in rows[-1]):
        rows.pop()
    if not rows:
        raise DataError(f"{path}: sheet {title!r} is empty")
    header = list(rows[0])
    while header and header[-1] is None:
        header.pop()
    names = [code_text(h).strip() if h is not None else "" for h in header]
    if not names or "" in names:
        raise DataError(
            f"{path}: sheet {title!r}: the header (row 1) has an empty column name (column {len(names) or 1})"
        )
    repeated = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if repeated is not None:
        raise DataError(f"{path}: sheet {title!r}: duplicate column name {repeated!r} in the header (row 1)")
    width, body = len(names), rows[1:]
    for number, row in enumerate(body, start=2):
        if any(v is not None for v in row[width:]):
            raise DataError(f"{path}: sheet {title!r}, row {number}: a value beyond the header's {width} columns")
    padded = [tuple(row[:width]) + (None,) * (width - len(row)) for row in body]
    columns = list(zip(*padded, strict=True)) or [()] * width
    arrays = [cells(list(values)) for values in columns]
    if formulas and any(None in values for values in columns):
        _unsaved_formulas(path, title, width)
    return pa.table(dict(zip(names, arrays, strict=True)))


def _unsaved_formulas(path: Path, title: str, width: int) -> None:
    """A formula saved without its value reads as an empty cell (openpyxl, ``data_only=True``): read the
    formulas themselves and refuse the first one whose value the first pass found empty."""
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=False)
    values = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        pairs = zip(book[title].iter_rows(), values[title].iter_rows(values_only=True), strict=False)
        for formulas, saved in pairs:
            for cell, value in zip(formulas[:width], saved[:width], strict=False):
                if value is None and getattr(cell, "data_type", None) == "f":
                    raise DataError(
                        f"{path}: sheet {title!r}, cell {cell.coordinate}: a formula saved without its value "
                        "(open and save the workbook in a spreadsheet program, or export the sheet as CSV)"
                    )
    finally:
        book.close()
        values.close()


def cells(values: list[Any]) -> pa.Array:
    """One sheet column: numbers (whole ones as integers), text, or dates as they are; a column mixing kinds
    (numbers and text) as text, each number written as a code (``1``, not ``1.0``)."""
    import datetime

    import pandas as pd
    import pyarrow as pa

    kinds = {type(v) for v in values if v is not None}
    if kinds and kinds <= {int, float}:
        return codes(pd.Series(values, dtype="float64"))[0]
    if kinds and (kinds <= {str} or kinds <= {datetime.datetime} or kinds <= {datetime.date}):
        return pa.array(values)
    return pa.array([None if v is None else code_text(v) for v in values], type=pa.string())


__all__ = [
    "INSTALL",
    "cells",
    "codes",
    "looks_like_sas7bdat",
    "looks_like_spss",
    "looks_like_spss_portable",
    "looks_like_stata",
    "looks_like_ods",
    "looks_like_xlsx",
    "looks_like_xport",
    "read_dta",
    "read_ods",
    "read_por",
    "read_sas7bdat",
    "read_sav",
    "read_xlsx",
    "read_xport",
]
