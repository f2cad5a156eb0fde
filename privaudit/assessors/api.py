"""The assessor API: what a plugin implements to add a risk check.

An :class:`Assessor` couples a name (what policies write in ``checks[].assessor``), a pydantic model of
its parameters (subclass :class:`Params`), and a ``run`` function that reads the shared
:class:`~privaudit.core.context.AuditContext` and returns a :class:`Measurement`. Plugins hand assessors to
privaudit through the ``privaudit_assessors`` hook (see :mod:`privaudit.core.hookspecs`).
"""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

if TYPE_CHECKING:  # pragma: no cover
    from privaudit.core.context import AuditContext
    from privaudit.core.policy import Policy


class Params(BaseModel):
    """Base of every assessor's parameter model: unknown keys are errors (a typo like ``kk: 5``), and so are
    a boolean where a number is expected (``k: true`` is not 1) and a number that is not finite (``l: .inf``
    would make any threshold pass)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name)
        if isinstance(value, bool) and field is not None and _wants_number(field.annotation):
            raise ValueError(f"a number is expected, not {str(value).lower()}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{value} is not a finite number")
        return value


def _wants_number(annotation: Any) -> bool:
    """Whether a field's type admits int or float but not bool."""
    args = typing.get_args(annotation) or (annotation,)
    flat = [a for arg in args for a in (typing.get_args(arg) or (arg,))]
    return bool not in flat and any(a in (int, float) for a in flat)


@dataclass(frozen=True)
class Measurement:
    """What an assessor found.

    ``value`` is the figure the report shows, ``threshold`` the policy's bound it is compared with,
    ``passed`` the verdict. ``details`` holds JSON-serialisable figures (see each assessor's docs).
    """

    value: float | int | None
    threshold: Any
    passed: bool
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    #: per-record figures, name -> array over the released records in input order; not in the JSON report,
    #: written by ``--records`` / ``AuditReport.records()`` as the column ``<name>:<check id>``
    per_record: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Assessor:
    """A risk assessor a policy can name.

    Attributes:
        name: the identifier policies use (``k_anonymity``).
        params: pydantic model (subclass of :class:`Params`) validating the check's parameters.
        run: ``run(ctx, params) -> Measurement``.
        title: human title for reports ("k-anonymity").
        protects: ``"identity"`` (re-identification) or ``"attribute"`` (learning a sensitive value).
        measures: one plain-language sentence of what is measured, for reports.
        formula: the definition, in plain text, for the methodology appendix.
        reference: literature reference.
        needs: inputs beyond the class summary: ``"original"`` (the original table, ``--original``,
            aligned to the release's rows as ``ctx.original``), ``"training"`` (the ``--original`` table as
            loaded, ``ctx.training``: the training table of a synthetic release), ``"control"`` (a holdout
            table, ``--control``, ``ctx.control``), ``"table"`` (the whole released table in memory: not
            available from out-of-memory engines). A check whose input is missing is refused before any
            work, with one line.
        validate_policy: optional ``f(params, policy) -> str | None`` checking the parameters against the
            policy's columns (a returned string is a policy error).
        always: run even when no check names it (``direct_identifiers``).
        class_violations: optional ``f(ctx, params) -> bool array`` over the classes of ``ctx.summary``:
            True where a class breaks the check. Class-based assessors provide it so remediators
            (generalization, suppression) can treat the check as a per-class constraint.
        report_section: optional ``f(check, audit) -> ReportSection`` drawing this assessor's report
            section (``check`` is the check's JSON-report entry). The simple way to give an assessor its
            own section; the ``privaudit_report_section`` hook remains for plugins that prefer it.
        concurrent: ``run`` may run beside other checks on another thread: it only reads the context
            (the shared summary, the table) and keeps no state of its own. Such checks run two at a time
            once the class summary is built (numpy releases the GIL: measured 1.5x on the class-based
            checks of a 10^7-row audit). Off by default: an assessor opts in.
    """

    name: str
    params: type[Params]
    run: Callable[["AuditContext", Any], Measurement]
    title: str
    protects: Literal["identity", "attribute"]
    measures: str
    formula: str = ""
    reference: str = ""
    needs: frozenset[str] = frozenset()
    validate_policy: Callable[[Any, "Policy"], str | None] | None = None
    always: bool = False
    class_violations: Callable[["AuditContext", Any], Any] | None = None
    report_section: Callable[[dict, Any], Any] | None = None
    concurrent: bool = False
