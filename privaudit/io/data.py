"""Reading released, original and population tables (CSV or Parquet) as the policy types them.

Every column arrives as text first; the policy's types are then applied:

* ``numeric``  -> float64 (missing = NaN); text that is not a finite number (``abc``, ``nan``, ``inf``) is an error naming the row;
* ``ordinal``  -> ordered ``Categorical`` with the policy's ``order``; an unlisted value is an error;
* ``nominal``  -> pandas string (missing = NA).

The tokens ``""`` and ``*`` and the policy's ``data.missing`` list mean missing/suppressed.
"""

from __future__ import annotations

import csv
import hashlib
import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from privaudit.core.errors import DataError, first_line
from privaudit.core.policy import Policy
from privaudit.io.coding import check_hierarchies, load_column
from privaudit.io.labels import ColumnLabels, labels_of
from privaudit.io.locations import fingerprint, is_dataset, read_location, resolve

csv.field_size_limit(1 << 30)  # the standard reader's default (128 KiB) refuses long headers and fields
SNIFF_BYTES = 1 << 16
MAX_HEADER_BYTES = 16 << 20  # the header line is read whole up to this length
CANDIDATE_DELIMITERS = (",", ";", "\t", "|")


@dataclass
class Table:
    """A loaded table and the facts a report states about its file.

    ``frame`` is None when an out-of-memory engine summarised the file without loading it; ``n_rows`` and
    ``column_names`` then come from the engine.
    """

    frame: pd.DataFrame | None
    path: Path | str  # a file, or a dataset location as the user wrote it (a directory, glob or URI)
    sha256: str
    size: int
    file_format: str
    n_rows: int | None = None
    column_names: list[str] | None = None
    fingerprint: str = "sha256"  # what ``sha256`` hashes: the file, or (datasets) "sha256 of files" / "manifest sha256"
    #: the variable labels, value labels and user-missing codes the file states, by column (an SPSS, Stata or
    #: SAS file's; none for CSV or Parquet): :mod:`privaudit.io.labels`
    labels: dict[str, ColumnLabels] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return len(self.frame) if self.frame is not None else int(self.n_rows or 0)

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self.frame.columns] if self.frame is not None else list(self.column_names or [])

    def row_label(self, index: int) -> str:
        """How to name data row ``index`` (0-based) in an error: a CSV line, a workbook's row (the header is
        row 1, as the spreadsheet numbers it) or a Parquet row."""
        if self.file_format == "xlsx":
            return f"row {index + 2}"
        return f"line {index + 2}" if self.file_format == "csv" else f"row {index + 1}"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sniff_delimiter(head: str, path: Path) -> str:
    lines = [ln for ln in head.splitlines()[:20] if ln.strip()]
    best, best_score = None, 0
    for delim in CANDIDATE_DELIMITERS:
        counts = [len(next(csv.reader([ln], delimiter=delim))) - 1 for ln in lines]
        if counts[0] == 0:
            continue
        score = counts[0] * 10 + sum(c == counts[0] for c in counts)
        if score > best_score:
            best, best_score = delim, score
    return best or ","


