"""Where a table lives: one file, a directory, a glob, a Hive-partitioned dataset, or an object store.

:func:`is_dataset` tells a location that is more than one local file: a directory (CSV or Parquet files
below it, Hive ``key=value`` folders read as columns), a glob (``releases/2026-*.parquet``, ``**``
allowed), or a URI with a scheme (``s3://bucket/prefix/``, ``gs://``, ``abfs://``, ``hdfs://``).
:func:`resolve` lists its files through a pyarrow filesystem (object stores take their endpoint and
credentials from the standard environment: ``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``; ``GOOGLE_APPLICATION_CREDENTIALS``; ``AZURE_STORAGE_ACCOUNT_NAME``
and ``AZURE_STORAGE_ACCOUNT_KEY``) and :func:`read_location` reads them into one Arrow table.

Files whose name starts with ``.`` or ``_`` (``_SUCCESS``, ``.crc``) are skipped, as Spark and Hive
write them. A local single file is not a dataset: :func:`privaudit.io.data.load_table` reads it.

The fingerprint a report prints (:func:`fingerprint`): for local files, whose bytes are read anyway, a
SHA-256 over every file's own SHA-256 (``sha256 of files``: relative path, size and content hash per
file, in path order); for remote ones a manifest hash over paths, sizes and modification times
(``manifest sha256``), since hashing every byte of a lake would mean reading it twice.
"""

from __future__ import annotations

import fnmatch
import glob as globlib
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pyarrow as pa
import pyarrow.fs as pafs

from privaudit.common.formats import PARQUET_SUFFIXES
from privaudit.core.errors import DataError, first_line

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_GLOB = re.compile(r"[*?\[]")
CSV_SUFFIXES = (".csv", ".tsv", ".txt")


@dataclass
class Location:
    """The files of a dataset location, resolved."""

    text: str  # as the user wrote it: errors and reports name it
    filesystem: pafs.FileSystem
    root: str  # the folder the files are below (Hive partitions are read from the path below it)
    files: list[pafs.FileInfo]
    file_format: str  # "csv" or "parquet"
    remote: bool

    @property
    def size(self) -> int:
        return int(sum(f.size or 0 for f in self.files))

    def relative(self, info: pafs.FileInfo) -> str:
        path = info.path
        return path[len(self.root) :].lstrip("/") if self.root and path.startswith(self.root) else path

    def partitions(self, info: pafs.FileInfo) -> dict[str, str]:
        """Hive partition values of a file: ``year=2026/region=north/part-0.csv`` -> {year, region}."""
        parts = {}
        for segment in PurePosixPath(self.relative(info)).parts[:-1]:
            key, sep, value = segment.partition("=")
            if sep and key:
                parts[key] = value
        return parts


def is_dataset(text: str | Path) -> bool:
    """Whether ``text`` names more than one local file's worth of table: a URI, a glob or a directory."""
    text = str(text)
    return bool(_SCHEME.match(text)) or bool(_GLOB.search(text)) or Path(text).is_dir()


def _filesystem(text: str, what: str) -> tuple[pafs.FileSystem, str, bool]:
    scheme = _SCHEME.match(text)
    if not scheme:
        return pafs.LocalFileSystem(), str(Path(text).absolute()), False
    if scheme.group(1).lower() == "file":
        return pafs.LocalFileSystem(), text[len("file://") :], False
    try:
        fs, path = pafs.FileSystem.from_uri(text)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as exc:
        raise DataError(f"{text}: {what}: this location cannot be opened ({_first_line(exc)})") from None
    except OSError as exc:
        raise DataError(f"{text}: {what}: the object store cannot be reached ({_first_line(exc)})") from None
    return fs, path, True


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return first_line(text, type(exc).__name__)


def _is_data_file(info: pafs.FileInfo) -> bool:
    name = PurePosixPath(info.path).name
    return info.type == pafs.FileType.File and not name.startswith((".", "_"))


