"""Checking a check's parameters against the policy (the ``validate_policy`` of both assessors)."""

from __future__ import annotations


def sensitive_column_problem(column: str, policy) -> str | None:
    """A one-line policy error when ``column`` is not a column of the policy with role ``sensitive``.

    ``policy`` is a :class:`privaudit.core.policy.Policy`; only its public ``columns`` mapping is read.
    """
    spec = policy.columns.get(column)
    if spec is None:
        known = ", ".join(sorted(name for name, s in policy.columns.items() if s.role == "sensitive"))
        return f"sensitive: {column!r} is not a column of the policy" + (f" (sensitive columns: {known})" if known else "")
    if spec.role != "sensitive":
        return f"sensitive: column {column!r} has role {spec.role!r}, not 'sensitive'"
    return None
