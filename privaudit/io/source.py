"""A released table's file, opened for engines that never hold it whole: facts, header, batches.

:func:`open_source` makes the checks :func:`privaudit.io.data.load_table` makes before reading rows (file
present, not empty, header well formed, no duplicate names, the policy's columns present) with the
same one-line messages. :meth:`Source.batches` then streams the columns an engine needs: Parquet row
groups through ``pyarrow.parquet.ParquetFile.iter_batches``, CSV blocks through pyarrow's streaming
CSV reader with the options ``data.py`` uses (every column as text, empty strings kept, no newlines in
values). Parse errors become the same one-line messages (ragged row, not UTF-8, truncated quote).

Error paths that must name the first offending row (:meth:`Source.first_row`) scan the file again
in batches; they only run when something is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from privaudit.core.errors import DataError, first_line
from privaudit.core.policy import Policy
from privaudit.io.coding import dictionary
from privaudit.io.data import (
    MAX_BLOCK_BYTES,
    SNIFF_BYTES,
    Table,
    block_for_long_rows,
    check_file,
    check_parquet_schema,
    check_required_columns,
    check_tail,
    header_names,
    locate_bad_line,
    read_head,
    read_parquet,
    sha256_of,
)

CSV_BLOCK_BYTES = 1 << 24  # at least 16 MiB of CSV text per streamed block, as data.py reads (a row must fit)


@dataclass
class Source:
    """A CSV or Parquet file whose header has been read and checked against the policy."""

    path: Path
    file_format: str  # "csv" or "parquet"
    columns: list[str]
    size: int
    delimiter: str | None = None  # CSV only
    num_rows: int | None = None  # known up front for Parquet; counted while streaming a CSV
    missing: list[str] = field(default_factory=list)
    row_bytes: float = 64.0  # CSV: average bytes per line in the sniffed head
    encoding: str = "utf-8"  # CSV: the policy's data.encoding

    def row_label(self, index: int) -> str:
        """How data row ``index`` (0-based) is named in errors: a CSV line or a Parquet row."""
        return f"line {index + 2}" if self.file_format == "csv" else f"row {index + 1}"

    def table(self, n_rows: int) -> Table:
        """The report's facts about the file (the SHA-256 is one more sequential read)."""
        return Table(
            None,
            self.path,
            sha256_of(self.path),
            self.size,
            self.file_format,
            n_rows=int(n_rows),
            column_names=list(self.columns),
        )

    # ------------------------------------------------------------------ streaming
    def batches(
        self, columns: Sequence[str], batch_rows: int = 1 << 20, block_bytes: int | None = None
    ) -> Iterator[tuple[int, pa.RecordBatch]]:
        """``(offset of the batch's first row, batch of ``columns``)`` in file order. Parquet batches hold
        ``batch_rows`` rows; CSV blocks about as many (``block_bytes`` of text, at least 16 MiB unless
        given: a row must fit in a block)."""
        columns = list(columns)
        offset = 0
        if self.file_format == "parquet":
            import pyarrow.parquet as pq

            try:
                handle = pq.ParquetFile(self.path)
                for batch in handle.iter_batches(batch_size=batch_rows, columns=columns or None):
                    yield offset, batch
                    offset += batch.num_rows
            except (pa.ArrowInvalid, OSError) as exc:
                raise DataError(f"{self.path}: cannot be read as Parquet: {first_line(exc)}") from None
            return
        if block_bytes is None:  # at most 1 GiB (Arrow's block size is an int32)
            block_bytes = min(max(CSV_BLOCK_BYTES, int(batch_rows * self.row_bytes)), MAX_BLOCK_BYTES)
        while True:
            read = 0  # rows of this reading (a second one, with a larger block, skips those yielded)
            try:
                reader = pacsv.open_csv(
                    self.path,
                    read_options=pacsv.ReadOptions(
                        column_names=self.columns, skip_rows=1, block_size=int(block_bytes), encoding=self.encoding
                    ),
                    parse_options=pacsv.ParseOptions(delimiter=self.delimiter, newlines_in_values=False),
                    convert_options=pacsv.ConvertOptions(
                        column_types={n: pa.string() for n in self.columns},
                        strings_can_be_null=False,
                        include_columns=columns or self.columns[:1],
                    ),
                )
                for batch in reader:
                    start, read = read, read + batch.num_rows
                    if read > offset:
                        batch = batch.slice(max(offset - start, 0))
                        yield offset, batch
                        offset += batch.num_rows
                break
            except pa.ArrowInvalid as exc:
                bigger = block_for_long_rows(self.path, int(block_bytes)) if "straddl" in str(exc) else 0
                if bigger <= block_bytes:
                    self.raise_parse_error(str(exc))
                block_bytes = bigger  # a row longer than the block (data.py reads it the same way)
        check_tail(self.path)

    def raise_parse_error(self, text: str) -> None:
        """The one-line message ``data.py`` gives for a CSV it cannot parse (ragged row, bad UTF-8 ...)."""
        bad = locate_bad_line(self.path, self.delimiter or ",", len(self.columns), self.encoding)
        if bad:
            raise DataError(f"{self.path}: line {bad[0]}: {bad[1]}")
        check_tail(self.path)
        first = first_line(text, "parse error")
        raise DataError(f"{self.path}: cannot be parsed as CSV: {first}")

    def first_row(self, column: str, is_bad: Callable[[np.ndarray], np.ndarray]) -> tuple[int, str] | None:
        """Error path: the first row whose (trimmed, non-missing) value in ``column`` satisfies
        ``is_bad`` (a mask over an array of distinct texts), and that value."""
        for offset, batch in self.batches([column]):
            codes, values = dictionary(batch.column(0), self.missing)
            if len(values) == 0:
                continue
            hit = np.asarray(is_bad(values), dtype=bool)
            if not hit.any():
                continue
            rows = np.flatnonzero(hit[np.maximum(codes, 0)] & (codes >= 0))
            if len(rows):
                row = int(rows[0])
                return offset + row, values[codes[row]]
        return None


