"""What plugin authors program against (see ``docs/plugins.md``): import everything from here.

``from privaudit.plugin import Assessor, Params, Details, Measurement, hookimpl`` and the rest of
:data:`__all__`: :data:`hookimpl` marks hook implementations (the hook specifications, one per kind of
extension, are in ``hookspecs.py``); a record of every kind (:class:`Assessor`, :class:`Remediator`,
:class:`Section`, :class:`Engine`, :class:`Reader`, :class:`Measure`, :class:`Chapter`,
:class:`OutputFormat`); an assessor's parameters, details and measurement and the capabilities it declares
(:class:`ClassRule`, :class:`SampleCriterion`, :class:`ResponseBound`, :class:`SyntheticDefault`,
:class:`Disclosure`, grouped by :class:`Capabilities`); what a check reads (:class:`AuditContext`) and what a
section reads (:class:`CheckEntry`, :class:`AuditView`); the section data model (:class:`ReportSection`,
:class:`Figure`, :class:`DataTable`, :class:`KeyValues`) and builders (the modules ``text``, ``figures``,
``binning``, ``charts``); the details pieces assessors share (``details.py``) and the helpers
(``helpers.py``).

Every name is imported on first use (PEP 562 module ``__getattr__``), by the module that defines it, so
``import privaudit.plugin`` loads nothing, a plugin module importing a record stays light (``privaudit
policy check`` imports neither pandas nor pyarrow), and a kind whose module is absent fails only when it is
used. Nothing here names the driver (``privaudit.pipeline``), even for type checking.

``result.py`` holds the typed report every renderer reads (:class:`Report`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - the names as type checkers see them
    from privaudit.common.params import Params
    from privaudit.core.context import AuditContext
    from privaudit.plugin.assessor import (
        Assessor,
        Capabilities,
        ClassRule,
        ContextThreshold,
        Details,
        Disclosure,
        Inputs,
        Measurement,
        ResponseBound,
        SampleCriterion,
        Steering,
        SyntheticDefault,
    )
    from privaudit.plugin.details import AttackCounts, Histogram, Rate, Risk, SeriesExample, WorstClass
    from privaudit.plugin.helpers import (
        TOLERANCE,
        check_sensitive,
        compared_columns,
        compared_columns_problem,
        exceeds,
        population_classes,
        reaches,
        size_histogram,
        value_histogram,
    )
    from privaudit.plugin.hookspecs import hookimpl
    from privaudit.plugin.remediator import Remediation, Remediator
    from privaudit.plugin.sections import CheckEntry, DataTable, Figure, KeyValues, ReportSection, Section
    from privaudit.plugin.view import AuditView

#: public name -> the module defining it (the records of kinds added by their own modules included)
_LAZY = {
    "hookimpl": "privaudit.plugin.hookspecs",
    # records, one per kind of extension
    "Assessor": "privaudit.plugin.assessor",
    "Remediator": "privaudit.plugin.remediator",
    "Section": "privaudit.plugin.sections",
    "Engine": "privaudit.plugin.engine",
    "Reader": "privaudit.plugin.reader",
    "Measure": "privaudit.plugin.measure",
    "Report": "privaudit.plugin.result",
    "Chapter": "privaudit.plugin.chapter",
    "OutputFormat": "privaudit.plugin.output",
    # an assessor's models and its declared capabilities
    "Params": "privaudit.plugin.assessor",
    "Details": "privaudit.plugin.assessor",
    "Measurement": "privaudit.plugin.assessor",
    "Capabilities": "privaudit.plugin.assessor",
    "ClassRule": "privaudit.plugin.assessor",
    "ContextThreshold": "privaudit.plugin.assessor",
    "Disclosure": "privaudit.plugin.assessor",
    "Inputs": "privaudit.plugin.assessor",
    "ResponseBound": "privaudit.plugin.assessor",
    "SampleCriterion": "privaudit.plugin.assessor",
    "Steering": "privaudit.plugin.assessor",
    "SyntheticDefault": "privaudit.plugin.assessor",
    "Remediation": "privaudit.plugin.remediator",
    # what a check and a section read
    "AuditContext": "privaudit.core.context",
    "AuditView": "privaudit.plugin.view",
    "CheckEntry": "privaudit.plugin.sections",
    # the section data model
    "ReportSection": "privaudit.plugin.sections",
    "Figure": "privaudit.plugin.sections",
    "DataTable": "privaudit.plugin.sections",
    "KeyValues": "privaudit.plugin.sections",
    # the details pieces assessors share
    "WorstClass": "privaudit.plugin.details",
    "Histogram": "privaudit.plugin.details",
    "Rate": "privaudit.plugin.details",
    "Risk": "privaudit.plugin.details",
    "AttackCounts": "privaudit.plugin.details",
    "SeriesExample": "privaudit.plugin.details",
    # helpers
    "TOLERANCE": "privaudit.plugin.helpers",
    "check_sensitive": "privaudit.plugin.helpers",
    "compared_columns": "privaudit.plugin.helpers",
    "compared_columns_problem": "privaudit.plugin.helpers",
    "exceeds": "privaudit.plugin.helpers",
    "population_classes": "privaudit.plugin.helpers",
    "reaches": "privaudit.plugin.helpers",
    "size_histogram": "privaudit.plugin.helpers",
    "value_histogram": "privaudit.plugin.helpers",
}

#: the section builders and the rest of the contract, as modules (``from privaudit.plugin import figures``)
_MODULES = (
    "assessor",
    "binning",
    "charts",
    "details",
    "figures",
    "helpers",
    "hookspecs",
    "remediator",
    "sections",
    "text",
    "view",
)

__all__ = [
    "Assessor",
    "AttackCounts",
    "AuditContext",
    "AuditView",
    "Capabilities",
    "Chapter",
    "CheckEntry",
    "ClassRule",
    "DataTable",
    "Details",
    "Disclosure",
    "Engine",
    "Figure",
    "Histogram",
    "Inputs",
    "KeyValues",
    "Measure",
    "Measurement",
    "OutputFormat",
    "Params",
    "ContextThreshold",
    "Rate",
    "Reader",
    "Remediation",
    "Remediator",
    "ReportSection",
    "ResponseBound",
    "Risk",
    "SampleCriterion",
    "Section",
    "SeriesExample",
    "Steering",
    "SyntheticDefault",
    "TOLERANCE",
    "WorstClass",
    "check_sensitive",
    "compared_columns",
    "compared_columns_problem",
    "exceeds",
    "hookimpl",
    "population_classes",
    "reaches",
    "size_histogram",
    "value_histogram",
]


def __getattr__(name: str) -> Any:
    """A public name, imported on first use from the module that defines it."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'privaudit.plugin' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as exc:
        if exc.name != module:  # a missing dependency of the module, not the module itself
            raise
        raise AttributeError(
            f"privaudit.plugin.{name}: this privaudit has no {module} (the kind it defines is not available)"
        ) from None
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_MODULES})
