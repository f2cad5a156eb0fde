"""The audit driver, the one entry point of every audit: policy -> engine (table and class summary) ->
assessors -> result.

:func:`run_audit` opens the policy (:func:`open_policy`), refuses up front the checks the chosen engine
or the given inputs cannot serve (:func:`refuse_unrunnable`), asks the engine (:mod:`privaudit.engines`)
for the released table's facts and class summary (the in-process engine loads the table and leaves the
summary to be built lazily), then runs every check. Every check runs even when an earlier one fails or
raises; an assessor that raises becomes status ``error`` with its message. Exit codes follow from the
result: 0 every error-severity check passed, 1 at least one failed, 2 a check ended in ``error``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from privaudit.common.extensions import using
from privaudit.common.jsonable import jsonable
from privaudit.common.params import Params
from privaudit.core.context import AuditContext
from privaudit.core.errors import DataError, PrivauditError, notice
from privaudit.core.policy import Check, Policy, load_policy, policy_from_dict
from privaudit.io.data import Table, load_input
from privaudit.pipeline.derived import AuditDerived
from privaudit.pipeline.measurements import measurement_problem
from privaudit.pipeline.plugins import Registry, get_registry
from privaudit.runtime import guard, memory
from privaudit.runtime.concurrency import WORKERS as CHECK_WORKERS
from privaudit.runtime.concurrency import ordered_map


@dataclass
class CheckResult:
    id: str
    assessor: str
    status: str  # pass | fail | error
    severity: str  # error | warning
    value: Any
    threshold: Any
    params: Params  # the assessor's typed parameters the check ran with (the policy's own object)
    message: str
    details: dict
    seconds: float = 0.0
    per_record: dict = field(default_factory=dict, repr=False)  # the Measurement's per-record arrays
    quasi_identifiers: list[str] | None = None  # the check's attacker scenario, when it has one
    excepted: dict | None = None  # the policy's exception in force that accepts this failing check


@dataclass
class AuditResult:
    policy: Policy
    table: Table
    checks: list[CheckResult]
    generated_at: str
    context: AuditContext = field(repr=False)
    original: Table | None = None
    control: Table | None = None
    engine: str = "in-process"
    remediation: dict | None = None  # set by `privaudit remediate`: before/after, changes, loss
    explore: dict | None = None  # set by `privaudit remediate --explore`: the candidates of the R-U map
    utility: list[dict] = field(default_factory=list)  # what the release keeps (privaudit.utility entries)
    exceptions: list[dict] = field(default_factory=list)  # the policy's exceptions, judged (pipeline/exceptions.py)

    @property
    def registry(self) -> Registry:
        """The plugins the audit ran with (the policy's): reports draw each check with its own assessor."""
        return cast(Registry, self.policy.registry)  # the core types it by what it reads (core/registry.py)

    @property
    def failed(self) -> list[CheckResult]:
        """Failing error checks no exception in force accepts."""
        return [c for c in self.checks if c.status == "fail" and c.severity == "error" and c.excepted is None]

    @property
    def warned(self) -> list[CheckResult]:
        """Failing warning checks no exception in force accepts (``--fail-on warning`` counts these)."""
        return [c for c in self.checks if c.status == "fail" and c.severity == "warning" and c.excepted is None]

    @property
    def excepted(self) -> list[CheckResult]:
        """Failing checks an exception in force accepts: they fail neither the verdict nor ``--fail-on warning``."""
        return [c for c in self.checks if c.status == "fail" and c.excepted is not None]

    @property
    def errored(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == "error"]

    @property
    def passed(self) -> bool:
        return not self.failed and not self.errored

    @property
    def exit_code(self) -> int:
        if self.errored:
            return 2
        return 1 if self.failed else 0


#: the last second of year 9999, the largest ``SOURCE_DATE_EPOCH`` an ISO 8601 date holds
LAST_EPOCH = 253_402_300_799


def source_date_epoch() -> int | None:
    """``SOURCE_DATE_EPOCH`` (reproducible-builds.org: whole seconds since 1970-01-01 UTC), None when unset
    or empty; a malformed or out-of-range value is one line (the specification asks tools to fail on it)."""
    text = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or int(text) > LAST_EPOCH:
        raise PrivauditError(
            f"SOURCE_DATE_EPOCH={text[:40]!r}: expected whole seconds since 1970-01-01 UTC, "
            f"from 0 to {LAST_EPOCH} (year 9999)"
        )
    return int(text)


def generated_at() -> str:
    """ISO 8601 UTC time of the audit; ``SOURCE_DATE_EPOCH`` makes it reproducible."""
    epoch = source_date_epoch()
    moment = datetime.fromtimestamp(epoch, tz=UTC) if epoch is not None else datetime.now(UTC)
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def align_original(released: Table, original: Table, policy: Policy) -> pd.DataFrame:
    """The original's rows in the release's order: by the ``record_id`` column when the policy declares
    one, else row by row (the two files must then have the same number of rows)."""
    ids = policy.columns_with("record_id")
    if ids:
        rid = ids[0]
        left, right = released.frame[rid], original.frame[rid]
        if right.duplicated().any():
            raise DataError(f"{original.path}: column {rid!r} (record_id) has duplicate values")
        if released.frame[rid].duplicated().any():
            raise DataError(f"{released.path}: column {rid!r} (record_id) has duplicate values")
        position = pd.Index(right).get_indexer(left)
        if (position < 0).any():
            i = int(np.flatnonzero(position < 0)[0])
            raise DataError(
                f"{released.path}: {released.row_label(i)}: record_id {left.iloc[i]!r} is not in {original.path}"
            )
        return original.frame.iloc[position].reset_index(drop=True)
    if original.rows != released.rows:
        raise DataError(
            f"{original.path}: has {original.rows} rows but the release has {released.rows}; same rows in the "
            "same order are needed, or a column with role 'record_id'"
        )
    return original.frame


def run_check(ctx: AuditContext, check: Check, timeout: float | None = None, origin: Any = None) -> CheckResult:
    """One check, guarded (:mod:`privaudit.runtime.guard`): whatever its assessor raises (``SystemExit``
    included), a time limit it outlives, or a result it should not give (NaN, a value of the wrong type,
    details its model rejects) makes the check ``error``, naming the plugin; it reads its own read-only
    view of the tables."""
    params = check.params
    started = time.perf_counter()
    what = f"assessor {check.assessor.name!r}"
    try:  # bad input a check reads itself (a population table, a household column) stays one line: DataError
        view = guard.check_view(ctx)
        m = guard.call_plugin(
            lambda: check.assessor.run(view.for_scenario(check.quasi_identifiers), check.params), what, origin, timeout
        )
        problem = measurement_problem(m, check.assessor)
        if problem:
            raise guard.PluginFailure(f"{what} of {guard.plugin_label(origin)} {problem}")
    except guard.PluginFailure as exc:  # an assessor that fails must not stop the audit, nor pass
        return CheckResult(
            check.id,
            check.assessor.name,
            "error",
            check.severity,
            None,
            None,
            params,
            str(exc),
            {},
            time.perf_counter() - started,
            quasi_identifiers=check.quasi_identifiers,
        )
    details = jsonable(m.details)
    status = "pass" if m.passed else "fail"
    return CheckResult(
        check.id,
        check.assessor.name,
        status,
        check.severity,
        jsonable(m.value),
        jsonable(m.threshold),
        params,
        m.message,
        details,
        time.perf_counter() - started,
        per_record=dict(m.per_record),
        quasi_identifiers=check.quasi_identifiers,
    )


def checks_to_run(policy: Policy, registry: Registry) -> list[Check]:
    """The policy's checks plus the assessors that always run (added first, or last when they declare so,
    unless the policy names them)."""
    named = {c.assessor.name for c in policy.checks}
    implicit = [
        Check(a.name, a, "error", a.params())
        for a in registry.assessors.values()
        if a.always and a.name not in named and a.name not in {c.id for c in policy.checks}
    ]
    first = [c for c in implicit if c.assessor.always != "last"]
    return first + list(policy.checks) + [c for c in implicit if c.assessor.always == "last"]


def open_policy(policy: Policy | str | Path | dict, registry: Registry, allow_outside_paths: bool = False) -> Policy:
    """A :class:`Policy` from a loaded one, a YAML file or a dict in the file's shape (paths in a dict are
    relative to the working directory)."""
    from privaudit.pipeline.arguments import POLICY

    policy = POLICY.value(policy)
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, dict):
        return policy_from_dict(policy, registry, allow_outside_paths=allow_outside_paths)
    return load_policy(policy, registry, allow_outside_paths=allow_outside_paths)