def resolve(text: str | Path, what: str = "released table") -> Location:
    """The files of a directory, glob or URI (:func:`is_dataset`), each a CSV or a Parquet file."""
    text = str(text)
    fs, path, remote = _filesystem(text, what)
    pattern = _GLOB.search(path)
    try:
        if pattern:
            root = path[: pattern.start()].rsplit("/", 1)[0] if "/" in path[: pattern.start()] else ""
            if remote:
                candidates = fs.get_file_info(pafs.FileSelector(root, recursive=True))
                infos = [i for i in candidates if fnmatch.fnmatchcase(i.path, path)]
            else:
                names = sorted(globlib.glob(path, recursive=True))
                infos = fs.get_file_info(names) if names else []
        else:
            info = fs.get_file_info(path)
            if info.type == pafs.FileType.NotFound:
                raise DataError(f"{text}: {what} not found")
            if info.type == pafs.FileType.File:
                root, infos = path.rsplit("/", 1)[0] if "/" in path else "", [info]
            else:
                root = path.rstrip("/")
                infos = fs.get_file_info(pafs.FileSelector(root, recursive=True))
    except DataError:
        raise
    except PermissionError as exc:
        raise DataError(f"{text}: {what} cannot be read (permission denied: {_first_line(exc)})") from None
    except OSError as exc:
        raise DataError(f"{text}: {what} cannot be listed ({_first_line(exc)})") from None
    files = sorted((i for i in infos if _is_data_file(i)), key=lambda i: i.path)
    if not files:
        raise DataError(f"{text}: no CSV or Parquet file {'matches' if pattern else 'is in'} this {what} location")
    kinds = {_kind(i.path) for i in files}
    if None in kinds:
        odd = next(i.path for i in files if _kind(i.path) is None)
        raise DataError(f"{text}: {odd}: not a CSV (.csv, .tsv, .txt) or Parquet (.parquet, .pq) file")
    if len(kinds) > 1:
        raise DataError(f"{text}: the location mixes CSV and Parquet files")
    return Location(text, fs, root, files, kinds.pop(), remote)


def _kind(path: str) -> str | None:
    lower = path.lower()
    if lower.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if lower.endswith(CSV_SUFFIXES):
        return "csv"
    return None


def fingerprint(location: Location) -> tuple[str, str]:
    """(kind, hex digest) of a dataset: see the module's docstring."""
    digest = hashlib.sha256()
    if location.remote:
        for info in location.files:
            mtime = info.mtime.isoformat() if info.mtime is not None else ""
            digest.update(f"{info.path}\t{info.size}\t{mtime}\n".encode())
        return "manifest sha256", digest.hexdigest()
    for info in location.files:
        content = hashlib.sha256()
        with location.filesystem.open_input_stream(info.path) as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                content.update(block)
        digest.update(f"{location.relative(info)}\t{info.size}\t{content.hexdigest()}\n".encode())
    return "sha256 of files", digest.hexdigest()


def read_location(location: Location, delimiter: str | None, what: str = "released table") -> pa.Table:
    """Every file of ``location`` as one Arrow table: Parquet files with their own types, CSV files with
    every column as text (as :func:`privaudit.io.data.read_csv` reads one file, with its one-line
    errors naming the file and line); Hive partition values as text columns. Files whose columns differ
    are refused, naming the first that differs."""
    tables, first_columns = [], None
    for info in location.files:
        name = _file_name(location, info)
        table = _read_one(location, info, name, delimiter)
        for key, value in location.partitions(info).items():
            if key not in table.column_names:
                table = table.append_column(key, pa.array([value] * table.num_rows, pa.string()))
        if first_columns is None:
            first_columns = table.column_names
        elif table.column_names != first_columns:
            raise DataError(
                f"{name}: partitions with different schemas: this file has columns "
                f"{table.column_names[:8]}, the first file {first_columns[:8]}"
            )
        tables.append(table)
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise DataError(f"{location.text}: partitions with different schemas ({_first_line(exc)})") from None


def _file_name(location: Location, info: pafs.FileInfo) -> str:
    return f"{location.text.rstrip('/')}/{location.relative(info)}" if location.remote else info.path


