"""Combination rules: which combinations of quasi-identifiers must be safe, and with which k.

The policy's ``combinations`` block follows µ-ARGUS (Hundepool et al., *µ-ARGUS user's manual* 5.1,
§5.3.2 "Specify combinations") and sdcMicro (``riskyCells``, ``localSuppression(combs =, k =)``). A rule is
one of:

* ``up_to: d`` -- every combination of 1, 2, ... d quasi-identifiers (the Dutch public-use rule), ``k`` one
  value or one per dimension (µ-ARGUS's thresholds per dimension; sdcMicro ``riskyCells(maxDim =,
  threshold =)``);
* ``sizes: [4, 3, 2]`` -- every combination of exactly that many quasi-identifiers, ``k`` one value or one
  per size (sdcMicro ``localSuppression(combs = c(4, 3, 2), k = c(10, 20, 40))``);
* ``levels: {column: level}`` -- identification levels 1 (most identifying) to 5, 0 leaving a column out:
  the scientific-use rule as µ-ARGUS generates it (``SelectCombinationsController.calculateTablesForID``):
  with L the number of levels in use, every combination of L columns whose j-th most identifying column
  is of one of the j most identifying levels in use -- one column per level, a more identifying column
  standing in for a less identifying one; one ``k``. (sdcMicro's ``riskyCells(useIdentificationLevel =
  TRUE, level =)`` tabulates every combination up to L columns instead: its µ-ARGUS pruning is commented out
  in ``R/riskyCells.R``, so it lists more combinations; on those both list the counts agree);
* ``columns: [a, b, c]`` -- one explicit combination with its ``k``.

k is the smallest cell that is safe: a cell of fewer than k records is risky (sdcMicro's riskyCells calls
a cell unsafe when ``N <= threshold``: its threshold is k - 1). A combination that several rules give is
checked with the largest of their k, as µ-ARGUS merges a table given twice (``compareRows``). The number of
combinations is bounded by ``max_combinations`` (default 1,000; a rule that gives more is refused when the
policy loads, since every combination is one pass over the classes).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: the identification levels µ-ARGUS offers (0 leaves a column out)
MAX_LEVEL = 5


class CombinationRule(BaseModel):
    """One rule: exactly one of ``up_to``, ``sizes``, ``levels``, ``columns``, and its ``k``."""

    model_config = ConfigDict(extra="forbid")
    up_to: int | None = Field(default=None, ge=1, description="Every combination of 1 .. up_to quasi-identifiers.")
    sizes: list[int] | None = Field(
        default=None, min_length=1, description="Every combination of exactly each of these many quasi-identifiers."
    )
    levels: dict[str, int] | None = Field(
        default=None,
        min_length=1,
        description="Identification level of each quasi-identifier, 1 (most identifying) to 5; 0 leaves it out. "
        "Combinations are formed as µ-ARGUS forms them.",
    )
    columns: list[str] | None = Field(default=None, min_length=1, description="One explicit combination.")
    k: int | list[int] = Field(
        description="Smallest safe cell size: one value, or one per dimension (up_to) or per size (sizes)."
    )

    @field_validator("k")
    @classmethod
    def _k_positive(cls, value: Any) -> Any:
        values = value if isinstance(value, list) else [value]
        if not values or any(isinstance(v, bool) or v < 1 for v in values):
            raise ValueError("k must be a whole number >= 1 (or a list of them)")
        return value

    @field_validator("sizes")
    @classmethod
    def _sizes_positive(cls, value: list[int] | None) -> list[int] | None:
        if value is not None and any(v < 1 for v in value):
            raise ValueError("every size must be >= 1")
        return value

    @field_validator("levels")
    @classmethod
    def _levels_in_range(cls, value: dict[str, int] | None) -> dict[str, int] | None:
        if value is not None:
            bad = next(((c, v) for c, v in value.items() if not 0 <= v <= MAX_LEVEL), None)
            if bad:
                raise ValueError(f"the level of {bad[0]!r} is {bad[1]}; levels are 1 to {MAX_LEVEL} (0: left out)")
            if not any(value.values()):
                raise ValueError("every level is 0: give at least one column a level from 1 to 5")
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> CombinationRule:
        given = [n for n in ("up_to", "sizes", "levels", "columns") if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of up_to, sizes, levels, columns" + (f" (got {', '.join(given)})" if given else "")
            )
        if isinstance(self.k, list):
            steps = self.up_to if self.up_to is not None else len(self.sizes) if self.sizes is not None else None
            if steps is None:
                raise ValueError(f"k: one value for a rule of {given[0]} (got {self.k})")
            if len(self.k) not in (1, steps):
                raise ValueError(f"k: {len(self.k)} values for {steps} {'dimensions' if self.up_to else 'sizes'}")
        return self


class CombinationRules(BaseModel):
    """The policy's ``combinations`` block."""

    model_config = ConfigDict(extra="forbid")
    rules: list[CombinationRule] = Field(min_length=1, description="The rules; their combinations are checked.")
    max_combinations: int = Field(
        default=1000,
        ge=1,
        le=100_000,
        description="The most combinations the rules may give (each is one pass over the classes).",
    )