def in_memory_reason(check: Check) -> str | None:
    """Why a check needs the tables in memory, or None when its assessor declares that these parameters run
    under an engine that does not load them (``Assessor.in_memory_reason`` returns None): it then reads
    ``--original`` itself, from ``ctx.files``. Checks whose assessor declares nothing need them."""
    reason = check.assessor.in_memory_reason
    return "--original needs the whole tables in memory" if reason is None else reason(check.params)


def out_of_memory(check: Check) -> bool:
    """Whether a check runs under an engine that does not load the tables (see :func:`in_memory_reason`)."""
    return in_memory_reason(check) is None


@dataclass
class InputFiles:
    """The inputs as given, for the checks that read them themselves under an out-of-memory engine
    (``ctx.files``); the check that reads the original sets its facts for the report."""

    released: Any
    original: Any
    engine: str
    options: dict
    original_table: Table | None = None


def refuse_unrunnable(checks: list[Check], engine: str, in_memory: bool, original: bool, control: bool) -> None:
    """Before any work, one line for the first check the inputs or the engine cannot serve: a check that
    needs ``--original`` or ``--control`` without it, or the whole table in memory under an engine that
    does not load it; and ``--original``/``--control`` themselves under such an engine (unless every check
    that reads ``--original`` declares it runs out of memory, :func:`in_memory_reason`)."""
    if not in_memory:
        if original:  # read by the checks themselves if every check reading it runs out of memory
            readers = [c for c in checks if {"original", "training"} & c.assessor.needs]
            reason = (
                next((r for r in map(in_memory_reason, readers) if r), None)
                if readers
                else "--original needs the whole tables in memory"
            )
            if reason:
                raise DataError(f"{reason}: use --engine in-process (this audit uses {engine})")
        if control:
            raise DataError(
                f"--control needs the whole tables in memory: use --engine in-process (this audit uses {engine})"
            )
    for check in checks:
        needs = check.assessor.needs
        if "original" in needs and not original:
            raise DataError(
                f"check {check.id!r} ({check.assessor.name}) needs the original table: pass --original FILE"
            )
        if "training" in needs and not original:
            raise DataError(
                f"check {check.id!r} ({check.assessor.name}) needs the training table the release was "
                "generated from: pass --original FILE"
            )
        if "control" in needs and not control:
            raise DataError(
                f"check {check.id!r} ({check.assessor.name}) needs a control (holdout) table: pass --control FILE"
            )
        if "table" in needs and not in_memory and not out_of_memory(check):
            raise DataError(
                f"check {check.id!r} ({check.assessor.name}) needs the whole table in memory: "
                f"use --engine in-process (this audit uses {engine})"
            )


