"""Helpers for tests of privaudit and of its plugins.

They run the real pipeline (CSV file -> policy -> class summary -> assessors -> reports), so a
plugin's tests exercise exactly what the CLI does::

    from privaudit.testing import audit_frame, check_result

    result = audit_frame(frame, {"columns": {...}, "checks": [{"assessor": "beta_likeness", "sensitive": "disease",
                                                                "beta": 1}]})
    assert check_result(result, "beta_likeness")["status"] == "pass"

What each helper is for (``docs/plugins.md`` walks through them):

* :func:`audit_frame` / :func:`check_result` — a whole audit and one check's JSON-report entry;
* :func:`check_entry` — one check as report sections receive it (a typed
  :class:`~privaudit.plugin.sections.CheckEntry`: ``check.params.k``, ``check.details.records_below_k``);
* :func:`summary_of` — the shared class summary of a small frame (test the formulas of an assessor
  on its :class:`~privaudit.core.summary.SensitiveCounts`);
* :func:`audit_context` — the :class:`~privaudit.core.context.AuditContext` an assessor's ``run`` sees;
* :func:`run_assessor` / :func:`class_violations` — one check's :class:`~privaudit.plugin.assessor.Measurement`
  and per-class violation mask, without the rest of the audit;
* :func:`report_section` / :func:`assert_section_renders` — the section a plugin draws for a check,
  and a rendered HTML report that shows it;
* :func:`run_cli` — the ``privaudit`` command in-process (exit code, stdout, stderr); every JSON report it
  writes is checked against the report's JSON Schema;
* :func:`assert_valid_report` — a JSON report (dict, text or file) against that schema
  (``privaudit report schema``; needs ``jsonschema``);
* :func:`registry_with` — a registry with extra plugin modules (a plugin that is not installed);
* :func:`load_policy` — a policy file or dict resolved against the installed plugins;
* :func:`parametrize_with_checks` / :func:`check_assessor` — the assessor contract
  (:mod:`privaudit.testing.contract`) on :class:`AssessorCase` scenarios: unknown parameters refused,
  details that validate, the same figures on every engine, the class summary untouched, a section that
  renders.

Policies are dicts in the YAML file's shape; ``version`` and ``name`` are filled in.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import yaml

from privaudit.core.context import AuditContext
from privaudit.core.summary import ClassSummary
from privaudit.pipeline.audit import AuditResult, run_audit
from privaudit.pipeline.derived import DERIVED
from privaudit.pipeline.plugins import Registry, build_registry, get_registry, make_manager
from privaudit.plugin.assessor import Measurement
from privaudit.report.json_report import report_of

if TYPE_CHECKING:  # pragma: no cover - types only: importing them here would load the report package's HTML side
    from privaudit.core.policy import Policy
    from privaudit.plugin.sections import CheckEntry, ReportSection


def load_policy(
    policy: str | Path | Mapping[str, Any], *, registry: Registry | None = None, allow_outside_paths: bool = False
) -> Policy:
    """A :class:`~privaudit.core.policy.Policy` from a YAML file or a dict, resolved against ``registry``
    (default: the installed plugins), as an audit opens it."""
    from privaudit.pipeline.audit import open_policy

    return open_policy(
        dict(policy) if isinstance(policy, Mapping) else policy, registry or get_registry(), allow_outside_paths
    )


def registry_with(*plugins: Any, entry_points: bool = True) -> Registry:
    """A registry of the built-ins, the installed entry points (unless ``entry_points=False``), and ``plugins``
    (modules or objects; one that is also installed counts once, see :func:`make_manager`)."""
    return build_registry(make_manager(load_entry_points=entry_points, extra_plugins=plugins))


@contextlib.contextmanager
def _files_for(
    frame: pd.DataFrame,
    policy: Mapping[str, Any],
    files: Mapping[str, str] | None = None,
    original: pd.DataFrame | None = None,
) -> Iterator[tuple[Path, Path, Path | None]]:
    """A temporary folder holding ``data.csv``, ``policy.yaml`` (plus ``files``, ``original.csv``)."""
    doc = {"version": 1, "name": "test", **policy}
    with tempfile.TemporaryDirectory(prefix="privaudit-test-") as tmp:
        folder = Path(tmp)
        for name, text in (files or {}).items():
            (folder / name).write_text(text)
        (folder / "policy.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
        frame.to_csv(folder / "data.csv", index=False)
        original_path = None
        if original is not None:
            original.to_csv(folder / "original.csv", index=False)
            original_path = folder / "original.csv"
        yield folder / "data.csv", folder / "policy.yaml", original_path


def audit_frame(
    frame: pd.DataFrame,
    policy: Mapping[str, Any],
    *,
    registry: Registry | None = None,
    files: Mapping[str, str] | None = None,
    original: pd.DataFrame | None = None,
) -> AuditResult:
    """Audit ``frame`` against ``policy`` (a dict; ``version`` and ``name`` are filled in) through the
    same loading path as the CLI. ``files`` are extra files (hierarchies ...) written beside the policy."""
    with _files_for(frame, policy, files, original) as (data, policy_path, original_path):
        return run_audit(data, policy_path, original=original_path, registry=registry)


def check_result(result: AuditResult, check_id: str) -> dict[str, Any]:
    """The JSON-report entry of one check (id, status, value, threshold, details ...)."""
    for check in report_of(result).checks:
        if check.id == check_id:
            return check.to_dict()
    raise KeyError(f"no check {check_id!r} in the audit (have: {[c.id for c in result.checks]})")


# ------------------------------------------------------------------------ one assessor, no audit
def audit_context(
    frame: pd.DataFrame,
    policy: Mapping[str, Any],
    *,
    registry: Registry | None = None,
    files: Mapping[str, str] | None = None,
) -> AuditContext:
    """The context an assessor's ``run(ctx, params)`` receives for ``frame`` under ``policy``: the
    policy and the table are loaded exactly as the CLI loads them (types, missing tokens,
    hierarchies); ``ctx.summary`` is built on first use."""
    from privaudit.core.policy import load_policy
    from privaudit.io.data import load_table

    with _files_for(frame, policy, files) as (data, policy_path, _):
        loaded = load_policy(policy_path, registry or get_registry())
        table = load_table(data, loaded)
    return AuditContext(loaded, table.frame, derived=DERIVED)


def summary_of(
    frame: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive: Mapping[str, str] | Sequence[str] = (),
    *,
    types: Mapping[str, str] | None = None,
    missing_qi: str = "value",
) -> ClassSummary:
    """The class summary of ``frame``: classes of ``quasi_identifiers`` and, per ``sensitive`` column,
    the sparse class x value count matrix (``summary.sensitive[col]``).

    ``sensitive`` is a list of columns (nominal) or a mapping column -> type (``nominal``,
    ``numeric``); ``types`` gives the quasi-identifiers' types (default nominal). Values are loaded
    as the CLI loads them (``""`` and ``*`` are missing)."""
    sensitive = dict(sensitive) if isinstance(sensitive, Mapping) else {c: "nominal" for c in sensitive}
    types = dict(types or {})
    columns = {q: {"role": "quasi_identifier", "type": types.get(q, "nominal")} for q in quasi_identifiers}
    columns.update({s: {"role": "sensitive", "type": kind} for s, kind in sensitive.items()})
    used = list(dict.fromkeys([*quasi_identifiers, *sensitive]))
    return audit_context(frame[used], {"data": {"missing_qi": missing_qi}, "columns": columns}).summary


def _with_check(policy: Mapping[str, Any], check: Mapping[str, Any]) -> dict[str, Any]:
    return {**policy, "checks": [*policy.get("checks", []), dict(check)]}


def run_assessor(
    frame: pd.DataFrame,
    policy: Mapping[str, Any],
    check: Mapping[str, Any],
    *,
    registry: Registry | None = None,
    files: Mapping[str, str] | None = None,
) -> Measurement:
    """Run one check on ``frame`` and return the assessor's :class:`Measurement` (numpy values as the
    assessor returned them, before the JSON report converts them).

    ``check`` is written as in a policy (``{"assessor": "beta_likeness", "sensitive": "disease",
    "beta": 1}``) and is added after the policy's own checks, so its parameters go through the
    assessor's params model and ``validate_policy`` as in a real audit."""
    ctx = audit_context(frame, _with_check(policy, check), registry=registry, files=files)
    resolved = ctx.policy.checks[-1]
    measurement: Measurement = resolved.assessor.run(ctx, resolved.params)
    return measurement


