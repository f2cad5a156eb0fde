"""Recipes: several remediation methods in sequence, each step's output audited again.

The ESSnet handbook's workflow applies methods one after another -- recode, then suppress locally what the
recoding left at risk, then perturb (PRAM) -- measuring risk and information loss after each (Hundepool et
al., *Statistical Disclosure Control*, Wiley 2012, section 3.6 and figure 3.1); sdcMicro's GUI sdcApp keeps
that sequence, shows each step's risk and utility beside the original's, and undoes a step (Templ, Kowarik &
Meindl, J. Statistical Software 67(4), 2015, section 5; sdcMicro's ``undolast``). A recipe is that sequence
as a file, so that the release it made is made again in CI::

    version: 1                 # optional
    description: ...           # optional
    steps:
      - method: generalize
        options: {max_suppression: 0.05}
      - method: local_suppression
        options: {k: 5}
      - method: pram
        options: {variables: [race], seed: 1}

Each step's input is the previous step's output as it would be written (its re-audit's table, under the
policy with the columns and parameters the steps before it published); after every step the whole table so
far is audited again with the policy, against ``--original`` when given, else the recipe's input (the
original of every step: the same records, in the same order, unless a step removed some). A step's options
come from the recipe only (not the policy's ``remediation:`` block), validated by its method's option model.
The output, with every file the steps write beside it (built hierarchies, PRAM matrices, the policy it
audits again with), is offered only when the last step's re-audit passes every error check.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from privaudit.core.errors import PolicyError, PrivauditError, did_you_mean
from privaudit.core.policy import format_validation_error

#: the method name of a recipe's remediation in the report (its steps are in ``remediation.recipe``)
RECIPE_METHOD = "recipe"


class RecipeStepModel(BaseModel):
    """One step of a recipe file: a registered remediation method and its options."""

    model_config = ConfigDict(extra="forbid")

    method: str = Field(description="a remediation method (privaudit remediate --list)")
    options: dict[str, Any] = Field(default_factory=dict, description="the method's options")


class RecipeModel(BaseModel):
    """A recipe file: the steps, in order."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    description: str | None = None
    steps: list[RecipeStepModel]


@dataclasses.dataclass(frozen=True)
class Step:
    """A validated step: its remediator and parsed options."""

    remediator: Any
    options: Any

    @property
    def name(self) -> str:
        return str(self.remediator.name)


@dataclasses.dataclass(frozen=True)
class Recipe:
    label: str  # the file as given, or "recipe" for a parsed list
    steps: tuple[Step, ...]
    description: str | None = None

    def to_yaml_doc(self) -> dict[str, Any]:
        return {"version": 1, "steps": [{"method": s.name, "options": _shown(s)} for s in self.steps]}


def _shown(step: Step) -> dict[str, Any]:
    from privaudit.common.jsonable import jsonable

    return dict(jsonable(step.options.model_dump(mode="json", exclude_defaults=True)))


def describe(step: Step) -> str:
    """A step in one line: ``pram (variables = race; seed = 1)``; its options other than the defaults."""
    parts = []
    for key, value in _shown(step).items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}: {v}" for k, v in value.items())
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        parts.append(f"{key} = {value}")
    return step.name + (f" ({'; '.join(parts)})" if parts else "")


def load_recipe(source: Any, registry: Any) -> Recipe:
    """The recipe at ``source`` (a path, a parsed list of steps or a mapping with ``steps``), each step's method
    and options validated; one line naming the field otherwise (:class:`PolicyError`, exit 2)."""
    label = "recipe"
    if isinstance(source, (str, Path)):
        label = str(source)
        source = _read_yaml(Path(source), label)
    if isinstance(source, list):
        source = {"steps": source}
    if not isinstance(source, dict):
        raise PolicyError(f"{label}: a recipe is a mapping with 'steps:' (or a list of steps), not {_kind(source)}")
    if isinstance(source.get("steps"), list) and not source["steps"]:
        raise PolicyError(f"{label}: steps: the recipe is empty; give at least one step (method: NAME)")
    try:
        model = RecipeModel.model_validate(source)
    except ValidationError as exc:
        extra = next((e["loc"] for e in exc.errors() if e["type"] == "extra_forbidden"), ())
        fields = RecipeStepModel.model_fields if len(extra) > 1 else RecipeModel.model_fields  # a step's, or the top's
        raise PolicyError(format_validation_error(exc, label, list(fields))) from None
    steps = [_step(label, i, spec, registry) for i, spec in enumerate(model.steps)]
    return Recipe(label, tuple(steps), model.description)


def _kind(value: Any) -> str:
    return "an empty file" if value is None else f"a {type(value).__name__}"


