"""Hierarchies built for quasi-identifiers the policy gives none, as ``privaudit init`` drafts them.

A quasi-identifier without a hierarchy can otherwise only be kept or suppressed whole. The builders are
``privaudit init``'s (:mod:`privaudit.discovery.draft`), which follow ARX's hierarchy builders
(``org.deidentifier.arx.aggregates``): whole numbers get intervals 5, 10 and 20 wide, then ``*``
(``HierarchyBuilderIntervalBased`` with ARX's default grouping of adjacent intervals by two; a numeric column
of at most ten codes spanning less than ten gets a flat hierarchy); postcodes (a header such as ``zip``,
``postcode``, ``plz``, every value of one length in digits) one more trailing digit masked per level
(``HierarchyBuilderRedactionBased``); ISO dates day, month, year, decade, ``*`` (``HierarchyBuilderDate``);
a categorical column of at most :data:`FLAT_MAX` distinct values a flat hierarchy ``value;*``.

A built hierarchy's labels (``20-24``) cannot be held by a numeric column, so the column is worked on as
text (its values written as :mod:`privaudit.remediation.export` writes them: ``39``, ``45.5``) and re-audited
typed ``nominal`` with the built hierarchy (``column_overrides`` of the remediation): :func:`working_problem`
gives the problem on that working table and policy, and the report names every built hierarchy.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.core.context import AuditContext
from privaudit.core.hierarchy import Hierarchy
from privaudit.discovery import draft as drafted
from privaudit.discovery.headers import tokens
from privaudit.remediation.generalization.problem import GeneralizationProblem

#: A nominal quasi-identifier with at most this many distinct values gets a flat hierarchy (value, then *).
FLAT_MAX = 50


@dataclass
class Built:
    """The hierarchies built: per column, the hierarchy, its CSV text, the note saying which builder."""

    hierarchies: dict[str, Hierarchy] = field(default_factory=dict)
    csv: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def overrides(self) -> dict[str, dict]:
        """``column_overrides`` for the re-audit: the column typed nominal with its built hierarchy."""
        return {c: {"type": "nominal", "hierarchy": h, "file": file_name(c)} for c, h in self.hierarchies.items()}

    @property
    def report(self) -> dict[str, dict]:
        """What the JSON report says of each built hierarchy."""
        return {
            c: {"builder": self.notes[c], "height": h.height, "leaves": len(h.leaves), "file": file_name(c)}
            for c, h in self.hierarchies.items()
        }


def file_name(column: str) -> str:
    """The file a built hierarchy is written to, beside the output: ``<out stem>.hierarchy-<column>.csv``."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(column))
    return f"hierarchy-{safe}.csv"


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


def build_hierarchy(column: str, values: pd.Series, kind: str) -> tuple[str, str] | None:
    """The CSV text and builder note of a hierarchy for ``values`` (typed ``kind``), or None."""
    distinct = pd.unique(values.dropna().astype(str))
    if len(distinct) < 2:
        return None
    parts = set(tokens(column))
    if kind == "numeric":
        return drafted._hierarchy_for(parts, "numeric", None, [], np.asarray(distinct, dtype=object))
    if parts & drafted._POSTCODE_WORDS and (masked := drafted._masking_hierarchy(distinct)) is not None:
        return masked
    if pd.Series(distinct, dtype=object).str.fullmatch(drafted._DATE.pattern).all():
        return drafted._date_hierarchy(sorted(distinct)), "dates: day, month, year, decade, then *"
    if len(distinct) <= FLAT_MAX:
        return "".join(f"{v};*\n" for v in distinct), f"{len(distinct)} categories: a flat hierarchy (value, then *)"
    return None


def _hierarchy(text: str, column: str) -> Hierarchy:
    rows = [line.split(";") for line in text.splitlines() if line]
    return Hierarchy(rows, f"built for {column}")


def working_problem(ctx: AuditContext, build: bool = True) -> tuple[GeneralizationProblem, Built]:
    """The generalization problem of ``ctx`` with hierarchies built for the quasi-identifiers that have none
    (when ``build``), and what was built."""
    built = Built()
    policy, table = ctx.policy, ctx.table
    if build:
        for column in policy.quasi_identifiers:
            if column in policy.hierarchies:
                continue
            spec = policy.columns[column]
            values = as_text(table[column]) if spec.type == "numeric" else table[column].astype(object)
            found = build_hierarchy(column, values.where(values.notna(), None), spec.type)
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
