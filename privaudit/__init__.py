"""privaudit: privacy audit and compliance checks for microdata releases.

Public plugin API: :data:`hookimpl` to mark hook implementations, :class:`Assessor`, :class:`Params`
and :class:`Measurement` to define assessors (see docs/plugins.md).
"""

__version__ = "0.1.0"

from .assessor import Assessor, Measurement, Params  # noqa: E402
from .hookspecs import hookimpl  # noqa: E402

__all__ = ["Assessor", "Measurement", "Params", "hookimpl", "__version__"]
