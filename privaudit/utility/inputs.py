"""What utility measures read: the release's class summary (computed once per audit, shared with the
risk checks), the quasi-identifiers' hierarchies, and where a measure needs them the released records and
the original table aligned to them. Nothing here knows of policies or reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from privaudit.core.summary import ClassSummary
from privaudit.utility.domain import SUPPRESSED, Domain, coded, domain_from_hierarchy, domain_from_values


@dataclass
class ClassColumn:
    """One quasi-identifier's released value per class: ``codes`` (one per class, -1 = suppressed or
    missing) into ``labels`` (their text)."""

    codes: np.ndarray
    labels: list[str]

    @property
    def suppressed(self) -> np.ndarray:
        """Per class: the value is suppressed (missing, or the text ``*``)."""
        star = np.array([t == SUPPRESSED for t in self.labels] + [True], dtype=bool)
        return star[self.codes]


@dataclass
class UtilityInputs:
    """The inputs of an audit's utility measures.

    ``summary``: the release's class summary on ``quasi_identifiers``; ``hierarchies``: column -> leaves x
    levels table (:attr:`privaudit.core.hierarchy.Hierarchy.table`); ``release``: the released records
    (None from out-of-memory engines: the measures of the release alone then read the summary only);
    ``original``: the table before masking, row-aligned with ``release`` (None without ``--original``);
    ``numeric``: the columns sdcMicro's measures compare (numeric in both tables); ``compared``: the columns a
    synthetic release's quality report compares (neither identifiers nor weights); ``options``: per measure
    options (``{"classification_accuracy": {"target": ...}}``)."""

    summary: ClassSummary
    quasi_identifiers: Sequence[str]
    hierarchies: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    release: pd.DataFrame | None = None
    original: pd.DataFrame | None = None
    training: pd.DataFrame | None = None
    numeric: Sequence[str] = ()
    compared: Sequence[str] = ()
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def n_records(self) -> int:
        return self.summary.n_records

    @cached_property
    def domains(self) -> dict[str, Domain]:
        """Each quasi-identifier's domain: its hierarchy, else ARX's ``[value, *]`` over the original's
        distinct values (the release's without ``--original``)."""
        out = {}
        for q in self.quasi_identifiers:
            if q in self.hierarchies:
                out[q] = domain_from_hierarchy(self.hierarchies[q])
            elif self.original is not None and q in self.original:
                out[q] = domain_from_values(self.original[q], "the original's distinct values")
            else:
                out[q] = domain_from_values(
                    pd.Series(self.class_column(q).labels, dtype=object), "the release's distinct values"
                )
        return out

    def class_column(self, column: str) -> ClassColumn:
        cache = self.__dict__.setdefault("_class_columns", {})
        if column not in cache:
            s = self.summary
            reps = s.frame[column].iloc[s.first_row] if len(s.first_row) else s.frame[column].iloc[:0]
            codes, labels = coded(reps.reset_index(drop=True))
            cache[column] = ClassColumn(codes, labels)
        return cache[column]

    def missing_suppressed(self, column: str) -> bool:
        """Whether a missing released value of ``column`` counts as suppressed. With the original, yes, as
        ARX counts its output's missings, but for the values missing from the original too
        (:meth:`missing_in_both`). Without it the release stands in for the original, and a missing
        value is the input's own (an answer never given: a release compared with itself keeps everything),
        except in a column the release generalized -- some released value above its hierarchy's leaves, or no
        value left at all --, where a missing value is the suppression string (ARX's ``*``, the root)."""
        cache = self.__dict__.setdefault("_missing_suppressed", {})
        if column not in cache:
            if self.original is not None:
                cache[column] = True
            else:
                labels = [t for t in self.class_column(column).labels if t and t != SUPPRESSED]
                dom = self.domains[column]
                levels = dom.level_of(labels) if dom.source == "hierarchy" else np.zeros(0)
                cache[column] = not labels or bool(np.nan_to_num(levels, nan=0.0).max(initial=0.0) > 0)
        return bool(cache[column])

    def missing_in_both(self, column: str) -> np.ndarray | None:
        """Per class, the records whose ``column`` is missing in the release and was missing in the original
        too: answers never given, not suppressions, however the release's missing values are counted
        otherwise (suppressed records left out). None when there is none, or no original to tell by."""
        cache = self.__dict__.setdefault("_missing_in_both", {})
        if column not in cache:
            s = self.summary
            found = None
            if (
                self.original is not None
                and self.release is not None
                and column in self.original
                and column in self.release
                and s.class_of is not None
                and len(self.original) == len(self.release)
            ):
                both = self.release[column].isna().to_numpy() & self.original[column].isna().to_numpy()
                if both.any():
                    found = np.bincount(np.asarray(s.class_of)[both], minlength=s.n_classes)
                    found[self.suppressed_classes] = 0
            cache[column] = found
        return cache[column]

    def missing_figure(self, column: str, suppressed: float, kept: float) -> float:
        """A measure's figure for a missing value of ``column``: ``suppressed``, or ``kept`` (as a value
        released as it was) when the missing value is the input's own (:meth:`missing_suppressed`)."""
        return suppressed if self.missing_suppressed(column) else kept

    @cached_property
    def suppressed_classes(self) -> np.ndarray:
        """Per class: every quasi-identifier suppressed, i.e. a suppressed record (ARX's outlier). Without the
        original, a record missing its only quasi-identifier is a missing answer, not a suppressed record."""
        if (
            self.original is None
            and len(self.quasi_identifiers) == 1
            and not self.missing_suppressed(self.quasi_identifiers[0])
        ):
            return np.zeros(self.summary.n_classes, dtype=bool)
        out = np.ones(self.summary.n_classes, dtype=bool)
        for q in self.quasi_identifiers:
            out &= self.class_column(q).suppressed
        return out if self.quasi_identifiers else np.zeros(self.summary.n_classes, dtype=bool)
