"""privaudit: privacy audit and compliance checks for microdata releases.

Public plugin API: :data:`hookimpl` to mark hook implementations, :class:`Assessor`, :class:`Params`,
:class:`Details`, :class:`Measurement`, :class:`ClassRule` and :class:`SyntheticDefault` to define assessors, :class:`Remediator` and :class:`Remediation` for
remediators, :class:`ExploreRequest` and :class:`ExploreCandidate` for the candidates a remediator offers
``remediate --explore`` (see docs/plugins.md). Every name is exported lazily, so that ``import privaudit.cli`` stays
light (a Ctrl-C while the command starts is answered by the command, not by a traceback).
"""

from collections.abc import Mapping
from typing import Any

from privaudit.common import extensions as _extensions

__version__ = "0.1.0"


def _registered(kind: str) -> Mapping[str, Any]:
    """The process-wide registry's extensions of ``kind``: the package root wires the plugin host to the
    packages below it (:mod:`privaudit.common.extensions`), which never import it."""
    from privaudit.pipeline.plugins import get_registry

    return get_registry().of(kind)


_extensions.provide(_registered)

__all__ = [
    "Assessor",
    "AuditContext",
    "ClassRule",
    "ClassSummary",
    "Details",
    "ExploreCandidate",
    "ExploreRequest",
    "Measurement",
    "Params",
    "SyntheticDefault",
    "Remediation",
    "Remediator",
    "SensitiveCounts",
    "audit",
    "determination",
    "diff",
    "explore",
    "hookimpl",
    "remediate",
    "__version__",
]

_LAZY = {
    "Assessor": "privaudit.plugin.assessor",
    "Measurement": "privaudit.plugin.assessor",
    "Params": "privaudit.plugin.assessor",
    "Details": "privaudit.plugin.assessor",
    "ClassRule": "privaudit.plugin.assessor",
    "SyntheticDefault": "privaudit.plugin.assessor",
    "hookimpl": "privaudit.plugin.hookspecs",
    "Remediation": "privaudit.plugin.remediator",
    "Remediator": "privaudit.plugin.remediator",
    "ExploreCandidate": "privaudit.plugin.remediator",
    "ExploreRequest": "privaudit.plugin.remediator",
    "AuditContext": "privaudit.core.context",
    "audit": "privaudit.api",
    "remediate": "privaudit.api",
    "diff": "privaudit.api",
    "determination": "privaudit.api",
    "explore": "privaudit.api",
    "ClassSummary": "privaudit.core.summary",
    "SensitiveCounts": "privaudit.core.summary",
}


def __getattr__(name: str) -> Any:
    """The public names, imported on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'privaudit' has no attribute {name!r}")
