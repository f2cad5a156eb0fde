"""Pieces the built-in assessors' details models share (subclasses of :class:`~privaudit.plugin.assessor.Details`):
the report's list of worst classes (:meth:`privaudit.core.context.AuditContext.worst_classes`), the
histograms :mod:`privaudit.plugin.helpers` builds, and the rates of the synthetic-release attacks.
Plugins may use them for their own details."""

from __future__ import annotations

from pydantic import Field

from privaudit.plugin.assessor import Details


class WorstClass(Details):
    """One row of a check's worst classes: the class id, its quasi-identifier values (missing shown as ``*``),
    its size, the size of the class its records match (``record_size``), and the sensitive values when the
    policy allows them. A check's per-class figures are fields of its own subclass."""

    class_: int = Field(alias="class")
    values: dict[str, str]
    size: int
    record_size: int
    sensitive_values: dict[str, int] | None = None


class Histogram(Details):
    """An equal-width histogram of per-class figures (:func:`privaudit.plugin.helpers.value_histogram`):
    ``counts[i]`` values lie in ``[edges[i], edges[i+1])``; ``infinite`` counts infinite figures apart."""

    edges: list[float]
    counts: list[int]
    infinite: int = 0


class Rate(Details):
    """A success rate with its confidence interval (Wilson's score)."""

    value: float
    ci: list[float]
    successes: float
    trials: int


class Risk(Details):
    """A residual risk: the estimate clipped to [0, 1], its interval and the unclipped estimate."""

    value: float
    ci: list[float]
    raw: float


class AttackCounts(Details):
    training: int
    control: int
    baseline: int


class SeriesExample(Details):
    """One of the worst groups of a check that composes releases (``--previous``): the release it is in, its
    published values (masked as small classes are), its size, and the people of the series it holds."""

    release: int
    release_path: str
    values: dict[str, str]
    size: int
    record_size: int
    people: int
    releases: int