@dataclass(frozen=True)
class Combination:
    """One combination to check: its columns (in the policy's order of quasi-identifiers) and k."""

    columns: tuple[str, ...]
    k: int
    rule: int  # index of the (first) rule that gives it


def level_combinations(levels: dict[str, int], order: list[str]) -> Iterator[tuple[str, ...]]:
    """µ-ARGUS's combinations from identification levels (``calculateTablesForID``): the columns of a level
    > 0 listed level by level (most identifying first; within a level in ``order``); with L levels in use, the
    L-column combinations whose j-th column is among those of the first j levels."""
    used = sorted({v for v in levels.values() if v > 0})
    ranked = sorted((c for c in order if levels.get(c, 0) > 0), key=lambda c: levels[c])
    prefix = list(itertools.accumulate(sum(1 for c in ranked if levels[c] == lv) for lv in used))
    depth = len(used)

    def extend(start: int, chosen: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        if len(chosen) == depth:
            yield chosen
            return
        for i in range(start, prefix[len(chosen)]):
            yield from extend(i + 1, (*chosen, ranked[i]))

    yield from extend(0, ())


def _rule_combinations(rule: CombinationRule, qis: list[str]) -> Iterator[tuple[tuple[str, ...], int]]:
    ks = rule.k if isinstance(rule.k, list) else [rule.k]
    if rule.up_to is not None or rule.sizes is not None:
        sizes = list(range(1, rule.up_to + 1)) if rule.up_to is not None else list(rule.sizes or [])
        for i, size in enumerate(sizes):
            k = ks[i] if len(ks) > 1 else ks[0]
            for combo in itertools.combinations(qis, size):
                yield combo, k
    elif rule.levels is not None:
        for combo in level_combinations(rule.levels, qis):
            yield tuple(c for c in qis if c in combo), ks[0]
    else:
        yield tuple(c for c in qis if c in (rule.columns or [])), ks[0]


def _rule_problem(rule: CombinationRule, qis: list[str], columns: dict[str, Any]) -> str | None:
    """Why a rule does not fit the policy's quasi-identifiers (field and reason), or None."""
    q = len(qis)
    if rule.up_to is not None and rule.up_to > q:
        return f"up_to: {rule.up_to} is more than the {q} quasi-identifiers"
    for size in rule.sizes or []:
        if size > q:
            return f"sizes: {size} is more than the {q} quasi-identifiers"
    named = list(rule.levels or {}) if rule.levels is not None else list(rule.columns or [])
    field = "levels" if rule.levels is not None else "columns"
    for name in named:
        if name not in qis:
            what = f"its role is {columns[name].role!r}" if name in columns else "no column of the policy"
            return f"{field}: {name!r} is not a quasi-identifier ({what}; quasi-identifiers: {', '.join(qis)})"
    if rule.columns is not None and len(set(rule.columns)) != len(rule.columns):
        return "columns: a column is listed twice"
    return None


def count_bound(rule: CombinationRule, q: int) -> int:
    """How many combinations a rule of up_to/sizes gives among q quasi-identifiers (without listing them)."""
    sizes = list(range(1, rule.up_to + 1)) if rule.up_to is not None else list(rule.sizes or [])
    return sum(math.comb(q, s) for s in sizes)


def resolve(block: CombinationRules, qis: list[str], columns: dict[str, Any]) -> tuple[list[Combination], str | None]:
    """The combinations the rules give (each once, with the largest k of the rules giving it), or the first
    problem as ``field: reason`` (the field relative to the ``combinations`` block)."""
    found: dict[frozenset[str], Combination] = {}
    total = 0
    for index, rule in enumerate(block.rules):
        problem = _rule_problem(rule, qis, columns)
        if problem:
            return [], f"rules[{index}].{problem}"
        if (rule.up_to is not None or rule.sizes is not None) and total + count_bound(
            rule, len(qis)
        ) > block.max_combinations:
            return [], _too_many(block, total + count_bound(rule, len(qis)))
        for combo, k in _rule_combinations(rule, qis):
            total += 1
            if total > block.max_combinations:
                return [], _too_many(block, None)
            key = frozenset(combo)
            old = found.get(key)
            if old is None or k > old.k:
                found[key] = Combination(combo, k if old is None else max(k, old.k), index if old is None else old.rule)
    return list(found.values()), None


def _too_many(block: CombinationRules, count: int | None) -> str:
    many = f"{count:,}" if count is not None else f"more than {block.max_combinations:,}"
    return (
        f"max_combinations: the rules give {many} combinations, more than max_combinations "
        f"({block.max_combinations:,}); lower a dimension or raise max_combinations"
    )
