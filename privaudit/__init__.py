"""privaudit: privacy audit and compliance checks for microdata releases.

Public plugin API: :data:`hookimpl` to mark hook implementations, :class:`Assessor`, :class:`Params`,
:class:`Details`, :class:`Measurement`, :class:`ClassRule` and :class:`SyntheticDefault` to define assessors, :class:`Remediator` and :class:`Remediation` for
remediators (see docs/plugins.md). Every name is exported lazily, so that ``import privaudit.cli`` stays
light (a Ctrl-C while the command starts is answered by the command, not by a traceback).
"""

from typing import Any

__version__ = "0.1.0"

__all__ = [
    "Assessor",
    "AuditContext",
    "ClassRule",
    "ClassSummary",
    "Details",
    "Measurement",
    "Params",
    "SyntheticDefault",
    "Remediation",
    "Remediator",
    "SensitiveCounts",
    "audit",
    "diff",
    "explore",
    "hookimpl",
    "remediate",
    "__version__",
]

_LAZY = {
    "Assessor": "privaudit.assessors.api",
    "Measurement": "privaudit.assessors.api",
    "Params": "privaudit.assessors.api",
    "Details": "privaudit.assessors.api",
    "ClassRule": "privaudit.assessors.api",
    "SyntheticDefault": "privaudit.assessors.api",
    "hookimpl": "privaudit.core.hookspecs",
    "Remediation": "privaudit.remediation.api",
    "Remediator": "privaudit.remediation.api",
    "AuditContext": "privaudit.core.context",
    "audit": "privaudit.api",
    "remediate": "privaudit.api",
    "diff": "privaudit.api",
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
