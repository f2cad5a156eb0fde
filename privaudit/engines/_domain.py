"""The distinct values of one column, typed as the policy says, and their codes in sorted order.

Engines see a column's values a batch (or a ``GROUP BY``) at a time. :class:`ColumnDomain` gives each
distinct value a stable id (``gid``) in the order values are first seen, and at the end the codes that
:func:`privaudit.core.summary.column_codes` gives the in-memory table, so that classes are numbered exactly
as :func:`privaudit.core.summary.build_summary` numbers them:

* numeric: the value as a float (``"30"`` and ``"30.0"`` are one value); codes in numeric order;
* ordinal: the value's position in the policy's ``order`` (codes = positions, card = len(order));
* nominal: the trimmed text; codes in sorted text order (``numpy``'s, as ``coding.typed`` sorts).

Missing values never enter a domain (gid and code -1). Checks mirror ``coding.typed``: a numeric value
that does not parse, a weight that is not positive, an ordinal value not in ``order``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numbers
from privaudit.core.errors import DataError
from privaudit.io.coding import decimal_of, typed
from privaudit.io.source import RowShim, Source

NUMERIC_ROLES_EXCLUDED = ("identifier", "record_id")


def column_kind(spec) -> str:
    """How ``coding.typed`` treats a policy column: ``numeric``, ``ordinal`` or ``nominal``."""
    if spec is not None and spec.type == "numeric" and spec.role not in NUMERIC_ROLES_EXCLUDED:
        return "numeric"
    if spec is not None and spec.type == "ordinal":
        return "ordinal"
    return "nominal"


def needs_check(spec) -> bool:
    """Whether ``coding.typed`` can refuse a value of this column."""
    return column_kind(spec) in ("numeric", "ordinal")


def as_numbers(values: np.ndarray, spec=None) -> np.ndarray:
    """Texts as floats the way ``coding.typed`` parses them for the column ``spec`` (its policy's decimal
    mark; NaN where a text is not a number; ``inf``, which ``coding.typed`` refuses too, as infinity)."""
    return to_numbers(values, decimal_of(spec))


def first_bad(values: np.ndarray, spec) -> tuple[int, str] | None:
    """The first of ``values`` (distinct texts) that ``coding.typed`` refuses, as (index, problem):
    ``"number"`` (not a number), ``"weight"`` (a weight <= 0), ``"order"`` (not in the order)."""
    kind = column_kind(spec)
    if kind == "numeric":
        numbers = as_numbers(values, spec)
        bad = np.flatnonzero(~np.isfinite(numbers))
        if len(bad):
            return int(bad[0]), "number"
        if spec.role == "weight":
            bad = np.flatnonzero(numbers <= 0)
            if len(bad):
                return int(bad[0]), "weight"
    elif kind == "ordinal":
        allowed = set(spec.order)
        bad = [i for i, v in enumerate(values) if v not in allowed]
        if bad:
            return bad[0], "order"
    return None


def raise_value_error(source: Source, name: str, spec, value: str, row: int) -> None:
    """Raise the DataError ``coding.typed`` raises for ``value`` first met at data row ``row``: the same
    function phrases it, on a one-value column whose row labels start at ``row``."""
    typed(np.zeros(1, dtype=np.int64), np.array([value], dtype=object), name, spec, RowShim(source, row))
    raise DataError(f"{source.path}: column {name!r}, {source.row_label(row)}: {value!r} is not valid")


class ColumnDomain:
    """Distinct non-missing values of one column in first-seen order (ids ``gid``), typed by the policy."""

    def __init__(self, name: str, spec):
        self.name = name
        self.spec = spec
        self.kind = column_kind(spec)
        if self.kind == "ordinal":
            self._position = {v: i for i, v in enumerate(spec.order)}
            self._seen = np.zeros(len(spec.order), dtype=bool)
        else:
            self._index = pd.Index([], dtype=float if self.kind == "numeric" else object)
            self._keys: list[np.ndarray] = []

    # -------------------------------------------------------------- growing
    @property
    def card(self) -> int:
        """Number of ids handed out so far (ids run 0 .. card-1)."""
        return len(self._seen) if self.kind == "ordinal" else len(self._index)

    def keys_of(self, values: np.ndarray) -> np.ndarray:
        """The identity of each text: a float, an order position, or the text itself."""
        if self.kind == "numeric":
            return as_numbers(values, self.spec)
        if self.kind == "ordinal":
            return np.array([self._position.get(v, -1) for v in values], dtype=np.int64)
        return np.asarray(values, dtype=object)

    def add(self, values: np.ndarray) -> np.ndarray:
        """Ids of ``values`` (distinct, checked texts), adding the new ones in the order given."""
        keys = self.keys_of(values)
        if self.kind == "ordinal":
            self._seen[keys[keys >= 0]] = True
            return keys
        if len(keys) == 0:
            return np.zeros(0, dtype=np.int64)
        found = self._index.get_indexer(keys)
        new = found < 0
        if new.any():
            fresh = pd.unique(keys[new]) if self.kind == "numeric" else keys[new]
            self._keys.append(np.asarray(fresh))
            self._index = self._index.append(pd.Index(fresh, dtype=self._index.dtype))
            found = self._index.get_indexer(keys)
        return found.astype(np.int64)

    def lookup(self, values: np.ndarray) -> np.ndarray:
        """Ids of ``values`` already in the domain (-1 for any that is not)."""
        keys = self.keys_of(values)
        if self.kind == "ordinal" or len(keys) == 0:
            return keys.astype(np.int64) if len(keys) else np.zeros(0, dtype=np.int64)
        return self._index.get_indexer(keys).astype(np.int64)

    # -------------------------------------------------------------- final order
    def present(self) -> np.ndarray:
        """The ids in use (ordinal: positions seen; others: all)."""
        return np.flatnonzero(self._seen) if self.kind == "ordinal" else np.arange(self.card)

    def key_values(self) -> np.ndarray:
        """Key of each id (floats or texts); ordinal: the order's texts."""
        if self.kind == "ordinal":
            return np.array(self.spec.order, dtype=object)
        return self._index.to_numpy(dtype=float if self.kind == "numeric" else object)

    def sorted_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(code of each id, labels in code order)`` with codes as ``column_codes`` gives them on the
        in-memory table (ordinal: labels are the whole order)."""
        if self.kind == "ordinal":
            return np.arange(len(self._seen), dtype=np.int64), np.array(self.spec.order, dtype=object)
        keys = self.key_values()
        order = np.argsort(keys if self.kind == "numeric" else keys.astype(str), kind="stable")
        codes = np.empty(len(keys), dtype=np.int64)
        codes[order] = np.arange(len(keys))
        return codes, keys[order]

    def hierarchy_labels(self) -> list[str]:
        """The column's present values as ``coding.check_hierarchies`` lists them: numbers as ``%g`` in
        first-seen order, categories in category order."""
        if self.kind == "numeric":
            return list(dict.fromkeys(f"{v:g}" for v in self.key_values()))
        if self.kind == "ordinal":
            return [str(self.spec.order[i]) for i in self.present()]
        _, labels = self.sorted_codes()
        return [str(v) for v in labels]

    def sensitive_domain(self, leaves: list[str] | None) -> tuple[np.ndarray, np.ndarray]:
        """``(domain, index of each id in it)`` as :func:`privaudit.core.summary.sensitive_codes` orders the
        domain: sorted numbers, the policy's order, sorted texts, or hierarchy-leaf order."""
        if self.kind == "numeric":
            keys = self.key_values()
            domain = np.unique(keys)
            return domain, np.searchsorted(domain, keys).astype(np.int64)
        codes, labels = self.sorted_codes()
        ids = self.present()  # ids in use, in code order (codes are increasing in id for ordinal)
        by_code = np.argsort(codes[ids], kind="stable")
        ids = ids[by_code]
        present = [str(labels[codes[i]]) for i in ids]
        if leaves is not None:
            pos = {v: i for i, v in enumerate(leaves)}
            ranked = sorted(range(len(present)), key=lambda j: pos.get(present[j], len(pos)))
            ids, present = ids[ranked], [present[j] for j in ranked]
        index = np.full(self.card, -1, dtype=np.int64)
        index[ids] = np.arange(len(ids))
        return np.array(present, dtype=object), index
