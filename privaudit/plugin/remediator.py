"""The remediator API: what a plugin implements to propose a fix for a failing release.

A :class:`Remediator` takes the audit context of the failing release (policy, typed table, class
summary) and its validated options, and returns a :class:`Remediation`: the transformed table, what
changed, and its information-loss figures. The engine (:mod:`privaudit.pipeline.remediate`) re-audits the
output against the same policy and only offers it when every error-severity check passes. Targets
(k, l, t ...) are never options: they come from the policy's checks. Plugins hand remediators to
privaudit through the ``privaudit_remediators`` hook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - numpy is imported where classes are counted: loading a plugin stays light
    import numpy as np
    from pydantic import BaseModel

    from privaudit.core.context import AuditContext
    from privaudit.core.policy import Check


@dataclass(frozen=True)
class Remediation:
    """A remediator's output.

    ``table`` has the input's columns (and, unless the method removes records, its rows in order);
    ``check_overrides`` updates checks' parameters for the re-audit where the method publishes something
    the checks must know (the keep probabilities of randomized response). ``records_removed`` says how many input records the method dropped; ``changes`` and ``loss`` are
    JSON-serialisable figures for the report; ``artefacts`` maps a file
    suffix to bytes written beside the output when it is offered (e.g. published RR matrices).
    """

    table: Any
    changes: dict[str, Any]
    loss: dict[str, Any]
    artefacts: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    records_removed: int = 0  # only methods that say so may drop records; none may add any
    check_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)  # check id -> params for the re-audit
    #: column -> {"type", "hierarchy" (a Hierarchy), "file"}: a column the output holds retyped, with the
    #: hierarchy built for it (generalization of a QI the policy gave no hierarchy), for the re-audit
    column_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class ExploreRequest:
    """What ``remediate --explore`` asks a remediator's :attr:`Remediator.explore` hook for.

    ``limit`` is the most candidates it may return; ``fixed`` the option values the user gave
    (``--option NAME=V1,V2``: each candidate takes one of them, and the hook crosses them with its own
    settings); the hook appends to ``notes`` why it offers fewer candidates, or none."""

    limit: int
    fixed: dict[str, list[Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ExploreCandidate:
    """One candidate release a remediator offers the risk-utility map: the options it ran with (as the
    report shows them) and its output, or ``make``, which computes the output when explore runs the candidate
    (each such run is guarded on its own, with the time limit a check gets: a candidate that fails is one
    failed row on the map, the others of the method still run)."""

    options: dict[str, Any]
    remediation: Remediation | None = None
    make: Callable[[], Remediation] | None = None


@dataclass(frozen=True)
class Remediator:
    """A remediation method a user can name with ``--method``.

    ``explore`` (optional) declares the candidates the method offers ``remediate --explore``: the settings
    an expert would try on this table (a spread of generalization levels, several suppression limits ...),
    computed from the policy and the table it is given. Without it, explore runs the method once per
    combination of the ``--option`` values given, or once with its defaults. ``refines`` says the method
    can finish another method's output (suppressing the few records generalization left in violating
    classes, as ARX suppresses outliers after recoding): explore then runs it, once per combination of the
    ``--option`` values given, on the failing candidates of the other methods that are closest to passing.

    Explore treats every remediator alike, built-in or not: the hook and each run are guarded
    (:mod:`privaudit.runtime.guard`, the time limit a check gets). A ``ValueError`` says the method does not
    apply to this policy or table (a note names it); anything else it raises, ``sys.exit`` included, or a
    result that is not the table it was given, transformed, is one failed candidate naming its package."""

    name: str
    options: type  # a privaudit.plugin.assessor.Params subclass
    run: Callable[[AuditContext, Any], Remediation]
    title: str
    description: str
    explore: Callable[[AuditContext, ExploreRequest], list[ExploreCandidate]] | None = None
    refines: bool = False


def option_settings(base: list[dict[str, Any]], fixed: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """``base`` settings crossed with the user's fixed option values (each setting once per combination;
    a fixed option replaces the setting's own value), duplicates dropped, order kept."""
    out: list[dict[str, Any]] = []
    for setting in base or [{}]:
        combos: list[dict[str, Any]] = [dict(setting)]
        for name, values in fixed.items():
            combos = [{**combo, name: value} for combo in combos for value in values]
        out += [c for c in combos if c not in out]
    return out


def sweep(
    ctx: AuditContext,
    base: list[dict[str, Any]],
    request: ExploreRequest,
    options: type[BaseModel],
    run: Callable[..., Any],
) -> list[ExploreCandidate]:
    """A remediator's explore candidates: its ``base`` settings crossed with the user's ``--option`` values
    (:func:`option_settings`), at most ``request.limit``, each validated by its ``options`` model and run
    lazily (explore guards each run on its own)."""
    from functools import partial

    out = []
    for given in option_settings(base, request.fixed)[: request.limit]:
        parsed = options.model_validate(given)
        out.append(ExploreCandidate({**given, **parsed.model_dump(mode="json")}, make=partial(run, ctx, parsed)))
    return out


def perturbation_measured(ctx: AuditContext, randomized_response: bool = False) -> bool:
    """Whether an error-severity check measures the risk of perturbed values: one that compares the release
    with its original (``needs`` names ``original``: record linkage, interval disclosure) or, with
    ``randomized_response``, one bounding randomized-response disclosure. Without one, a perturbative
    candidate would pass on class sizes that say nothing of its risk (sdcMicro's warning on pram and noise)."""
    return any(
        "original" in c.assessor.needs or (randomized_response and c.assessor.response_bound is not None)
        for c in error_checks(ctx)
    )


def error_checks(ctx: AuditContext) -> list[Check]:
    """The policy's error-severity checks (the ones a remediation must satisfy)."""
    return [c for c in ctx.policy.checks if c.severity == "error"]


def class_violations(ctx: AuditContext, checks: list[Check] | None = None) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Per class of ``ctx.summary``: True where any class-based error check is broken."""
    import numpy as np

    bad = np.zeros(ctx.summary.n_classes, dtype=bool)
    for check in error_checks(ctx) if checks is None else checks:
        fn = check.assessor.class_violations
        if fn is None:
            continue
        sctx = ctx.for_scenario(getattr(check, "quasi_identifiers", None))
        violations = np.asarray(fn(sctx, check.params), dtype=bool)
        if sctx is not ctx:  # a scenario's class holds whole classes of the full summary: map them across
            scenario_class = sctx.summary.class_of
            assert scenario_class is not None  # a scenario's summary is built from the records in memory
            violations = violations[scenario_class[ctx.summary.first_row]]
        bad |= violations
    return bad


def unsupported_checks(ctx: AuditContext) -> list[str]:
    """Error checks a class-based remediator cannot steer (no per-class violations); the checks that always run
    (they watch the columns themselves, not the classes) are not remediation targets."""
    return [c.id for c in error_checks(ctx) if c.assessor.class_violations is None and not c.assessor.always]
