"""Moved to :mod:`privaudit.runtime.memory` (an input guard of the audit driver, not risk mathematics); the names
stay importable from here."""

from privaudit.runtime.memory import ENVIRONMENT, EXPANSION, available_memory, estimated_bytes, refuse_oversized  # noqa: F401