def _read_yaml(path: Path, label: str) -> Any:
    import yaml

    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise PrivauditError(f"{label}: no such recipe file") from None
    except IsADirectoryError:
        raise PrivauditError(f"{label}: a folder, not a recipe file") from None
    except UnicodeDecodeError:
        raise PolicyError(f"{label}: not UTF-8 text") from None
    except OSError as exc:
        raise PrivauditError(f"{label}: cannot read the recipe: {exc.strerror or exc}") from None
    except ValueError:  # a name no file can have (a NUL byte)
        raise PrivauditError(f"{label!r}: not a recipe file's name") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PolicyError(f"{label}: not valid YAML: {problem}{where}") from None


def _step(label: str, i: int, spec: RecipeStepModel, registry: Any) -> Step:
    """Step ``i`` validated as ``remediate --method`` validates its method and options."""
    remediator = registry.remediators.get(spec.method)
    if remediator is None:
        raise PolicyError(
            f"{label}: steps[{i}].method: unknown method {spec.method!r}{did_you_mean(spec.method, registry.remediators)}"
            f" (available: {', '.join(sorted(registry.remediators))})"
        )
    try:
        options = remediator.options.model_validate(spec.options)
    except ValidationError as exc:
        fields = list(remediator.options.model_fields)
        raise PolicyError(format_validation_error(exc, f"{label}: steps[{i}].options", fields)) from None
    return Step(remediator, options)


def recipe_of_candidate(method: str, options: dict[str, Any], registry: Any) -> Recipe:
    """The recipe that makes again a candidate of ``remediate --explore``: a refined candidate ``base+refiner``
    (options: the base's, with the refiner's under its name) is two steps; a generalization candidate's
    ``levels`` is the lattice node it published (:class:`~privaudit.remediation.methods.generalize`'s option)."""
    names = method.split("+")
    steps = []
    for i, name in enumerate(names):
        given = options.get(name, {}) if i else {k: v for k, v in options.items() if k not in names[1:]}
        spec = RecipeStepModel(method=name, options=dict(given))
        steps.append(_step("explore", i, spec, registry))
    return Recipe("explore", tuple(steps))


def write_recipe(recipe: Recipe, comment: str = "") -> bytes:
    """The YAML of ``recipe`` (what :func:`load_recipe` reads back), with a comment line on top."""
    import yaml

    head = "".join(f"# {line}\n" for line in comment.splitlines() if line)
    text = yaml.safe_dump(recipe.to_yaml_doc(), sort_keys=False, allow_unicode=True, default_flow_style=None)
    return (head + text).encode("utf-8")


# ---------------------------------------------------------------------------------------------- running
def run_recipe(
    released: Any,
    policy: Any,
    out: str | Path,
    recipe: Any,
    original: Any = None,
    registry: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
    allow_outside_paths: bool = False,
    check_timeout: float | None = None,
    side_dir: str | Path | bool | None = None,
    even_if_passing: bool = False,
) -> Any:
    """Audit ``released``, run the recipe's steps in order, each re-audited; the
    :class:`~privaudit.pipeline.remediate.RemediationOutcome` of the last step (offered iff it passes every
    error check), its report's ``remediation.recipe`` holding every step's figures beside the input's."""
    from privaudit.pipeline.audit import open_policy, run_audit
    from privaudit.pipeline.plugins import get_registry
    from privaudit.pipeline.remediate import RemediationOutcome
    from privaudit.plugin.remediator import Remediation

    registry = registry or get_registry()
    parsed = recipe if isinstance(recipe, Recipe) else load_recipe(recipe, registry)
    opened = open_policy(policy, registry, allow_outside_paths)
    before = run_audit(
        released,
        opened,
        original=original,
        registry=registry,
        progress=progress,
        check_timeout=check_timeout,
        refuse_unreachable=True,
    )
    rows = [_figures(before, "input", "the input", {}, lost=None, by_step=None)]
    if before.passed and not even_if_passing:
        same = Remediation(before.table.frame, {}, {})
        return RemediationOutcome(before, before, same, b"", False, no_change_needed=True)
    outcome = _run_steps(before, opened, out, parsed, registry, rows, progress, check_timeout, side_dir)
    rem = outcome.after.remediation
    rem["recipe"] = {
        "source": parsed.label,
        **({"description": parsed.description} if parsed.description else {}),
        "steps": rows,
        "failing_step": None if outcome.offered else len(rows) - 1,
    }
    return outcome


