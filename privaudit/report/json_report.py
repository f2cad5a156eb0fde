"""The JSON report (schema_version 1): a stable, machine-readable verdict.

Keys: ``schema_version``, ``tool {name, version}``, ``generated_at``, ``engine``, ``input {path, sha256,
rows, columns, size}``, ``original`` (or null), ``policy {path, sha256, name}``, ``scope
{quasi_identifiers, sensitive, missing_qi}``, ``summary {passed, checks_total, checks_failed,
checks_warned, checks_errored}``, ``checks [{id, assessor, status, severity, value, threshold, params,
message, details, and quasi_identifiers for a check with its own attacker scenario}]``, and after ``privaudit remediate`` a ``remediation`` object (method, options,
offered, before/after verdicts, changes, information loss). Infinity is the string ``"inf"``. Same inputs and ``SOURCE_DATE_EPOCH`` give
byte-identical output.
"""

from __future__ import annotations

import json
from typing import Any

from privaudit import __version__

SCHEMA_VERSION = 1


def report_dict(audit: Any) -> dict:
    policy, table = audit.policy, audit.table
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "privaudit", "version": __version__},
        "generated_at": audit.generated_at,
        "engine": audit.engine,
        "input": {
            "path": str(table.path),
            "sha256": table.sha256,
            **({} if table.fingerprint == "sha256" else {"fingerprint": table.fingerprint}),
            "size": table.size,
            "rows": table.rows,
            "columns": table.columns,
        },
        "original": None if audit.original is None else {
            "path": str(audit.original.path), "sha256": audit.original.sha256, "rows": audit.original.rows},
        "policy": {"path": str(policy.path), "sha256": policy.sha256, "name": policy.name},
        "scope": {
            "quasi_identifiers": policy.quasi_identifiers,
            "sensitive": policy.sensitive,
            "identifiers": policy.columns_with("identifier"),
            "missing_qi": policy.data.missing_qi,
            "missing_tokens": policy.missing_tokens,
        },
        "summary": {
            "passed": audit.passed,
            "checks_total": len(audit.checks),
            "checks_failed": len(audit.failed),
            "checks_warned": len(audit.warned),
            "checks_errored": len(audit.errored),
        },
        **({"remediation": audit.remediation} if audit.remediation is not None else {}),
        "checks": [
            {
                "id": c.id,
                "assessor": c.assessor,
                "status": c.status,
                "severity": c.severity,
                "value": c.value,
                "threshold": c.threshold,
                "params": c.params,
                "message": c.message,
                "details": c.details,
                **({"quasi_identifiers": list(c.quasi_identifiers)} if c.quasi_identifiers else {}),
            }
            for c in audit.checks
        ],
    }


def render_json(audit: Any) -> str:
    return json.dumps(report_dict(audit), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