def refuse_utility(policy: Policy, checks: list[Check], engine: str, in_memory: bool, original: bool) -> None:
    """Before any work, one line for a utility measure the policy names (``utility``) or a check gates on
    (its parameters' ``utility_measures()``) whose inputs are missing: ``--original`` or the records."""
    from privaudit.utility import family_of, needs

    asked = [(m, "utility", False) for m in policy.utility or []]
    asked += [(m, f"check {c.id!r}", True) for c in checks for m in getattr(c.params, "utility_measures", lambda: [])()]
    for name, where, gate in asked:
        need = needs(name, for_value=gate)
        kinds = family_of(name).release
        if policy.model.release not in kinds:
            raise DataError(
                f"{where}: utility measure {name!r} is for a {' or '.join(sorted(kinds))} release "
                f"(release: {' or '.join(sorted(kinds))}); this policy's release is "
                f"{policy.model.release}"
            )
        if "target" in need and not policy.utility_options.get(name, {}).get("target"):
            raise DataError(
                f"{where}: utility measure {name!r} needs a target column: utility: [{{{name}: {{target: COLUMN}}}}]"
            )
        if "original" in need and not original:
            raise DataError(f"{where}: utility measure {name!r} needs the original table: pass --original FILE")
        if "training" in need and not original:
            raise DataError(
                f"{where}: utility measure {name!r} needs the training table the release was generated "
                "from: pass --original FILE"
            )
        if need and not in_memory:
            raise DataError(
                f"{where}: utility measure {name!r} compares the release with the original record by "
                f"record, which needs the whole tables in memory: use --engine in-process (this audit "
                f"uses {engine})"
            )


def summarize_with(spec: Any, registry: Registry, released: Any, policy: Policy, **options: Any) -> Any:
    """The engine ``spec``'s result; a third party's engine guarded (:func:`privaudit.runtime.guard.call_plugin`):
    one that raises or exits is one line naming it and its package (bad input it reports passes as is)."""
    summarize = spec.load()
    origin = registry.origin.get(f"engine:{spec.name}")
    if origin is None or origin.package == "privaudit":
        return summarize(released, policy, **options)
    try:
        return guard.call_plugin(lambda: summarize(released, policy, **options), f"engine {spec.name!r}", origin)
    except guard.PluginFailure as exc:
        raise PrivauditError(str(exc)) from None


