"""Utility measures: what a release keeps, each a registered :class:`Measure` record.

A record per measure name: the name the policy's ``utility`` list, a ``utility`` check and the JSON report's
``utility[].measure`` use, the ``label`` the report prints, and its computation, ``compute(inputs) ->
entries`` over :class:`~privaudit.utility.inputs.UtilityInputs` (entries made with
:func:`privaudit.utility.entries.entry`), given as ``"module:function"`` (imported when the measure runs,
so building the registry imports no numpy) or as the function itself. A computation that yields several
measures at once (sdcMicro's ``summary.micro``, SDMetrics' quality report) is named by each of their
records: records sharing one ``compute`` are one family, computed once (:func:`privaudit.utility.families`).
The built-ins are listed in :mod:`privaudit.pipeline.measures`, in the report's order; a third party's come
after them::

    from privaudit import hookimpl
    from privaudit.plugin.measure import Measure

    @hookimpl
    def privaudit_utility_measures():
        return [Measure("kept_rows", "rows kept (example)", "privaudit_kept.rows:measure")]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Measure:
    """One utility measure (see the module's docstring)."""

    name: str
    label: str  # how the report names it, and whose definition it follows: "granularity (ARX “Loss”)"
    compute: str | Callable[[Any], list[dict[str, Any]]]  # "module:function", or the function; shared within a family
    #: inputs beyond the class summary and hierarchies: "original" (and the released records), "training"
    #: (a synthetic release's training table), "numeric" (numeric columns), "target" (named by the policy)
    needs: frozenset[str] = frozenset()
    release: frozenset[str] = frozenset({"microdata"})  # the kinds of release it applies to
    value_needs: frozenset[str] = frozenset()  # inputs its normalised value needs beyond ``needs`` (a gate's)
    direction: str = "higher"  # which way the value improves ("higher": more kept)

    def __post_init__(self) -> None:
        if self.direction not in ("higher", "lower"):
            raise ValueError(f"measure {self.name!r}: direction must be 'higher' or 'lower'")
        for name in ("needs", "release", "value_needs"):  # a list or a set given: stored as a frozenset
            object.__setattr__(self, name, frozenset(getattr(self, name)))


__all__ = ["Measure"]
