"""The ``sqlite`` engine: the class summary computed by SQLite (the standard library's ``sqlite3``).

The CSV file is streamed, block by block, into a table of an on-disk temporary SQLite database (every
policy column as TEXT, in file order: ``rowid`` is the data row's number), so memory holds one block at a
time and SQLite's own pages spill to the temporary folder. SQLite then does the two aggregations an
out-of-memory engine needs, as privaudit's DuckDB engine does them in DuckDB (``privaudit/engines/_sql.py``):

1. per column, ``GROUP BY`` the raw text: its distinct values, their counts and the first row holding each
   (``MIN(rowid)``); privaudit types these few values exactly as it types a loaded CSV's column, so a bad
   value is refused with the in-process message naming its first line, and the non-missing counts follow;
2. ``GROUP BY`` the raw texts of the quasi-identifiers, sensitive and weight columns together: each
   distinct combination once, with the number of rows holding it.

The combinations, typed, are grouped into equivalence classes by privaudit's own summary of a table (the
audit context's, :class:`privaudit.plugin.AuditContext`), which numbers the classes as in-process numbers
them (ascending codes of sorted values: the combinations hold every value the file holds); the class sizes,
the class x value counts of each sensitive column and the weight sums are then the combinations' counts
summed per class. The figures equal in-process's (``tests/test_sqlite_engine.py`` compares the JSON
reports), except weight sums, whose floating-point additions happen in another order.

Options (``--engine-option``): ``block_bytes`` (bytes of CSV text per streamed block; default privaudit's,
16 MiB; the rows of a block go to SQLite 65,536 at a time) and ``temp_directory`` (where the database file
goes; default the system's temporary folder).

What it needs beyond ``privaudit.plugin``: the engine contract itself says an out-of-memory engine reads the
file through :func:`privaudit.io.dataset.open_input` (header, policy columns and parse errors checked as
privaudit checks them; ``Source.table`` the report's file facts), and privaudit exposes no public helper to
type raw text or to assemble a summary from counts, so this module uses :func:`privaudit.io.data.type_table`
and :class:`privaudit.io.data.Table` to type the distinct values, and :class:`privaudit.core.errors.DataError`
for its one-line errors (see the README, "What the engine needed").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from privaudit.plugin import hookimpl
from privaudit.plugin.engine import Engine

NAME = "sqlite"
INSERT_ROWS = 65_536  # rows per executemany: the Python lists of one insert stay small


def _ident(i: int) -> str:
    return f"c{i}"  # the database's own column names: a policy column's name never reaches the SQL text


def summarize(
    path: Any,
    policy: Any,
    *,
    block_bytes: int | None = None,
    temp_directory: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    what: str = "released table",
):
    """Summarise the CSV file ``path`` under ``policy`` in SQLite; returns an
    :class:`~privaudit.plugin.engine.EngineResult` (see the module's docstring)."""
    import sqlite3
    import tempfile
    from pathlib import Path

    from privaudit.core.errors import DataError
    from privaudit.io.dataset import open_input
    from privaudit.plugin.engine import EngineResult

    source = open_input(path, policy, what)
    if source.file_format != "csv" or not Path(str(source.path)).is_file():
        raise DataError(
            f"{source.path}: the sqlite engine reads one CSV file; use --engine in-process or duckdb for this input"
        )
    if temp_directory is not None and not Path(temp_directory).is_dir():
        raise DataError(f"--engine-option temp_directory={temp_directory}: folder not found")
    read = [c for c in source.columns if c in policy.columns]
    with tempfile.TemporaryDirectory(prefix="privaudit-sqlite-", dir=temp_directory) as folder:
        con = sqlite3.connect(Path(folder) / "release.db")
        try:
            # a scratch database: no rollback journal, no fsync; 64 MiB of page cache for the GROUP BY sorts
            con.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;")
            n_rows = _load(con, source, read, block_bytes, progress)
            if n_rows == 0:
                raise DataError(f"{source.path}: the file has a header but no data rows")
            keys = _group_combinations(con, read, policy)
            counts = {col: _non_missing(con, source, read, col, policy, col in keys) for col in read}
            combos, sizes = _combinations(con, source, keys, policy)
        finally:
            con.close()
    summary = _summary(policy, combos, sizes, n_rows)
    return EngineResult(summary, source.table(n_rows), counts)


def _load(con, source, read: list[str], block_bytes: int | None, progress) -> int:
    """Stream the file's ``read`` columns into the table ``release``; the number of data rows."""
    columns = ", ".join(f"{_ident(i)} TEXT" for i in range(len(read)))
    con.execute(f"CREATE TABLE release ({columns or 'c0 TEXT'})")
    insert = f"INSERT INTO release VALUES ({', '.join('?' * max(len(read), 1))})"
    n = 0
    # a CSV's rows are counted while streaming: the total shown is estimated from the sniffed head's line length
    total = max(int(source.num_rows or source.size / max(source.row_bytes, 1.0)), 1)
    for _, block in source.batches(read, block_bytes=block_bytes):
        for start in range(0, block.num_rows, INSERT_ROWS):
            batch = block.slice(start, INSERT_ROWS)
            # via pandas: Arrow's conversion shares one str object per distinct value (to_pylist: one per cell)
            values = [batch.column(i).to_pandas().tolist() for i in range(len(read))] or [[None] * batch.num_rows]
            con.executemany(insert, zip(*values, strict=True))  # the rows go to SQLite in C, one statement
        n += block.num_rows
        if progress is not None:
            progress("loading the file into SQLite", min(n, total - 1), total)  # done only at the end
    if progress is not None:
        progress("loading the file into SQLite", total, total)
    con.commit()
    return n


def _typed(raw: dict[str, list], first_rows: list[int], source, policy):
    """The distinct raw values ``raw`` (a column -> values dict), typed as privaudit types a CSV's columns;
    a refused value is named by ``first_rows`` (the file's row of each value, 0-based), as in-process names it."""
    import pyarrow as pa

    from privaudit.io.data import Table, type_table

    class Rows(Table):
        def row_label(self, index: int) -> str:
            return source.row_label(first_rows[index])

    table = pa.table({name: pa.array(values, type=pa.string()) for name, values in raw.items()})
    return type_table(table, Rows(None, source.path, "", 0, "csv"), policy, required=[]).frame


def _group_combinations(con, read: list[str], policy) -> list[str]:
    """The table ``combos``: each distinct combination of the raw texts of the columns the summary reads
    (quasi-identifiers, sensitive, weight), its rows ``n`` and its first row ``r``; returns those columns."""
    weight = [c for c in policy.columns_with("weight") if c in read][:1]
    keys = [k for k in dict.fromkeys([*policy.quasi_identifiers, *policy.sensitive, *weight]) if k in read]
    cols = ", ".join(_ident(read.index(k)) for k in keys)
    if keys:
        con.execute(
            f"CREATE TEMP TABLE combos AS SELECT {cols}, COUNT(*) AS n, MIN(rowid) AS r FROM release GROUP BY {cols}"
        )
    else:  # nothing to group on: every row is one class
        con.execute("CREATE TEMP TABLE combos AS SELECT COUNT(*) AS n, MIN(rowid) AS r FROM release")
    return keys


def _non_missing(con, source, read: list[str], column: str, policy, grouped: bool) -> int:
    """Records whose ``column`` is not missing, from its distinct values; refuses its bad values (pass 1). A
    column of the combinations is counted from them, another one from the rows."""
    import numpy as np

    c = _ident(read.index(column))
    query = (
        f"SELECT {c}, SUM(n), MIN(r) FROM combos GROUP BY {c} ORDER BY 3"
        if grouped
        else f"SELECT {c}, COUNT(*), MIN(rowid) FROM release GROUP BY {c} ORDER BY 3"
    )
    values, counts, first = zip(*con.execute(query).fetchall(), strict=True)
    frame = _typed({column: list(values)}, [r - 1 for r in first], source, policy)
    present = frame[column].notna().to_numpy()
    return int(np.asarray(counts, dtype=np.int64)[present].sum())


def _combinations(con, source, keys: list[str], policy):
    """The distinct combinations, typed, and how many rows hold each (pass 2), in the order of their first rows."""
    import numpy as np
    import pandas as pd

    rows = con.execute("SELECT * FROM combos ORDER BY r").fetchall()  # the keys' texts, n, r
    values = list(zip(*rows, strict=True))
    if not keys:
        return pd.DataFrame(index=pd.RangeIndex(1)), np.asarray(values[0], dtype=np.int64)
    combos = _typed(dict(zip(keys, map(list, values[:-2]), strict=True)), [r - 1 for r in values[-1]], source, policy)
    return combos, np.asarray(values[-2], dtype=np.int64)


def _summary(policy, combos, sizes, n_rows: int):
    """The class summary of the rows: the combinations' summary, each combination counted ``sizes`` times."""
    from dataclasses import replace

    import numpy as np
    import pandas as pd
    import scipy.sparse as sp

    from privaudit.core.errors import DataError
    from privaudit.plugin import AuditContext

    qi = policy.quasi_identifiers
    if policy.data.missing_qi == "wildcard" and combos[qi].isna().to_numpy().any():
        raise DataError(
            "data.missing_qi: 'wildcard' matching of missing quasi-identifier values needs the whole table in "
            "memory; the sqlite engine cannot apply it: use --engine in-process"
        )
    base = AuditContext(policy, combos).summary  # classes numbered as in-process numbers them
    of = np.asarray(base.class_of, dtype=np.int64)
    k = base.n_classes
    class_sizes = np.zeros(k, dtype=np.int64)
    np.add.at(class_sizes, of, sizes)
    weight_sums = None
    weight = [c for c in policy.columns_with("weight") if c in combos.columns][:1]
    if weight:
        w = np.nan_to_num(combos[weight[0]].to_numpy(dtype=float), nan=1.0)  # a missing weight counts 1
        weight_sums = np.bincount(of, weights=w * sizes, minlength=k)
    sensitive = {}
    for column, counts in base.sensitive.items():
        values = combos[column]
        values = values.astype(object) if isinstance(values.dtype, pd.CategoricalDtype) else values
        position = pd.Index(counts.values).get_indexer(values.to_numpy())
        keep = position >= 0
        m = len(counts.values)
        matrix = sp.csr_matrix((sizes[keep], (of[keep], position[keep])), shape=(k, m), dtype=np.int64)
        matrix.sum_duplicates()
        matrix.sort_indices()
        total = np.zeros(m, dtype=np.int64)
        np.add.at(total, position[keep], sizes[keep])
        sensitive[column] = replace(counts, counts=matrix, total=total, missing=int(n_rows - total.sum()))
    return replace(
        base,
        record_classes=None,
        order=None,
        sizes=class_sizes,
        class_fk=class_sizes,
        weight_sums=weight_sums,
        sensitive=sensitive,
    )


ENGINE = Engine(NAME, "SQLite over the CSV file (stdlib sqlite3; privaudit-extras)", f"{__name__}:summarize")


@hookimpl
def privaudit_engines() -> list[Engine]:
    return [ENGINE]
