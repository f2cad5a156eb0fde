"""``remediate --explore``: the risk-utility (R-U) confidentiality map of a family of candidate releases.

Duncan, Keller-McNulty & Stokes ("Disclosure risk vs. data utility: the R-U confidentiality map", NISS
technical report 121, 2001; "Database security and confidentiality: examining disclosure risk vs. data
utility through the R-U confidentiality map", NISS technical report 142, 2004) plot every candidate release
of a table by its disclosure risk R against its data utility U; the candidates that no other beats on both
form the frontier, and the policy's risk bound is a vertical line. This module builds the candidates, scores
each one on the same two axes and marks the frontier and the recommendation.

**Candidates.** Every registered remediator, built-in or installed, declares its own in its own module
(``Remediator.explore``: the settings an expert would try on this policy and table, e.g. a recoding at several
suppression limits, each computed there); this module names none and keeps no table of them. A remediator
without that hook runs once with its defaults or once per ``--option`` value. A remediator declaring
``refines`` also finishes the failing candidates of the others that are closest to passing (fewest records in
violating classes): a recoding followed by suppression of the few records left, ARX's default. Each hook and
each run is guarded as the audit guards a check (:class:`_Runner`, :mod:`privaudit.runtime.guard`, the same
time limit): a remediator that raises, exits, hangs or offers something other than the table it was given,
transformed, is one failed candidate, "failed: <what> (package P V)", on the map and in the table, never
scored or recommended; a ``ValueError`` says the method does not apply to this policy or table (a note).
When the input already passes, it is a candidate too (``unchanged``).

**Scores.** Every candidate is audited with the policy, as ``remediate`` re-audits its output (its
``check_overrides`` applied, the input as the original). Its **risk** is the average prosecutor
re-identification risk (ARX's ``RiskModelSampleSummary`` prosecutor success rate: the record-weighted mean
of 1/f_k, i.e. classes over records; El Emam 2013), with the worst failing error check's figure beside it.
Its **utility** is one :mod:`privaudit.utility` measure on ARX's quality scale (1 = nothing lost). The
default, ``granularity`` (ARX's ``QualityModelColumnOrientedLoss``, Iyengar 2002: per quasi-identifier the
mean share of the domain a released value covers, a suppressed value the whole domain; the arithmetic mean
over the quasi-identifiers), sees a deleted variable: deleting one of q quasi-identifiers costs 1/q of the
axis, where discernibility, a function of the class sizes alone, barely moves. Discernibility and the other
measures of :data:`TABLE_MEASURES` stay in the candidates' table. Beside them, per candidate, what each
variable lost (:mod:`privaudit.utility.variable_loss`): quasi-identifier cells changed, records suppressed, and
the variables deleted (no value left below the top of the hierarchy). A candidate without a figure on the
axis is left off the map and the frontier, with a note.

**Frontier and recommendation.** A candidate is on the frontier when no other candidate has a risk at most
its own and a utility at least its own, one of them strictly. The recommendation is chosen among the
*passing* candidates only (a failing one never hides a passing one). The quasi-identifiers the policy ranks
are taken in order (``keep: true`` first, then ``importance`` 1, 2 ...): a candidate deleting one is set
aside whenever a passing candidate keeps it. Then a candidate is set aside when another passing candidate
deletes a strict subset of what it deletes (so a candidate deleting a variable is never recommended while a
passing candidate keeps that variable and everything else it keeps). Among those left, the highest utility,
then fewer quasi-identifier cells changed, then lower risk, then the earlier candidate. None when no
candidate passes.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pandas as pd
from pydantic import ValidationError

from privaudit.core.context import AuditContext
from privaudit.core.errors import PrivauditError, did_you_mean, first_line
from privaudit.core.policy import Policy, with_check_overrides, with_columns
from privaudit.io.data import Table
from privaudit.pipeline.audit import AuditResult, run_audit
from privaudit.pipeline.plugins import Registry
from privaudit.pipeline.remediate import lost_of, own_original, reaudit, without_identifiers
from privaudit.plugin.remediator import Remediation
from privaudit.risk.attacker_models import attacker_risks

#: The default utility axis (see the module docstring).
DEFAULT_UTILITY = "granularity"
#: Utility measures shown in the candidates' table beside the axis's.
TABLE_MEASURES = ("granularity", "discernibility", "aecs")
RISK_MEASURE = "average prosecutor re-identification risk"
DEFAULT_MAX_CANDIDATES = 30
#: How many failing candidates a refining remediator finishes (those with fewest records in violating classes).
REFINED_PER_METHOD = 6
#: The name of the input itself as a candidate, when it already passes.
UNCHANGED = "unchanged"


@dataclass
class Candidate:
    """One candidate release and, once evaluated, its place on the map."""

    method: str
    options: dict[str, Any]
    table: pd.DataFrame | None  # None: the candidate failed
    remediation: Remediation | None
    records_removed: int = 0
    audit: AuditResult | None = None
    risk: float | None = None
    worst_check: dict | None = None
    utility: float | None = None
    utilities: dict[str, float | None] = field(default_factory=dict)
    checks_failed: int = 0
    passes: bool = False
    frontier: bool = False
    lost: dict[str, Any] = field(default_factory=dict)  # utility.variable_loss.variable_changes of the input
    violating_records: int = 0
    #: "failed: <one line> (package P V)" when the remediator failed to make it (:class:`_Runner`)
    failure: str | None = None

    @property
    def deleted(self) -> list[str]:
        return list(self.lost.get("deleted", []))

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "options": self.options,
            "risk": self.risk,
            "utility": self.utility,
            "checks_failed": self.checks_failed,
            "passes": self.passes,
            "frontier": self.frontier,
            "worst_check": self.worst_check,
            "utilities": self.utilities,
            "records_removed": self.records_removed,
            "cells_changed": int(self.lost.get("cells_changed", 0)),
            "records_suppressed": int(self.lost.get("records_suppressed", 0)),
            "deleted": self.deleted,
            **({"failure": self.failure} if self.failure is not None else {}),
        }


@dataclass
class Exploration:
    candidates: list[Candidate]
    recommended: int | None
    utility_measure: str
    notes: list[str]
    built_hierarchies: dict[str, dict] = field(default_factory=dict)
    no_change_needed: bool = False
    #: per remediator explored, what its record says (title, description, package): the report's words
    methods: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self, bound: tuple[float | None, str | None] = (None, None)) -> dict:
        rec = None if self.recommended is None else self.candidates[self.recommended]
        return {
            "no_change_needed": self.no_change_needed,
            "lost": None if rec is None else rec.lost,
            "candidates": [c.to_dict() for c in self.candidates],
            "recommended": self.recommended,
            "risk_measure": RISK_MEASURE,
            "utility_measure": self.utility_measure,
            "risk_bound": bound[0],
            "risk_bound_source": bound[1],
            "notes": list(self.notes),
            "built_hierarchies": self.built_hierarchies,
            "methods": self.methods,
        }


def utility_choices() -> list[str]:
    """Measures the utility axis can use: computed from the release and the original alone."""
    from privaudit.utility import available, family_of

    return [
        m for m in available() if family_of(m).needs <= {"original", "numeric"} and "microdata" in family_of(m).release
    ]


def explore_methods(registry: Registry) -> list[str]:
    """The remediators explore can try, in the registry's order (those that refine others' output last)."""
    names = list(registry.remediators)
    return [n for n in names if not registry.remediators[n].refines] + [
        n for n in names if registry.remediators[n].refines
    ]


def method_records(registry: Registry, methods: Sequence[str]) -> dict[str, dict[str, Any]]:
    """What the report says of each remediator explored, read from its record: title, description, and the
    package that registered it."""
    out: dict[str, dict[str, Any]] = {}
    for name in methods:
        record, origin = registry.remediators[name], registry.origin.get(f"remediator:{name}")
        package = None if origin is None else f"{origin.package} {origin.version}"
        out[name] = {"title": str(record.title), "description": str(record.description), "package": package}
    return out


def known_methods(names: Sequence[str], known: Sequence[str]) -> list[str]:
    """``names`` (stripped, each once) when every one is in ``known``; ValueError naming the first that is not
    (the check :data:`privaudit.pipeline.arguments.METHODS` and :func:`parse_methods` share)."""
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise ValueError("give at least one method (" + ", ".join(known) + ")")
    for name in names:
        if name not in known:
            raise ValueError(f"unknown method {name!r}{did_you_mean(name, known)} (explore knows: {', '.join(known)})")
    return list(dict.fromkeys(names))


def parse_methods(text: str | Sequence[str] | None, registry: Registry | None = None) -> list[str]:
    """``--methods a,b`` as a list of the remediators of ``registry`` (one line for an unknown name)."""
    from privaudit.pipeline.plugins import get_registry

    known = explore_methods(registry or get_registry())
    if text is None:
        return known
    try:
        return known_methods(text.split(",") if isinstance(text, str) else list(text), known)
    except ValueError as exc:
        raise PrivauditError(f"--methods: {exc}") from None


def split_values(raw: Any) -> list[Any]:
    """``--option NAME=V1,V2`` values: a list stays a list, ``"0,0.05"`` is read as two YAML scalars."""
    import yaml

    if isinstance(raw, (list, tuple)):
        return list(raw)
    if not isinstance(raw, str):
        return [raw]
    out = []
    for part in raw.split(","):
        try:
            out.append(yaml.safe_load(part) if part.strip() else part)
        except yaml.YAMLError:
            out.append(part.strip())
    return out


def explore_options(options: dict[str, Any] | None, methods: Sequence[str], registry: Registry) -> dict[str, dict]:
    """Per method, the option values ``--option NAME=V1,V2`` fixes (``METHOD.NAME=...`` for one method only).
    An option no explored method declares (its options model's fields), or a value its method refuses, is
    one line naming it and the options the methods declare."""
    fixed: dict[str, dict[str, list[Any]]] = {m: {} for m in methods}
    for key, raw in (options or {}).items():
        method, _, name = str(key).rpartition(".")
        targets = [method] if method else list(methods)
        if method and method not in methods:
            raise PrivauditError(f"--option {key}: {method!r} is not an explored method ({', '.join(methods)})")
        having = [m for m in targets if name in registry.remediators[m].options.model_fields]
        if not having:
            raise PrivauditError(f"--option {key}: {_lacking(registry, targets, name)}")
        values = split_values(raw)
        for m in having:
            for value in values:
                _check_value(registry.remediators[m].options, name, value, f"--option {key} of {m!r}")
            fixed[m][name] = values
    return fixed


def _lacking(registry: Registry, methods: Sequence[str], name: str) -> str:
    """Why no method of ``methods`` takes option ``name``: the options each declares."""
    declared = {m: list(registry.remediators[m].options.model_fields) for m in methods}
    close = did_you_mean(name, [o for m in methods for o in declared[m]])
    if len(methods) == 1:
        m = methods[0]
        return f"method {m!r} has no option {name!r}{close} (its options: {', '.join(declared[m]) or 'none'})"
    lists = "; ".join(f"{m}: {', '.join(declared[m]) or '-'}" for m in methods)
    return f"no explored method has an option {name!r}{close} ({lists})"


def _check_value(model: Any, name: str, value: Any, what: str) -> None:
    """``value`` of option ``name`` as ``model`` validates that field alone (other fields, required ones
    included, are not judged here), or one line naming it."""
    from pydantic import ValidationError

    from privaudit.core.policy import format_validation_error

    try:
        model.__pydantic_validator__.validate_assignment(model.model_construct(), name, value)
    except ValidationError as exc:
        raise PrivauditError(format_validation_error(exc, what, [name])) from None
    except Exception:  # noqa: BLE001 - a validator of the whole model: the guarded run judges the value
        return


def risk_bound(policy: Policy, n_records: int) -> tuple[float | None, str | None]:
    """The policy's bound on the map's risk axis and where it comes from: the smallest bound an error check's
    declared sample criterion puts on the average prosecutor risk (``SampleCriterion.average_risk``), else
    1/k of the largest class size k an error check's class rule implies (``ClassRule.min_size``: such a check
    bounds every record's risk by 1/k, so the average too)."""
    errors = [c for c in policy.checks if c.severity == "error"]
    bounds = [
        (criterion.average_risk, c.id)
        for c in errors
        if c.assessor.sample_criterion is not None
        and (criterion := c.assessor.sample_criterion(c.params, n_records)) is not None
        and criterion.average_risk is not None
    ]
    if bounds:
        bound, source = min(bounds, key=lambda b: b[0])
        return float(bound), f"average risk bound of check {source!r}"
    ks = [
        (rule.min_size, c.id)
        for c in errors
        if (rule := c.assessor.rule(c.params, policy)) is not None and rule.min_size is not None
    ]
    if not ks:
        return None, None
    k, source = max(ks, key=lambda item: item[0])
    return 1.0 / k, f"1/k, k = {k} (check {source!r})"


# ---------------------------------------------------------------------------------------------- candidates
class _Runner:
    """Runs explore's plugin code, built-in or not, as the audit runs a check (:mod:`privaudit.runtime.guard`):
    guarded, with the time limit a check gets, what it prints sent to standard error. A remediator that
    raises a ``ValueError`` does not apply to this policy or table (a note says so); one that fails otherwise
    or offers something other than the table it was given, transformed, is one failed candidate naming its
    package, and none of its other candidates runs after it (a hanging method costs one time limit)."""

    def __init__(self, registry: Registry, timeout: float | None, notes: list[str]):
        self.registry, self.timeout, self.notes = registry, timeout, notes
        self.failed: set[str] = set()

    def call(self, name: str, method: str, fn: Callable[[], Any]) -> tuple[Any, str | None]:
        """``fn()`` of remediator ``name`` for candidate family ``method``: (its result, None); (None, None)
        when it does not apply; (None, "failed: <one line> (package P V)") when it fails."""
        from privaudit.core.policy import format_validation_error
        from privaudit.runtime import guard

        origin = self.registry.origin.get(f"remediator:{name}")
        what = f"remediation {name!r}"

        def attempt() -> Any:
            try:
                return fn()
            except ValidationError as exc:  # options its model refuses (a required one not given)
                return ValueError(format_validation_error(exc, f"options of {name!r}", None))
            except ValueError as exc:  # the method cannot run on this policy or table: say so, keep the others
                return exc

        with guard.watch_interrupts(), guard.stdout_to_stderr():
            try:
                result = guard.call_plugin(attempt, what, origin, self.timeout)
            except guard.PluginFailure as exc:
                return None, self.failure(name, str(exc).removeprefix(f"{what} of {guard.plugin_label(origin)} "))
        if isinstance(result, ValueError):
            note = f"{method}: left out, {first_line(result)}"
            if note not in self.notes:
                self.notes.append(note)
            return None, None
        return result, None

    def failure(self, name: str, text: str) -> str:
        """A failed candidate's verdict; the remediator runs no further candidate."""
        from privaudit.runtime import guard

        self.failed.add(name)
        origin = self.registry.origin.get(f"remediator:{name}")
        return f"failed: {text} ({'package ' + guard.plugin_label(origin) if origin else 'unknown package'})"

    def candidate(self, name: str, method: str, item: Any, ctx: AuditContext, fixed: dict) -> Candidate | None:
        """One offered candidate as a :class:`Candidate`: run (``make``) when the hook left it to explore,
        checked, or failed; None when it does not apply."""
        from privaudit.plugin.remediator import ExploreCandidate

        if not isinstance(item, ExploreCandidate) or not isinstance(item.options, dict):
            return _failed(method, {}, self.failure(name, f"offered {type(item).__name__}, not an ExploreCandidate"))
        rem, failure = item.remediation, None
        if rem is None and callable(item.make):
            rem, failure = self.call(name, method, item.make)
            if rem is None and failure is None:
                return None
        problem = failure or _problem(rem, ctx.table)
        if problem is not None:
            return _failed(method, item.options, problem if failure else self.failure(name, problem))
        assert isinstance(rem, Remediation)  # _problem said so
        rem = without_identifiers(rem, ctx.policy)
        return Candidate(method, dict(item.options), rem.table, rem, rem.records_removed)


def _failed(method: str, options: Any, failure: str) -> Candidate:
    """The row of a candidate that failed: on the map and in the table, never scored or recommended."""
    shown = {k: v for k, v in options.items() if isinstance(k, str)} if isinstance(options, dict) else {}
    return Candidate(method, shown, None, None, failure=failure)


def _problem(rem: Any, table: pd.DataFrame) -> str | None:
    """What makes ``rem`` something other than ``table`` transformed (the check ``remediate`` makes), or None."""
    if not isinstance(rem, Remediation) or not isinstance(rem.table, pd.DataFrame):
        return f"returned {type(rem).__name__}, not a Remediation holding a table"
    if list(rem.table.columns) != list(table.columns):
        return "changed the table's columns"
    removed = rem.records_removed
    if not isinstance(removed, int) or isinstance(removed, bool) or len(rem.table) != len(table) - removed:
        return f"returned {len(rem.table)} records of {len(table)} while saying it removed {removed!r}"
    return None


def _offered(runner: _Runner, name: str, ctx: AuditContext, limit: int, fixed: dict) -> list[Candidate]:
    """The candidates remediator ``name`` declares (its ``explore`` hook; else one run per ``--option``
    combination, or one with its defaults), each run and checked behind the guard."""
    from privaudit.plugin.remediator import ExploreCandidate, ExploreRequest, option_settings
    from privaudit.runtime import guard

    remediator = runner.registry.remediators[name]
    view = guard.check_view(ctx)
    if remediator.explore is not None:
        request = ExploreRequest(limit, fixed, runner.notes)
        found, failure = runner.call(name, name, lambda: remediator.explore(view, request))
        if failure is not None:
            return [_failed(name, {}, failure)]
        if found is not None and not isinstance(found, (list, tuple)):
            return [_failed(name, {}, runner.failure(name, f"declared {type(found).__name__}, not a list"))]
        found = list(found or [])[:limit]
    else:
        found = []
        for given in option_settings([], fixed)[:limit]:
            parsed, failure = runner.call(name, name, partial(_parsed, remediator, given))
            if failure is not None:
                return [_failed(name, given, failure)]
            if parsed is not None:
                found.append(ExploreCandidate(parsed[1], make=partial(remediator.run, view, parsed[0])))
    out: list[Candidate] = []
    for item in found:
        if name in runner.failed:
            runner.notes.append(f"{name}: its other candidates were not run after its failure")
            break
        candidate = runner.candidate(name, name, item, ctx, fixed)
        if candidate is not None:
            out.append(candidate)
    return out


def _parsed(remediator: Any, given: dict) -> tuple[Any, dict[str, Any]]:
    """The options ``given`` as the remediator's model reads them, and as the report shows them (its
    defaults for the rest)."""
    options = remediator.options.model_validate(given)
    return options, {**given, **options.model_dump(mode="json")}


def _run_with(remediator: Any, view: AuditContext, given: dict) -> Remediation:
    """Remediator run with the options ``given`` (their defaults for the rest)."""
    return remediator.run(view, remediator.options.model_validate(given))


def _refined(runner: _Runner, name: str, bases: Sequence[Candidate], fixed: dict, limit: int) -> list[Candidate]:
    """Remediator ``name`` (declaring ``refines``) run on the output of the failing candidates closest to
    passing (fewest records in violating classes), each result one candidate: a recoding followed by
    suppression of the records it left in violating classes, as ARX suppresses the outliers a recoding leaves."""
    from privaudit.plugin.remediator import option_settings
    from privaudit.runtime import guard

    remediator = runner.registry.remediators[name]
    failing = [c for c in bases if not c.passes and c.audit is not None and c.records_removed == 0]
    failing.sort(key=lambda c: (c.violating_records, -(c.utility or 0.0)))
    settings = option_settings([], fixed)
    out = []
    for base in failing[: max(1, limit // max(1, len(settings)))]:
        assert base.audit is not None and base.remediation is not None
        view = guard.check_view(base.audit.context)
        for given in settings:
            method = f"{base.method}+{name}"
            rem, failure = runner.call(name, method, partial(_run_with, remediator, view, given))
            problem = failure or (None if rem is None else _problem(rem, base.table))
            if problem is not None:
                return [*out, _failed(method, {**base.options, name: given}, failure or runner.failure(name, problem))]
            if rem is None:  # it does not apply (a note says why)
                return out
            combined = Remediation(
                rem.table,
                {base.method: base.remediation.changes, name: rem.changes},
                {  # each step's figures under its name: the first step's describe its own output, not the end's
                    **{f"{base.method}.{k}": v for k, v in base.remediation.loss.items()},
                    **{f"{name}.{k}": v for k, v in rem.loss.items()},
                },
                artefacts={**base.remediation.artefacts, **rem.artefacts},
                notes=[*base.remediation.notes, *rem.notes],
                records_removed=rem.records_removed,
                check_overrides={**base.remediation.check_overrides, **rem.check_overrides},
                column_overrides=base.remediation.column_overrides,
            )
            options = remediator.options.model_validate(given)
            shown = {**base.options, name: {**given, **options.model_dump(mode="json")}}
            combined = without_identifiers(combined, view.policy)
            out.append(Candidate(method, shown, combined.table, combined, rem.records_removed))
    return out


def _violating_records(audit: AuditResult) -> int:
    """Records in classes breaking a class-based error check of the candidate's audit (0 when none can say)."""
    from privaudit.plugin.remediator import class_violations

    ctx = audit.context
    try:
        bad = class_violations(ctx)
    except Exception:  # noqa: BLE001 - only an ordering hint: a check that cannot say counts for nothing
        return 0
    return int(ctx.summary.sizes[bad].sum())


# ---------------------------------------------------------------------------------------------- scoring
def _utility_entries(audit: AuditResult, names: Sequence[str], shared: dict) -> dict[str, float | None]:
    from privaudit.pipeline.derived import utility_inputs
    from privaudit.utility import measure_all

    ctx = audit.context
    inputs = utility_inputs(ctx, training=False)
    if ctx.original is not None:  # the original's classes on the same QIs: grouped once for every candidate
        inputs.__dict__["_original_classes"] = shared
    entries = measure_all(inputs, list(names))
    return {n: next((e["value"] for e in entries if e["measure"] == n and e["column"] is None), None) for n in names}


def _score(c: Candidate, audit: AuditResult, utility: str, names: Sequence[str], shared: dict) -> None:
    s = audit.context.summary
    risks = attacker_risks(s.sizes, None, 0.2)
    c.audit = audit
    c.risk = float(risks.prosecutor.average) if s.n_records else 0.0
    c.checks_failed = len(audit.failed) + len(audit.errored)
    c.passes = audit.passed
    failed = [r for r in audit.checks if r.severity == "error" and r.status in ("fail", "error")]
    c.worst_check = (
        None
        if not failed
        else {
            "id": failed[0].id,
            "value": _number(failed[0].value),
            "threshold": _number(failed[0].threshold),
            "status": failed[0].status,
        }
    )
    c.utilities = _utility_entries(audit, list(dict.fromkeys([utility, *names])), shared)
    c.utility = c.utilities.get(utility)
    if not c.passes:
        c.violating_records = _violating_records(audit)


def _number(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def mark_frontier(candidates: Sequence[Candidate]) -> None:
    """``frontier``: no other candidate at most as risky and at least as useful, one of them strictly."""
    scored = [(i, c.risk, c.utility) for i, c in enumerate(candidates) if c.risk is not None and c.utility is not None]
    for i, r, u in scored:
        candidates[i].frontier = not any((r2 <= r and u2 >= u) and (r2 < r or u2 > u) for j, r2, u2 in scored if j != i)
    for c in candidates:
        if c.risk is None or c.utility is None:
            c.frontier = False


def importance_order(policy: Policy) -> list[str]:
    """The quasi-identifiers the policy ranks, most important first: ``keep: true``, then ``importance`` 1,
    2 ... (the others are not ranked)."""
    qi = list(policy.quasi_identifiers)
    ranked = [i for i, c in enumerate(qi) if policy.columns[c].keep or policy.columns[c].importance is not None]

    def rank(i: int) -> tuple[int, int, int]:
        spec = policy.columns[qi[i]]
        return (0 if spec.keep else 1, spec.importance if spec.importance is not None else 1 << 30, i)

    return [qi[i] for i in sorted(ranked, key=rank)]


#: Utility figures this close to the best are taken as equal: a hundredth or two of granularity does not pay for
#: changing more cells (suppressing more records to keep one level finer), so the fewer cells changed decide.
UTILITY_TIE = 0.02


def recommend(candidates: Sequence[Candidate], order: Sequence[str] = ()) -> int | None:
    """The recommended candidate (see the module docstring), among the passing candidates on the axis:
    for each ranked quasi-identifier of ``order`` in turn, those that keep it whenever one does; then those
    whose deleted quasi-identifiers are not a strict superset of another's (no other passing candidate
    keeps all they keep and more); then, of those within :data:`UTILITY_TIE` of the highest utility, the one
    that changes the fewest cells, then the higher utility, lower risk, the earlier candidate."""
    pool = [i for i, c in enumerate(candidates) if c.passes and c.utility is not None]
    if not pool:
        return None
    for column in order:
        keeping = [i for i in pool if column not in candidates[i].deleted]
        if keeping:
            pool = keeping
    gone = {i: frozenset(candidates[i].deleted) for i in pool}
    pool = [i for i in pool if not any(gone[j] < gone[i] for j in pool)]
    best = max(float(candidates[i].utility or 0.0) for i in pool)
    near = [i for i in pool if float(candidates[i].utility or 0.0) >= best - UTILITY_TIE]
    return min(
        near,
        key=lambda i: (
            int(candidates[i].lost.get("cells_changed", 0)),
            -round(float(candidates[i].utility or 0.0), 12),
            float(candidates[i].risk or 0.0),
            i,
        ),
    )


def _audit_candidate(
    table: Table, policy: Policy, original: Table | None, before: AuditResult, runner: _Runner
) -> AuditResult:
    """``run_audit`` of a candidate, less what the input's audit already settled: runnability (same checks,
    same inputs) and the checks that always run (the identifier scan): a candidate changes quasi-identifier
    values only, so it keeps the input's verdicts on them (the written candidate is scanned again by its
    re-audit, as ``remediate`` does)."""
    from privaudit.pipeline.audit import align_original, checks_to_run, generated_at, run_checks
    from privaudit.pipeline.derived import DERIVED

    ctx = AuditContext(policy, table.frame, derived=DERIVED)
    if original is not None:
        ctx.training = original.frame
        ctx.original = align_original(table, original, policy)
    checks = checks_to_run(policy, runner.registry)
    results = run_checks(ctx, checks, timeout=runner.timeout, registry=runner.registry)
    return AuditResult(policy, table, results, generated_at(), ctx, original)


def explore(
    before: AuditResult,
    registry: Registry,
    methods: Sequence[str] | None = None,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
    utility: str | None = None,
    build_hierarchies: bool = True,
    progress: Callable[[str, int, int], None] | None = None,
    options: dict[str, Any] | None = None,
    check_timeout: float | None = None,
) -> Exploration:
    """Build, audit and place every candidate of ``methods`` for the release audited in ``before``; each
    remediator's code runs guarded with ``check_timeout`` (default the policy's ``check_timeout``, else
    none), the time limit a check gets."""
    from privaudit.pipeline.arguments import CHECK_TIMEOUT, MAX_CANDIDATES, UTILITY, optional

    utility = UTILITY.value(utility or DEFAULT_UTILITY)
    check_timeout = optional(CHECK_TIMEOUT, check_timeout)
    max_candidates = MAX_CANDIDATES.value(max_candidates)
    methods = parse_methods(methods, registry)
    fixed = explore_options(options, methods, registry)
    if not build_hierarchies:
        for m in methods:
            if "build_hierarchies" in registry.remediators[m].options.model_fields:
                fixed[m].setdefault("build_hierarchies", [False])
    ctx = before.context
    notes: list[str] = []
    runner = _Runner(registry, ctx.policy.model.check_timeout if check_timeout is None else check_timeout, notes)
    candidates: list[Candidate] = []
    if before.passed:
        same = ctx.table.copy()
        candidates.append(Candidate(UNCHANGED, {}, same, Remediation(same, {}, {})))
    refiners = [m for m in methods if registry.remediators[m].refines]
    # each method in turn gets an even share of what the ones before it left (refiners keep room of their own)
    budget = max(len(methods), max_candidates - min(REFINED_PER_METHOD * len(refiners), max_candidates // 3))
    for k, method in enumerate(methods):
        limit = max(1, (budget - len(candidates)) // (len(methods) - k))
        candidates += _offered(runner, method, ctx, limit, fixed[method])
    candidates = candidates[:max_candidates]
    state = _Scoring(before, utility, runner)
    state.score(candidates, progress)
    for method in refiners:
        room = max_candidates - len(candidates)
        if room <= 0:
            break
        bases = [c for c in candidates if c.method not in refiners and c.method != UNCHANGED]
        found = _refined(runner, method, bases, fixed[method], min(room, REFINED_PER_METHOD))
        state.score(found, progress)
        candidates += found
    missing = [i for i, c in enumerate(candidates) if c.utility is None and c.failure is None]
    if missing:
        notes.append(
            f"{utility}: no figure for {len(missing)} of {len(candidates)} candidates (left off the map and "
            "the frontier; e.g. values outside the hierarchies, or no numeric column)"
        )
    mark_frontier(candidates)
    built = next(
        (b for c in candidates if c.remediation and (b := c.remediation.changes.get("built_hierarchies"))), None
    )
    chosen = recommend(candidates, importance_order(ctx.policy))
    result = Exploration(candidates, chosen, utility, notes, dict(built or {}), no_change_needed=before.passed)
    result.methods = method_records(registry, methods)
    return result


class _Scoring:
    """Audits and scores candidates against one input (its original's classes and text codes shared)."""

    def __init__(self, before: AuditResult, utility: str, runner: _Runner):
        self.before, self.utility, self.runner = before, utility, runner
        self.names = [m for m in TABLE_MEASURES if m in utility_choices()]
        self.original = before.original or before.table
        self.shared: dict = {}
        self.codes: dict = {}

    def score(self, candidates: Sequence[Candidate], progress: Callable[[str, int, int], None] | None) -> None:
        ctx = self.before.context
        for i, c in enumerate(candidates):
            if progress is not None:
                progress("auditing the candidates", i, len(candidates))
            if c.table is None or c.remediation is None:  # failed: a row of its own, nothing to audit
                continue
            policy = copy.copy(
                with_check_overrides(
                    with_columns(ctx.policy, c.remediation.column_overrides), c.remediation.check_overrides
                )
            )
            policy.utility = []  # the audit's own utility list is not needed: the map's measures are computed here
            # typed as the engine's re-audit types a remediation's output (the table as it will be written)
            table = Table(c.table.reset_index(drop=True), f"<candidate {i}>", "", 0, "arrow", fingerprint="candidate")
            original = self.original if c.records_removed == 0 else None
            audit = _audit_candidate(table, policy, original, self.before, self.runner)
            _score(c, audit, self.utility, self.names, self.shared)
            if c.records_removed == 0:
                c.lost = lost_of(ctx.table, c.table, policy, self.codes)


@dataclass
class ExploreOutcome:
    """What ``remediate --explore`` produced: the input's audit, the map, and the audit the report is of
    (the recommended candidate's, re-audited as written, when it is written; else the input's)."""

    before: AuditResult
    exploration: Exploration
    report: AuditResult
    outcome: Any = None  # the engine's RemediationOutcome of the written candidate, or None
    bound: tuple[float | None, str | None] = (None, None)

    @property
    def offered(self) -> bool:
        return self.outcome is not None and self.outcome.offered


def explore_release(
    released: Any,
    policy: Any,
    out: str | None = None,
    methods: Sequence[str] | str | None = None,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
    utility: str | None = None,
    registry: Registry | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    allow_outside_paths: bool = False,
    side_dir: str | bool | None = None,
    options: dict[str, Any] | None = None,
    check_timeout: float | None = None,
) -> ExploreOutcome:
    """Audit ``released``, explore the candidates, and with ``out`` re-audit the recommended one as
    ``remediate`` does (its bytes in ``outcome.output`` when it passes). ``options``: per option name (or
    ``METHOD.NAME``), the values explored (``--option NAME=V1,V2``). Nothing is written when the input
    already passes: no change is needed. ``check_timeout``: the seconds a check, and each remediator's
    declaring and running of candidates, may take (default the policy's ``check_timeout``)."""
    from privaudit.common.jsonable import jsonable
    from privaudit.pipeline.audit import open_policy
    from privaudit.pipeline.plugins import get_registry

    registry = registry or get_registry()
    from privaudit.pipeline.arguments import CHECK_TIMEOUT, UTILITY, optional

    methods = parse_methods(methods, registry)
    explore_options(options, methods, registry)  # refused before any work
    utility = optional(UTILITY, utility)
    check_timeout = optional(CHECK_TIMEOUT, check_timeout)
    opened = open_policy(policy, registry, allow_outside_paths)
    before = run_audit(
        released,
        opened,
        original=own_original(released, opened),
        registry=registry,
        progress=progress,
        check_timeout=check_timeout,
    )
    exploration = explore(
        before,
        registry,
        methods,
        max_candidates,
        utility,
        progress=progress,
        options=options,
        check_timeout=check_timeout,
    )
    bound = risk_bound(opened, before.context.summary.n_records)
    outcome = None
    report = before
    if out is not None and exploration.recommended is not None and not exploration.no_change_needed:
        c = exploration.candidates[exploration.recommended]
        # a refined candidate ("base+refiner") is each method in turn
        title = ", then ".join(registry.remediators[m].title for m in c.method.split("+"))
        assert c.remediation is not None  # a failed candidate is never recommended
        outcome = reaudit(
            before, opened, c.remediation, out, c.method, title, c.options, registry, progress, check_timeout, side_dir
        )
        report = outcome.after
    report.explore = jsonable(exploration.to_dict(bound))
    written = (outcome.after.remediation or {}).get("built_hierarchies", {}) if outcome is not None else {}
    for column, entry in report.explore.get("built_hierarchies", {}).items():  # the files written, if any
        entry["file"] = written.get(column, {}).get("file")
    if outcome is not None and outcome.offered:  # the files written, as the report names them
        report.explore["files_written"] = list((outcome.after.remediation or {}).get("files_written") or [])
    return ExploreOutcome(before, exploration, report, outcome, bound)
