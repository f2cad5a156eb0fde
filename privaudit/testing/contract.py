"""The assessor contract: what every assessor, built-in or plugin, must do, checked as scikit-learn's
``parametrize_with_checks`` checks estimators.

An assessor meets the contract on an :class:`AssessorCase` (a table, the policy's columns and one check of
it, and the other inputs its ``needs`` ask for) when it

* refuses unknown parameters (:func:`check_refuses_unknown_parameters`);
* declares a ``Details`` model and produces details that validate against it
  (:func:`check_details_validate`);
* gives the same figures on every engine it can run on (:func:`check_same_on_every_engine`: the engines
  that compute the class summary outside the process, unless it needs the records in memory);
* leaves the shared class summary untouched (:func:`check_summary_untouched`);
* has a report section that renders (:func:`check_section_renders`).

Plugin authors run it on their own assessors through :func:`privaudit.testing.parametrize_with_checks`
(or :func:`privaudit.testing.check_assessor`).
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

#: what an unknown parameter is called in :func:`check_refuses_unknown_parameters`
UNKNOWN_PARAMETER = "no_such_parameter"


@dataclass(frozen=True)
class AssessorCase:
    """A scenario an assessor is checked on.

    Attributes:
        check: the check as a policy writes it (``{"assessor": "k_anonymity", "k": 2}``).
        frame: the released table.
        columns: the policy's ``columns``.
        original: the ``--original`` table (original or training), when the assessor needs one.
        control: the ``--control`` table, when the assessor needs one.
        files: extra files written beside the policy (hierarchies, population tables), name -> text.
        policy: other top-level policy keys (``data``, ``report`` ...).
        previous: earlier releases of the same population (``--previous``), for checks that compose releases.
    """

    check: Mapping[str, Any]
    frame: pd.DataFrame
    columns: Mapping[str, Any]
    original: pd.DataFrame | None = None
    control: pd.DataFrame | None = None
    files: Mapping[str, str] = field(default_factory=dict)
    policy: Mapping[str, Any] = field(default_factory=dict)
    previous: Sequence[pd.DataFrame] = ()

    @property
    def assessor(self) -> str:
        return str(self.check["assessor"])

    def policy_dict(self, check: Mapping[str, Any] | None = None) -> dict:
        return {
            "version": 1,
            "name": f"contract of {self.assessor}",
            **self.policy,
            "columns": dict(self.columns),
            "checks": [{"id": "contract", **dict(check or self.check)}],
        }


@contextlib.contextmanager
def case_files(case: AssessorCase, check: Mapping[str, Any] | None = None) -> Iterator[dict[str, Path | None]]:
    """A temporary folder with the case's ``data.csv``, ``policy.yaml``, extra files, ``original.csv`` and
    ``control.csv``; yields their paths."""
    with tempfile.TemporaryDirectory(prefix="privaudit-contract-") as tmp:
        folder = Path(tmp)
        for name, text in case.files.items():
            (folder / name).write_text(text, encoding="utf-8")
        (folder / "policy.yaml").write_text(yaml.safe_dump(case.policy_dict(check), sort_keys=False), encoding="utf-8")
        paths: dict[str, Any] = {
            "data": folder / "data.csv",
            "policy": folder / "policy.yaml",
            "original": None,
            "control": None,
            "previous": [],
        }
        case.frame.to_csv(folder / "data.csv", index=False)
        for i, table in enumerate(case.previous):
            table.to_csv(folder / f"previous-{i}.csv", index=False)
            paths["previous"].append(folder / f"previous-{i}.csv")
        for name, table in (("original", case.original), ("control", case.control)):
            if table is not None:
                table.to_csv(folder / f"{name}.csv", index=False)
                paths[name] = folder / f"{name}.csv"
        yield paths


def _audit(case: AssessorCase, registry: Any, engine: str = "in-process") -> Any:
    from privaudit.pipeline.audit import run_audit

    with case_files(case) as p:
        return run_audit(
            p["data"],
            p["policy"],
            original=p["original"],
            control=p["control"],
            registry=registry,
            engine=engine,
            previous=p["previous"],
        )


def _entry(result: Any) -> dict:
    from privaudit.report.json_report import report_of

    return report_of(result).check("contract").to_dict()


def _assessor(case: AssessorCase, registry: Any) -> Any:
    assessor = registry.assessors.get(case.assessor)
    if assessor is None:
        raise AssertionError(f"assessor {case.assessor!r} is not registered")
    return assessor


# ------------------------------------------------------------------------------------------ the checks
def check_refuses_unknown_parameters(case: AssessorCase, registry: Any) -> None:
    """A check with a parameter its ``Params`` model does not know is a policy error naming it."""
    from privaudit.core.errors import PolicyError
    from privaudit.core.policy import load_policy

    with case_files(case, {**case.check, UNKNOWN_PARAMETER: 1}) as p:
        try:
            load_policy(p["policy"], registry)
        except PolicyError as exc:
            if UNKNOWN_PARAMETER not in str(exc):
                raise AssertionError(f"{case.assessor}: the error does not name the unknown parameter: {exc}") from None
            return
    raise AssertionError(f"{case.assessor}: an unknown parameter {UNKNOWN_PARAMETER!r} was accepted")


def check_details_validate(case: AssessorCase, registry: Any) -> None:
    """The assessor declares a ``Details`` model (extra keys forbidden), the check runs without error, and its
    details, as the JSON report writes them, validate against the model."""
    from privaudit.plugin.assessor import Details

    assessor = _assessor(case, registry)
    model = assessor.details
    if model is None or not (isinstance(model, type) and issubclass(model, Details)):
        raise AssertionError(f"{case.assessor}: Assessor.details must be a subclass of privaudit.Details")
    if model.model_config.get("extra") != "forbid":
        raise AssertionError(f"{case.assessor}: its Details model must forbid extra keys")
    entry = _entry(_audit(case, registry))
    if entry["status"] == "error":
        raise AssertionError(f"{case.assessor}: the check ended in error: {entry['message']}")
    model.model_validate(entry["details"])


def engines_for(case: AssessorCase, registry: Any) -> list[str]:
    """The engines (available here) a check of this case runs on: every engine when the assessor reads only
    the class summary; only those that load the table when it needs the records (``needs``: ``table``,
    ``original``, ``training``, ``control``), unless it declares it reads them itself
    (``in_memory_reason`` giving None)."""
    from privaudit.core.policy import load_policy
    from privaudit.engines import engines

    assessor = _assessor(case, registry)
    with case_files(case) as p:
        params = load_policy(p["policy"], registry).checks[-1].params
    out_of_memory = assessor.in_memory_reason is not None and assessor.in_memory_reason(params) is None
    records = bool(assessor.needs & {"table", "original", "training", "control"}) and not out_of_memory
    if case.control is not None or case.previous:
        records = True
    return [
        name
        for name, spec in engines(registry).items()
        if spec.available and name != "spark" and (spec.in_memory or not records)
    ]


def check_same_on_every_engine(case: AssessorCase, registry: Any) -> None:
    """The check's status, value, threshold, message and details are the same on every engine it runs on."""
    engines = engines_for(case, registry)
    first = _entry(_audit(case, registry, engines[0]))
    for engine in engines[1:]:
        other = _entry(_audit(case, registry, engine))
        for key in ("status", "value", "threshold", "message", "details"):
            if other[key] != first[key]:
                raise AssertionError(
                    f"{case.assessor}: {key} differs between engines {engines[0]} and {engine}: "
                    f"{str(first[key])[:200]} != {str(other[key])[:200]}"
                )


