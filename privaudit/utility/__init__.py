"""Utility: what a release keeps, measured as ARX, sdcMicro and SDMetrics measure it -- the counterpart of
:mod:`privaudit.risk`, and like it free of policies and reports.

Every measure is a function of :class:`~privaudit.utility.inputs.UtilityInputs` (the release's class
summary, shared with the risk checks, the hierarchies, and where needed the released records and the
original) returning a list of entries ``{"measure", "column", "value", "raw", "details"}``
(:mod:`privaudit.utility.entries`). Measures are grouped in **families** (:class:`Family`): one module, one
function, the measure names it yields and the inputs it needs. :data:`FAMILIES` is the registry the audit
reads; a new family is one more line in it (or ``FAMILIES.append(Family(...))``).

A family for a synthetic release reads ``inputs.training`` and ``inputs.release`` and declares
``needs=frozenset({"training"}), release=frozenset({"synthetic"})``; one with options reads
``inputs.options[name]`` (the policy's ``utility: [{classification_accuracy: {target: income}}]``; a
``target`` is checked to be a column of the policy when the policy is loaded). For example::

    FAMILIES.append(Family(("classification_accuracy",),
                           lambda i: classification.measure(i.release, i.original, **i.options.get(
                               "classification_accuracy", {})), frozenset({"original"})))

Measures of the release alone (ARX 3.9, ``org.deidentifier.arx.aggregates.quality``): ``granularity``,
``generalization_intensity``, ``discernibility``, ``aecs``, ``ambiguity``, ``suppressed_cells``. Against
the original (``--original``): ARX's ``non_uniform_entropy`` and ``sse_sst``, sdcMicro's ``il1s`` and
``eigen`` (``dUtility``) and ``mean_deviation``, ``variance_deviation``, ``correlation_deviation``
(``summary.micro``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from privaudit.core.errors import first_line
from privaudit.utility import (
    aecs,
    ambiguity,
    classification,
    deviations,
    discernibility,
    eigen,
    generalization_intensity,
    granularity,
    il1s,
    non_uniform_entropy,
    squared_error,
    suppressed_cells,
    synthetic_quality,
)
from privaudit.utility.entries import entry
from privaudit.utility.inputs import UtilityInputs

#: Every measure name the JSON report knows (``utility[].measure``), in the report's order.
MEASURES = (
    "granularity",
    "generalization_intensity",
    "discernibility",
    "aecs",
    "ambiguity",
    "suppressed_cells",
    "non_uniform_entropy",
    "sse_sst",
    "il1s",
    "eigen",
    "mean_deviation",
    "variance_deviation",
    "correlation_deviation",
    "classification_accuracy",
    "ks_complement",
    "tv_complement",
    "correlation_similarity",
    "contingency_similarity",
    "quality_score",
)


@dataclass(frozen=True)
class Family:
    """Measures computed together by one function ``compute(inputs) -> entries``.

    ``needs``: inputs beyond the release's class summary and hierarchies: ``"original"`` (the table before
    masking, row-aligned: ``inputs.original``, and the released records, ``inputs.release``),
    ``"training"`` (a synthetic release's training table, ``inputs.training``), ``"numeric"`` (numeric
    columns: without any, the family is left out of the default set; named, it explains its absence).
    ``release``: the kinds of
    release it applies to (``"microdata"``, ``"synthetic"``)."""

    measures: tuple[str, ...]
    compute: Callable[[UtilityInputs], list[dict]]
    needs: frozenset[str] = frozenset()
    release: frozenset[str] = frozenset({"microdata"})


ORIGINAL = frozenset({"original"})
NUMERIC = frozenset({"original", "numeric"})

#: The registry of measure families, in the report's order.
FAMILIES: list[Family] = [
    Family(("granularity",), granularity.measure),
    Family(("generalization_intensity",), generalization_intensity.measure),
    Family(("discernibility",), discernibility.measure),
    Family(("aecs",), aecs.measure),
    Family(("ambiguity",), ambiguity.measure),
    Family(("suppressed_cells",), suppressed_cells.measure),
    Family(("non_uniform_entropy",), non_uniform_entropy.measure, ORIGINAL),
    Family(("sse_sst",), squared_error.measure, ORIGINAL),
    Family(("il1s",), il1s.measure, NUMERIC),
    Family(("eigen",), eigen.measure, NUMERIC),
    Family(deviations.NAMES, deviations.measure, NUMERIC),
    # a target is never among the inputs present: the benchmark runs when the policy names it with one
    Family(("classification_accuracy",), classification.measure, frozenset({"original", "target"})),
    Family(
        ("ks_complement", "tv_complement", "correlation_similarity", "contingency_similarity", "quality_score"),
        synthetic_quality.measure,
        frozenset({"training"}),
        frozenset({"synthetic"}),
    ),
]

#: Measures whose normalised ``value`` needs the original (their ``raw`` does not): gating on them needs it.
VALUE_NEEDS_ORIGINAL = frozenset({"aecs", "discernibility"})


def available() -> list[str]:
    """The measure names some registered family computes, in :data:`MEASURES` order (then any others)."""
    names = [m for f in FAMILIES for m in f.measures]
    return [m for m in MEASURES if m in names] + [m for m in names if m not in MEASURES]


def family_of(name: str) -> Family:
    for f in FAMILIES:
        if name in f.measures:
            return f
    raise KeyError(name)


def needs(name: str, for_value: bool = False) -> frozenset[str]:
    """The inputs measure ``name`` needs (``for_value``: for its normalised value, as a gate does)."""
    extra = ORIGINAL if for_value and name in VALUE_NEEDS_ORIGINAL else frozenset()
    return family_of(name).needs | extra


def runnable(have: Iterable[str], release: str = "microdata") -> list[str]:
    """The measures that run by default with the inputs ``have`` (``"original"``, ``"training"``,
    ``"numeric"``)."""
    have = set(have)
    return [m for m in available() if family_of(m).needs <= have and release in family_of(m).release]


def measure_all(inputs: UtilityInputs, names: Sequence[str], on_error: type[BaseException] | None = None) -> list[dict]:
    """The entries of the measures ``names`` (each family run once). A family that raises gives its
    measures one entry each with no value and ``details.error`` (an exception of type ``on_error``, bad
    input, propagates)."""
    wanted = set(names)
    out: list[dict] = []
    for fam in FAMILIES:
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
    "FAMILIES",
    "Family",
    "MEASURES",
    "UtilityInputs",
    "available",
    "family_of",
    "measure_all",
    "needs",
    "runnable",
]