def locate_bad_line(path: Path, delimiter: str, expected: int, encoding: str = "utf-8") -> tuple[int, str] | None:
    """On the error path only: find the first line that is not text in ``encoding`` or has the wrong number
    of fields."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8-sig" if number == 1 and encoding == "utf-8" else encoding)
            except UnicodeDecodeError as exc:
                return number, not_in_encoding(raw, exc, encoding)
            if number == 1 or not text.strip():
                continue
            try:
                fields = len(next(csv.reader([text.rstrip("\r\n")], delimiter=delimiter)))
            except csv.Error:
                return number, "a carriage return without a line feed (old Mac or mixed line endings)"
            if fields != expected:
                return number, f"expected {expected} fields, found {fields} (ragged row)"
    return None


CSV_BLOCK_BYTES = 1 << 24  # CSV text read per block; a longer row gets a larger block (block_for_long_rows)
MAX_BLOCK_BYTES = 1 << 30  # Arrow's CSV block size is an int32


def longest_line(path: Path) -> tuple[int, int]:
    """(bytes, line number) of the longest line of ``path``, line break excluded: one vectorised pass, on the
    error path of a read whose row did not fit its block."""
    import numpy as np

    best, best_line, line, carry = 0, 1, 1, 0
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 24), b""):
            ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
            if not len(ends):
                carry += len(block)
                continue
            lengths = np.diff(ends, prepend=-1) - 1
            lengths[0] += carry
            i = int(lengths.argmax())
            if lengths[i] > best:
                best, best_line = int(lengths[i]), line + i
            line += len(ends)
            carry = len(block) - int(ends[-1]) - 1
    if carry > best:
        best, best_line = carry, line
    return best, best_line


def may_have_long_line(path: Path, limit: int) -> bool:
    """Whether ``path`` may hold a line longer than ``limit`` bytes: True when some aligned window of
    ``limit // 2`` bytes holds no line break (a longer line covers one whole window). Each window's search
    stops at its first line break, so a file of ordinary lines costs one page touched per window."""
    import mmap

    size = path.stat().st_size
    if size <= limit:
        return False
    step = max(limit // 2, 1)
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
        return any(view.find(b"\n", start, start + step) < 0 for start in range(0, size - step + 1, step))


def block_for_long_rows(path: Path, block_bytes: int) -> int:
    """A CSV block size that holds ``path``'s longest line (a row must fit in a block): twice it, rounded
    up to a power of two; a line too long for any block is a DataError naming it. Every engine reads rows
    of any length up to that limit, so a long field is never refused by one engine and read by another."""
    longest, number = longest_line(path)
    size = 1 << max(int(2 * longest + 2) - 1, 1).bit_length()
    if size > MAX_BLOCK_BYTES:
        raise DataError(
            f"{path}: line {number}: a row of {longest:,} bytes; privaudit reads rows of at most "
            f"{MAX_BLOCK_BYTES // 2 >> 20} MiB"
        )
    return max(size, block_bytes)


def check_tail(path: Path) -> None:
    """A file cut off inside a quoted field still parses; it ends inside quotes. The last line read from the
    file's tail decides when it holds an even number of quotes; when it does not, or runs past the tail (a
    quoted field over 64 KiB, a quoted line break), the quotes of the whole file are counted: a file that
    ends outside quotes holds an even number of them (doubled quotes inside a field come in pairs)."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        handle.seek(max(0, size - SNIFF_BYTES))
        tail = handle.read()
    body = tail.rstrip(b"\r\n")
    last = body.rsplit(b"\n", 1)[-1]
    whole_line = len(last) < len(body) or size <= SNIFF_BYTES
    if whole_line and not last.count(b'"') % 2:
        return
    if quote_count(path) % 2:
        with path.open("rb") as handle:
            lines = sum(1 for _ in handle)
        raise DataError(f"{path}: line {lines}: unterminated quoted field (is the file truncated?)")


def quote_count(path: Path) -> int:
    """How many ``"`` bytes ``path`` holds (a pass over the file in blocks of 16 MiB)."""
    total = 0
    with path.open("rb") as handle:
        while block := handle.read(1 << 24):
            total += block.count(b'"')
    return total


def header_names(path: Path, line: str, delimiter: str) -> list[str]:
    """The column names of a CSV header line (trimmed, Unicode NFC so that a name typed either way matches the
    policy's); an empty or repeated name, or a quoted name running over the line's end, is a DataError."""
    if line.count('"') % 2:
        raise DataError(
            f"{path}: line 1: a quoted column name runs past the end of the header line (a line break "
            "inside the header); put every column name on the first line"
        )
    names = [unicodedata.normalize("NFC", h.strip()) for h in next(csv.reader([line], delimiter=delimiter))]
    if any(not n for n in names):
        raise DataError(f"{path}: the header has an empty column name (column {names.index('') + 1})")
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise DataError(f"{path}: duplicate column name {n!r} in the header")
        seen.add(n)
    return names


def not_in_encoding(raw: bytes, exc: UnicodeDecodeError, encoding: str) -> str:
    """Why a line is not text in ``encoding``, and, for UTF-8, how to read a file in another one."""
    where = f"byte 0x{raw[exc.start]:02x} at position {exc.start + 1}"
    if encoding != "utf-8":
        return f"not valid {encoding} text ({where})"
    return (
        f"not valid UTF-8 ({where}); if the file is Latin-1 or Windows-1252, set data.encoding: latin-1 "
        "(or cp1252) in the policy (privaudit init: --encoding latin-1)"
    )


