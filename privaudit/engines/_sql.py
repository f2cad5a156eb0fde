"""The class summary as two SQL passes over the file, shared by the DuckDB and Spark engines.

Pass 1 (dictionaries): one scan with ``GROUPING SETS ((c1), (c2), ...)`` returns the distinct raw values
of every column that needs them (quasi-identifiers, sensitive, weight, hierarchy and type-checked
columns) with their counts. Python then does on these few values exactly what ``data.py`` does per
column (trim, missing tokens, types, checks, hierarchies) and gives each raw value its code in sorted
order (:mod:`._domain`). Columns that are only counted (identifiers, record ids, other) are grouped on
the values that could be missing tokens only. A dialect with ``stacked = True`` (Spark) gets the same
from narrow ``(column, value)`` rows made by ``stack`` instead (:func:`_stacked_groups`).

Pass 2 (one aggregation): the codes come back into SQL as small mapping tables (``raw -> code``), joined
onto the rows (or, for a dialect's ``inline_limit``, a ``CASE`` on the text); the codes of the
quasi-identifiers, then the sensitive columns' value positions, are packed in mixed radix (``card + 1``,
missing = ``card``, as :func:`~privaudit.core.summary.pack_keys` packs them) into BIGINT key parts below
2**62, and one ``GROUP BY`` of the parts counts the rows and sums their weights. Grouping on packed
integers rather than the string columns is what makes this fast, and one aggregation instead of one
per sensitive column plus one for the classes saves Spark a cached copy of the coded rows and two
aggregations (``benchmarks/bench_engines.py`` measures both). numpy then sorts the groups by key: they come class by class, in
the order ``build_summary`` numbers the classes, and each sensitive column's (class, value) counts are
summed over the other columns into CSR order (:func:`_combos`, :mod:`._assemble`).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import pyarrow as pa

from privaudit.core.errors import DataError
from privaudit.core.policy import Policy
from privaudit.core.summary import group
from privaudit.engines._assemble import CountMatrix, QIColumn, assemble, decode_part, key_parts, single_keys
from privaudit.engines._domain import ColumnDomain, as_numbers, column_kind, needs_check, raise_value_error
from privaudit.engines._hierarchies import check_hierarchies
from privaudit.io.coding import dictionary
from privaudit.io.source import Source

# Characters a trimmed-missing token may be padded with: a superset of Unicode White_Space.
SPACE_CLASS = r"[\s\p{Z}\p{Cc}]"


class Dialect(Protocol):
    """What the shared planner needs from a SQL engine."""

    name: str
    relation: str  # the released file as a FROM item

    def ident(self, name: str) -> str: ...

    def strip_spaces(self, expr: str) -> str: ...  # expr with every SPACE_CLASS character removed

    def register(self, name: str, table: pa.Table) -> None: ...

    def query(self, sql: str) -> pa.Table: ...

    def aggregate(self, sql: str, space: int, rows: int) -> pa.Table: ...  # a GROUP BY of ``rows`` rows, ``space`` keys


def summarize_sql(source: Source, policy: Policy, sql: Dialect, column_types: dict[str, pa.DataType]):
    """The :class:`~privaudit.plugin.engine.EngineResult` of ``source`` computed through ``sql``."""
    from privaudit.plugin.engine import EngineResult

    specs = policy.columns
    read = [c for c in source.columns if c in specs]
    qi, sensitive = policy.quasi_identifiers, policy.sensitive
    weight = [c for c in policy.columns_with("weight") if c in read][:1]
    keep = set(qi) | set(sensitive) | set(weight) | {h for h in policy.hierarchies if h in read}
    dict_cols = [c for c in read if c in keep or needs_check(specs[c])]
    count_cols = [c for c in read if c not in dict_cols]

    distinct, n_rows, counts = distinct_values(sql, dict_cols, count_cols, column_types, policy.missing_tokens)
    if n_rows == 0:
        raise DataError(f"{source.path}: the file has a header but no data rows")
    texts = {}
    for col in dict_cols:
        raw, n = distinct[col]
        codes, values = dictionary(raw, policy.missing_tokens)
        counts[col] = int(n[codes >= 0].sum())
        texts[col] = (raw, codes, values)
    for col in dict_cols:  # the first column (file order) with a refused value, as data.load_table reports
        if needs_check(specs[col]):
            refuse_bad_values(source, col, specs[col], texts[col][2])
    domains = {c: ColumnDomain(c, specs[c]) for c in dict_cols if c in keep}
    gids = {c: domains[c].add(texts[c][2]) for c in domains}
    check_hierarchies(policy, domains, source, first_seen=False)

    qi_columns, mapped = [], {}
    for col in qi:
        rank, labels = domains[col].sorted_codes()
        qi_columns.append(QIColumn(col, domains[col].kind, len(labels), labels))
        mapped[col] = value_mapping(
            texts[col], rank[gids[col]] if len(gids[col]) else np.zeros(0, np.int64), pa.int64()
        )
    domain_values = {}
    for col in sensitive:
        leaves = policy.hierarchies[col].leaves if col in policy.hierarchies else None
        domain, index = domains[col].sensitive_domain(list(leaves) if leaves is not None else None)
        domain_values[col] = domain
        mapped[col] = value_mapping(
            texts[col], index[gids[col]] if len(gids[col]) else np.zeros(0, np.int64), pa.int64()
        )
    for col in weight:
        mapped[col] = value_mapping(texts[col], as_numbers(texts[col][2], specs[col]), pa.float64())
    limit = getattr(sql, "inline_limit", 0)
    inline = {
        col: table
        for col, table in mapped.items()
        if col not in weight
        and table.num_rows <= limit
        and (pa.types.is_string(table.column("raw").type) or pa.types.is_large_string(table.column("raw").type))
    }
    for i, (col, table) in enumerate(mapped.items()):
        if col not in inline:
            sql.register(f"privaudit_map_{i}", table)
    aliases = {col: f"privaudit_map_{i}" for i, col in enumerate(mapped) if col not in inline}
    codes = {col: f"{aliases[col]}.target" for col in aliases}
    codes.update({col: _inline(sql, col, table) for col, table in inline.items()})

    cards = [q.card for q in qi_columns]
    groups, field_cards, parts = _pass_two(sql, qi, sensitive, weight, cards, domain_values, aliases, codes, n_rows)
    summary = _combos(policy, groups, field_cards, parts, qi_columns, sensitive, domain_values, n_rows, sql.name)
    return EngineResult(summary, source.table(n_rows), counts)


def distinct_values(
    sql: Dialect, dict_cols: list[str], count_cols: list[str], column_types: dict[str, pa.DataType], missing: list[str]
):
    """Distinct raw values and counts of ``dict_cols``; total rows; non-missing counts of ``count_cols``."""
    q = sql.ident
    width = max(len(t) for t in missing)
    # per column: (value expression, expression counted for non-null values or None)
    exprs = [(q(c), None) for c in dict_cols]
    exprs += [
        (f"CASE WHEN {_maybe_missing(sql, q(c), column_types.get(c), missing, width)} THEN {q(c)} END", q(c))
        for c in count_cols
    ]
    if getattr(sql, "stacked", False):
        groups, n_rows = _stacked_groups(sql, dict_cols + count_cols, exprs, column_types)
    else:
        groups, n_rows = _grouping_sets(sql, exprs)
    for i, c in enumerate(dict_cols + count_cols):  # an engine gives instants in its session's time zone:
        kind = column_types.get(c)  # their texts are made in the file's, as data.py makes them
        if kind is not None and pa.types.is_timestamp(kind) and kind.tz and groups[i][0].type != kind:
            groups[i] = (groups[i][0].cast(kind), *groups[i][1:])
    distinct = {c: groups[i][:2] for i, c in enumerate(dict_cols)}
    counts = {}
    for j, c in enumerate(count_cols):
        values, n, certain = groups[len(dict_cols) + j]
        codes, _ = dictionary(values, missing)
        counts[c] = int(certain + n[codes >= 0].sum())
    return distinct, n_rows, counts


def _grouping_sets(sql: Dialect, exprs: list[tuple[str, str | None]]):
    """One scan, ``GROUP BY GROUPING SETS ((e0), (e1), ..., ())``: per expression its distinct values,
    their counts and (for counted columns) the non-null rows whose value is not listed; total rows."""
    q = sql.ident
    inner, sets, aggregates, names = [], [], ["COUNT(*) AS n"], []
    for i, (value, counted) in enumerate(exprs):
        inner.append(f"{value} AS {q(f'e{i}')}")
        sets.append(f"({q(f'e{i}')})")
        names.append(f"e{i}")
        if counted is not None:
            inner.append(f"{counted} AS {q(f'o{i}')}")
            aggregates.append(f"COUNT({q(f'o{i}')}) AS {q(f'nn{i}')}")
    flags = [f"GROUPING({q(n)}) AS {q('g_' + n)}" for n in names]
    select = ", ".join([q(n) for n in names] + aggregates + flags)
    text = (
        f"SELECT {select} FROM (SELECT {', '.join(inner) or '1 AS one'} FROM {sql.relation}) AS t "
        f"GROUP BY GROUPING SETS ({', '.join(sets + ['()'])})"
    )
    out = sql.query(text)
    n = out.column("n").to_numpy().astype(np.int64)
    flag = {name: out.column("g_" + name).to_numpy() for name in names}
    total_mask = np.ones(len(n), dtype=bool)
    for name in names:
        total_mask &= flag[name] == 1
    groups = []
    for i, (_, counted) in enumerate(exprs):
        rows = flag[f"e{i}"] == 0
        values = out.column(f"e{i}").filter(pa.array(rows))
        certain = 0
        if counted is not None:
            unlisted = rows & out.column(f"e{i}").is_null().to_numpy(zero_copy_only=False)
            certain = int(out.column(f"nn{i}").to_numpy()[unlisted].sum())
        groups.append((values, n[rows], certain))
    return groups, int(n[total_mask].sum())


def _stacked_groups(
    sql: Dialect, columns: list[str], exprs: list[tuple[str, str | None]], column_types: dict[str, pa.DataType]
):
    """What :func:`_grouping_sets` returns, from narrow ``(column index, value)`` rows: ``stack`` turns
    each row into one row per column and one ``GROUP BY i, v`` counts them; one query per value type
    (Spark: its Expand for grouping sets copies every column into every output row, and groups on all
    of them, which costs Spark about twice the time and CPU on wide tables)."""
    q = sql.ident
    by_type: dict[str, list[int]] = {}
    for i, c in enumerate(columns):
        by_type.setdefault(_type_name(column_types.get(c)), []).append(i)
    groups: list = [None] * len(exprs)
    n_rows = None
    for members in by_type.values():
        entries = []
        for i in members:
            value, counted = exprs[i]
            entries.append(
                f"{i}, {value}, " + (f"CASE WHEN {counted} IS NOT NULL THEN 1 END" if counted else "CAST(NULL AS INT)")
            )
        out = sql.query(
            f"SELECT i, v, COUNT(*) AS n, COUNT(o) AS nn FROM (SELECT stack({len(members)}, "
            f"{', '.join(entries)}) AS ({q('i')}, {q('v')}, {q('o')}) FROM {sql.relation}) AS s "
            f"GROUP BY i, v"
        )
        index = out.column("i").to_numpy()
        n = out.column("n").to_numpy().astype(np.int64)
        null = out.column("v").is_null().to_numpy(zero_copy_only=False)
        nn = out.column("nn").to_numpy()
        for i in members:
            rows = index == i
            groups[i] = (out.column("v").filter(pa.array(rows)), n[rows], int(nn[rows & null].sum()))
        n_rows = int(n[index == members[0]].sum())
    if n_rows is None:
        n_rows = int(sql.query(f"SELECT COUNT(*) AS n FROM {sql.relation}").column("n")[0].as_py())
    return groups, n_rows


def _type_name(kind: pa.DataType | None) -> str:
    """Columns whose values share one SQL type (files read as text: all of them)."""
    if kind is not None and pa.types.is_dictionary(kind):
        kind = kind.value_type
    if kind is None or pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "string"
    return str(kind)


def _maybe_missing(sql: Dialect, column: str, kind: pa.DataType | None, missing: list[str], width: int) -> str:
    """A SQL condition true for every value that could read as a missing token once trimmed (and for some
    that do not: Python decides those exactly)."""
    if kind is None or pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_dictionary(kind):
        return f"{column} IS NOT NULL AND LENGTH({sql.strip_spaces(column)}) <= {width}"
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        numbers = [x for x in as_numbers(np.array(missing, dtype=object)) if np.isfinite(x)]
        if not numbers:
            return "FALSE"
        return f"CAST({column} AS DOUBLE) IN ({', '.join(repr(float(x)) for x in numbers)})"
    return f"{column} IS NOT NULL"


def refuse_bad_values(source: Source, column: str, spec, values: np.ndarray) -> None:
    """If any distinct value of ``column`` is refused by ``coding.typed``, raise its error for the first
    row (in file order) holding one: a value that is not a number outranks a non-positive weight."""
    kind = column_kind(spec)
    if kind == "numeric":
        numbers = as_numbers(values, spec)
        bad = ~np.isfinite(numbers)
        if not bad.any() and spec.role == "weight":
            bad = numbers <= 0
        bad_set = set(values[bad])
    else:
        allowed = set(spec.order)
        bad_set = {v for v in values if v not in allowed}
    if not bad_set:
        return
    hit = source.first_row(column, lambda texts: np.array([t in bad_set for t in texts], dtype=bool))
    row, value = hit if hit is not None else (0, sorted(bad_set)[0])
    raise_value_error(source, column, spec, value, row)


def value_mapping(text: tuple, target: np.ndarray, kind: pa.DataType) -> pa.Table:
    """``raw -> target`` for the raw values that are not missing (missing ones are left to a LEFT JOIN)."""
    raw, codes, _ = text
    keep = codes >= 0
    values = np.asarray(target)[codes[keep]] if keep.any() else np.zeros(0)
    raw = raw.combine_chunks() if isinstance(raw, pa.ChunkedArray) else raw
    return pa.table({"raw": raw.filter(pa.array(keep)), "target": pa.array(values, type=kind)})


def _pass_two(
    sql: Dialect,
    qi: list[str],
    sensitive: list[str],
    weight: list[str],
    cards: list[int],
    domains: dict[str, np.ndarray],
    aliases: dict[str, str],
    codes: dict[str, str],
    n_rows: int,
):
    """One aggregation: the rows' quasi-identifier codes and sensitive positions packed together (mixed
    radix, missing = the column's card) into BIGINT parts, ``GROUP BY`` the parts; returns the parts
    (``k0`` ...), ``n`` and the weight sum ``w``, unordered, and the fields' cards and packing. ``codes``:
    each column's code (NULL = missing) as SQL, from a joined mapping table (``aliases``) or inline."""
    q = sql.ident
    fields = [(codes[col], card) for col, card in zip(qi, cards, strict=False)]
    fields += [(codes[col], len(domains[col])) for col in sensitive]
    parts = key_parts([card for _, card in fields])
    joins = [f"LEFT JOIN {alias} ON t.{q(col)} = {alias}.raw" for col, alias in aliases.items()]
    coded = []
    for p, members in enumerate(parts):
        expr = None
        for i in members:
            value, card = fields[i]
            code = f"COALESCE({value}, {card})"
            expr = code if expr is None else f"({expr}) * {card + 1} + {code}"
        coded.append(f"CAST({expr} AS BIGINT) AS k{p}")
    if not parts:
        coded.append("CAST(0 AS BIGINT) AS k0")
    keys = ", ".join(f"k{p}" for p in range(max(len(parts), 1)))
    if weight:
        coded.append(f"COALESCE({codes[weight[0]]}, 1.0) AS w")
    weight_sum = ", SUM(w) AS w" if weight else ""
    space = 1
    for _, card in fields:
        space *= card + 1
    # No ORDER BY: a distributed sort costs Spark a sampling job and a range shuffle; numpy orders the rows.
    table = sql.aggregate(
        f"SELECT {keys}, COUNT(*) AS n{weight_sum} FROM (SELECT {', '.join(coded)} "
        f"FROM {sql.relation} AS t {' '.join(joins)}) AS c GROUP BY {keys}",
        space,
        n_rows,
    )
    return table, [card for _, card in fields], parts


