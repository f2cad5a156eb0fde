"""The figures an audit context shares that the core cannot compute itself, because they need the packages
built on it: the utility entries (:mod:`privaudit.utility`) and the releases of a series linked person by
person (:mod:`privaudit.pipeline.series`). :data:`DERIVED` is what the audit driver hands every context it
builds (:class:`privaudit.core.context.Derived`); the context computes each once, on first use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from privaudit.core.context import AuditContext
from privaudit.core.errors import PrivauditError, first_line

#: the roles whose columns no utility measure compares
_NOT_COMPARED = frozenset({"identifier", "record_id", "household_id", "weight"})


def compared_columns(ctx: AuditContext) -> list[str]:
    """The columns a synthetic release's quality report compares: neither identifiers nor weights."""
    return [c for c, spec in ctx.policy.columns.items() if spec.role not in _NOT_COMPARED]


def numeric_columns(ctx: AuditContext) -> list[str]:
    """The columns sdcMicro's utility measures compare: numeric, neither identifiers nor weights."""
    return [c for c, spec in ctx.policy.columns.items() if spec.type == "numeric" and spec.role not in _NOT_COMPARED]


def utility_names(ctx: AuditContext, checks: Sequence[Any] | None = None, measures: Any = None) -> list[str]:
    """The utility measures an audit computes: the policy's ``utility`` list, or every measure (of
    ``measures``, the registered records; default the current registry's) whose inputs are present; plus those
    the checks gate on (their parameters' ``utility_measures()``)."""
    from privaudit.utility import runnable

    have = {"original"} if ctx.original is not None else set()
    if ctx.training is not None:
        have.add("training")
    if numeric_columns(ctx):
        have.add("numeric")
    policy = ctx.policy
    names = policy.utility if policy.utility is not None else runnable(have, policy.model.release, measures)
    gated = [
        m
        for c in (checks if checks is not None else policy.checks)
        for m in (getattr(c.params, "utility_measures", lambda: [])())
    ]
    return list(dict.fromkeys([*names, *gated]))


def utility_inputs(ctx: AuditContext, training: bool = True) -> Any:
    """The :class:`~privaudit.utility.inputs.UtilityInputs` of a context: its shared class summary, the
    policy's quasi-identifiers and hierarchies, and the tables (``training``: the synthetic release's
    training table too)."""
    from privaudit.utility.inputs import UtilityInputs

    p = ctx.policy
    return UtilityInputs(
        ctx.summary,
        list(p.quasi_identifiers),
        {q: h.table for q, h in p.hierarchies.items() if q in p.quasi_identifiers},
        release=ctx.table,
        original=ctx.original,
        training=ctx.training if training else None,
        numeric=numeric_columns(ctx),
        compared=compared_columns(ctx),
        options=p.utility_options,
    )


def shared_utility_inputs(ctx: AuditContext) -> Any:
    """:func:`utility_inputs` of ``ctx``, made once and kept with it: what the measures group once (the
    original's classes, :func:`privaudit.utility.original_classes.original_class_sizes`) is grouped once per
    audit, whoever reads it after the utility entries (the determination's initial risk)."""
    kept = ctx.__dict__.get("_utility_inputs")
    if kept is None:
        kept = ctx.__dict__["_utility_inputs"] = utility_inputs(ctx)
    return kept


class AuditDerived:
    """:class:`privaudit.core.context.Derived` for the audit driver's contexts. ``measures``: the registered
    utility measures (:class:`~privaudit.plugin.measure.Measure` records by name) the driver hands it from
    its registry; None: the current registry's when the entries are computed."""

    def __init__(self, measures: Any = None) -> None:
        self.measures = measures

    def utility(self, ctx: AuditContext) -> list[dict]:
        from privaudit.utility import measure_all
        from privaudit.utility.entries import entry

        names = utility_names(ctx, measures=self.measures)
        if not names:
            return []
        try:
            ctx.summary  # noqa: B018 - built here so that a failure is each measure's error, not the audit's
        except PrivauditError:
            raise
        except Exception as exc:  # the checks report the failure each; no figure is made up
            text = f"{type(exc).__name__}: {first_line(exc)}"
            return [entry(m, None, None, None, error=text) for m in names]
        return measure_all(shared_utility_inputs(ctx), names, on_error=PrivauditError, measures=self.measures)

    def series(self, ctx: AuditContext) -> Any:
        from privaudit.pipeline.series import build_series

        previous = [AuditContext(ctx.policy, t.frame).summary for t in ctx.series_inputs.previous]
        return build_series(ctx.policy, ctx.series_inputs, [ctx.summary, *previous])


DERIVED = AuditDerived()
