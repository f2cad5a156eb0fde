"""What an assessor sees: the policy, the released table, the shared class summary, optional extras."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

import numpy as np
import pandas as pd

from privaudit.core.errors import PrivauditError
from privaudit.core.policy import Policy
from privaudit.core.readonly import freeze_summary
from privaudit.core.summary import ClassSummary, build_summary, coarsened

NEVER = np.iinfo(np.int64).max  # with no k in the policy, no class is large enough to show its values


class Derived(Protocol):
    """The figures a context shares that need the packages above the core: the utility entries
    (:mod:`privaudit.utility`) and the releases linked person by person (``--previous``). The audit driver
    supplies them (:data:`privaudit.pipeline.derived.DERIVED`), so that the core imports neither."""

    def utility(self, ctx: AuditContext) -> list[dict]: ...

    def series(self, ctx: AuditContext) -> Any: ...


@dataclass
class AuditContext:
    """What assessors read. ``table`` is the typed released table, or None when an out-of-memory engine
    (see :mod:`privaudit.engines`) summarised the file without loading it; the engine then provides
    ``precomputed`` (the class summary) and ``column_counts`` (non-missing values per column)."""

    policy: Policy
    table: pd.DataFrame | None
    original: pd.DataFrame | None = None  # the table before masking, aligned row by row (--original; needs "original")
    training: pd.DataFrame | None = None  # the --original table as loaded, not aligned (needs "training": synthetic)
    control: pd.DataFrame | None = None  # a holdout from the same population, not used to make the release (--control)
    progress: Callable[[str, int, int], None] | None = None
    precomputed: ClassSummary | None = None
    column_counts: dict[str, int] | None = None
    sample_reader: Callable[[int], pd.DataFrame | None] | None = None  # first rows, when ``table`` is None
    #: the inputs as given (``pipeline.audit.InputFiles``), for the checks that read ``--original`` themselves
    #: under an out-of-memory engine (their assessor's ``in_memory_reason`` is None); None otherwise
    files: Any = None
    #: the audited release and its previous ones (``--previous``; ``pipeline.series.SeriesInputs``), or None
    series_inputs: Any = None
    #: how the figures that need the packages above the core are computed (:class:`Derived`); None: not here
    derived: Derived | None = None

    def sample(self, rows: int) -> pd.DataFrame | None:
        """The released table's first ``rows`` rows, typed as the whole table is (the same rows whatever the
        engine); None when the engine cannot give them (a table in an engine's catalog)."""
        if self.table is not None:
            return self.table.head(rows)
        return self.sample_reader(rows) if self.sample_reader is not None else None

    @cached_property
    def summary(self) -> ClassSummary:
        """The equivalence-class summary, computed on first use and shared by every assessor."""
        if self.precomputed is not None:
            return freeze_summary(self.precomputed)
        sensitive = {col: (self.policy.columns[col].type, self._leaves(col)) for col in self.policy.sensitive}
        weights = self.policy.columns_with("weight")
        return freeze_summary(
            build_summary(  # shared by every check: read-only (core/readonly.py)
                self.table,
                self.policy.quasi_identifiers,
                sensitive,
                self.policy.data.missing_qi,
                weight=weights[0] if weights and weights[0] in self.table else None,
            )
        )

    @cached_property
    def utility(self) -> list[dict]:
        """The utility entries of this audit (:mod:`privaudit.utility`), computed once on first use and shared
        by the report and the checks that gate on them."""
        return self._derived("utility").utility(self)

    @cached_property
    def series(self) -> Any:
        """The audited release and its previous ones, linked person by person
        (``privaudit.pipeline.series.Series``), computed on first use and shared by the checks that compose
        releases; None without ``--previous``."""
        if self.series_inputs is None:
            return None
        return self._derived("series").series(self)

    def _derived(self, what: str) -> Derived:
        if self.derived is None:
            raise PrivauditError(
                f"this audit context has no {what}: it was built without the audit driver's derived figures "
                "(give it derived=privaudit.pipeline.derived.DERIVED)"
            )
        return self.derived

    def _leaves(self, column: str) -> list[str] | None:
        h = self.policy.hierarchies.get(column)
        return list(h.leaves) if h is not None else None

    @property
    def quasi_identifiers(self) -> list[str]:
        return self.policy.quasi_identifiers

    def for_scenario(self, quasi_identifiers: list[str] | None) -> AuditContext:
        """The context of a check with its own attacker scenario (``checks[].quasi_identifiers``): the same
        tables, a policy whose quasi-identifiers are the subset, and that subset's class summary -- built once
        per distinct subset and shared by every check of the scenario: from the records, or, when an
        out-of-memory engine holds none, from the engine's classes (:func:`~privaudit.core.summary.coarsened`).
        ``None``: this context."""
        if not quasi_identifiers or list(quasi_identifiers) == self.policy.quasi_identifiers:
            return self
        key = tuple(quasi_identifiers)
        cache = self.__dict__.setdefault("_scenarios", {})
        if key not in cache:
            policy = self.policy.for_scenario(list(key))
            cache[key] = AuditContext(
                policy,
                self.table,
                self.original,
                self.training,
                self.control,
                self.progress,
                # out of memory: the scenario's classes are unions of the engine's classes
                None if self.table is not None else coarsened(self.summary, policy.quasi_identifiers),
                self.column_counts,
                self.sample_reader,
                series_inputs=self.series_inputs,
                derived=self.derived,
            )
        return cache[key]

    def non_missing(self, column: str) -> int:
        """How many records hold a value in ``column`` (0 when the column is absent)."""
        if self.column_counts is not None:
            return int(self.column_counts.get(column, 0))
        if self.table is None or column not in self.table:
            return 0
        return int(self.table[column].notna().sum())

    def worst_classes(
        self,
        order_key: np.ndarray,
        failing: np.ndarray | None = None,
        sensitive: str | None = None,
        descending: bool = False,
        extra: dict[str, np.ndarray] | None = None,
    ) -> list[dict]:
        """The report's list of worst classes: QI values, size and per-class figures, capped by the
        policy's ``report.max_classes``. Raw sensitive values are listed only for classes of size >= the
        largest k in the policy, or when ``report.show_sensitive_values`` is true."""
        s = self.summary
        key = -order_key if descending else order_key
        key = np.where(np.isnan(key), np.inf, key) if np.issubdtype(key.dtype, np.floating) else key
        order = top_classes(key, failing, self.policy.report.max_classes)
        rows = s.describe(order)
        for row in rows:
            cid = row["class"]
            for name, values in (extra or {}).items():
                v = values[cid]
                row[name] = (
                    "inf"
                    if isinstance(v, float) and np.isinf(v)
                    else (float(v) if isinstance(v, (float, np.floating)) else int(v))
                )
            if sensitive is not None and self.may_show_sensitive(row["size"]):
                sc = s.sensitive[sensitive]
                lo, hi = sc.counts.indptr[cid], sc.counts.indptr[cid + 1]
                row["sensitive_values"] = {
                    _label(sc.values[j]): int(c)
                    for j, c in zip(sc.counts.indices[lo:hi], sc.counts.data[lo:hi], strict=False)
                }
        return rows

    def may_show_sensitive(self, class_size: int) -> bool:
        if self.policy.report.show_sensitive_values:
            return True
        return class_size >= self.largest_k

    @cached_property
    def largest_k(self) -> int:
        """The largest class size a check of the policy guarantees, as each assessor declares it
        (``Disclosure.show_values_from``), never read from a parameter's name."""
        ks = [c.assessor.capabilities.disclosure.class_size(c.params) for c in self.policy.checks]
        ks = [k for k in ks if isinstance(k, int) and not isinstance(k, bool)]
        return max(ks) if ks else NEVER


def top_classes(key: np.ndarray, mask: np.ndarray | None, limit: int) -> np.ndarray:
    """Ids of up to ``limit`` classes (among ``mask``) with the smallest ``key``, ties by class id.

    A partial selection finds the cut-off value, so listing the worst 20 of millions of classes neither
    sorts them all nor gathers millions of ids when most classes tie at the cut-off (size 1, say)."""
    pool = key if mask is None else key[mask]
    if len(pool) <= limit:
        candidates = np.arange(len(key)) if mask is None else np.flatnonzero(mask)
    else:
        # the limit-th smallest of a prefix bounds the cut-off from above; one comparison pass then
        # leaves few values to select among (unless many tie)
        bound = np.partition(pool[: max(4 * limit, 1 << 16)], limit - 1)[limit - 1]
        few = pool[pool <= bound]
        cutoff = np.partition(few, limit - 1)[limit - 1]
        below, at = key < cutoff, key == cutoff
        if mask is not None:
            below &= mask
            at &= mask
        below = np.flatnonzero(below)
        candidates = np.concatenate((below, np.flatnonzero(at)[: limit - len(below)]))
    values = key[candidates]
    return candidates[np.lexsort((candidates, values))][:limit]


def _label(v: Any) -> str:
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)