def class_violations(
    frame: pd.DataFrame,
    policy: Mapping[str, Any],
    check: Mapping[str, Any],
    *,
    registry: Registry | None = None,
    files: Mapping[str, str] | None = None,
) -> tuple[np.ndarray[Any, np.dtype[np.bool_]], ClassSummary]:
    """One check's per-class violation mask (its assessor's ``class_violations``) and the summary whose
    classes it indexes. Fails when the assessor declares no ``class_violations``."""
    ctx = audit_context(frame, _with_check(policy, check), registry=registry, files=files)
    resolved = ctx.policy.checks[-1]
    fn = resolved.assessor.class_violations
    if fn is None:
        raise AssertionError(f"assessor {resolved.assessor.name!r} has no class_violations")
    mask = np.asarray(fn(ctx, resolved.params))
    summary = ctx.summary
    if mask.dtype != bool or mask.shape != (summary.n_classes,):
        raise AssertionError(
            f"class_violations of {resolved.assessor.name!r} must be a bool array of one value "
            f"per class ({summary.n_classes}); got dtype {mask.dtype}, shape {mask.shape}"
        )
    return mask, summary


# ------------------------------------------------------------------------------------ reports
def check_entry(result: AuditResult, check_id: str, *, registry: Registry | None = None) -> CheckEntry[Any, Any]:
    """One check as report sections receive it: the typed :class:`~privaudit.plugin.sections.CheckEntry` the
    report builds from the check's JSON-report entry (:func:`privaudit.report.html.check_entry`: ``params`` the
    assessor's ``Params`` object, ``details`` validated by its ``Details`` model). Raises pydantic's
    ``ValidationError`` when the details do not validate, and an AssertionError when ``registry`` (default: the
    installed plugins) does not know the check's assessor."""
    from privaudit.report.html import check_entry as entry_of

    try:
        check = report_of(result).check(check_id)
    except KeyError:
        raise KeyError(f"no check {check_id!r} in the audit (have: {[c.id for c in result.checks]})") from None
    entry = entry_of(check, result, registry or get_registry())
    if entry is None:
        raise AssertionError(f"no installed plugin provides assessor {check.assessor!r} of check {check_id!r}")
    return entry


