"""The ``chunked`` engine: the class summary of a file larger than memory, one batch at a time.

The equivalence-class summary is additive: the record count of a combination of quasi-identifier
values, its weight sum and its count of each sensitive value are sums over records, so partial counts
of row batches merge by adding them up (the decomposition map-reduce systems use for ``GROUP BY ...
COUNT(*)``). Batches are Parquet row-group slices or blocks of CSV text, read twice:

1. *Dictionaries.* Each column's text is dictionary-coded per batch (``coding.dictionary``: trimmed,
   missing tokens -> missing); distinct values go into per-column domains (:class:`ColumnDomain`) and
   numeric and ordinal values are checked as ``coding.typed`` checks them, so bad input is reported
   (with the in-process message) before any counting. One row in ``SAMPLE_STRIDE`` is kept to place
   partition bounds. At the end every value has its code in sorted order, as ``build_summary`` codes
   it, and the mixed-radix packed key (:func:`~privaudit.core.summary.pack_keys`) of a combination is fixed.
2. *Counting.* Each batch's rows get their packed keys (in 62-bit parts when the codes need more) and
   are grouped as the in-memory summary groups them (:func:`~privaudit.core.summary.group`,
   :func:`~privaudit.core.summary.class_value_counts`): combinations with counts and weight sums, and
   (combination, sensitive value) pairs. These partial counts are cut at fixed key bounds into
   partitions (key ranges, about ``partition_rows`` rows each) and appended to spill files.
3. *Merging.* Partition by partition, in key order, the partial counts are grouped again and summed;
   since partitions are key ranges, the classes come out numbered exactly as ``build_summary``
   numbers them and the class x value matrices are built in CSR order without a global sort.

Passes 1 and 2 work on two batches at a time and pass 3 on two partitions at a time
(:func:`~privaudit.runtime.concurrency.ordered_map`: threads, results taken in order, so spill files
and first-seen ids are exactly those of a sequential run).

Memory holds one batch, one partition's partial counts and the summary being built: it follows the
number of classes and (class, sensitive value) pairs, not the number of rows. When the key space itself
is small (a generalized release: at most ``DENSE_CELLS`` cells counting every key x sensitive value),
steps 2 and 3 are replaced by counting straight into dense arrays indexed by key (``np.bincount``),
which needs no sorting at all.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from privaudit.core.errors import DataError
from privaudit.core.policy import Policy
from privaudit.core.summary import Grouping, class_value_counts, entry_rows, group, narrowest_int
from privaudit.engines._assemble import CountMatrix, QIColumn, assemble, key_parts, single_keys
from privaudit.engines._domain import ColumnDomain, as_numbers, first_bad, needs_check, raise_value_error
from privaudit.engines._hierarchies import check_hierarchies
from privaudit.io.coding import dictionary, first_row_with
from privaudit.io.dataset import open_input
from privaudit.io.source import Source
from privaudit.runtime.concurrency import ordered_map

NAME = "chunked"
BATCH_ROWS = 1 << 21
PARTITION_ROWS = 1 << 23
SAMPLE_STRIDE = 64
DENSE_CELLS = 1 << 25  # a key space this small (times the sensitive domains) is counted in dense arrays


@dataclass
class _Plan:
    """Which columns are read, checked, and kept as domains."""

    qi: list[str]
    sensitive: list[str]
    weight: list[str]
    read: list[str]  # the policy's columns present in the file, in file order
    domains: dict[str, ColumnDomain]
    checked: list[str]

    @classmethod
    def of(cls, policy: Policy, source: Source) -> _Plan:
        specs = policy.columns
        read = [c for c in source.columns if c in specs]
        tracked = dict.fromkeys(
            [*policy.quasi_identifiers, *policy.sensitive, *[h for h in policy.hierarchies if h in read]]
        )
        return cls(
            policy.quasi_identifiers,
            policy.sensitive,
            [c for c in policy.columns_with("weight") if c in read][:1],
            read,
            {c: ColumnDomain(c, specs[c]) for c in tracked},
            [c for c in read if needs_check(specs[c])],
        )


@dataclass
class _Scan:
    n_rows: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    sample: dict[str, list[np.ndarray]] = field(default_factory=dict)  # sampled ids of each QI


def _encoded(column: pa.Array) -> pa.Array:
    """Numbers and other non-text columns dictionary-encoded in their own type first, so that only the
    distinct values are turned into text (the texts are those ``data.py`` makes row by row)."""
    if pa.types.is_dictionary(column.type) or pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return column
    try:
        return column.dictionary_encode()
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
        return column


def _scan(
    source: Source,
    policy: Policy,
    plan: _Plan,
    batch_rows: int,
    block_bytes: int | None,
    progress: Callable | None,
    stride: int = SAMPLE_STRIDE,
) -> _Scan:
    """Pass 1: non-missing counts, checks, domains and a sample of QI ids; raises what load_table raises."""
    scan = _Scan(counts={c: 0 for c in plan.read}, sample={q: [] for q in plan.qi})
    errors: dict[str, tuple[int, str, str]] = {}  # column -> (row, value, problem), first met
    specs, missing = policy.columns, policy.missing_tokens

    def coded(item):
        offset, batch = item
        return offset, batch.num_rows, [dictionary(_encoded(batch.column(col)), missing) for col in plan.read]

    for offset, n, columns in ordered_map(coded, source.batches(plan.read, batch_rows, block_bytes)):
        scan.n_rows += n
        sampled = np.arange((-offset) % stride, n, stride)
        for col, (codes, values) in zip(plan.read, columns, strict=False):
            scan.counts[col] += int(np.count_nonzero(codes >= 0))
            if col in plan.checked and _still_checking(col, errors, plan.read):
                bad = first_bad(values, specs[col])
                if bad is not None:
                    previous = errors.get(col)
                    # a value that is not a number outranks a non-positive weight, as in coding.typed
                    if previous is None or (previous[2] == "weight" and bad[1] == "number"):
                        errors[col] = (offset + first_row_with(codes, bad[0]), values[bad[0]], bad[1])
            if errors or col not in plan.domains:
                continue
            ids = plan.domains[col].add(values)
            if col in scan.sample:
                scan.sample[col].append(np.append(ids, -1)[codes[sampled]])
        if progress is not None and source.num_rows:
            progress(f"reading {source.path.name}", scan.n_rows, source.num_rows)
    if scan.n_rows == 0:
        raise DataError(f"{source.path}: the file has a header but no data rows")
    if errors:
        col = next(c for c in plan.read if c in errors)
        row, value, _ = errors[col]
        raise_value_error(source, col, specs[col], value, row)
    check_hierarchies(policy, plan.domains, source)
    return scan


def _still_checking(col: str, errors: dict, read: list[str]) -> bool:
    """Once a column has failed, only earlier columns (and a weight's "not a number") can change which
    error ``data.load_table`` would report, so later columns need no more checks."""
    if col in errors:
        return errors[col][2] == "weight"
    if not errors:
        return True
    return read.index(col) < min(read.index(c) for c in errors)


class _Coding:
    """The final codes: per QI ``id -> code`` (missing -> card), the packed key parts, and per sensitive
    column ``id -> position in its domain``."""

    def __init__(self, policy: Policy, plan: _Plan):
        self.plan = plan
        self.columns: list[QIColumn] = []
        self.code_of: list[np.ndarray] = []
        for q in plan.qi:
            rank, labels = plan.domains[q].sorted_codes()
            self.columns.append(QIColumn(q, plan.domains[q].kind, len(labels), labels))
            self.code_of.append(np.append(rank, len(labels)))  # id -1 (missing) -> card
        self.cards = [c.card for c in self.columns]
        self.parts = key_parts(self.cards) or [[]]
        self.domain_values: dict[str, np.ndarray] = {}
        self.position: dict[str, np.ndarray] = {}
        for col in plan.sensitive:
            leaves = policy.hierarchies[col].leaves if col in policy.hierarchies else None
            domain, index = plan.domains[col].sensitive_domain(list(leaves) if leaves is not None else None)
            self.domain_values[col], self.position[col] = domain, np.append(index, -1)

    def keys(self, ids: list[np.ndarray]) -> list[np.ndarray]:
        """Packed key parts of rows given their QI ids (mixed radix card+1, as pack_keys packs)."""
        n = len(ids[0]) if ids else 0
        out = []
        for members in self.parts:
            key = np.zeros(n, dtype=np.int64)
            for i in members:
                key *= self.cards[i] + 1
                key += self.code_of[i][ids[i]]
            out.append(key)
        return out

    def decode(self, parts: list[np.ndarray]) -> list[np.ndarray]:
        """QI codes (-1 = missing) of packed key parts, in small integer types."""
        codes: list[np.ndarray] = []
        for members, part in zip(self.parts, parts, strict=False):
            rest = part.copy()
            column_codes = []
            for i in reversed(members):
                radix = self.cards[i] + 1
                code = rest % radix
                rest //= radix
                column_codes.append(np.where(code == self.cards[i], -1, code).astype(narrowest_int(self.cards[i] + 1)))
            codes.extend(reversed(column_codes))
        return codes

    def bounds(self, sample: dict[str, list[np.ndarray]], partitions: int) -> np.ndarray:
        """Values of the first key part that cut the sampled rows into ``partitions`` equal ranges."""
        if partitions <= 1 or not self.plan.qi:
            return np.zeros(0, dtype=np.int64)
        ids = [np.concatenate(sample[q]) if sample[q] else np.zeros(0, np.int64) for q in self.plan.qi]
        first = np.sort(self.keys(ids)[0])
        if len(first) == 0:
            return np.zeros(0, dtype=np.int64)
        cuts = first[(np.arange(1, partitions) * len(first)) // partitions]
        return np.unique(cuts)


def _sums(group: np.ndarray, values: np.ndarray, m: int) -> np.ndarray:
    """Integer sums per group (exact: every sum stays far below 2**53)."""
    return np.rint(np.bincount(group, weights=values.astype(float), minlength=m)).astype(np.int64)


def _group_parts(parts: list[np.ndarray]) -> Grouping:
    """Group a batch's rows, or a partition's partial-count records, on their key parts (groups in
    ascending lexicographic key order): one value sort of the packed key (:func:`~privaudit.core.summary.group`)."""
    key = parts[0] if len(parts) == 1 else single_keys([parts])[0]
    return group(key, consume=len(parts) > 1)


def _with_value(parts: list[np.ndarray], values: np.ndarray, m: int) -> list[np.ndarray]:
    """Key parts of (combination, sensitive value) pairs: the value packed into the last part when it
    fits in 63 bits, else a part of its own."""
    values = values.astype(np.int64)
    last = parts[-1]
    if len(last) == 0 or (int(last.max()) + 1) * max(m, 1) < (1 << 63):
        return parts[:-1] + [last * max(m, 1) + values]
    return parts + [values]


class _Spill:
    """Partial counts of one partition: appended batch by batch, read back once. Held in memory when
    there is a single partition, else in a file."""

    def __init__(self, path: Path | None):
        self.path = path
        self.pieces: list[np.ndarray] = []
        self.dtype = None

    def append(self, records: np.ndarray) -> None:
        self.dtype = records.dtype
        if self.path is None:
            self.pieces.append(records)
        elif len(records):
            with self.path.open("ab") as handle:
                records.tofile(handle)

    def read(self) -> np.ndarray:
        if self.path is None:
            out = np.concatenate(self.pieces) if self.pieces else np.zeros(0, self.dtype)
            self.pieces = []
            return out
        out = np.fromfile(self.path, dtype=self.dtype) if self.path.exists() else np.zeros(0, self.dtype)
        self.path.unlink(missing_ok=True)
        return out


def _records(parts: list[np.ndarray], fields: dict[str, np.ndarray]) -> np.ndarray:
    dtype = [(f"k{i}", "<i8") for i in range(len(parts))] + [(name, v.dtype.str) for name, v in fields.items()]
    out = np.empty(len(parts[0]), dtype=dtype)
    for i, part in enumerate(parts):
        out[f"k{i}"] = part
    for name, values in fields.items():
        out[name] = values
    return out


def _count_batch(
    coding: _Coding, ids: dict[str, np.ndarray], n: int, weights: np.ndarray | None, bounds: np.ndarray
) -> tuple[list[np.ndarray], dict[str, list[np.ndarray]]]:
    """Pass 2 for one batch: group its rows on their keys; the partial counts cut at the partition
    bounds (class records per partition, and per sensitive column its pair records per partition)."""
    pairs: dict[str, list[np.ndarray]] = {}
    parts = coding.keys([ids[q] for q in coding.plan.qi]) if coding.plan.qi else [np.zeros(n, np.int64)]
    grouping = _group_parts(parts)
    sizes, first = grouping.sizes, grouping.first_row
    class_parts = [p[first] for p in parts]
    del parts
    fields = {"n": sizes.astype(np.int64)}
    if weights is not None:
        fields["w"] = grouping.sums(weights)
    cuts = np.searchsorted(class_parts[0], bounds, side="left")
    records = _records(class_parts, fields)
    classes = [records[lo:hi] for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(first)], strict=False)]
    for col in coding.plan.sensitive:
        # the batch's class x value counts as the in-memory summary counts them (along the grouping)
        s = coding.position[col][ids[col]]
        matrix = class_value_counts(s[grouping.order], sizes, len(coding.domain_values[col]))
        rows = entry_rows(matrix.indptr)
        values, counts = matrix.indices, matrix.data
        pair_parts = [p[rows] for p in class_parts]
        records = _records(pair_parts, {"s": values.astype(np.int32), "n": counts.astype(np.int64)})
        cuts = np.searchsorted(pair_parts[0], bounds, side="left")
        pairs[col] = [records[lo:hi] for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(rows)], strict=False)]
    return classes, pairs


def summarize(
    path: str | Path,
    policy: Policy,
    *,
    batch_rows: int = BATCH_ROWS,
    partition_rows: int = PARTITION_ROWS,
    block_bytes: int | None = None,
    spill_directory: str | None = None,
    sample_stride: int = SAMPLE_STRIDE,
    dense_cells: int = DENSE_CELLS,
    progress: Callable[[str, int, int], None] | None = None,
    what: str = "released table",
):
    """Summarise ``path`` in two passes over its batches; returns an :class:`~privaudit.plugin.engine.EngineResult`.

    ``batch_rows``: rows per Parquet batch (CSV: about as many, see ``block_bytes``); ``partition_rows``:
    rows per key-range partition; ``spill_directory``: where partial counts wait (default: the system's
    temporary folder); ``sample_stride``: one row in this many places the partition bounds;
    ``dense_cells``: the largest key space (times sensitive values) counted in dense arrays."""
    from privaudit.plugin.engine import EngineResult

    source = open_input(path, policy, what)
    plan = _Plan.of(policy, source)
    scan = _scan(source, policy, plan, batch_rows, block_bytes, progress, max(int(sample_stride), 1))
    coding = _Coding(policy, plan)
    bounds = coding.bounds(scan.sample, math.ceil(scan.n_rows / max(partition_rows, 1)))
    scan.sample.clear()
    columns = [c for c in plan.read if c in (*plan.qi, *plan.sensitive, *plan.weight)]

    def rows_of(batch) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
        ids, weights = {}, None
        for col in columns:
            codes, values = dictionary(_encoded(batch.column(col)), policy.missing_tokens)
            if col in plan.domains:
                ids[col] = np.append(plan.domains[col].lookup(values), -1)[codes]
            if col in plan.weight:  # a missing weight counts as 1, as the uniqueness assessor counts it
                w = np.append(as_numbers(values, policy.columns[col]), np.nan)[codes]
                weights = np.where(np.isnan(w), 1.0, w)
        return ids, weights

    space = _dense_space(coding, dense_cells)
    if space is not None:
        dense = _Dense(coding, space, bool(plan.weight))
        for _, batch in source.batches(columns, batch_rows, block_bytes):
            dense.count(*rows_of(batch), batch.num_rows)
            if progress is not None:
                progress(f"counting {source.path.name}", dense.done, scan.n_rows)
        return EngineResult(dense.summary(policy, scan.n_rows), source.table(scan.n_rows), scan.counts)
    with tempfile.TemporaryDirectory(prefix="privaudit-chunked-", dir=spill_directory) as folder:
        spill = (lambda name: _Spill(Path(folder) / name)) if len(bounds) else (lambda name: _Spill(None))
        classes = [spill(f"classes-{p}") for p in range(len(bounds) + 1)]
        pairs = {c: [spill(f"pairs-{j}-{p}") for p in range(len(bounds) + 1)] for j, c in enumerate(plan.sensitive)}
        done = 0

        def counted(item):
            _, batch = item
            ids, weights = rows_of(batch)
            return batch.num_rows, _count_batch(coding, ids, batch.num_rows, weights, bounds)

        for n, (class_pieces, pair_pieces) in ordered_map(counted, source.batches(columns, batch_rows, block_bytes)):
            for spill, piece in zip(classes, class_pieces, strict=False):
                spill.append(piece)
            for col, pieces in pair_pieces.items():
                for spill, piece in zip(pairs[col], pieces, strict=False):
                    spill.append(piece)
            done += n
            if progress is not None:
                progress(f"counting {source.path.name}", done, scan.n_rows)
        summary = _merge(policy, coding, classes, pairs, scan.n_rows, bool(plan.weight))
    return EngineResult(summary, source.table(scan.n_rows), scan.counts)


def _dense_space(coding: _Coding, limit: int) -> int | None:
    """The number of possible keys, when keys x (1 + sensitive values) fit in ``limit`` cells."""
    if len(coding.parts) != 1:
        return None
    space = 1
    for card in coding.cards:
        space *= card + 1
    cells = space * (1 + sum(len(v) for v in coding.domain_values.values()))
    return space if cells <= limit else None


class _Dense:
    """Counts indexed by packed key (and key x sensitive value), for small key spaces."""

    def __init__(self, coding: _Coding, space: int, weighted: bool):
        self.coding, self.space, self.done = coding, space, 0
        self.sizes = np.zeros(space, dtype=np.int64)
        self.weights = np.zeros(space, dtype=float) if weighted else None
        self.pairs = {
            c: np.zeros(space * max(len(coding.domain_values[c]), 1), dtype=np.int64) for c in coding.plan.sensitive
        }

    def count(self, ids: dict[str, np.ndarray], weights: np.ndarray | None, n: int) -> None:
        key = (
            self.coding.keys([ids[q] for q in self.coding.plan.qi])[0] if self.coding.plan.qi else np.zeros(n, np.int64)
        )
        self.sizes += np.bincount(key, minlength=self.space)
        if self.weights is not None:
            self.weights += np.bincount(key, weights=weights, minlength=self.space)
        for col, counts in self.pairs.items():
            m = max(len(self.coding.domain_values[col]), 1)
            s = self.coding.position[col][ids[col]]
            present = s >= 0
            counts += np.bincount(key[present] * m + s[present], minlength=len(counts))
        self.done += n

    def summary(self, policy: Policy, n_rows: int):
        keys = np.flatnonzero(self.sizes)
        built = {}
        for col, counts in self.pairs.items():
            m = len(self.coding.domain_values[col])
            matrix = counts.reshape(self.space, max(m, 1))[keys]
            rows, cols = np.nonzero(matrix)  # row-major: CSR order
            indptr = np.zeros(len(keys) + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows, minlength=len(keys)), out=indptr[1:])
            built[col] = CountMatrix(indptr, cols.astype(np.int32), matrix[rows, cols], matrix.sum(axis=0)[:m])
        weights = self.weights[keys] if self.weights is not None else None
        codes = self.coding.decode([keys]) if self.coding.plan.qi else []
        return assemble(
            policy,
            self.coding.columns,
            codes,
            self.sizes[keys],
            weights,
            built,
            self.coding.domain_values,
            n_rows,
            NAME,
            ordered=True,
        )


def _merge(
    policy: Policy, coding: _Coding, classes: list[_Spill], pairs: dict[str, list[_Spill]], n_rows: int, weighted: bool
):
    """Pass 3: partition by partition (key order), sum the partial counts; then assemble the summary."""
    n_parts = len(coding.parts)
    keys: list[list[np.ndarray]] = [[] for _ in range(n_parts)]
    sizes, weights = [], []
    matrices = {
        c: {"nnz": [], "indices": [], "data": [], "total": np.zeros(len(coding.domain_values[c]), np.int64)}
        for c in coding.plan.sensitive
    }

    def merged(p: int):
        """One partition's classes (key parts, sizes, weight sums) and per sensitive column its
        (nnz per class, value indices, counts) in CSR order."""
        records = classes[p].read()
        parts = [records[f"k{i}"] for i in range(n_parts)]
        g = _group_parts(parts)
        first = g.first_row
        class_parts = [part[first] for part in parts]
        part_sizes = g.sums(records["n"])
        part_weights = g.sums(records["w"]) if weighted else None
        del records, parts, g
        columns = {}
        for col in coding.plan.sensitive:
            pair_records = pairs[col][p].read()
            pair_parts = [pair_records[f"k{i}"] for i in range(n_parts)]
            values = pair_records["s"]
            if len(pair_records):
                g = _group_parts(_with_value(pair_parts, values, len(coding.domain_values[col])))
                pfirst = g.first_row
                counts = g.sums(pair_records["n"])
                del g
                at = [part[pfirst] for part in pair_parts]
                values = values[pfirst]
            else:
                counts, at = np.zeros(0, np.int64), [part[:0] for part in pair_parts]
            del pair_records, pair_parts
            if n_parts == 1:
                rows = np.searchsorted(class_parts[0], at[0])
            else:
                class_key, pair_key = single_keys([class_parts, at])
                rows = np.searchsorted(class_key, pair_key)
            columns[col] = (np.bincount(rows, minlength=len(first)).astype(np.int32), values.astype(np.int32), counts)
        return class_parts, part_sizes, part_weights, columns

    # partitions are merged side by side (each is independent), their results taken in key order
    for class_parts, part_sizes, part_weights, columns in ordered_map(merged, range(len(classes)), ahead=2):
        for i in range(n_parts):
            keys[i].append(class_parts[i])
        sizes.append(part_sizes)
        if weighted:
            weights.append(part_weights)
        for col, (nnz, values, counts) in columns.items():
            m = matrices[col]
            m["nnz"].append(nnz)
            m["indices"].append(values)
            m["data"].append(counts)
            m["total"] += _sums(values.astype(np.int64), counts, len(coding.domain_values[col]))
    codes = coding.decode([_drain(k) for k in keys])
    built = {}
    for col, m in matrices.items():
        indptr = np.zeros(sum(len(x) for x in m["nnz"]) + 1, dtype=np.int64)
        np.cumsum(_drain(m["nnz"]), out=indptr[1:])
        built[col] = CountMatrix(indptr, _drain(m["indices"]), _drain(m["data"]), m["total"])
    return assemble(
        policy,
        coding.columns,
        codes,
        _drain(sizes),
        _drain(weights) if weighted else None,
        built,
        coding.domain_values,
        n_rows,
        NAME,
        ordered=True,
    )


def _drain(pieces: list[np.ndarray]) -> np.ndarray:
    """Concatenate ``pieces``, freeing each as it is copied (the result's pages fill as the pieces go,
    so the peak is one copy plus one piece, not two copies)."""
    out = np.empty(sum(len(p) for p in pieces), dtype=pieces[0].dtype if pieces else np.int64)
    at = 0
    while pieces:
        piece = pieces.pop(0)
        out[at : at + len(piece)] = piece
        at += len(piece)
    return out
