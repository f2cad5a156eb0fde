"""The privacy model Phi: the policy's class-based error checks, evaluated on integer-coded tables.

Generalization never touches sensitive values, so whether a class breaks a check depends only on its
own records (and on whole-table figures that do not change). Both algorithms therefore ask the
assessors' own ``class_violations`` functions (:func:`privaudit.plugin.remediator.class_violations`):

* :func:`coded_context` builds a real :class:`~privaudit.core.context.AuditContext` on a table whose QI
  columns are node ids (categoricals; the published-as-missing node is missing), so the summary is
  built exactly as the re-audit will build it (``missing_qi: wildcard`` included) -- used by the
  lattice search for whole tables;
* :class:`ClassModel` evaluates classes given only their sizes and sensitive-value counts (a summary
  with one row per class) -- used by GAA after every merge. There a class's f_k is its size, which
  under ``missing_qi: wildcard`` can only under-estimate the re-audit's f_k (a conservative Phi).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privaudit.core.context import AuditContext
from privaudit.core.policy import Policy
from privaudit.core.summary import ClassSummary, SensitiveCounts
from privaudit.plugin.remediator import class_violations
from privaudit.remediation.generalization.domain import AttributeDomain


def coded_frame(table: pd.DataFrame, domains: Sequence[AttributeDomain], nodes: np.ndarray) -> pd.DataFrame:
    """``table`` with each QI column replaced by its node ids (``missing`` -> NA) as a categorical."""
    frame = table.copy(deep=False)
    for j, d in enumerate(domains):
        codes = np.where(nodes[:, j] == d.missing, -1, nodes[:, j])
        frame[d.column] = (
            pd.Categorical.from_codes(codes, categories=np.arange(d.n_nodes - 1), validate=False)
            if d.n_nodes > 1
            else pd.Categorical.from_codes(codes, categories=[0], validate=False)
        )
    return frame


def coded_context(
    policy: Policy, table: pd.DataFrame, domains: Sequence[AttributeDomain], nodes: np.ndarray
) -> AuditContext:
    return AuditContext(policy, coded_frame(table, domains, nodes))


class ClassModel:
    """Evaluate Phi on classes described by their sizes and dense sensitive count rows.

    ``template`` is the summary of the input table (it supplies every sensitive column's domain, table
    totals and missing counts, which generalization does not change).
    """

    def __init__(self, policy: Policy, table: pd.DataFrame, template: ClassSummary):
        self.policy = policy
        self.table = table
        self.template = template
        self.columns = list(template.sensitive)

    def dense_counts(self, class_of: np.ndarray, n_classes: int) -> dict[str, np.ndarray]:
        """Per sensitive column, a dense (classes x values) count matrix for the given record -> class map."""
        return {column: _value_counts(self.template, column, class_of, n_classes) for column in self.template.sensitive}

    def violations(self, sizes: np.ndarray, counts: dict[str, np.ndarray]) -> np.ndarray:
        """True for every class (row) that breaks a class-based error check of the policy."""
        sizes = np.asarray(sizes, dtype=np.int64)
        n = len(sizes)
        sensitive = {}
        for column, sc in self.template.sensitive.items():
            sensitive[column] = SensitiveCounts(column, sc.values, sp.csr_matrix(counts[column]), sc.total, sc.missing)
        summary = ClassSummary(
            list(self.template.quasi_identifiers),
            "value",
            np.arange(n),
            sizes,
            sizes,
            np.zeros(n, dtype=np.int64),
            self.template.frame,
            sensitive,
        )
        ctx = AuditContext(self.policy, self.table)
        ctx.__dict__["summary"] = summary  # AuditContext.summary is a cached_property
        return class_violations(ctx)


def record_values(template: ClassSummary, column: str) -> np.ndarray:
    """Each record's position in the sensitive column's domain (-1 when missing)."""
    sc = template.sensitive[column]
    values = template.frame[column]
    series = pd.Series(values)
    if isinstance(series.dtype, pd.CategoricalDtype):
        lookup = {v: i for i, v in enumerate(sc.values)}
        cat_pos = np.array([lookup.get(str(c), -1) for c in series.cat.categories], dtype=np.int64)
        codes = series.cat.codes.to_numpy().astype(np.int64)
        return np.where(codes >= 0, cat_pos[np.maximum(codes, 0)], -1)
    arr = series.to_numpy(dtype=float)
    pos = np.searchsorted(sc.values.astype(float), arr)
    pos[np.isnan(arr)] = -1
    return pos


def _value_counts(template: ClassSummary, column: str, class_of: np.ndarray, n_classes: int) -> np.ndarray:
    m = template.sensitive[column].counts.shape[1]
    pos = record_values(template, column)
    keep = pos >= 0
    flat = np.bincount(class_of[keep] * m + pos[keep], minlength=n_classes * m)
    return flat.reshape(n_classes, m).astype(np.int64)
