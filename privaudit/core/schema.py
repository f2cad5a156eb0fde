"""JSON Schema of the policy file, with each installed assessor's parameters (``privaudit policy schema``)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from privaudit.core.policy import PolicyModel

if TYPE_CHECKING:  # the registry is handed in, typed by what the schema reads of it
    from privaudit.core.registry import RegistryView as Registry


def policy_json_schema(registry: Registry) -> dict:
    schema = PolicyModel.model_json_schema()
    defs = schema.setdefault("$defs", {})
    variants = []
    for name in sorted(registry.assessors):
        assessor = registry.assessors[name]
        params = copy.deepcopy(assessor.params.model_json_schema(ref_template="#/$defs/{model}"))
        for sub_name, sub in params.pop("$defs", {}).items():
            defs.setdefault(sub_name, sub)
        properties = {
            "assessor": {"const": name, "description": assessor.title},
            "id": {"type": "string", "description": "Check id (default: the assessor name, made unique)."},
            "severity": {
                "enum": ["error", "warning"],
                "default": getattr(assessor.params, "DEFAULT_SEVERITY", "error"),
            },
            **params.get("properties", {}),
        }
        variants.append(
            {
                "title": f"{name} check",
                "description": assessor.measures,
                "type": "object",
                "properties": properties,
                "required": ["assessor", *params.get("required", [])],
                "additionalProperties": False,
            }
        )
        defs[f"check_{name}"] = variants[-1]
    schema["properties"]["checks"] = {
        "type": "array",
        "items": {"oneOf": [{"$ref": f"#/$defs/check_{name}"} for name in sorted(registry.assessors)]},
    }
    defs.pop("CheckSpec", None)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "privaudit policy"
    return schema
