"""The pairing of a release with ``--original`` in DuckDB, for record linkage past memory: both tables read
from their files, coded as the policy types them (through the duckdb engine's dictionaries,
:mod:`privaudit.engines._sql`), the original aligned to the release by row or by ``record_id`` with the
refusals of :func:`privaudit.pipeline.audit.align_original`, and the intruder's records drawn. The linkage
itself (:mod:`privaudit.risk.linkage.fellegi_sunter.sql`, :mod:`privaudit.risk.linkage.distance_sql`)
runs on the tables made here; DuckDB spills beyond the engine's ``memory_limit`` into ``temp_directory``."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from privaudit.core.errors import DataError

#: Engine options the DuckDB connection of the linkage takes (those of the duckdb engine).
DUCKDB_OPTIONS = ("memory_limit", "temp_directory", "threads")
RELEASE, ORIGINAL, SAMPLE, LEFT = (
    "privaudit_fs_release",
    "privaudit_fs_original",
    "privaudit_fs_sample",
    "privaudit_fs_left",
)
RECORD_ID = "privaudit_id"


def aligned_original(con, policy) -> str:
    """The original's table to compute statistics over: its rows the release has, as ``align_original``
    keeps them, when the policy declares a ``record_id`` (a view), else the whole coded original."""
    if not policy.columns_with("record_id"):
        return ORIGINAL
    view = f"{ORIGINAL}_aligned"
    con.execute(
        f"CREATE TEMP VIEW {view} AS SELECT o.* FROM {ORIGINAL} AS o SEMI JOIN {RELEASE} AS r "
        f"ON o.{RECORD_ID} = r.{RECORD_ID}"
    )
    return view


@contextmanager
def linkage_connection(files, what: str):
    """A DuckDB connection with the engine's ``memory_limit``/``threads``, spilling into a fresh directory
    under its ``temp_directory``; the release must be a file."""
    import tempfile

    import duckdb

    options = {k: v for k, v in files.options.items() if k in DUCKDB_OPTIONS and v is not None}
    if not isinstance(files.released, (str, Path)):
        raise DataError(
            f"{what} under --engine {files.engine} reads the release from a "
            "file: pass its path (or use --engine in-process)"
        )
    with tempfile.TemporaryDirectory(prefix="privaudit-linkage-", dir=options.get("temp_directory")) as spill:
        config = {"temp_directory": spill, "preserve_insertion_order": True}
        if options.get("memory_limit"):
            config["memory_limit"] = str(options["memory_limit"])
        if options.get("threads"):
            config["threads"] = int(options["threads"])
        con = duckdb.connect(":memory:", config=config)
        try:
            yield con
        finally:
            con.close()


def coded_pair(con, policy, files, columns: list[str], intruder_rows: float | int, seed: int) -> int:
    """Create the coded release (``privaudit_rid`` = row, the intruder's columns) and the intruder's
    records (``privaudit_lid``, ``privaudit_own``: their released row; ``intruder_rows`` of them, a fraction
    or a number, drawn with ``seed``); returns their number. ``files`` (``ctx.files``) gets the original's
    facts for the report."""
    from privaudit.engines._domain import as_numbers, column_kind, needs_check
    from privaudit.engines._sql import distinct_values, refuse_bad_values, value_mapping
    from privaudit.engines.duckdb_engine import DuckDBDialect
    from privaudit.io.coding import dictionary
    from privaudit.io.dataset import DatasetSource, open_input
    from privaudit.risk.linkage.intruder import intruder_sample

    ids = policy.columns_with("record_id")[:1]
    read = list(columns) + ids
    sources, dialects, distinct, rows = {}, {}, {}, {}
    for name, path, what in ((RELEASE, files.released, "released table"), (ORIGINAL, files.original, "original table")):
        source = open_input(path, policy, what)
        relation = None
        if isinstance(source, DatasetSource):
            relation = f"{name}_dataset"
            con.register(relation, source.dataset)
        sql = DuckDBDialect(con, source, relation)
        distinct[name], rows[name], _ = distinct_values(sql, read, [], {}, policy.missing_tokens)
        sources[name], dialects[name] = source, sql
    release, original = sources[RELEASE], sources[ORIGINAL]
    files.original_table = original.table(rows[ORIGINAL])
    texts = {}
    for col in read:
        spec = policy.columns[col]
        both = []
        for name in (RELEASE, ORIGINAL):
            raw, n = distinct[name][col]
            codes, values = dictionary(raw, policy.missing_tokens)
            if needs_check(spec):
                refuse_bad_values(sources[name], col, spec, values)
            both.append((raw, codes, values))
        if column_kind(spec) == "numeric":
            targets = [as_numbers(values, spec) for _, _, values in both]
            kind = pa.float64()
        else:  # equal texts, equal codes, on both sides
            gid, _ = pd.factorize(pd.Series(np.concatenate([both[0][2], both[1][2]]), dtype=object))
            targets = [gid[: len(both[0][2])], gid[len(both[0][2]) :]]
            kind = pa.int64()
        texts[col] = [v for _, _, v in both], targets
        for i, name in enumerate((RELEASE, ORIGINAL)):
            con.register(f"{name}_map_{read.index(col)}", value_mapping(both[i], targets[i], kind))
    q = DuckDBDialect.ident
    for name in (RELEASE, ORIGINAL):
        inner = ", ".join(f"{q(c)} AS c{i}" for i, c in enumerate(read))
        outer = [f"m{i}.target AS {q(RECORD_ID if c in ids else c)}" for i, c in enumerate(read)]
        joins = " ".join(f"LEFT JOIN {name}_map_{i} AS m{i} ON t.c{i} = m{i}.raw" for i in range(len(read)))
        con.execute(
            f"CREATE TEMP TABLE {name} AS SELECT t.privaudit_rid, {', '.join(outer)} FROM "
            f"(SELECT row_number() OVER () - 1 AS privaudit_rid, {inner} FROM {dialects[name].relation}) AS t "
            f"{joins}"
        )
    n = rows[RELEASE]
    idx = intruder_sample(n, intruder_rows, seed)
    con.register(SAMPLE, pa.table({"lid": np.arange(len(idx), dtype=np.int64), "own": idx.astype(np.int64)}))
    cols = ", ".join(f"o.{q(c)}" for c in columns)
    if ids:
        check_record_ids(con, release, original, ids[0], texts[ids[0]])
        con.execute(
            f"CREATE TEMP TABLE {LEFT} AS SELECT s.lid AS privaudit_lid, s.own AS privaudit_own, {cols} "
            f"FROM {SAMPLE} AS s JOIN {RELEASE} AS r ON r.privaudit_rid = s.own "
            f"JOIN {ORIGINAL} AS o ON o.{RECORD_ID} = r.{RECORD_ID}"
        )
    else:
        if rows[ORIGINAL] != n:
            raise DataError(
                f"{original.path}: has {rows[ORIGINAL]} rows but the release has {n}; same rows in the "
                "same order are needed, or a column with role 'record_id'"
            )
        con.execute(
            f"CREATE TEMP TABLE {LEFT} AS SELECT s.lid AS privaudit_lid, s.own AS privaudit_own, {cols} "
            f"FROM {SAMPLE} AS s JOIN {ORIGINAL} AS o ON o.privaudit_rid = s.own"
        )
    return len(idx)


def check_record_ids(con, release, original, rid: str, texts) -> None:
    """The refusals of :func:`privaudit.pipeline.audit.align_original`, in SQL."""
    for name, source in ((ORIGINAL, original), (RELEASE, release)):
        dup = con.sql(f"SELECT count({RECORD_ID}) - count(DISTINCT {RECORD_ID}) FROM {name}").fetchall()[0][0]
        if dup:
            raise DataError(f"{source.path}: column {rid!r} (record_id) has duplicate values")
    lost = con.sql(
        f"SELECT r.privaudit_rid, r.{RECORD_ID} FROM {RELEASE} AS r ANTI JOIN {ORIGINAL} AS o "
        f"ON o.{RECORD_ID} = r.{RECORD_ID} ORDER BY r.privaudit_rid LIMIT 1"
    ).fetchall()
    if lost:
        row, gid = lost[0]
        value = None if gid is None else texts[0][0][int(gid)]
        raise DataError(f"{release.path}: {release.row_label(int(row))}: record_id {value!r} is not in {original.path}")