def report_section(result: AuditResult, check_id: str, *, registry: Registry | None = None) -> ReportSection:
    """The :class:`~privaudit.plugin.sections.ReportSection` drawn for one check, found as the report finds
    it (:func:`privaudit.report.html.drawn_section`: the ``Section`` registered for the check's assessor, a
    third party's replacing a built-in one, handed the check's :func:`check_entry`). Unlike the report, which
    falls back to a generic section, this raises: an exception of the plugin (or details that do not
    validate) propagates, and a check no plugin draws a section for is an AssertionError."""
    from privaudit.plugin.sections import ReportSection
    from privaudit.report.html import drawn_section

    registry = registry or get_registry()
    entry = check_entry(result, check_id, registry=registry)
    section = drawn_section(entry, result, registry)
    if section is None:
        raise AssertionError(f"no plugin draws a section for check {check_id!r} (assessor {entry.assessor!r})")
    if not isinstance(section, ReportSection):
        raise AssertionError(f"the section for {check_id!r} is a {type(section).__name__}, not a ReportSection")
    return section


def assert_section_renders(result: AuditResult, check_id: str, *, registry: Registry | None = None) -> str:
    """Render the HTML report of ``result`` and check that the plugin's own section of ``check_id`` is in
    it: its summary sentence and every figure and table caption. Returns the HTML."""
    registry = registry or get_registry()
    section = report_section(result, check_id, registry=registry)
    html: str = _contract().section_shown(result, check_id, section, registry)
    return html


