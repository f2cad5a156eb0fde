"""A generalization problem: the release's QIs as hierarchy node ids, and how a result is published.

:class:`GeneralizationProblem` is what both algorithms (GAA, lattice search) work on: one
:class:`~privaudit.remediation.generalization.domain.AttributeDomain` per quasi-identifier and an (n, q) matrix of
canonical node ids. :meth:`GeneralizationProblem.publish` turns a node matrix back into a table with the
input's columns, dtypes and row order.

Column types: a generalized value is a hierarchy label ("20-29"), so

* a QI typed ``numeric`` with a hierarchy is refused (``ValueError``): a numeric column cannot hold
  labels. Type it ``nominal`` (or ``ordinal`` with every label of the hierarchy in ``order``);
* a QI typed ``ordinal`` with a hierarchy must list every label it can publish in its ``order``,
  otherwise the output could not be read back with the same policy;
* a QI without a hierarchy (any type) can only stay as it is or be suppressed (published as missing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privaudit.core.context import AuditContext
from privaudit.core.policy import Policy
from privaudit.remediation.generalization.domain import (
    AttributeDomain,
    domain_from_hierarchy,
    encode_column,
    implicit_domain,
)


@dataclass
class GeneralizationProblem:
    policy: Policy
    table: pd.DataFrame
    domains: list[AttributeDomain]
    nodes: np.ndarray  # (n, q) canonical node ids of the input
    #: what the lattice searches of this problem learnt of its nodes, shared between searches (explore runs one
    #: per suppression limit): :class:`~privaudit.remediation.generalization.lattice.SharedTags`
    shared: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def columns(self) -> list[str]:
        return [d.column for d in self.domains]

    @property
    def n_records(self) -> int:
        return len(self.table)

    @classmethod
    def from_context(cls, ctx: AuditContext) -> GeneralizationProblem:
        policy, table = ctx.policy, ctx.table
        tokens = policy.missing_tokens
        domains, columns = [], []
        for column in policy.quasi_identifiers:
            spec = policy.columns[column]
            hierarchy = policy.hierarchies.get(column)
            if hierarchy is not None and spec.type == "numeric":
                raise ValueError(
                    f"quasi-identifier {column!r} is typed numeric, so it cannot hold generalized labels such as "
                    f"{_example_label(hierarchy)!r}; type it nominal in the policy (or remove its hierarchy to "
                    "keep it unchanged or suppressed)"
                )
            if hierarchy is None:
                values = table[column]
                uniques = (
                    list(values.cat.categories)
                    if isinstance(values.dtype, pd.CategoricalDtype)
                    else list(pd.unique(values.dropna()))
                )
                domain = implicit_domain(column, uniques, tokens)
            else:
                domain = domain_from_hierarchy(column, hierarchy, tokens)
                if spec.type == "ordinal":
                    order = set(spec.order or [])
                    unlisted = [
                        lab
                        for lab, c in zip(domain.labels[:-1], domain.canonical[:-1], strict=False)
                        if c != domain.missing and lab not in order
                    ]
                    if unlisted:
                        raise ValueError(
                            f"quasi-identifier {column!r} is ordinal and its hierarchy label {unlisted[0]!r} is not "
                            "in its 'order'; list every label of the hierarchy there, or type the column nominal"
                        )
            domains.append(domain)
            columns.append(encode_column(table[column], domain, hierarchy))
        nodes = np.column_stack(columns) if columns else np.zeros((len(table), 0), dtype=np.int64)
        return cls(policy, table, domains, nodes.astype(np.int64))

    def publish(self, nodes: np.ndarray) -> pd.DataFrame:
        """The input table with its QI columns replaced by the labels of ``nodes`` (missing -> NA)."""
        out = self.table.copy(deep=False)  # columns are replaced, never written into
        for j, d in enumerate(self.domains):
            spec = self.policy.columns[d.column]
            column = self.table[d.column]
            canon = d.canonical[nodes[:, j]]
            if spec.type == "numeric" or (d.implicit and not isinstance(column.dtype, pd.CategoricalDtype)):
                # implicit domain: the labels are the input values themselves; suppressed -> missing
                out[d.column] = column.where(canon != d.missing)
                continue
            if spec.type == "ordinal":
                categories = list(spec.order or [])
            else:
                used = np.unique(canon[canon != d.missing])
                categories = sorted({str(x) for x in d.labels[used]})
            position = {c: i for i, c in enumerate(categories)}
            node_code = np.array(
                [position.get(str(lab), -1) if i != d.missing else -1 for i, lab in enumerate(d.labels)], dtype=np.int64
            )
            codes = node_code[canon]
            out[d.column] = pd.Categorical.from_codes(codes, categories=categories, ordered=spec.type == "ordinal")
        return out


def _example_label(hierarchy) -> str:
    if hierarchy.height >= 1:
        return str(hierarchy.table[1].iloc[0])
    return str(hierarchy.root[1])