def check_schemas(location: Location, delimiter: str | None, what: str = "released table") -> pa.Schema | None:
    """Without reading rows, refuse as :func:`read_location` does a location whose files' columns differ
    (names and order, Hive partition columns appended) or whose Parquet types do not merge; return the
    merged Parquet schema (None for CSV). On any difference :func:`read_location` runs over the files up to
    the first that differs, so the out-of-memory engines give the in-process line (it names the first
    file that does not read, or the first that differs)."""
    import pyarrow.parquet as pq

    first, schemas = None, []
    for index, info in enumerate(location.files):
        try:
            if location.file_format == "parquet":
                schema = pq.read_schema(info.path, filesystem=location.filesystem)
                names = list(schema.names)
            else:
                schema, names = None, _csv_header(location, info, delimiter)
        except (DataError, pa.ArrowInvalid, OSError):
            return _differs(location, index, delimiter, what)
        names += [key for key in location.partitions(info) if key not in names]
        if first is None:
            first = names
        elif names != first:
            return _differs(location, index, delimiter, what)
        if schema is not None:
            schemas.append(schema)
    if not schemas:
        return None
    try:
        return pa.unify_schemas(schemas, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise DataError(f"{location.text}: partitions with different schemas ({_first_line(exc)})") from None


def _csv_header(location: Location, info: pafs.FileInfo, delimiter: str | None) -> list[str]:
    """A CSV file's column names, from its first line (the checks and names of :func:`_read_one`)."""
    from privaudit.io.data import header_names, read_head

    if not location.remote:
        _, head, delimiter = read_head(Path(info.path), delimiter)
        return header_names(Path(info.path), head.splitlines()[0], delimiter)
    with location.filesystem.open_input_stream(info.path) as stream:
        head = stream.read(HEAD_BYTES)
    return _remote_header(head, len(head) < HEAD_BYTES, _file_name(location, info), delimiter)[1]


def _differs(location: Location, index: int, delimiter: str | None, what: str):
    """The in-process line for the files up to ``index`` (the first that does not read or differs)."""
    upto = Location(
        location.text,
        location.filesystem,
        location.root,
        location.files[: index + 1],
        location.file_format,
        location.remote,
    )
    read_location(upto, delimiter, what)  # raises its one-line DataError
    raise DataError(f"{_file_name(location, location.files[index])}: partitions with different schemas")


def _read_one(location: Location, info: pafs.FileInfo, name: str, delimiter: str | None) -> pa.Table:
    from privaudit.io.data import read_csv, read_parquet

    if not location.remote:
        if location.file_format == "parquet":
            return read_parquet(Path(info.path))
        return read_csv(Path(info.path), delimiter)[0]
    try:
        if location.file_format == "parquet":
            import pyarrow.parquet as pq

            return pq.read_table(info.path, filesystem=location.filesystem)
        with location.filesystem.open_input_stream(info.path) as stream:
            data = stream.read()
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"{name}: cannot be read ({_first_line(exc)})") from None
    return _csv_from_bytes(data, name, delimiter)


HEAD_BYTES = 1 << 16  # a remote CSV's head: its header line, and the lines its delimiter is sniffed from


def _remote_header(head: bytes, whole: bool, name: str, delimiter: str | None) -> tuple[str, list[str]]:
    """(delimiter, column names) of a remote CSV from its first bytes ``head`` (``whole``: the entire file);
    a character cut at the head's end is not an encoding error."""
    from privaudit.io.data import header_names, sniff_delimiter

    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.end < len(head) or whole:
            raise DataError(f"{name}: not valid UTF-8 (byte {exc.start})") from None
        text = head[: exc.start].decode("utf-8-sig")
    if not text.strip():
        raise DataError(f"{name}: the file is empty")
    delimiter = delimiter or sniff_delimiter(text, Path(name))
    return delimiter, header_names(Path(name), text.splitlines()[0], delimiter)


def _csv_from_bytes(data: bytes, name: str, delimiter: str | None) -> pa.Table:
    """A remote CSV file read as the local reader reads one (header trimmed, every column as text)."""
    import pyarrow.csv as pacsv

    head = data[:HEAD_BYTES]
    delimiter, names = _remote_header(head, len(head) == len(data), name, delimiter)
    try:
        return pacsv.read_csv(
            pa.BufferReader(data),
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=False),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names}, strings_can_be_null=False
            ),
        )
    except pa.ArrowInvalid as exc:
        raise DataError(f"{name}: cannot be parsed as CSV: {_first_line(exc)}") from None
