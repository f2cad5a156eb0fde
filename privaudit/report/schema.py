"""The JSON Schema (draft 2020-12) of the JSON report (``privaudit report schema``).

It states what :func:`privaudit.report.json_report.report_dict` writes, schema_version 1: every key of
the report, which are required, and their types. ``checks[].details`` of a check that did not end in
``error`` follows its assessor's details model (``Assessor.details``), listed under ``$defs`` by assessor
name (the models' own parts beside them, by model name); everything is closed (``additionalProperties:
false``), so a key added to the report without updating this schema fails the test suite, which validates
every JSON report its tests write (``tests/conftest.py``). Numbers that are infinite are the strings
``"inf"``/``"-inf"`` and a NaN is ``null`` (JSON has neither).
"""

from __future__ import annotations

from typing import Any

from privaudit.report.json_report import SCHEMA_VERSION

_NUMBER = {"anyOf": [{"type": "number"}, {"enum": ["inf", "-inf"]}, {"type": "null"}]}
_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_COUNT = {"type": "integer", "minimum": 0}


def _closed(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


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
    defs = _inf_numbers(top.get("$defs", {}))
    for name, model in typed.items():
        if name in defs:  # an assessor named like a model: the model keeps its schema, qualified
            defs[f"{model.__module__}.{model.__qualname__}"] = defs.pop(name)
        defs[name] = {"description": f"details of a {name} check", **keys[(model, "validation")]}
    return defs


def report_json_schema(registry: Any) -> dict[str, Any]:
    """The report's JSON Schema as a dict, with the details schemas of ``registry``'s assessors (the installed
    plugins': ``privaudit.pipeline.plugins.get_registry()``)."""
    defs = details_schemas(registry)
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
    verdict = _closed(
        {
            "passed": {"type": "boolean"},
            "checks_failed": _COUNT,
            "checks_errored": _COUNT,
            "checks": {
                "type": "object",
                "additionalProperties": _closed({"status": {"enum": ["pass", "fail", "error"]}, "value": {}}),
            },
        }
    )
    check = _closed(
        {
            "id": {"type": "string", "minLength": 1},
            "assessor": {"type": "string", "minLength": 1},
            "status": {"enum": ["pass", "fail", "error"], "description": "error: the check could not be completed"},
            "severity": {"enum": ["error", "warning"]},
            "value": {
                **_NUMBER,
                "description": "the measured figure (a number, 'inf', or null when the check ended in error)",
            },
            "threshold": {"description": "the policy's bound, as the assessor states it (a number or an object)"},
            "params": {"type": "object", "description": "the check's parameters after validation and defaults"},
            "message": {"type": "string"},
            "details": {
                "type": "object",
                "description": "the assessor's figures: $defs[assessor] (empty when the check ended in error)",
            },
            "quasi_identifiers": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "description": "the check's attacker scenario: the quasi-identifiers the intruder knows",
            },
            "better": {"enum": ["higher", "lower"], "description": "which way the value improves (privaudit diff)"},
        },
        ["id", "assessor", "status", "severity", "value", "threshold", "params", "message", "details"],
    )
    from privaudit.utility import MEASURES

    utility = _closed(
        {
            "measure": {"enum": list(MEASURES), "description": "the utility measure (privaudit.utility.MEASURES)"},
            "column": {
                "type": ["string", "null"],
                "description": "the column the figure is of; null: over all columns",
            },
            "value": {
                "type": ["number", "null"],
                "description": "on ARX's quality scale: 1 = nothing lost, 0 = everything lost (ARX's own "
                "normalisation where ARX has the measure); within [0, 1] for every measure but "
                "classification_accuracy, ARX's unclipped relative accuracy (above 1: the release trains a "
                "better model than the original; below 0: worse than always guessing the majority class); "
                "null when it cannot be normalised (details.reason)",
            },
            "raw": {"type": ["number", "null"], "description": "the measure before that normalisation"},
            "details": {"type": "object", "description": "the measure's figures (minimum, maximum, reason ...)"},
        }
    )
    utility["allOf"] = [
        {
            "if": {"properties": {"measure": {"not": {"const": "classification_accuracy"}}}},
            "then": {"properties": {"value": {"type": ["number", "null"], "minimum": 0, "maximum": 1}}},
        }
    ]
    if by_assessor:
        check["allOf"] = by_assessor
    unit = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
    variable = _closed(
        {
            "column": {"type": "string"},
            "status": {"enum": ["kept", "suppressed", "recoded", "deleted"]},
            "description": {"type": "string", "description": "before -> after, in words"},
            "distinct_before": _COUNT,
            "distinct_after": _COUNT,
            "cells_changed": _COUNT,
            "cells_suppressed": _COUNT,
            "share_changed": unit,
        },
        ["column", "status", "description", "cells_changed"],
    )
    lost = {
        "anyOf": [
            {"type": "null"},
            _closed(
                {
                    "variables": {"type": "array", "items": variable},
                    "cells_changed": _COUNT,
                    "cells": _COUNT,
                    "records_suppressed": _COUNT,
                    "records": _COUNT,
                    "deleted": {"type": "array", "items": {"type": "string"}},
                },
                ["variables", "cells_changed", "cells", "records_suppressed", "records", "deleted"],
            ),
        ],
        "description": "what each variable lost: the quasi-identifiers, then any other column changed",
    }
    candidate = _closed(
        {
            "method": {"type": "string", "description": "the remediation method that made the candidate"},
            "options": {"type": "object", "description": "its options, as the method offered it"},
            "risk": {**unit, "description": "the risk axis: average prosecutor re-identification risk"},
            "utility": {**unit, "description": "the utility axis (utility_measure on ARX's quality scale)"},
            "checks_failed": _COUNT,
            "passes": {"type": "boolean"},
            "frontier": {
                "type": "boolean",
                "description": "no other candidate has lower-or-equal risk and "
                "higher-or-equal utility, one of them strictly",
            },
            "worst_check": {
                "anyOf": [
                    {"type": "null"},
                    _closed(
                        {
                            "id": {"type": "string"},
                            "value": {"type": ["number", "null"]},
                            "threshold": {"type": ["number", "null"]},
                            "status": {"enum": ["fail", "error"]},
                        }
                    ),
                ],
                "description": "the first failing error check and its figure (null: none fails)",
            },
            "utilities": {
                "type": "object",
                "additionalProperties": unit,
                "description": "every utility measure of the candidates' table",
            },
            "records_removed": _COUNT,
            "cells_changed": {**_COUNT, "description": "quasi-identifier cells the candidate changed"},
            "records_suppressed": {**_COUNT, "description": "records whose every quasi-identifier it suppressed"},
            "deleted": {
                "type": "array",
                "items": {"type": "string"},
                "description": "quasi-identifiers left with no value below the top of their hierarchy",
            },
            "failure": {
                "type": "string",
                "description": "the method failed to make this candidate: 'failed: <what went wrong> (package P V)'",
            },
        },
        ["method", "options", "risk", "utility", "checks_failed", "passes", "frontier"],
    )
    explore = _closed(
        {
            "no_change_needed": {"type": "boolean", "description": "the input already passes: nothing written"},
            "files_written": {
                "type": "array",
                "items": {"type": "string"},
                "description": "the recommended table and the files written beside it",
            },
            "lost": {**lost, "description": "what the recommended candidate lost, variable by variable"},
            "candidates": {"type": "array", "items": candidate},
            "recommended": {
                "anyOf": [{"type": "null"}, _COUNT],
                "description": "index of the recommended passing candidate (keeps the key variables, then "
                "highest utility)",
            },
            "risk_measure": {"type": "string"},
            "utility_measure": {"type": "string"},
            "risk_bound": {"type": ["number", "null"], "description": "the policy's bound on the risk axis"},
            "risk_bound_source": {"type": ["string", "null"], "description": "which check gives it"},
            "notes": {"type": "array", "items": {"type": "string"}},
            "built_hierarchies": {"type": "object", "description": "column -> the hierarchy built for it"},
            "methods": {
                "type": "object",
                "additionalProperties": _closed(
                    {
                        "title": {"type": "string"},
                        "description": {"type": "string"},
                        "package": {"type": ["string", "null"], "description": "the package that registered it"},
                    }
                ),
                "description": "method -> what its remediator's record says of it",
            },
        },
        ["candidates", "recommended", "risk_measure", "utility_measure"],
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://privaudit.invalid/schemas/report-{SCHEMA_VERSION}.json",
        "title": "privaudit audit report",
        "description": "The JSON report of `privaudit audit` and `privaudit remediate` (--json OUT).",
        **_closed(
            {
                "schema_version": {"const": SCHEMA_VERSION},
                "tool": _closed({"name": {"const": "privaudit"}, "version": {"type": "string"}}),
                "generated_at": {
                    "type": "string",
                    "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$",
                    "description": "UTC time of the audit (SOURCE_DATE_EPOCH when set)",
                },
                "engine": {"type": "string"},
                "input": _closed(
                    {
                        "path": {"type": "string"},
                        "sha256": {
                            "anyOf": [_SHA256, {"const": ""}],
                            "description": "empty only for a table in an engine's catalog (fingerprint says so)",
                        },
                        "fingerprint": {
                            "type": "string",
                            "description": "what sha256 is of, when not the file's bytes",
                        },
                        "size": {"anyOf": [_COUNT, {"type": "null"}]},
                        "rows": _COUNT,
                        "columns": {"type": "array", "items": {"type": "string"}},
                    },
                    ["path", "sha256", "size", "rows", "columns"],
                ),
                "original": {
                    "anyOf": [
                        {"type": "null"},
                        _closed({"path": {"type": "string"}, "sha256": _SHA256, "rows": _COUNT}),
                    ]
                },
                "policy": _closed({"path": {"type": "string"}, "sha256": _SHA256, "name": {"type": "string"}}),
                "scope": _closed(
                    {
                        "quasi_identifiers": {"type": "array", "items": {"type": "string"}},
                        "sensitive": {"type": "array", "items": {"type": "string"}},
                        "identifiers": {"type": "array", "items": {"type": "string"}},
                        "missing_qi": {"enum": ["value", "wildcard"]},
                        "missing_tokens": {"type": "array", "items": {"type": "string"}},
                        "special_categories": {
                            "type": "array",
                            "description": "columns holding special categories of personal data (GDPR "
                            "Art. 9, Art. 10): declared by the policy's special_category, or named by the column's header",
                            "items": _closed(
                                {
                                    "column": {"type": "string"},
                                    "category": {"type": "string"},
                                    "label": {"type": "string"},
                                    "article": {"type": "string"},
                                    "by": {"enum": ["policy", "header"]},
                                },
                                ["column", "category", "label", "article", "by"],
                            ),
                        },
                        "unknowable": {
                            "type": "object",
                            "additionalProperties": {"type": "string"},
                            "description": "column -> the policy's reason why an intruder cannot know it (role "
                            "other with a reason); present only when the policy gives one",
                        },
                        "hierarchies": {
                            "type": "object",
                            "additionalProperties": _SHA256,
                            "description": "column -> SHA-256 of its generalization tree",
                        },
                        "columns": {
                            "type": "object",
                            "description": "the policy's columns: role, type and an ordinal column's order (what "
                            "privaudit diff compares as the audit's design)",
                            "additionalProperties": _closed(
                                {
                                    "role": {"type": "string"},
                                    "type": {"type": "string"},
                                    "order": {"type": "array", "items": {"type": "string"}},
                                },
                                ["role", "type"],
                            ),
                        },
                        "delimiter": {
                            "type": ["string", "null"],
                            "description": "the policy's data.delimiter (null: sniffed)",
                        },
                    },
                    ["quasi_identifiers", "sensitive", "identifiers", "missing_qi", "missing_tokens"],
                ),
                "series": _closed(
                    {
                        "linking": {"enum": ["record_id", "quasi_identifiers"]},
                        "key": {"type": ["string", "null"]},
                        "people": _COUNT,
                        "releases": {
                            "type": "array",
                            "items": _closed(
                                {
                                    "path": {"type": "string"},
                                    "sha256": {"type": "string"},
                                    "rows": _COUNT,
                                    "classes": _COUNT,
                                    "people": _COUNT,
                                    "not_found": _COUNT,
                                }
                            ),
                        },
                    }
                ),
                "summary": _closed(
                    {
                        "passed": {"type": "boolean"},
                        "checks_total": _COUNT,
                        "checks_failed": _COUNT,
                        "checks_warned": _COUNT,
                        "checks_errored": _COUNT,
                    }
                ),
                "remediation": _closed(
                    {
                        "method": {"type": "string"},
                        "title": {"type": "string"},
                        "options": {"type": "object"},
                        "offered": {"type": "boolean"},
                        "input": _closed({"path": {"type": "string"}, "sha256": _SHA256, "rows": _COUNT}),
                        "before": verdict,
                        "after": verdict,
                        "changes": {"type": "object"},
                        "loss": {"type": "object"},
                        "notes": {"type": "array", "items": {"type": "string"}},
                        "check_overrides": {"type": "object"},
                        "lost": lost,
                        "files_written": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "the remediated table and the files written beside it (when offered)",
                        },
                        "built_hierarchies": {
                            "type": "object",
                            "description": "column -> the hierarchy built for a "
                            "quasi-identifier the policy gave none (builder, height, leaves, file: the file "
                            "written beside the table, null when none was)",
                        },
                        "policy_file": {
                            "type": "string",
                            "description": "the policy written beside the table, which it audits again with as "
                            "it was re-audited (columns retyped with built hierarchies, published parameters)",
                        },
                    },
                    [
                        "method",
                        "title",
                        "options",
                        "offered",
                        "input",
                        "before",
                        "after",
                        "changes",
                        "loss",
                        "notes",
                        "check_overrides",
                    ],
                ),
                "explore": {**explore, "description": "remediate --explore: the candidates of the risk-utility map"},
                "utility": {
                    "type": "array",
                    "items": utility,
                    "description": "what the release keeps: one entry per "
                    "figure (privaudit.utility); written by every audit, absent from reports of older versions",
                },
                "checks": {"type": "array", "items": check},
            },
            [
                "schema_version",
                "tool",
                "generated_at",
                "engine",
                "input",
                "original",
                "policy",
                "scope",
                "summary",
                "checks",
            ],
        ),
        **({"$defs": defs} if defs else {}),
    }
