"""The ``jsonl`` reader: JSON Lines files (https://jsonlines.org/: one JSON object per line, UTF-8).

Recognised by suffix (``.jsonl``, ``.ndjson``) or, whatever the suffix, by content: the first byte that is
not white space (after a UTF-8 byte-order mark) is ``{``. Each object is a record and its keys the columns
(the union of every line's keys, in order of first appearance; a key a line lacks is missing there). Values
come back as text, as privaudit reads a CSV file's cells, and privaudit types them by the policy: numbers as
JSON writes them (``30``, ``2.5``, ``1e+20``), ``true``/``false``, strings as they are, ``null`` missing.

pyarrow's JSON reader (``pyarrow.json.read_json``) parses the file in C; a file it refuses is scanned again,
line by line, only to name the first line that is not a JSON object (one line, exit 2:
``FILE: line N: not valid JSON (…)``), or, when every line is an object whose key changes type from line to
line (pyarrow wants one type per key), read by the standard library's ``json`` instead. An object or array
as a value is refused naming its column: privaudit audits flat records. JSON Lines has no streaming path in
privaudit's out-of-memory engines, so it is read whole, by the in-process engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from privaudit.plugin import Reader, hookimpl

BOM = b"\xef\xbb\xbf"


def sniff(head: bytes) -> bool:
    """Whether ``head`` (the file's first bytes) starts, after white space, with a JSON object."""
    return head.removeprefix(BOM).lstrip()[:1] == b"{"


def read_jsonl(path: Path, policy: Any = None):
    """The file's records as a pyarrow Table of text columns (see the module's docstring)."""
    import pyarrow as pa
    import pyarrow.json as pj

    from privaudit.core.errors import DataError

    try:
        table = pj.read_json(path)
    except pa.ArrowInvalid:
        return _read_by_lines(Path(path))
    for name, column in zip(table.column_names, table.columns, strict=True):
        kind = column.type
        if pa.types.is_nested(kind):
            raise DataError(f"{path}: column {name!r} holds JSON objects or arrays; privaudit reads flat records")
    return pa.table(
        {name: column.cast(pa.string()) for name, column in zip(table.column_names, table.columns, strict=True)}
    )


def _text(value: Any, path: Path, column: str) -> str | None:
    from privaudit.core.errors import DataError

    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
    raise DataError(f"{path}: column {column!r} holds JSON objects or arrays; privaudit reads flat records")


def _read_by_lines(path: Path):
    """The records read with the standard library's ``json``, naming the first line that is not an object."""
    import json

    import pyarrow as pa

    from privaudit.core.errors import DataError

    records: list[dict[str, Any]] = []
    with path.open(encoding="utf-8-sig", errors="strict") as handle:  # a byte-order mark is skipped
        try:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{path}: line {number}: not valid JSON ({exc.msg}, column {exc.colno})") from None
                if not isinstance(record, dict):
                    raise DataError(f"{path}: line {number}: not a JSON object (JSON Lines holds one record per line)")
                records.append(record)
        except UnicodeDecodeError as exc:
            raise DataError(f"{path}: not UTF-8 text (byte {exc.start} of a line); JSON Lines is UTF-8") from None
    columns = list(dict.fromkeys(key for record in records for key in record))
    return pa.table({c: pa.array([_text(r.get(c), path, c) for r in records], type=pa.string()) for c in columns})


READER = Reader(
    "jsonl",
    (".jsonl", ".ndjson"),
    f"{__name__}:read_jsonl",
    sniff=f"{__name__}:sniff",
    description="JSON Lines, one object per line (privaudit-extras)",
)


@hookimpl
def privaudit_readers() -> list[Reader]:
    return [READER]