def run_audit(
    released: Any,
    policy: Policy | str | Path | dict[str, Any],
    original: Any = None,
    registry: Registry | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    allow_outside_paths: bool = False,
    engine: str = "in-process",
    control: Any = None,
    previous: Any = None,
    check_timeout: float | None = None,
    refuse_unreachable: bool = False,
    today: Any = None,
    **engine_options: Any,
) -> AuditResult:
    """Audit ``released`` (a path; in process also a pandas DataFrame, a pyarrow Table or a loaded
    :class:`~privaudit.io.data.Table`) against ``policy`` (a path, a dict or a :class:`Policy`).

    ``original`` (the table before masking, for linkage/interval checks, aligned to the release's rows
    unless only synthetic-release checks use it; for a synthetic release, the training table, as loaded) and ``control`` (a
    holdout from the same population, for synthetic-release checks) take the same forms and need the
    in-process engine. ``previous``: earlier releases of the same population (a list of the same forms;
    :mod:`privaudit.pipeline.series`), for the checks that compose releases.
    ``check_timeout`` (seconds; default the policy's ``check_timeout``, else none) ends a check that runs
    longer as ``error``. A check whose class size k exceeds the number of records cannot pass: that is said
    up front (:func:`unreachable_checks`), and refused with ``refuse_unreachable`` (a remediation's input).
    ``today`` (a date or its ISO text; default ``SOURCE_DATE_EPOCH``'s day, else today) is the day the policy's
    exceptions are judged on (:mod:`privaudit.pipeline.exceptions`). ``engine_options`` go to the engine (``batch_rows`` for chunked, ``spark`` session for spark ...)."""
    from privaudit.pipeline.arguments import TODAY, optional
    from privaudit.pipeline.exceptions import apply_exceptions, audit_day

    day = audit_day(optional(TODAY, today))  # refused before any work, as a malformed SOURCE_DATE_EPOCH
    registry = registry or get_registry()
    with using(registry.of):  # the registry's readers and measures, wherever the audit reads or measures
        result = _run_audit(
            released,
            policy,
            original=original,
            registry=registry,
            progress=progress,
            allow_outside_paths=allow_outside_paths,
            engine=engine,
            control=control,
            previous=previous,
            check_timeout=check_timeout,
            refuse_unreachable=refuse_unreachable,
            **engine_options,
        )
    result.exceptions = apply_exceptions(result.policy, result.checks, day)
    return result


def _run_audit(
    released: Any,
    policy: Policy | str | Path | dict[str, Any],
    original: Any = None,
    registry: Registry | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    allow_outside_paths: bool = False,
    engine: str = "in-process",
    control: Any = None,
    previous: Any = None,
    check_timeout: float | None = None,
    refuse_unreachable: bool = False,
    **engine_options: Any,
) -> AuditResult:
    from privaudit.engines import get_engine
    from privaudit.pipeline.arguments import CHECK_TIMEOUT, optional

    source_date_epoch()  # a malformed SOURCE_DATE_EPOCH is refused before any work
    check_timeout = optional(CHECK_TIMEOUT, check_timeout)
    registry = registry or get_registry()
    policy = open_policy(policy, registry, allow_outside_paths)
    checks = checks_to_run(policy, registry)
    spec = get_engine(engine, registry)
    spec.check_options(engine_options)
    refuse_unrunnable(checks, engine, spec.in_memory, original is not None, control is not None)
    refuse_utility(policy, checks, engine, spec.in_memory, original is not None)
    from privaudit.pipeline.series import refuse_series, series_inputs

    refuse_series(checks, previous, spec.in_memory, engine)
    if control is not None:  # before any work: a control table that cannot fit in memory
        from privaudit.runtime.memory import refuse_oversized

        refuse_oversized(control, "control table")
    memory.refuse_oversized_release(released, engine)
    with memory.step(f"reading and summarising the released table ({engine} engine)"):
        computed = summarize_with(spec, registry, released, policy, progress=progress, **engine_options)
    unreachable = unreachable_checks(checks, policy, computed.table)
    blocking = [line for check, line in unreachable if check.severity == "error"]
    if blocking and refuse_unreachable:
        raise PrivauditError(blocking[0] + "; no remediation can reach it")
    for _, line in unreachable:  # said before the work, which would only confirm it
        notice(line)
    if policy.combinations and not any((r := c.assessor.rule(c.params, policy)) and r.combinations for c in checks):
        notice(
            f"{policy.path}: combinations: no check of the policy reads the combination rules, so the audit does not judge them"
        )
    ctx = AuditContext(
        policy,
        computed.table.frame,
        progress=progress,
        precomputed=computed.summary,
        column_counts=computed.column_counts,
        derived=AuditDerived(registry.of("measure")),
    )
    if computed.table.frame is None:
        from privaudit.engines import first_rows

        ctx.sample_reader = lambda rows: first_rows(released, policy, rows)
    original_table, control_table, files = _read_other_tables(
        ctx, checks, policy, computed.table, spec.in_memory, engine, engine_options, released, original, control
    )
    if previous:
        ctx.series_inputs = series_inputs(previous, released, computed.table, original_table, policy)
    timeout = check_timeout if check_timeout is not None else policy.model.check_timeout
    with memory.step("running the checks"):
        results = run_checks(ctx, checks, timeout=timeout, registry=registry)
    if files is not None:
        original_table = files.original_table
    return AuditResult(
        policy,
        computed.table,
        results,
        generated_at(),
        ctx,
        original_table,
        control=control_table,
        engine=engine,
        utility=jsonable(ctx.utility),
    )


