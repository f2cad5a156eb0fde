"""privaudit: privacy audit and compliance checks for microdata releases.

Public plugin API: :data:`hookimpl` to mark hook implementations, :class:`Assessor`, :class:`Params`
and :class:`Measurement` to define assessors (see docs/plugins.md).
"""

__version__ = "0.1.0"

from privaudit.assessors.api import Assessor, Measurement, Params  # noqa: E402
from privaudit.core.hookspecs import hookimpl  # noqa: E402
from privaudit.remediation.api import Remediation, Remediator  # noqa: E402

__all__ = ["Assessor", "AuditContext", "ClassSummary", "Measurement", "Params", "Remediation", "Remediator",
           "SensitiveCounts", "hookimpl", "__version__"]

_LAZY = {"AuditContext": "privaudit.core.context", "ClassSummary": "privaudit.core.summary", "SensitiveCounts": "privaudit.core.summary"}


def __getattr__(name: str):
    """The data-model classes are exported lazily: importing them pulls in numpy and pandas."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'privaudit' has no attribute {name!r}")
