"""Blocked distance-based record linkage with the pairs in DuckDB (tables past memory).

The same linkage as :func:`.distance_blocked.blocked_distance_linkage` (``metric: euclidean``,
``assignment: nearest``, candidates from ``blocking`` rules), with the three tables
as relations of a DuckDB connection, which spills to its ``temp_directory`` beyond its
``memory_limit``:

* **standardisation** (:mod:`.encoding`, Torra's ``diff_i``): every numeric attribute ``z = (x -
  mean) / sd`` by its own file's mean and sample standard deviation (``avg``, ``stddev_samp``: ddof 1,
  as ``numpy.nanstd(ddof=1)``), the intruder's records by the whole original's, the released ones by the
  release's; a missing value at ``z = 0``, an sd that is missing or ``<= 0`` taken as 1.  ``z`` is
  stored multiplied by ``sqrt(w_a / W)``, the column scale of :meth:`.encoding.EncodedPair.column_scale`;
* **distance**: ``sqrt`` of the sum of the squared scaled differences, and for a categorical attribute
  ``2 (sqrt(1/2) sqrt(w_a / W))^2`` when the codes differ (the one-hot embedding of :mod:`.encoding`:
  ``w_a / W``), 0 when equal; a missing value is a category of its own (``IS NOT DISTINCT FROM``).
  Hierarchical categorical distances are not supported here (the caller refuses them);
* **blocking**: one equi-join per rule (SQL ``=``: a missing value never joins); a pair of rule ``r``
  that agrees on an earlier rule is dropped, so the union is de-duplicated as by
  :func:`.blocking.iter_candidate_pairs`;
* **minimum**: ``GROUP BY`` intruder record with ``min(d, 2)``: the two smallest candidate distances;
  the own pair is joined directly.  The candidates tied within ``tie_bound(d_min)`` (the rule
  of :mod:`.distance`) are counted in a second join, only for the records whose own record is at the
  minimum with a second candidate there too.

What comes back to Python is per intruder record (two distances, the own distance, a tie count):
``O(n)`` whatever the number of pairs.  Floating sums may differ from numpy's in the last bits; the
tie tolerance (1e-9 relative) absorbs that, so the credits are the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa

from privaudit.common.thresholds import tie_bound
from privaudit.risk.linkage.distance_blocked import BlockedDistanceResult, normalised_weights, tie_credit
from privaudit.risk.linkage.duckdb_results import fetch, ident, int64_column, scalar
from privaudit.risk.linkage.encoding import AttributeSpec

#: Temporary tables this module creates on the connection.
LEFT_Z, RIGHT_Z, BEST, TIED = "privaudit_dl_left", "privaudit_dl_right", "privaudit_dl_best", "privaudit_dl_tied"


def _double(x: float) -> str:
    return f"CAST('{float(x)!r}' AS DOUBLE)"


def distance_linkage_sql(
    con,
    left: str,
    right: str,
    original: str,
    attributes: Sequence[AttributeSpec],
    blocking: Sequence[Sequence[str]],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> BlockedDistanceResult:
    """Link the intruder's records ``left`` to the released records ``right`` within the ``blocking``
    rules.  ``left`` has ``privaudit_lid`` (``0 .. n - 1``), ``privaudit_own`` (the own released record)
    and the attribute columns; ``right`` has ``privaudit_rid`` (``0 .. m - 1``) and the attribute
    columns; ``original`` is the whole original (aligned to the release), whose means and sds standardise
    ``left``.  Numeric columns are DOUBLE, categorical ones codes shared by both sides; NULL is missing."""
    rules = [tuple(r) for r in blocking]
    if not rules or not all(rules):
        raise ValueError("blocking needs at least one rule of at least one column")
    attributes = list(attributes)
    names = [a.name for a in attributes]
    for a in attributes:
        if a.hierarchy is not None:
            raise ValueError(f"attribute {a.name!r}: hierarchical distances are not computed in SQL")
    for c in (c for rule in rules for c in rule):
        if c not in names:
            raise KeyError(f"blocking column {c!r} is not an attribute")
    weights = normalised_weights(attributes)
    n = scalar(con, f"SELECT count(*) FROM {left}")
    m = scalar(con, f"SELECT count(*) FROM {right}")
    if n == 0 or m == 0:
        raise ValueError("no records to link")
    linker = _SqlLinker(con, attributes, dict(weights), rules)
    try:
        linker.standardise(left, right, original)
        return linker.link(n, m, names, weights, progress)
    finally:
        linker.close()


class _SqlLinker:
    def __init__(self, con, attributes: list[AttributeSpec], weights: dict[str, float], rules: list[tuple[str, ...]]):
        self.con, self.attributes, self.weights, self.rules = con, attributes, weights, rules

    # ------------------------------------------------------------------ tables
    def standardise(self, left: str, right: str, original: str) -> None:
        """``privaudit_dl_left``/``_right``: ids, the raw columns ``c<a>`` (blocking, categorical codes) and
        the scaled z-scores ``z<a>`` of the numeric attributes, each side by its own file's statistics."""
        for table, source, stats, ids in (
            (LEFT_Z, left, original, "privaudit_lid AS lid, privaudit_own AS own"),
            (RIGHT_Z, right, right, "privaudit_rid AS rid"),
        ):
            cols = [ids]
            for a, spec in enumerate(self.attributes):
                x = ident(spec.name)
                cols.append(f"{x} AS c{a}")
                if spec.kind == "numeric":
                    mean, sd = _moments(self.con, stats, x)
                    scale = math.sqrt(self.weights[spec.name])
                    cols.append(f"COALESCE(({x} - {_double(mean)}) / {_double(sd)}, 0.0) * {_double(scale)} AS z{a}")
            self.con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT {', '.join(cols)} FROM {source}")

    def _distance(self) -> str:
        """The pair distance over ``l`` and ``r`` (in the embedding's column order: numeric first)."""
        terms = []
        for a, spec in enumerate(self.attributes):
            if spec.kind == "numeric" and self.weights[spec.name] > 0:
                terms.append(f"(l.z{a} - r.z{a}) * (l.z{a} - r.z{a})")
        for a, spec in enumerate(self.attributes):
            if spec.kind == "categorical" and self.weights[spec.name] > 0:
                c = math.sqrt(0.5) * math.sqrt(self.weights[spec.name])
                terms.append(
                    f"(CASE WHEN l.c{a} IS NOT DISTINCT FROM r.c{a} THEN 0.0 ELSE {_double(c * c + c * c)} END)"
                )
        return f"sqrt({' + '.join(terms) or '0.0'})"

    def _agrees(self, rule: tuple[str, ...]) -> str:
        return " AND ".join(f"l.c{self._index(c)} = r.c{self._index(c)}" for c in rule)

    def _index(self, name: str) -> int:
        return [a.name for a in self.attributes].index(name)

    def _pairs(self, r: int, select: str, extra_join: str = "", where: str = "") -> str:
        """``SELECT select`` over the pairs of rule ``r`` not produced by an earlier rule."""
        earlier = [f"COALESCE(({self._agrees(k)}), FALSE)" for k in self.rules[:r]]
        conditions = [f"NOT ({' OR '.join(earlier)})"] if earlier else []
        if where:
            conditions.append(where)
        return (
            f"SELECT {select} FROM {LEFT_Z} AS l {extra_join} JOIN {RIGHT_Z} AS r ON {self._agrees(self.rules[r])}"
            + (f" WHERE {' AND '.join(conditions)}" if conditions else "")
        )

    # ------------------------------------------------------------------ linkage
    def link(self, n: int, m: int, names, weights, progress) -> BlockedDistanceResult:
        d = self._distance()
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {BEST} (lid BIGINT, two DOUBLE[], n BIGINT)")
        steps = len(self.rules) + 1
        for r in range(len(self.rules)):
            self.con.execute(
                f"INSERT INTO {BEST} SELECT lid, min(d, 2), count(*) FROM ("
                f"{self._pairs(r, f'l.lid AS lid, {d} AS d')}) GROUP BY lid"
            )
            if progress is not None:
                progress(r + 1, steps)
        best = fetch(
            self.con,
            f"""
            SELECT lid, s[1] AS d1, CASE WHEN len(s) > 1 THEN s[2] END AS d2, n FROM (
                SELECT lid, list_sort(flatten(list(two))) AS s, CAST(sum(n) AS BIGINT) AS n FROM {BEST} GROUP BY lid)""",
        )
        lid = int64_column(best, "lid")
        d1, d2 = np.full(n, np.inf), np.full(n, np.inf)
        d1[lid] = _doubles(best, "d1")
        d2[lid] = _doubles(best, "d2")
        pairs = int(int64_column(best, "n").sum())
        seen_sql = " OR ".join(f"COALESCE(({self._agrees(k)}), FALSE)" for k in self.rules)
        own_pairs = fetch(
            self.con,
            f"SELECT l.lid AS lid, l.own AS own, ({seen_sql}) AS seen, {d} AS d "
            f"FROM {LEFT_Z} AS l JOIN {RIGHT_Z} AS r ON r.rid = l.own",
        )
        lid = int64_column(own_pairs, "lid")
        if lid.size != n:
            raise ValueError("every intruder record needs its own released record")
        own, seen, d_own = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool), np.full(n, np.inf)
        own[lid] = int64_column(own_pairs, "own")
        seen[lid] = own_pairs.column("seen").to_numpy(zero_copy_only=False)
        d_own[lid] = np.where(seen[lid], _doubles(own_pairs, "d"), np.inf)
        bound = tie_bound(d1)
        tied = seen & (d_own <= bound) & (d2 <= bound)
        ties = np.ones(n, dtype=np.int64)
        if tied.any():
            ties[tied] = 0
            rows = np.flatnonzero(tied)
            self.con.register(TIED, pa.table({"lid": pa.array(rows, pa.int64()), "bound": pa.array(bound[rows])}))
            try:
                for r in range(len(self.rules)):
                    got = fetch(
                        self.con,
                        "SELECT lid, CAST(count(*) AS BIGINT) AS k FROM ("
                        + self._pairs(
                            r, f"l.lid AS lid, {d} AS d, t.bound AS bound", f"JOIN {TIED} AS t ON t.lid = l.lid"
                        )
                        + ") WHERE d <= bound GROUP BY lid",
                    )
                    np.add.at(ties, int64_column(got, "lid"), int64_column(got, "k"))
            finally:
                self.con.unregister(TIED)
        if progress is not None:
            progress(steps, steps)
        credit = tie_credit(d1, d_own, seen, ties).astype(float)
        return BlockedDistanceResult(m, tuple(names), weights, tuple(self.rules), pairs, own, d1, d2, seen, credit)

    def close(self) -> None:
        for table in (LEFT_Z, RIGHT_Z, BEST):
            self.con.execute(f"DROP TABLE IF EXISTS {table}")


def _moments(con, relation: str, column: str) -> tuple[float, float]:
    """Mean and sample sd of a column as :func:`.encoding._standardized` settles them (mean 0 when all are
    missing; sd 1 when undefined, not finite or <= 0)."""
    mean, sd = con.sql(f"SELECT avg({column}), stddev_samp({column}) FROM {relation}").fetchall()[0]
    mean = 0.0 if mean is None or not math.isfinite(mean) else float(mean)
    sd = 1.0 if sd is None or not math.isfinite(sd) or sd <= 0 else float(sd)
    return mean, sd


def _doubles(table: pa.Table, column: str) -> np.ndarray:
    """A DOUBLE column with NULL as ``inf`` (no second candidate)."""
    return np.asarray(table.column(column).fill_null(np.inf).to_numpy(), dtype=float)
