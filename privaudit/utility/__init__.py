"""Utility: what a release keeps, measured as ARX, sdcMicro and SDMetrics measure it -- the counterpart of
:mod:`privaudit.risk`, and like it free of policies and reports.

Every measure is a function of :class:`~privaudit.utility.inputs.UtilityInputs` (the release's class
summary, shared with the risk checks, the hierarchies, and where needed the released records and the
original) returning a list of entries ``{"measure", "column", "value", "raw", "details"}``
(:mod:`privaudit.utility.entries`). This package holds the mathematics, one module per measure, and
knows nothing of the plugin registry: the measures an audit can compute are registered records
(:class:`privaudit.plugin.measure.Measure`, the built-ins listed in :mod:`privaudit.pipeline.measures`),
each naming its computation; measures computing several names at once share one (``deviations``,
``synthetic_quality``) and form a **family** (:class:`Family`), run once. The functions below take the
records they work on (``measures``: what the driver hands them from its registry); without them they read
the current registry's (:mod:`privaudit.common.extensions`), in registration order, which is the report's.

A family for a synthetic release reads ``inputs.training`` and ``inputs.release`` and declares
``needs=frozenset({"training"}), release=frozenset({"synthetic"})``; one with options reads
``inputs.options[name]`` (the policy's ``utility: [{classification_accuracy: {target: income}}]``; a
``target`` is checked to be a column of the policy when the policy is loaded).

Measures of the release alone (ARX 3.9, ``org.deidentifier.arx.aggregates.quality``): ``granularity``,
``generalization_intensity``, ``discernibility``, ``aecs``, ``ambiguity``, ``suppressed_cells``. Against
the original (``--original``): ARX's ``non_uniform_entropy`` and ``sse_sst``, sdcMicro's ``il1s`` and
``eigen`` (``dUtility``) and ``mean_deviation``, ``variance_deviation``, ``correlation_deviation``
(``summary.micro``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from privaudit.common.extensions import registered
from privaudit.core.errors import first_line
from privaudit.utility.entries import entry
from privaudit.utility.inputs import UtilityInputs


@dataclass(frozen=True)
class Family:
    """Measures computed together by one function ``compute(inputs) -> entries``.

    ``needs``: inputs beyond the release's class summary and hierarchies: ``"original"`` (the table before
    masking, row-aligned: ``inputs.original``, and the released records, ``inputs.release``),
    ``"training"`` (a synthetic release's training table, ``inputs.training``), ``"numeric"`` (numeric
    columns: without any, the family is left out of the default set; named, it explains its absence).
    ``release``: the kinds of release it applies to (``"microdata"``, ``"synthetic"``)."""

    measures: tuple[str, ...]
    compute: Callable[[UtilityInputs], list[dict[str, Any]]]
    needs: frozenset[str] = frozenset()
    release: frozenset[str] = frozenset({"microdata"})


def _records(measures: Iterable[Any] | Mapping[str, Any] | None) -> list[Any]:
    if measures is None:
        measures = registered("measure")
    return list(measures.values()) if isinstance(measures, Mapping) else list(measures)


def resolve(
    compute: str | Callable[[UtilityInputs], list[dict[str, Any]]],
) -> Callable[[UtilityInputs], list[dict[str, Any]]]:
    """A measure's computation: the function, or the one ``"module:function"`` names (imported on use)."""
    if callable(compute):
        return compute
    module, _, function = compute.partition(":")
    found: Callable[[UtilityInputs], list[dict[str, Any]]] = getattr(
        importlib.import_module(module), function or "measure"
    )
    return found


def families(measures: Iterable[Any] | Mapping[str, Any] | None = None) -> list[Family]:
    """The families of ``measures`` (records with ``name``, ``compute``, ``needs``, ``release``): those
    sharing one ``compute`` are one family, in the order of their first measure."""
    grouped: dict[Any, list[Any]] = {}
    for record in _records(measures):
        grouped.setdefault(record.compute, []).append(record)
    out = []
    for compute, records in grouped.items():
        first = records[0]

        def run(inputs: UtilityInputs, compute: Any = compute) -> list[dict[str, Any]]:
            return resolve(compute)(inputs)

        out.append(Family(tuple(r.name for r in records), run, frozenset(first.needs), frozenset(first.release)))
    return out


def available(measures: Iterable[Any] | Mapping[str, Any] | None = None) -> list[str]:
    """The measure names registered, in registration order (the report's)."""
    return [r.name for r in _records(measures)]


def family_of(name: str, measures: Iterable[Any] | Mapping[str, Any] | None = None) -> Family:
    for f in families(measures):
        if name in f.measures:
            return f
    raise KeyError(name)


def needs(
    name: str, for_value: bool = False, measures: Iterable[Any] | Mapping[str, Any] | None = None
) -> frozenset[str]:
    """The inputs measure ``name`` needs (``for_value``: for its normalised value, as a gate does: AECS and
    discernibility are normalised by the original's classes, their ``raw`` is not)."""
    record = next((r for r in _records(measures) if r.name == name), None)
    if record is None:
        raise KeyError(name)
    extra = frozenset(getattr(record, "value_needs", frozenset())) if for_value else frozenset()
    return frozenset(record.needs) | extra


def runnable(
    have: Iterable[str], release: str = "microdata", measures: Iterable[Any] | Mapping[str, Any] | None = None
) -> list[str]:
    """The measures that run by default with the inputs ``have`` (``"original"``, ``"training"``,
    ``"numeric"``)."""
    have = set(have)
    return [r.name for r in _records(measures) if set(r.needs) <= have and release in r.release]


def measure_all(
    inputs: UtilityInputs,
    names: Sequence[str],
    on_error: type[BaseException] | None = None,
    measures: Iterable[Any] | Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The entries of the measures ``names`` (each family run once). A family that raises gives its
    measures one entry each with no value and ``details.error`` (an exception of type ``on_error``, bad
    input, propagates)."""
    wanted = set(names)
    out: list[dict[str, Any]] = []
    for fam in families(measures):
        mine = [m for m in fam.measures if m in wanted]
        if not mine:
            continue
        try:
            entries = fam.compute(inputs)
        except Exception as exc:  # a failing measure is reported as failed, never as a figure
            if on_error is not None and isinstance(exc, on_error):
                raise
            text = first_line(exc)
            entries = [entry(m, None, None, None, error=f"{type(exc).__name__}: {text}") for m in mine]
        out += [e for e in entries if e["measure"] in wanted]
    return out


__all__ = [
    "Family",
    "UtilityInputs",
    "available",
    "families",
    "family_of",
    "measure_all",
    "needs",
    "resolve",
    "runnable",
]