def _run_steps(
    before: Any,
    policy: Any,
    out: str | Path,
    recipe: Recipe,
    registry: Any,
    rows: list[dict],
    progress: Callable[[str, int, int], None] | None,
    check_timeout: float | None,
    side_dir: str | Path | bool | None,
) -> Any:
    """Each step on the previous one's re-audited output; the last step's outcome (its side files written
    beside ``out``; the steps before it write none)."""
    from privaudit.pipeline.remediate import _transform, lost_of, reaudit

    current, combined, outcome = before, None, None
    # the steps before the last are audited without the policy's utility list (only the last one's audit is the
    # report's; a check's own utility measures still run; granularity is the table's, :func:`_figures`), as
    # explore audits its candidates
    between = copy.copy(policy)
    between.utility = []
    title = ", then ".join(s.remediator.title for s in recipe.steps)
    options = {"recipe": recipe.label, "steps": [f"{i + 1}. {describe(s)}" for i, s in enumerate(recipe.steps)]}
    for i, step in enumerate(recipe.steps):
        last = i == len(recipe.steps) - 1
        try:
            result = _transform(step.remediator, current, step.options, registry)
        except PrivauditError as exc:  # the step named: an option only the method judges, on this step's input
            raise type(exc)(f"{recipe.label}: steps[{i}] ({step.name}): {exc}") from None
        combined = _combined(combined, result, i, step.name)
        outcome = reaudit(
            _aligned(before, combined, policy),
            policy if last else between,
            combined,
            out,
            RECIPE_METHOD,
            title,
            options,
            registry,
            progress,
            check_timeout,
            side_dir if last else False,
        )
        by_step = None
        if result.records_removed == 0:  # what this step changed in its input
            by_step = int(
                lost_of(current.table.frame, outcome.after.table.frame, outcome.after.policy)["cells_changed"]
            )
        rem = outcome.after.remediation
        rows.append(_figures(outcome.after, step.name, step.remediator.title, _shown(step), rem.get("lost"), by_step))
        rows[-1]["records_removed"] = int(combined.records_removed)
        current = outcome.after
    return outcome


def _aligned(before: Any, combined: Any, policy: Any) -> Any:
    """``before`` as the original of the recipe so far: once a step removed records, ``--original`` pairs with
    the output only through a ``record_id`` column, else it is left out (as the single-method path leaves its
    input out once records are removed)."""
    if before.original is None or not combined.records_removed or policy.columns_with("record_id"):
        return before
    return dataclasses.replace(before, original=None)


def _combined(prev: Any, result: Any, i: int, name: str) -> Any:
    """The recipe so far as one remediation of its input: the last step's table; every step's changes, loss,
    notes and published files (a later step's file of the same name replaces an earlier one's), check and
    column overrides; the records removed by every step."""
    from privaudit.plugin.remediator import Remediation

    label = f"{i + 1}. {name}"
    notes = [f"step {label}: {n}" for n in result.notes]
    loss = {f"{label}.{k}": v for k, v in result.loss.items()}
    if prev is None:
        prev = Remediation(result.table, {}, {})
    # the built hierarchies once, at the top, where the side files name the files written (not per step)
    own = {k: v for k, v in result.changes.items() if k != "built_hierarchies"}
    changes = {**{k: v for k, v in prev.changes.items() if k != "built_hierarchies"}, label: own}
    built = {**(prev.changes.get("built_hierarchies") or {}), **(result.changes.get("built_hierarchies") or {})}
    if built:
        changes["built_hierarchies"] = built
    return Remediation(
        result.table,
        changes,
        {**prev.loss, **loss},
        artefacts={**prev.artefacts, **result.artefacts},
        notes=[*prev.notes, *notes],
        records_removed=prev.records_removed + result.records_removed,
        check_overrides={**prev.check_overrides, **result.check_overrides},
        column_overrides={**prev.column_overrides, **result.column_overrides},
    )


def _figures(
    audit: Any, method: str, title: str, options: dict, lost: dict | None, by_step: int | None
) -> dict[str, Any]:
    """One row of the recipe's table: the verdict, the error checks' values, the prosecutor's average risk
    (as ``--explore``'s risk axis), granularity (its utility axis), and what was lost since the input."""
    from privaudit.pipeline.explore import _utility_entries
    from privaudit.risk.attacker_models import attacker_risks

    s = audit.context.summary
    risk = float(attacker_risks(s.sizes, None, 0.2).prosecutor.average) if s.n_records else 0.0
    granularity = _utility_entries(audit, ["granularity"], {}).get("granularity")
    return {
        "method": method,
        "title": title,
        "options": options,
        "passed": audit.passed,
        "checks_failed": len(audit.failed),
        "checks_errored": len(audit.errored),
        "checks": {c.id: {"status": c.status, "value": c.value} for c in audit.checks if c.severity == "error"},
        "risk": risk,
        "granularity": None if granularity is None else float(granularity),
        "records": int(s.n_records),
        "cells_changed": None if lost is None and method != "input" else int((lost or {}).get("cells_changed", 0)),
        "cells_changed_by_step": by_step if method != "input" else 0,
        "records_suppressed": None
        if lost is None and method != "input"
        else int((lost or {}).get("records_suppressed", 0)),
        "records_removed": 0,
    }


def failing_checks(row: dict[str, Any]) -> Sequence[str]:
    """The error checks a step's row says fail or errored."""
    return [cid for cid, c in row["checks"].items() if c["status"] in ("fail", "error")]