# ------------------------------------------------------------------------------------------ CLI
@dataclass(frozen=True)
class CliRun:
    """What ``privaudit ARGS`` did: exit code, standard output and standard error."""

    code: int
    stdout: str
    stderr: str


def run_cli(*args: Any) -> CliRun:
    """Run ``privaudit ARGS`` in this process (arguments are turned into strings). A JSON report the run
    wrote to a file (``--json OUT``) is checked with :func:`assert_valid_report` when ``jsonschema`` is
    installed (a run that exits 0 or 1 wrote it)."""
    from privaudit.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    for flag, value in zip(argv, argv[1:], strict=False):
        if (
            code in (0, 1)
            and flag == "--json"
            and value != "-"
            and Path(value).is_file()
            and _has_jsonschema()
            and argv[:1] != ["diff"]
        ):  # privaudit diff --json writes a comparison, not an audit report
            assert_valid_report(Path(value))
    return CliRun(code, out.getvalue(), err.getvalue())


def _has_jsonschema() -> bool:
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        return False
    return True


def assert_valid_report(report: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """Check a JSON report (a dict, its text, or a file) against ``privaudit report schema``; return it as a
    dict. Raises AssertionError naming the first deviation (needs the ``jsonschema`` package)."""
    import json

    import jsonschema

    if isinstance(report, Path):
        report = report.read_text(encoding="utf-8")
    data = json.loads(report) if isinstance(report, str) else dict(report)
    error = jsonschema.exceptions.best_match(_validator().iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise AssertionError(f"the JSON report does not follow its schema at {where}: {error.message}")
    return data


_VALIDATOR: list[Any] = [None, None]  # the registry the schema was made for, and its validator


def _validator() -> Any:
    """The report schema's validator for the process-wide registry (its assessors' details, its measures),
    made again when the registry is (a plugin installed in process)."""
    import jsonschema

    from privaudit.report.schema import report_json_schema

    registry = get_registry()
    if _VALIDATOR[0] is not registry:
        _VALIDATOR[:] = [registry, jsonschema.Draft202012Validator(report_json_schema(registry))]
    return _VALIDATOR[1]


# ------------------------------------------------------------------------------------ the contract
def _contract() -> ModuleType:
    from privaudit.testing import contract

    return contract


def __getattr__(name: str) -> Any:
    if name == "AssessorCase":  # re-exported lazily: the contract imports the report and the engines
        return _contract().AssessorCase
    raise AttributeError(f"module 'privaudit.testing' has no attribute {name!r}")


def check_assessor(case: Any, *, registry: Registry | None = None) -> None:
    """Run every check of the assessor contract on one :class:`~privaudit.testing.contract.AssessorCase`
    (raises AssertionError naming the first broken promise)."""
    for check in _contract().CHECKS:
        check(case, registry or get_registry())


def parametrize_with_checks(cases: Sequence[Any], *, registry: Registry | None = None) -> Any:
    """A ``pytest.mark.parametrize`` decorator over every (case, contract check) pair, as scikit-learn's
    ``parametrize_with_checks`` does for estimators. The test receives ``case`` and ``check``; call
    ``check(case, registry)``::

        @parametrize_with_checks([AssessorCase({"assessor": "beta_likeness", ...}, frame, columns)])
        def test_contract(case, check, registry):
            check(case, registry)

    (``registry`` is a fixture of your own, or pass ``get_registry()``.)"""
    import pytest

    contract = _contract()
    pairs = [(case, check) for case in cases for check in contract.CHECKS]
    ids = [f"{case.assessor}-{check.__name__.removeprefix('check_')}" for case, check in pairs]
    return pytest.mark.parametrize(("case", "check"), pairs, ids=ids)
