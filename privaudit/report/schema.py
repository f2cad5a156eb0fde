"""The JSON Schema (draft 2020-12) of the JSON report (``privaudit report schema``).

Generated from the typed report, :class:`privaudit.plugin.result.Report` (schema_version 1), which the JSON
writer dumps: every key of the report, which are required, and their types, stated once.
``checks[].details`` of a check that did not end in ``error`` follows its assessor's details model
(``Assessor.details``), listed under ``$defs`` by assessor name (the models' own parts beside them, by model
name); everything is closed (``additionalProperties: false``), so a report that drifts from the model fails the
test suite, which validates every JSON report its tests write (``tests/conftest.py``). Numbers that are
infinite are the strings ``"inf"``/``"-inf"`` and a NaN is ``null`` (JSON has neither).
"""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import GenerateJsonSchema

from privaudit.core.errors import PrivauditError
from privaudit.plugin.result import SCHEMA_VERSION, Report


def _inf_numbers(node: Any) -> Any:
    """A pydantic JSON Schema with every ``number`` also admitting ``"inf"``/``"-inf"`` (the report's infinity)."""
    if isinstance(node, list):
        return [_inf_numbers(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: _inf_numbers(v) for k, v in node.items()}
    if node.get("type") == "number":
        rest = {k: v for k, v in node.items() if k != "type"}
        return {"anyOf": [{"type": "number"}, {"enum": ["inf", "-inf"]}], **rest}
    return node


def details_schemas(registry: Any) -> dict[str, Any]:
    """``$defs`` of the report: each installed assessor's details schema under its name (a reference to its
    model's schema, which is beside it under the model's name with the parts it uses)."""
    from pydantic.json_schema import models_json_schema

    typed = {name: a.details for name, a in registry.assessors.items() if getattr(a, "details", None) is not None}
    if not typed:
        return {}
    keys, top = models_json_schema([(m, "validation") for m in typed.values()], ref_template="#/$defs/{model}")
    defs: dict[str, Any] = _inf_numbers(top.get("$defs", {}))
    for name, model in typed.items():
        if name in defs:  # an assessor named like a model: the model keeps its schema, qualified
            defs[f"{model.__module__}.{model.__qualname__}"] = defs.pop(name)
        defs[name] = {"description": f"details of a {name} check", **keys[(model, "validation")]}
    return defs


class _Generator(GenerateJsonSchema):
    """pydantic's generator, without a title per field (the keys say it) and with a one-value ``Literal`` as
    the bare ``const`` draft 2020-12 states it."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def literal_schema(self, schema: Any) -> dict[str, Any]:
        values = schema["expected"]
        return {"const": values[0]} if len(values) == 1 else {"enum": list(values)}


def _closed_defaults(node: Any) -> Any:
    """The schema without pydantic's ``default`` annotations: a defaulted field of the report is a key
    written only when set (:mod:`privaudit.plugin.result`), never one filled in with its default."""
    if isinstance(node, list):
        return [_closed_defaults(n) for n in node]
    if not isinstance(node, dict):
        return node
    return {k: _closed_defaults(v) for k, v in node.items() if k != "default"}


def report_json_schema(registry: Any) -> dict[str, Any]:
    """The report's JSON Schema as a dict: :class:`~privaudit.plugin.result.Report`'s own
    (``model_json_schema``), with the details schemas of ``registry``'s assessors (the installed plugins':
    ``privaudit.pipeline.plugins.get_registry()``) under ``$defs`` by assessor name.

    Added to what pydantic generates, because the model cannot state it: a check's ``details`` follows its
    assessor's model only when the check did not end in error (``if``/``then`` per assessor: the assessors
    are plugins, the model names none), and a utility figure's measure is one the installed version computes,
    its value within [0, 1] for every measure but classification accuracy's unclipped relative accuracy."""

    schema = _closed_defaults(Report.model_json_schema(ref_template="#/$defs/{model}", schema_generator=_Generator))
    own = schema.pop("$defs")
    defs = details_schemas(registry)
    clash = sorted(set(own) & set(defs))
    if clash:  # a plugin's details model named like a part of the report: refused, not silently merged
        raise PrivauditError(f"details model {clash[0]!r} of an installed plugin is named like a part of the report")
    check, utility = own["ReportCheck"], own["UtilityFigure"]
    by_assessor = [
        {
            "if": {
                "properties": {"assessor": {"const": name}, "status": {"enum": ["pass", "fail"]}},
                "required": ["assessor", "status"],
            },
            "then": {"properties": {"details": {"$ref": f"#/$defs/{name}"}}},
        }
        for name in registry.assessors
        if name in defs
    ]
    if by_assessor:
        check["allOf"] = by_assessor
    utility["properties"]["measure"]["enum"] = list(registry.of("measure"))
    utility["allOf"] = [
        {
            "if": {"properties": {"measure": {"not": {"const": "classification_accuracy"}}}},
            "then": {"properties": {"value": {"type": ["number", "null"], "minimum": 0, "maximum": 1}}},
        }
    ]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://privaudit.invalid/schemas/report-{SCHEMA_VERSION}.json",
        **schema,
        "$defs": {**own, **defs},
    }