def _inline(sql: Dialect, column: str, table: pa.Table) -> str:
    """A small mapping as a ``CASE`` on the raw text (Spark: cheaper per row than a hash join; the texts
    are written as UTF-8 bytes, so no quoting or escaping rule of the SQL dialect applies)."""
    raw = table.column("raw").to_pylist()
    target = table.column("target").to_pylist()
    branches = " ".join(f"WHEN {sql.text_literal(r)} THEN {int(t)}" for r, t in zip(raw, target, strict=False))
    return f"(CASE t.{sql.ident(column)} {branches} END)" if branches else "CAST(NULL AS BIGINT)"


def _combos(
    policy: Policy,
    table: pa.Table,
    field_cards: list[int],
    parts: list[list[int]],
    qi_columns: list[QIColumn],
    sensitive: list[str],
    domains: dict[str, np.ndarray],
    n_rows: int,
    engine: str,
):
    """Split the aggregated (quasi-identifiers, sensitive values) groups into the classes (sizes, weight
    sums, codes) and one class x value count matrix per sensitive column, then assemble.

    Sorted by the packed parts, the groups come class by class (quasi-identifier fields are packed
    first, so the order is the classes' order, as ``build_summary`` numbers them); a sensitive column's
    (class, value) pairs are then summed over the other sensitive columns."""
    n_parts = max(len(parts), 1)
    columns = [table.column(f"k{p}").to_numpy().astype(np.int64, copy=False) for p in range(n_parts)]
    key = columns[0] if n_parts == 1 else single_keys([columns])[0]
    order = group(key.copy()).order  # keys are unique: the permutation that sorts them
    counts = table.column("n").to_numpy().astype(np.int64, copy=False)[order]
    weights = table.column("w").to_numpy().astype(float, copy=False)[order] if "w" in table.column_names else None
    n_qi = len(qi_columns)
    new = np.zeros(len(order), dtype=bool)
    new[:1] = True
    class_parts, sensitive_codes = [], []
    for p, members in enumerate(parts):  # quasi-identifier fields come first: a part holds QI fields, then others
        part = columns[p][order]
        own = [i for i in members if i < n_qi]
        rest = [field_cards[i] for i in members if i >= n_qi]
        if rest:
            radix = int(np.prod([c + 1 for c in rest], dtype=object))
            sensitive_codes.extend(decode_part(part % radix if own else part, rest))
            part = part // radix if own else None
        if own:
            new[1:] |= part[1:] != part[:-1]
            class_parts.append((part, [field_cards[i] for i in own]))
    starts = np.flatnonzero(new)
    class_of = np.cumsum(new) - 1
    codes = [c for part, cards in class_parts for c in decode_part(part[starts], cards)]
    sizes = np.add.reduceat(counts, starts)
    weight_sums = np.add.reduceat(weights, starts) if weights is not None else None
    built = {}
    for col, values in zip(sensitive, sensitive_codes, strict=False):
        built[col] = _count_matrix(class_of, values, counts, len(starts), len(domains[col]))
    return assemble(policy, qi_columns, codes, sizes, weight_sums, built, domains, n_rows, engine, ordered=True)