def _snapshot(summary: Any) -> dict[str, Any]:
    """Copies of every array and figure of a class summary (and its sensitive count matrices). Lazy state is
    settled first: ``class_of`` spreads ``order`` into ``record_classes`` on first use, which is a cache
    being filled, not the summary being changed."""
    summary.class_of  # noqa: B018 - settle the lazy per-record class ids
    out: dict[str, Any] = {}
    for name, value in vars(summary).items():
        if isinstance(value, np.ndarray):
            out[name] = value.copy()
        elif isinstance(value, pd.DataFrame):
            out[name] = value.copy(deep=True)
        elif isinstance(value, (int, float, str, tuple)):
            out[name] = value
    for column, counts in getattr(summary, "sensitive", {}).items():
        for part in ("data", "indices", "indptr"):
            out[f"sensitive[{column}].{part}"] = np.asarray(getattr(counts.counts, part)).copy()
        out[f"sensitive[{column}].missing"] = counts.missing
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
        )
    if isinstance(a, pd.DataFrame):
        return isinstance(b, pd.DataFrame) and a.equals(b)
    return a == b


def check_summary_untouched(case: AssessorCase, registry: Any) -> None:
    """Running the check changes nothing of the shared class summary other checks read."""
    from privaudit.core.context import AuditContext
    from privaudit.core.policy import load_policy
    from privaudit.io.data import load_table
    from privaudit.pipeline.audit import align_original
    from privaudit.pipeline.derived import DERIVED

    with case_files(case) as p:
        policy = load_policy(p["policy"], registry)
        table = load_table(p["data"], policy)
        ctx = AuditContext(policy, table.frame, derived=DERIVED)
        if p["original"] is not None:
            original = load_table(p["original"], policy, what="original table")
            ctx.training = original.frame
            if "original" in policy.checks[-1].assessor.needs:
                ctx.original = align_original(table, original, policy)
        if p["control"] is not None:
            ctx.control = load_table(p["control"], policy, what="control table").frame
        if p["previous"]:
            from privaudit.pipeline.series import series_inputs

            ctx.series_inputs = series_inputs(p["previous"], p["data"], table, None, policy)
        check = policy.checks[-1]
        before = _snapshot(ctx.summary)
        check.assessor.run(ctx, check.params)
        after = _snapshot(ctx.summary)
    changed = [k for k in before if k not in after or not _same(before[k], after[k])]
    if changed:
        raise AssertionError(f"{case.assessor}: running the check changed the class summary's {changed[0]}")