def open_source(
    path: str | Path, policy: Policy, what: str = "released table", required: Sequence[str] | None = None
) -> Source:
    """Check ``path`` as :func:`privaudit.io.data.load_table` would before typing its values. The file's
    registered reader (:mod:`privaudit.io.readers`) says how it streams (its ``stream``: CSV blocks or
    Parquet row groups); a format read whole is refused in one line."""
    from privaudit.io.readers import reader_for

    path = Path(path)
    size = check_file(path, what)
    reader = reader_for(path)
    if reader.stream is None:
        raise DataError(
            f"{path}: {reader.name} files are read whole, in memory, by their reader: use --engine in-process "
            "(the out-of-memory engines stream CSV and Parquet)"
        )
    if reader.stream == "parquet":
        source = _open_parquet(path, size)
    else:
        source = _open_csv(path, size, policy.data.delimiter, policy.data.encoding)
    source.missing = policy.missing_tokens
    if source.num_rows == 0:
        raise DataError(f"{path}: the file has a header but no data rows")
    check_required_columns(path, source.columns, policy, required)
    return source


def _open_parquet(path: Path, size: int) -> Source:
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
        names = list(handle.schema_arrow.names)
        rows = handle.metadata.num_rows
    except (pa.ArrowInvalid, OSError) as exc:
        read_parquet(path)  # fails too, at the footer, with the message data.py gives
        raise DataError(f"{path}: cannot be read as Parquet: {first_line(exc)}") from None
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise DataError(f"{path}: duplicate column name {dupes[0]!r}")
    check_parquet_schema(path, handle.schema_arrow)
    return Source(path, "parquet", names, size, num_rows=rows)


def _open_csv(path: Path, size: int, delimiter: str | None, encoding: str = "utf-8") -> Source:
    head_bytes, head, delimiter = read_head(path, delimiter, encoding)  # its checks: encoding, line endings, header
    lines = head.splitlines()
    names = header_names(path, lines[0], delimiter)
    # A header and nothing else: known without reading on when the whole file fits in the sniffed head.
    rows = 0 if size <= SNIFF_BYTES and not any(ln.strip() for ln in lines[1:]) else None
    row_bytes = len(head_bytes) / max(len(lines), 1)
    return Source(path, "csv", names, size, delimiter=delimiter, num_rows=rows, row_bytes=row_bytes, encoding=encoding)


class RowShim:
    """Stands in for a :class:`~privaudit.io.data.Table` when ``coding.typed`` is asked to phrase an error
    about one value: its messages name ``path`` and the row at ``offset`` (plus the index it is given)."""

    def __init__(self, source: Source, offset: int):
        self.path = source.path
        self._source = source
        self._offset = offset
        self.labels: dict = {}  # a streamed CSV or Parquet file states no value labels

    def row_label(self, index: int) -> str:
        return self._source.row_label(self._offset + index)