def _count_matrix(class_of: np.ndarray, values: np.ndarray, counts: np.ndarray, n_classes: int, m: int) -> CountMatrix:
    """The class x value matrix (CSR, values sorted within classes) of groups ``(class, value, count)``
    whose classes are non-decreasing; a (class, value) pair may occur in several groups."""
    keep = values >= 0
    if keep.all():
        pair = class_of * max(m, 1)
        pair += values
    else:
        pair = class_of[keep] * max(m, 1) + values[keep]
        counts = counts[keep]
    if len(pair) and not bool((pair[1:] >= pair[:-1]).all()):
        # Not the first sensitive column: unsorted within classes only (they come in order); a stable argsort (timsort, which
        # merges the class-ordered runs almost for free) orders the pairs in about linear time rather than
        # a full sort's n log n, in the same order (ties in row order).
        order = np.argsort(pair, kind="stable")
        pair, counts = pair[order], counts[order]
    if len(pair):
        starts = np.flatnonzero(np.concatenate(([True], pair[1:] != pair[:-1])))
        data, first = np.add.reduceat(counts, starts), pair[starts]
    else:
        data, first = counts[:0], pair[:0]
    rows, cols = first // max(m, 1), first % max(m, 1)
    indptr = np.zeros(n_classes + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_classes), out=indptr[1:])
    total = np.bincount(cols, weights=data.astype(float), minlength=m)
    return CountMatrix(indptr, cols.astype(np.int32), data.astype(np.int64), np.rint(total).astype(np.int64))
