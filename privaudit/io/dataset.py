"""Sources for engines beyond one local file: datasets (directory, glob, Hive partitions, object store)
and tables already in an engine's catalog (a DuckDB table or relation, a Spark table or DataFrame).

:func:`open_input` is what every out-of-memory engine calls: one local file opens as before
(:func:`privaudit.io.source.open_source`); a dataset location (:func:`privaudit.io.locations.is_dataset`)
opens as a :class:`DatasetSource`, which streams the files' batches through a ``pyarrow.dataset`` (Hive
partition values become text columns; object stores are read through pyarrow's filesystems), so the
chunked engine and DuckDB (which scans a registered Arrow dataset) never hold it whole. A CSV dataset is
read with every column as text, as one CSV file is; a file that does not parse gets the one-line
message the in-process load gives (:func:`privaudit.io.locations.read_location`, on the error path).

A :class:`CatalogSource` names a table the engine already holds; nothing but the class summary leaves
the engine, and the report says the table was not hashed (there are no file bytes to hash).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pyarrow as pa
import pyarrow.csv  # noqa: F401 (pa.csv)
import pyarrow.dataset as pads

from privaudit.core.errors import DataError, first_line
from privaudit.core.policy import Policy
from privaudit.io.data import Table, check_required_columns, refuse_dataset_encoding
from privaudit.io.locations import Location, check_schemas, fingerprint, is_dataset, read_location, resolve
from privaudit.io.source import Source, open_source


class Label(str):
    """A location's text where a file's path is expected: it prints as written and has a ``name``."""

    @property
    def name(self) -> str:
        return PurePosixPath(self.rstrip("/")).name or str(self)


@dataclass
class DatasetSource(Source):
    """A dataset location opened for streaming (see the module's docstring)."""

    location: Location | None = None
    dataset: pads.Dataset | None = None

    def row_label(self, index: int) -> str:
        return f"row {index + 1}"

    def table(self, n_rows: int) -> Table:
        kind, digest = fingerprint(self.location)
        return Table(
            None,
            self.location.text,
            digest,
            self.size,
            f"{self.file_format} dataset",
            n_rows=int(n_rows),
            column_names=list(self.columns),
            fingerprint=kind,
        )

    def batches(
        self, columns: Sequence[str], batch_rows: int = 1 << 20, block_bytes: int | None = None
    ) -> Iterator[tuple[int, pa.RecordBatch]]:
        offset = 0
        try:
            for batch in self.dataset.to_batches(
                columns=list(columns) or self.columns[:1], batch_size=batch_rows, use_threads=False
            ):
                if batch.num_rows:
                    yield offset, batch
                    offset += batch.num_rows
        except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as exc:
            self.raise_parse_error(str(exc))

    def raise_parse_error(self, text: str) -> None:
        """The message of the in-process load for the first file that does not read."""
        read_location(self.location, self.delimiter, "released table")  # raises its one-line DataError
        first = first_line(text, "read error")
        raise DataError(f"{self.location.text}: cannot be read: {first}")


def open_dataset(text: str, policy: Policy, what: str = "released table") -> DatasetSource:
    """A dataset location opened for streaming; the checks :func:`open_source` makes for one file."""
    location = resolve(text, what)
    paths = [f.path for f in location.files]
    delimiter = None
    if location.file_format == "csv":
        from privaudit.io.data import sniff_delimiter

        with location.filesystem.open_input_stream(paths[0]) as stream:
            head = stream.read(1 << 16).decode("utf-8-sig", errors="ignore")
        delimiter = policy.data.delimiter or sniff_delimiter(head, Path(paths[0]))
        header = read_location(_first_file(location), delimiter, what).column_names  # the first file's columns
        names = [c for c in header if c not in (location.partitions(location.files[0]) or {})]
        file_format = pads.CsvFileFormat(
            parse_options=pa.csv.ParseOptions(delimiter=delimiter, newlines_in_values=False),
            read_options=pa.csv.ReadOptions(column_names=names, skip_rows=1, block_size=1 << 24),
            convert_options=pa.csv.ConvertOptions(
                column_types={n: pa.string() for n in names}, strings_can_be_null=False
            ),
        )
    else:
        file_format = "parquet"
    merged = check_schemas(location, delimiter, what)  # every file's columns, as the in-process load checks them
    keys = list(location.partitions(location.files[0]))
    partitioning = (
        pads.partitioning(pa.schema([pa.field(k, pa.string()) for k in keys]), flavor="hive") if keys else None
    )  # partition values as text, as the in-process load reads them
    if merged is not None:  # the types the in-process load's concatenation promotes to
        merged = pa.schema([*merged, *(pa.field(k, pa.string()) for k in keys if k not in merged.names)])
    try:
        dataset = pads.dataset(
            paths,
            filesystem=location.filesystem,
            format=file_format,
            schema=merged,
            partitioning=partitioning,
            partition_base_dir=location.root if keys else None,
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as exc:
        read_location(location, delimiter, what)  # the in-process message, when a file does not read
        raise DataError(f"{text}: partitions with different schemas ({first_line(exc)})") from None
    columns = list(dataset.schema.names)
    check_required_columns(text, columns, policy)
    source = DatasetSource(
        Label(text),
        location.file_format,
        columns,
        location.size,
        delimiter=delimiter,
        num_rows=None,
        location=location,
        dataset=dataset,
    )
    source.missing = policy.missing_tokens
    return source


def _first_file(location: Location) -> Location:
    return Location(
        location.text, location.filesystem, location.root, location.files[:1], location.file_format, location.remote
    )


def open_input(path, policy: Policy, what: str = "released table") -> Source:
    """The source an out-of-memory engine reads: one local file, or a dataset location."""
    if isinstance(path, (str, Path)) and is_dataset(path):
        source = open_dataset(str(path), policy, what)
        refuse_dataset_encoding(str(path), source.file_format, policy)
        return source
    if not isinstance(path, (str, Path)):
        raise DataError(
            f"{what}: this engine reads files, directories, globs or URIs, not a {type(path).__name__} "
            "(use --engine in-process, or the engine's own session: see docs/locations.md)"
        )
    return open_source(path, policy, what)


class CatalogSource(Source):
    """A table or relation an engine already holds (see the module's docstring): its columns and Arrow
    types come from the engine; ``batches`` is given by the engine (error paths only)."""

    def __init__(self, label: str, columns: list[str], types: dict[str, pa.DataType], batches, kind: str):
        super().__init__(Label(label), "parquet", list(columns), 0)  # typed columns, as a Parquet file's
        self.types = types
        self._batches = batches
        self.kind = kind

    def row_label(self, index: int) -> str:
        return f"row {index + 1}"

    def table(self, n_rows: int) -> Table:
        return Table(
            None,
            str(self.path),
            "",
            0,
            self.kind,
            n_rows=int(n_rows),
            column_names=list(self.columns),
            fingerprint="not hashed (a table in the engine's catalog)",
        )

    def batches(
        self, columns: Sequence[str], batch_rows: int = 1 << 20, block_bytes: int | None = None
    ) -> Iterator[tuple[int, pa.RecordBatch]]:
        offset = 0
        for batch in self._batches(list(columns) or self.columns[:1], batch_rows):
            yield offset, batch
            offset += batch.num_rows


def catalog_source(label: str, schema: pa.Schema, batches, kind: str, policy: Policy) -> CatalogSource:
    """A :class:`CatalogSource` checked against the policy as a file's header would be."""
    names = list(schema.names)
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise DataError(f"{label}: duplicate column name {dupes[0]!r}")
    check_required_columns(label, names, policy)
    source = CatalogSource(label, names, {f.name: f.type for f in schema}, batches, kind)
    source.missing = policy.missing_tokens
    return source