def _read_other_tables(
    ctx: AuditContext,
    checks: list[Check],
    policy: Policy,
    table: Table,
    in_memory: bool,
    engine: str,
    engine_options: dict[str, Any],
    released: Any,
    original: Any,
    control: Any,
) -> tuple[Table | None, Table | None, InputFiles | None]:
    """The original (``--original``) and control (``--control``) tables, read into ``ctx``; an engine that
    does not hold the table in memory gets the original's location instead (its checks read it)."""
    original_table = control_table = files = None
    if original is not None and not in_memory:  # read by the checks themselves (refuse_unrunnable)
        files = ctx.files = InputFiles(released, original, engine, dict(engine_options))
    elif original is not None:
        with memory.step("reading the original table (--original)"):
            original_table = load_input(original, policy, "original table")
        ctx.training = original_table.frame
        needs = [c.assessor.needs for c in checks]
        if any("original" in n for n in needs) or not any("training" in n for n in needs):
            ctx.original = align_original(table, original_table, policy)
    if control is not None:
        with memory.step("reading the control table (--control)"):
            control_table = load_input(control, policy, "control table")
        ctx.control = control_table.frame
    return original_table, control_table, files


def unreachable_checks(checks: list[Check], policy: Policy, table: Any) -> list[tuple[Check, str]]:
    """One line per check whose declared class size (its :class:`ClassRule`'s ``min_size``, k) exceeds the
    number of records: no class of the table can be that large, whatever is done to it."""
    rows = table.rows
    out = []
    for check in checks:
        try:
            rule = check.assessor.rule(check.params, policy)
        except Exception:  # noqa: BLE001 - a plugin's failing rule is reported when its check runs, guarded
            continue
        if rule is not None and rule.min_size is not None and rule.min_size > rows:
            line = (
                f"{policy.path}: check {check.id!r}: k={rule.min_size:,} exceeds the number of records "
                f"({rows:,} in {table.path}), so the check cannot pass"
            )
            out.append((check, line))
    return out


def _summary_ready(ctx: AuditContext) -> bool:
    """Build the shared summary before any thread reads it. If building it fails, the checks run one by
    one and each reports the failure as its own ``error``, as they always have."""
    try:
        ctx.summary  # noqa: B018 - built on first use
    except Exception:
        return False
    return True


def run_checks(
    ctx: AuditContext,
    checks: list[Check],
    workers: int | None = None,
    timeout: float | None = None,
    registry: Registry | None = None,
) -> list[CheckResult]:
    """Run ``checks``, results in their order. Checks whose assessor is ``concurrent`` run side by side
    (``workers``; default :data:`CHECK_WORKERS`) after the shared summary is built; the others one by
    one, after them. Each runs guarded (:func:`run_check`; ``timeout`` seconds at most each), with what
    plugin code prints sent to standard error; ``registry`` names each assessor's package."""
    workers = CHECK_WORKERS if workers is None else workers
    origins = (registry or get_registry()).origin
    results: list[CheckResult | None] = [None] * len(checks)

    def one(i: int) -> CheckResult:
        check = checks[i]
        return run_check(ctx, check, timeout, origins.get(f"assessor:{check.assessor.name}"))

    with guard.watch_interrupts(), guard.stdout_to_stderr():
        side_by_side = [i for i, c in enumerate(checks) if c.assessor.concurrent]
        if workers > 1 and len(side_by_side) > 1 and _summary_ready(ctx):
            for i, result in zip(
                side_by_side, ordered_map(one, side_by_side, workers=workers, ahead=workers), strict=False
            ):
                results[i] = result
        for i in range(len(checks)):
            if results[i] is None:
                results[i] = one(i)
    return results