def read_head(path: Path, delimiter: str | None, encoding: str = "utf-8") -> tuple[bytes, str, str]:
    """The first ``SNIFF_BYTES`` of a CSV file (bytes, and text in ``encoding``), and its delimiter (the
    policy's, or sniffed); a file of only whitespace is a DataError."""
    with path.open("rb") as handle:
        head_bytes = handle.read(SNIFF_BYTES)
        while b"\n" not in head_bytes and len(head_bytes) < MAX_HEADER_BYTES:  # a header of many columns
            more = handle.read(SNIFF_BYTES)
            if not more:
                break
            head_bytes += more
    for bom, name in _WIDE_BOMS:
        if head_bytes.startswith(bom):
            raise DataError(
                f"{path}: line 1: the file is {name} text (byte-order mark); privaudit reads UTF-8: "
                f"convert it (iconv -f {name} -t UTF-8)"
            )
    first_line = head_bytes.split(b"\n", 1)[0]
    try:
        first_line.decode("utf-8-sig" if encoding == "utf-8" else encoding)
    except UnicodeDecodeError as exc:
        if exc.end < len(first_line) or len(first_line) < len(head_bytes):  # not just a cut-off character
            raise DataError(f"{path}: line 1: {not_in_encoding(first_line, exc, encoding)}") from None
    if b"\x00" in head_bytes[:4096]:
        raise DataError(
            f"{path}: line 1: the file holds NUL bytes (UTF-16 or UTF-32 text without a byte-order "
            "mark?); privaudit reads UTF-8: convert it (iconv -f UTF-16 -t UTF-8)"
        )
    lone_cr = re.search(rb"\r(?!\n)", head_bytes)
    if lone_cr and lone_cr.start() < len(head_bytes) - 1:  # a last \r may be cut from its \n by the read
        line = head_bytes[: lone_cr.start()].count(b"\n") + 1
        raise DataError(
            f"{path}: line {line}: a carriage return without a line feed (old Mac or mixed line "
            "endings); convert the file to LF or CRLF line endings"
        )
    head = head_bytes.decode("utf-8-sig" if encoding == "utf-8" else encoding, errors="ignore")
    if not head.strip():
        raise DataError(f"{path}: the file is empty")
    return head_bytes, head, delimiter or sniff_delimiter(head, path)


_WIDE_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\xfe\xff", "UTF-16"),
    (b"\xff\xfe", "UTF-16"),
)


def read_csv(path: Path, delimiter: str | None, encoding: str = "utf-8") -> tuple[pa.Table, str]:
    _, head, delimiter = read_head(path, delimiter, encoding)
    names = header_names(path, head.splitlines()[0], delimiter)
    block = CSV_BLOCK_BYTES
    if may_have_long_line(path, block):  # a row must fit in a block (and pyarrow's threaded reader can hang
        block = block_for_long_rows(path, block)  # on one that does not: measured, pyarrow 21), so size it first
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=block, encoding=encoding),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=False),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names}, strings_can_be_null=False
            ),
        )
        check_tail(path)
    except pa.ArrowInvalid as exc:
        bad = locate_bad_line(path, delimiter, len(names), encoding)
        if bad:
            raise DataError(f"{path}: line {bad[0]}: {bad[1]}") from None
        raise DataError(f"{path}: cannot be parsed as CSV: {first_line(exc)}") from None
    return table, delimiter


def check_parquet_schema(path: Path, schema: pa.Schema) -> None:
    """Every column flat and text or numbers: a nested (list, struct, map) or binary column is one line."""
    for f in schema:
        kind = f.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if pa.types.is_nested(kind):
            raise DataError(
                f"{path}: column {f.name!r} holds nested values ({kind}); privaudit audits flat "
                "columns: flatten or drop it"
            )
        if pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_fixed_size_binary(kind):
            raise DataError(f"{path}: column {f.name!r} holds binary values; store text as UTF-8 strings")


def read_parquet(path: Path) -> pa.Table:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"{path}: cannot be read as Parquet: {first_line(exc)}") from None
    names = table.column_names
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise DataError(f"{path}: duplicate column name {dupes[0]!r}")
    check_parquet_schema(path, table.schema)
    return table


