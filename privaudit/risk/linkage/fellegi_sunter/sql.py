"""Fellegi–Sunter linkage with the pairs in DuckDB: blocking, comparison patterns and their counts in SQL.

The in-process scan (:mod:`.scan`) holds both tables in memory.  Here the two tables are relations of a
DuckDB connection (the caller creates them, coded: :func:`probabilistic_linkage_sql`), and everything
whose size grows with the number of candidate pairs stays in the database, which spills to its
``temp_directory`` beyond its ``memory_limit``:

* **blocking**: one equi-join per rule on its columns (SQL ``=``: a missing value never joins, as a
  missing block key never pairs in :mod:`..blocking`); a pair of rule ``r`` that also agrees on an
  earlier rule is flagged ``dup`` (the de-duplicated union of :func:`..blocking.iter_candidate_pairs`);
* **patterns**: each pair's comparison levels (exact / numeric tolerances / disagree, missing) are
  ``CASE`` expressions, combined into the mixed-radix code of :class:`.patterns.PatternCoding`, numbered
  as the in-process :class:`.patterns.PatternSpace` numbers them;
* **counts**: ``GROUP BY`` intruder record, rule, ``dup`` and pattern gives one small table; the pattern
  counts (pooled, and per rule for EM) are sums over it, so the pairs are never stored;
* **top-1**: the pattern weights come back as a table joined by pattern; ``max(w) OVER (PARTITION BY
  intruder record)`` gives each record's best weight and the number of candidates tied at it.

What comes back to Python is per pattern (EM, :mod:`..em`, and the thresholds, :mod:`.weights`, run on
it: the same code as in process) or per intruder record (own pattern, best weight, ties): ``O(n)``
whatever the number of pairs.  The full-product level counts behind the label ``u`` come from each
column's value frequencies (:func:`.parameters.frequency_level_counts`).  The steps after the counts are
:func:`.linkage.link_pairs`, shared with the in-process path, so the figures are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pyarrow as pa

from privaudit.risk.linkage.blocking import blocking_from_counts
from privaudit.risk.linkage.duckdb_results import fetch, ident, int64_column, scalar
from privaudit.risk.linkage.fellegi_sunter.linkage import link_pairs
from privaudit.risk.linkage.fellegi_sunter.model import ComparisonSpec, ProbabilisticLinkageResult
from privaudit.risk.linkage.fellegi_sunter.parameters import frequency_level_counts
from privaudit.risk.linkage.fellegi_sunter.patterns import PatternCoding

#: Column names of the two relations besides the comparison columns.
LID, OWN, RID = "privaudit_lid", "privaudit_own", "privaudit_rid"
#: Temporary tables this module creates on the connection.
PAIRS, WEIGHTS = "privaudit_fs_pairs", "privaudit_fs_weights"
#: Most distinct categorical values packed in one byte by :class:`.patterns.PatternSpace`.
PACKED_VALUES = 256


@dataclass(frozen=True)
class SqlRule:
    """One blocking rule: the columns that must agree exactly (``()``: the full product)."""

    columns: tuple[str, ...]


@dataclass
class SqlBest:
    """Per intruder record: the best weight among its candidates and how many candidates tie at it."""

    best: np.ndarray
    n_best: np.ndarray


def probabilistic_linkage_sql(
    con,
    left: str,
    right: str,
    comparisons: Sequence[ComparisonSpec],
    *,
    blocking: Sequence[Sequence[str]] | None = None,
    estimation: Literal["labels", "em", "both"] = "labels",
    max_false_match_rate: float = 0.01,
    max_false_non_match_rate: float = 0.01,
    em_max_iter: int = 1000,
    em_u: Literal["random", "em"] = "random",
    progress: Callable[[int, int], None] | None = None,
) -> ProbabilisticLinkageResult:
    """Fellegi–Sunter linkage of the intruder's records ``left`` to the released records ``right``.

    ``left`` and ``right`` name relations of the DuckDB connection ``con``. ``left`` has
    ``privaudit_lid`` (the intruder records numbered ``0 .. n - 1``), ``privaudit_own`` (each one's
    own released record) and the comparison columns; ``right`` has ``privaudit_rid`` (the released
    records numbered ``0 .. m - 1``) and the comparison columns.  Categorical columns hold codes shared
    by both sides (equal values, equal codes), numeric ones DOUBLE; NULL is missing.  The other
    arguments are those of :func:`.linkage.probabilistic_linkage`, whose result this returns (the same
    figures for the same records).
    """
    if estimation not in ("labels", "em", "both"):
        raise ValueError("estimation must be 'labels', 'em' or 'both'")
    if em_u not in ("random", "em"):
        raise ValueError("em_u must be 'random' or 'em'")
    if not comparisons:
        raise ValueError("at least one comparison is required")
    if len({c.name for c in comparisons}) != len(comparisons):
        raise ValueError("duplicate comparison columns")
    pairs = SqlPairs.build(con, left, right, tuple(comparisons), blocking)
    try:
        return link_pairs(
            pairs, comparisons, estimation, max_false_match_rate, max_false_non_match_rate, em_max_iter, em_u, progress
        )
    finally:
        pairs.close()


class SqlPairs:
    """The candidate pairs of :func:`probabilistic_linkage_sql`, as :func:`.linkage.link_pairs` reads
    them (``space``, ``rules``, ``true_codes``, ``own_seen``, the passes)."""

    def __init__(
        self,
        con,
        left: str,
        right: str,
        comparisons: tuple[ComparisonSpec, ...],
        n_left: int,
        n_right: int,
        rules: list[SqlRule],
        space: PatternCoding,
        frequencies: list[tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]],
    ):
        self.con, self.left, self.right, self.comparisons = con, left, right, comparisons
        self.n_left, self.n_right, self.rules, self.space = n_left, n_right, rules, space
        self.frequencies = frequencies
        self.true_codes, self.own_seen = self._own_pairs()

    @classmethod
    def build(
        cls,
        con,
        left: str,
        right: str,
        comparisons: tuple[ComparisonSpec, ...],
        blocking: Sequence[Sequence[str]] | None,
    ) -> SqlPairs:
        n_left = scalar(con, f"SELECT count(*) FROM {left}")
        n_right = scalar(con, f"SELECT count(*) FROM {right}")
        if n_left == 0 or n_right == 0:
            raise ValueError("no records to link")
        frequencies, has_missing, packed = [], [], []
        for a, spec in enumerate(comparisons):
            lf, rf = _frequencies(con, left, spec.name), _frequencies(con, right, spec.name)
            frequencies.append((lf, rf))
            missing = int(lf[1].sum()) < n_left or int(rf[1].sum()) < n_right
            has_missing.append(missing)
            if spec.kind == "categorical" and not missing and np.union1d(lf[0], rf[0]).size <= PACKED_VALUES:
                packed.append(a)
        if blocking is None:
            counts = {
                s.name: f[0][1] for s, f in zip(comparisons, frequencies, strict=False) if s.kind == "categorical"
            }
            blocking = blocking_from_counts(counts, n_left, n_other=n_right)
        names = {s.name for s in comparisons}
        rules = []
        for rule in blocking:
            if not rule:
                raise ValueError("a blocking rule must name at least one column")
            for c in rule:
                if c not in names:
                    raise KeyError(f"blocking column {c!r} is not a comparison column")
            rules.append(SqlRule(tuple(rule)))
        if not rules:
            rules = [SqlRule(())]
        return cls(
            con,
            left,
            right,
            comparisons,
            n_left,
            n_right,
            rules,
            PatternCoding(comparisons, has_missing, packed),
            frequencies,
        )

    # ---------------------------------------------------------------- SQL expressions

    def _level(self, a: int, exact: frozenset[str] = frozenset()) -> str | None:
        """The comparison level of attribute ``a`` over the columns of :meth:`_coded`'s inner query (None:
        always 0, a categorical blocking column of the rule, which the in-process scan skips too); the
        missing level only where the column has missing values."""
        spec = self.comparisons[a]
        if spec.kind == "categorical" and spec.name in exact:
            return None
        x, y = f"privaudit_l{a}", f"privaudit_r{a}"
        if spec.kind == "categorical":
            level = f"CAST({x} <> {y} AS BIGINT)"
        else:  # |x - y| computed once by the inner query
            level = " + ".join(
                f"CAST(privaudit_d{a} > CAST('{t!r}' AS DOUBLE) AS BIGINT)" for t in (0.0, *spec.tolerances)
            )
        if self.space.radix[a] > spec.n_levels:  # the column has missing values
            level = f"(CASE WHEN {x} IS NULL OR {y} IS NULL THEN {spec.n_levels} ELSE {level} END)"
        return level

    def _coded(self, extra: dict[str, str], source: str, rule: SqlRule | None = None) -> str:
        """``SELECT <extra>, code FROM source``: ``source`` joins the sides ``l`` and ``r``, ``extra`` maps
        output names to expressions over them, ``code`` is each pair's pattern code."""
        exact = frozenset(rule.columns) if rule is not None else frozenset()
        terms = []
        for a, stride in enumerate(self.space.stride):
            level = self._level(a, exact)
            if level is not None:
                terms.append(level if stride == 1 else f"({level}) * {int(stride)}")
        inner = [f"{expr} AS {name}" for name, expr in extra.items()]
        for a, spec in enumerate(self.comparisons):
            x, y = f"l.{ident(spec.name)}", f"r.{ident(spec.name)}"
            inner += [f"{x} AS privaudit_l{a}", f"{y} AS privaudit_r{a}"]
            if spec.kind == "numeric":
                inner.append(f"abs({x} - {y}) AS privaudit_d{a}")
        return (
            f"SELECT {', '.join(extra)}, CAST({' + '.join(terms) or '0'} AS BIGINT) AS code "
            f"FROM (SELECT {', '.join(inner)} FROM {source}) AS pair"
        )

    @staticmethod
    def _agrees(rule: SqlRule) -> str:
        """True when a pair agrees on the rule's key (false when a component is missing)."""
        if not rule.columns:
            return "TRUE"
        same = " AND ".join(f"l.{ident(c)} = r.{ident(c)}" for c in rule.columns)
        return f"COALESCE(({same}), FALSE)"

    def _join(self, rule: SqlRule) -> str:
        if not rule.columns:
            return f"{self.left} AS l CROSS JOIN {self.right} AS r"
        on = " AND ".join(f"l.{ident(c)} = r.{ident(c)}" for c in rule.columns)
        return f"{self.left} AS l JOIN {self.right} AS r ON {on}"

    # ---------------------------------------------------------------- what link_pairs reads

    def _own_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Each intruder record's own pair: its pattern, and whether some rule makes it a candidate."""
        seen = " OR ".join(self._agrees(r) for r in self.rules)
        out = fetch(
            self.con,
            self._coded(
                {"lid": f"l.{LID}", "seen": f"({seen})"},
                f"{self.left} AS l JOIN {self.right} AS r ON r.{RID} = l.{OWN}",
            ),
        )
        lid = out.column("lid").to_numpy()
        if lid.size != self.n_left:
            raise ValueError("every intruder record needs its own released record")
        true_codes = np.zeros(self.n_left, dtype=self.space.dtype)
        own_seen = np.zeros(self.n_left, dtype=bool)
        true_codes[lid] = out.column("code").to_numpy()
        own_seen[lid] = out.column("seen").to_numpy(zero_copy_only=False)
        return true_codes, own_seen

    def full_counts(self) -> list[tuple[np.ndarray, float]]:
        return [
            frequency_level_counts(spec, lf, rf)
            for spec, (lf, rf) in zip(self.comparisons, self.frequencies, strict=False)
        ]

    def first_pass(self, weight_sets, per_rule: bool, progress):
        """Count the pairs per (intruder record, rule, dup, pattern) into one table; the pattern counts
        and, when ``per_rule``, every rule's own counts (duplicates included) are sums over it."""
        size = self.space.size
        self.con.execute(
            f"CREATE OR REPLACE TEMP TABLE {PAIRS} (lid BIGINT, rule INTEGER, dup BOOLEAN, code BIGINT, n BIGINT)"
        )
        # (record, pattern, dup) packed in one BIGINT when it fits: grouping on one integer is faster
        packed = self.n_left * 2 * size < 2**62
        for r, rule in enumerate(self.rules):
            earlier = [self._agrees(k) for k in self.rules[:r]]
            dup = " OR ".join(earlier) if earlier else "FALSE"
            where = "" if per_rule or not earlier else f" WHERE NOT ({dup})"
            pairs = self._coded({"lid": f"CAST(l.{LID} AS BIGINT)", "dup": f"({dup})"}, self._join(rule) + where, rule)
            if packed:
                self.con.execute(
                    f"INSERT INTO {PAIRS} SELECT key // {2 * size}, {r}, key % 2 = 1, (key // 2) % {size}, n FROM ("
                    f"SELECT lid * {2 * size} + code * 2 + CAST(dup AS BIGINT) AS key, count(*) AS n FROM ({pairs}) "
                    "GROUP BY key)"
                )
            else:
                self.con.execute(
                    f"INSERT INTO {PAIRS} SELECT lid, {r}, dup, code, count(*) FROM ({pairs}) GROUP BY lid, dup, code"
                )
            if progress is not None:
                progress(r + 1, len(self.rules))
        pooled = fetch(
            self.con, f"SELECT code, CAST(sum(n) AS BIGINT) AS n FROM {PAIRS} WHERE NOT dup GROUP BY code ORDER BY code"
        )
        codes, counts = int64_column(pooled, "code"), int64_column(pooled, "n")
        rule_counts = None
        if per_rule:
            per = fetch(
                self.con,
                f"SELECT rule, code, CAST(sum(n) AS BIGINT) AS n FROM {PAIRS} GROUP BY rule, code ORDER BY rule, code",
            )
            rule_of, rc, rn = int64_column(per, "rule"), int64_column(per, "code"), int64_column(per, "n")
            rule_counts = [(rc[rule_of == r], rn[rule_of == r]) for r in range(len(self.rules))]
        self.codes = codes
        return self.best_pass(weight_sets, None), codes, counts, rule_counts

    def best_pass(self, weight_sets, progress) -> list[SqlBest]:
        """Per intruder record, the best weight and its ties under each weight set: the weights of the
        observed patterns joined by pattern, the maximum a window over the record's candidates."""
        out = []
        for ws in weight_sets:
            self.con.register(
                WEIGHTS,
                pa.table(
                    {
                        "code": pa.array(self.codes, pa.int64()),
                        "w": pa.array(self.space.weights(ws, self.codes), pa.float64()),
                    }
                ),
            )
            try:
                got = fetch(
                    self.con,
                    f"""
                    SELECT lid, max(best) AS best, CAST(sum(n) FILTER (WHERE w = best) AS BIGINT) AS ties FROM (
                        SELECT p.lid, p.n, w.w, max(w.w) OVER (PARTITION BY p.lid) AS best
                        FROM {PAIRS} AS p JOIN {WEIGHTS} AS w ON p.code = w.code WHERE NOT p.dup)
                    GROUP BY lid""",
                )
            finally:
                self.con.unregister(WEIGHTS)
            best = SqlBest(np.full(self.n_left, -np.inf), np.zeros(self.n_left, dtype=np.int64))
            lid = int64_column(got, "lid")
            best.best[lid] = got.column("best").to_numpy()
            best.n_best[lid] = int64_column(got, "ties")
            out.append(best)
            if progress is not None:
                progress(len(out), len(weight_sets))
        return out

    def close(self) -> None:
        self.con.execute(f"DROP TABLE IF EXISTS {PAIRS}")


def _frequencies(con, relation: str, column: str) -> tuple[np.ndarray, np.ndarray]:
    """The distinct non-missing values of ``column`` and their counts (sorted by value)."""
    c = ident(column)
    out = fetch(con, f"SELECT {c} AS v, count(*) AS n FROM {relation} WHERE {c} IS NOT NULL GROUP BY {c} ORDER BY {c}")
    return out.column("v").to_numpy(), int64_column(out, "n")
