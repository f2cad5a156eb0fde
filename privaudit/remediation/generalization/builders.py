"""Hierarchies built for quasi-identifiers the policy gives none, as ``privaudit init`` drafts them.

A quasi-identifier without a hierarchy can otherwise only be kept or suppressed whole. The builders are
:mod:`privaudit.discovery.hierarchies` (shared with ``privaudit init``), after ARX's
(``org.deidentifier.arx.aggregates``): numbers get intervals read from their distribution with bottom and
top codes (``HierarchyBuilderIntervalBased``); postcodes one more trailing digit masked per level
(``HierarchyBuilderRedactionBased``); ISO dates day, month, year, decade; known domains (US states, ISO
country codes, years of schooling) their semantic groupings; a categorical column of at most
:data:`FLAT_MAX` values a flat hierarchy ``value;*``, a larger one its rare values grouped first
(``HierarchyBuilderOrderBased`` on frequency). generalize's ``hierarchy_builders`` option names a
semantic builder for a column.

A built hierarchy's labels (``20-24``) cannot be held by a numeric column, so the column is worked on as
text (its values written as :mod:`privaudit.remediation.export` writes them: ``39``, ``45.5``) and re-audited
typed ``nominal`` with the built hierarchy (``column_overrides`` of the remediation): :func:`working_problem`
gives the problem on that working table and policy, and the report names every built hierarchy.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.core.context import AuditContext
from privaudit.core.hierarchy import Hierarchy
from privaudit.discovery import hierarchies
from privaudit.discovery.headers import tokens
from privaudit.remediation.generalization.problem import GeneralizationProblem

#: A nominal quasi-identifier with at most this many distinct values gets a flat hierarchy (value, then *).
FLAT_MAX = hierarchies.FLAT_MAX


@dataclass
class Built:
    """The hierarchies built: per column, the hierarchy, its CSV text, the note saying which builder."""

    hierarchies: dict[str, Hierarchy] = field(default_factory=dict)
    csv: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def files(self) -> dict[str, str]:
        """Each column's file name suffix (:func:`file_name`), distinct among the columns built."""
        return file_names(list(self.hierarchies))

    @property
    def overrides(self) -> dict[str, dict]:
        """``column_overrides`` for the re-audit: the column typed nominal with its built hierarchy."""
        files = self.files
        return {c: {"type": "nominal", "hierarchy": h, "file": files[c]} for c, h in self.hierarchies.items()}

    @property
    def report(self) -> dict[str, dict]:
        """What the JSON report says of each built hierarchy (``file``: the suffix of the file written beside the
        output, ``<out stem>.<file>``; the remediation engine names the file it wrote)."""
        files = self.files
        return {
            c: {"builder": self.notes[c], "height": h.height, "leaves": len(h.leaves), "file": files[c]}
            for c, h in self.hierarchies.items()
        }


def file_name(column: str) -> str:
    """The file a built hierarchy is written to, beside the output: ``<out stem>.hierarchy-<column>.csv``."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(column))
    return f"hierarchy-{safe}.csv"


def file_names(columns: list[str]) -> dict[str, str]:
    """:func:`file_name` of each column, made distinct (case-folded, as file systems may compare them): a column
    whose name differs from another's only in punctuation (``age (years)``, ``age [years]``) gets ``-2``."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for column in columns:
        name, n = file_name(column), 2
        while name.casefold() in taken:
            name, n = f"{file_name(column)[: -len('.csv')]}-{n}.csv", n + 1
        taken.add(name.casefold())
        out[column] = name
    return out


def as_text(values: pd.Series) -> pd.Series:
    """A numeric column as the texts the output file holds (whole numbers without ``.0``)."""
    numbers = to_numeric(values, errors="coerce")
    out = pd.Series(pd.NA, index=values.index, dtype=object)
    ok = numbers.notna()
    v = numbers[ok].to_numpy(dtype=float)
    whole = v == np.round(v)
    text = np.where(
        whole,
        np.char.mod("%d", np.where(whole, v, 0).astype(np.int64)),
        np.array([format(x, ".15g") for x in v], dtype=object) if (~whole).any() else "",
    )
    out[ok] = text.astype(object)
    return out


def build_hierarchy(
    column: str, values: pd.Series, kind: str, builder: str | Mapping[str, Any] | None = None
) -> tuple[str, str] | None:
    """The CSV text and builder note of a hierarchy for ``values`` (one per record, typed ``kind``), or None:
    the semantic ``builder`` when one is named (ValueError for a value it does not know), ARX's builder with
    the parameters a mapping gives (:mod:`privaudit.discovery.arx_builders`), else the one
    :func:`privaudit.discovery.hierarchies.build` recognises."""
    if isinstance(builder, Mapping):
        from privaudit.discovery import arx_builders

        return arx_builders.build(column, values, builder, kind)
    if builder is not None:
        return hierarchies.by_name(builder, values)
    return hierarchies.build(set(tokens(column)), values, kind)


def _hierarchy(text: str, column: str) -> Hierarchy:
    rows = [line.split(";") for line in text.splitlines() if line]
    return Hierarchy(rows, f"built for {column}")


def working_problem(
    ctx: AuditContext, build: bool = True, builders: Mapping[str, str | Mapping[str, Any]] | None = None
) -> tuple[GeneralizationProblem, Built]:
    """The generalization problem of ``ctx`` with hierarchies built for the quasi-identifiers that have none
    (when ``build``), and what was built; ``builders`` names the semantic builder of some columns (column ->
    ``us_states``, ``countries``, ``schooling``, ``postcodes``, or an ARX builder's mapping), which replaces a hierarchy the policy gives."""
    builders = builders or {}
    built = Built()
    policy, table = ctx.policy, ctx.table
    if build or builders:
        for column in policy.quasi_identifiers:
            if column not in builders and (column in policy.hierarchies or not build):
                continue
            spec = policy.columns[column]
            values = as_text(table[column]) if spec.type == "numeric" else table[column].astype(object)
            try:
                found = build_hierarchy(column, values.where(values.notna(), None), spec.type, builders.get(column))
            except ValueError as exc:
                raise ValueError(f"hierarchy of {column!r}: {exc}") from None
            if found is None:
                continue
            text, note = found
            built.hierarchies[column] = _hierarchy(text, column)
            built.csv[column] = text
            built.notes[column] = note
    if not built.hierarchies:
        return GeneralizationProblem.from_context(ctx), built
    from privaudit.core.policy import with_columns

    work_policy = with_columns(policy, built.overrides)
    work = table.copy(deep=False)
    for column in built.hierarchies:
        if policy.columns[column].type == "numeric":
            work[column] = as_text(table[column])
        elif isinstance(work[column].dtype, pd.CategoricalDtype):
            work[column] = work[column].astype(object)
    sub = copy.copy(ctx)
    sub.__dict__.pop("summary", None)
    sub.policy, sub.table = work_policy, work
    return GeneralizationProblem.from_context(sub), built