def read_csv_file(path: Path, policy: Policy) -> pa.Table:
    """The CSV reader's ``read`` (:mod:`privaudit.pipeline.readers`): every column as text, the policy's
    delimiter (else sniffed) and encoding."""
    return read_csv(path, policy.data.delimiter, policy.data.encoding)[0]


def read_parquet_file(path: Path, policy: Policy) -> pa.Table:
    """The Parquet reader's ``read``: the file's columns as stored (flat, text or numbers)."""
    return read_parquet(path)


def looks_like_text(head: bytes) -> bool:
    """The CSV reader's ``sniff``: text, no NUL byte (a wide byte-order mark too: the CSV reader names it),
    and not Parquet's magic number."""
    if head.startswith(b"PAR1"):
        return False
    return b"\x00" not in head or any(head.startswith(bom) for bom, _ in _WIDE_BOMS)


def looks_like_parquet(head: bytes) -> bool:
    """The Parquet reader's ``sniff``: the ``PAR1`` magic number a Parquet file starts with (Apache Parquet
    file format, "File format")."""
    return head.startswith(b"PAR1")


def read_file(path: Path, policy: Policy) -> tuple[pa.Table, str]:
    """``path`` (an existing, non-empty file) read by its registered reader (:mod:`privaudit.io.readers`):
    the table as read and the reader's name (the report's ``file_format``). Duplicate names and nested or
    binary columns are refused in one line, whatever the reader."""
    from privaudit.io.readers import read_with, reader_for

    reader = reader_for(path)
    raw = read_with(reader, path, policy)
    names = raw.column_names
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise DataError(f"{path}: duplicate column name {dupes[0]!r}")
    check_parquet_schema(path, raw.schema)
    return raw, reader.name


def shown(path) -> str:
    """A path as messages show it: a file name that is not UTF-8 with its bytes escaped."""
    return os.fsencode(str(path)).decode("utf-8", errors="backslashreplace")