def section_shown(result: Any, check_id: str, section: Any, registry: Any) -> str:
    """Render the HTML report of ``result`` and check that ``section`` (the one drawn for ``check_id``) is in
    it: its summary sentence and every figure and table caption, and no section failed. Returns the HTML."""
    from markupsafe import escape

    from privaudit.report.html import render_html

    html = render_html(result, registry)
    if "section for this check failed" in html:
        raise AssertionError("a plugin section failed while rendering the report")
    if section is None:
        return html
    expected = [
        str(escape(t))
        for t in [section.summary, *(f.caption for f in section.figures), *(t.caption for t in section.tables)]
        if t
    ]
    expected += [str(f.svg) for f in section.figures]  # trusted markup, inlined as is
    for needle in expected:
        if needle not in html:
            raise AssertionError(f"the report of {check_id!r} does not show {needle[:80]!r}")
    return html


def check_section_renders(case: AssessorCase, registry: Any) -> None:
    """The check's report section renders in the HTML report (its own section when the assessor draws one,
    with its summary, figures and tables; else the generic one), without the failure notice."""
    from privaudit.report.html import check_entry, drawn_section
    from privaudit.report.json_report import report_of

    result = _audit(case, registry)
    entry = check_entry(report_of(result).check("contract"), result, registry)
    section = None if entry is None else drawn_section(entry, result, registry)
    section_shown(result, "contract", section, registry)


#: the contract, in the order it is checked
CHECKS: tuple[Callable[[AssessorCase, Any], None], ...] = (
    check_refuses_unknown_parameters,
    check_details_validate,
    check_same_on_every_engine,
    check_summary_untouched,
    check_section_renders,
)