def check_file(path: Path, what: str) -> int:
    """The input file exists, is a file, has a UTF-8 name, can be read and is not empty; return its size."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise DataError(f"{shown(path)}: the file name is not valid UTF-8; rename the file") from None
    if not path.exists():
        raise DataError(f"{path}: {what} not found")
    if path.is_dir():
        raise DataError(f"{path}: is a directory, not a {what}")
    size = path.stat().st_size
    if size == 0:
        raise DataError(f"{path}: the file is empty")
    try:
        with path.open("rb"):
            pass
    except PermissionError:
        raise DataError(f"{path}: {what} cannot be read (permission denied)") from None
    return size


def check_required_columns(
    path: Path, columns: Sequence[str], policy: Policy, required: Sequence[str] | None = None
) -> None:
    """Every policy column (or every ``required`` one) must be in the file; identifiers may be dropped."""
    present = set(columns)
    if required is None:
        required = [c for c, spec in policy.columns.items() if spec.role != "identifier"]
    absent = [c for c in required if c not in present]
    if absent:
        declared = policy.data.delimiter
        spreadsheet = Path(str(path)).suffix.lower() in (".xlsx", ".xlsm", ".ods")
        hint = (
            " (wrong sheet? give --sheet NAME or the policy's data.sheet)"
            if spreadsheet
            else ""
            if len(present) != 1
            else f" (wrong delimiter? the policy's data.delimiter is {declared!r})"
            if declared
            else " (wrong delimiter?)"
        )
        found = ", ".join(repr(c) for c in list(columns)[:12])
        raise DataError(f"{path}: policy column {absent[0]!r} is absent from the data{hint}; columns found: {found}")


def load_table(
    path: str | Path, policy: Policy, what: str = "released table", required: Sequence[str] | None = None
) -> Table:
    """Load ``path`` typed by ``policy``; raise :class:`DataError` with a one-line message on bad input.

    ``required`` lists the columns that must be present (default: every policy column but identifiers,
    which a release may have dropped).
    """
    path = Path(path)
    size = check_file(path, what)
    raw, file_format = read_file(path, policy)
    if raw.num_rows == 0:
        raise DataError(f"{path}: the file has a header but no data rows")
    refuse_missing_codes(path, file_format, policy)
    table = Table(None, path, sha256_of(path), size, file_format, labels=labels_of(raw.schema))
    return type_table(raw, table, policy, required)


#: the readers whose files declare user-missing codes (:mod:`privaudit.io.office`), which ``missing_codes`` reads
USER_MISSING_FORMATS = ("spss", "spss-portable", "stata", "sas7bdat", "sas-xport")


def refuse_missing_codes(path: Path, file_format: str, policy: Policy) -> None:
    """A column's ``missing_codes`` applies to a file that declares user-missing codes (SPSS, Stata, SAS); on
    another format it is one line pointing to ``data.missing``."""
    if file_format in USER_MISSING_FORMATS:
        return
    named = next((c for c, s in policy.columns.items() if getattr(s, "missing_codes", None)), None)
    if named is not None:
        raise DataError(
            f"{path}: policy column {named!r}: missing_codes applies to SPSS, Stata and SAS files (their "
            f"user-missing codes); a {file_format} file's missing values are the tokens of data.missing"
        )


def load_input(data: Any, policy: Policy, what: str = "released table") -> Table:
    """A table to audit from a path (:func:`load_table`), a loaded :class:`Table` (returned as is), a
    pandas DataFrame or a pyarrow Table (typed exactly as a Parquet file with the same columns would be;
    no temporary file). The fingerprint of an in-memory table is the SHA-256 of its Arrow IPC stream."""
    if isinstance(data, Table):
        return data
    if isinstance(data, (str, Path)):
        if is_dataset(data):
            return load_location(str(data), policy, what)
        return load_table(data, policy, what)
    if isinstance(data, pd.DataFrame):
        kind = "pandas DataFrame"
        try:
            raw = pa.Table.from_pandas(data.rename(columns=str), preserve_index=False)
        except (pa.ArrowException, ValueError, TypeError) as exc:
            raise DataError(f"<{kind}> ({what}): cannot be read as a table: {first_line(exc)}") from None
    elif isinstance(data, pa.Table):
        kind, raw = "pyarrow Table", data
    else:
        raise DataError(
            f"{what}: expected a file path, a pandas DataFrame or a pyarrow Table, not {type(data).__name__}"
        )
    if raw.num_rows == 0:
        raise DataError(f"<{kind}> ({what}): the table has no rows")
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, raw.schema) as writer:
        writer.write_table(raw)
    stream = sink.getvalue()
    digest = hashlib.sha256(memoryview(stream)).hexdigest()
    return type_table(raw, Table(None, Path(f"<{kind}>"), digest, stream.size, "arrow"), policy)


def load_location(text: str, policy: Policy, what: str = "released table") -> Table:
    """A table from a directory, a glob or an object-store URI (:mod:`privaudit.io.locations`): every
    file read, then typed as one table; its fingerprint hashes every file (a manifest, remotely)."""
    location = resolve(text, what)
    refuse_dataset_encoding(text, location.file_format, policy)
    raw = read_location(location, policy.data.delimiter, what)
    if raw.num_rows == 0:
        raise DataError(f"{text}: the {what} has no data rows")
    kind, digest = fingerprint(location)
    table = Table(None, text, digest, location.size, f"{location.file_format} dataset", fingerprint=kind)
    return type_table(raw, table, policy)


def refuse_dataset_encoding(text: str, file_format: str, policy: Policy) -> None:
    """CSV files of a directory, glob or URI are read as UTF-8: another ``data.encoding`` is one line."""
    if file_format == "csv" and policy.data.encoding != "utf-8":
        raise DataError(
            f"{text}: data.encoding {policy.data.encoding!r} applies to a single CSV file; the files of a "
            "directory, glob or URI are read as UTF-8 (convert them, or audit one file)"
        )


def type_table(raw: pa.Table, table: Table, policy: Policy, required: Sequence[str] | None = None) -> Table:
    """Type the columns of ``raw`` by ``policy`` into ``table.frame`` (see :func:`load_table`)."""
    path = table.path
    check_required_columns(path, raw.column_names, policy, required)
    table.frame = pd.DataFrame(index=pd.RangeIndex(raw.num_rows))
    missing = policy.missing_tokens
    columns: dict[str, object] = {}
    for name in raw.column_names:
        columns[name] = load_column(raw.column(name), name, policy.columns.get(name), missing, table)
    table.frame = pd.DataFrame(columns, copy=False)  # no copy into consolidated blocks
    check_hierarchies(table, policy)
    return table
