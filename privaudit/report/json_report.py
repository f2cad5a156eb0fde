"""The JSON report (schema_version 1): a stable, machine-readable verdict.

Keys: ``schema_version``, ``tool {name, version}``, ``generated_at``, ``engine``, ``input {path, sha256,
rows, columns, size}``, ``original`` (or null), ``policy {path, sha256, name}``, ``scope
{quasi_identifiers, sensitive, missing_qi}``, ``summary {passed, checks_total, checks_failed,
checks_warned, checks_errored}``, ``checks [{id, assessor, status, severity, value, threshold, params,
message, details, and quasi_identifiers for a check with its own attacker scenario}]``, ``utility [{measure,
column, value, raw, details}]`` (what the release keeps, :mod:`privaudit.utility`), and after ``privaudit remediate`` a ``remediation`` object (method, options,
offered, before/after verdicts, changes, information loss), after ``remediate --explore`` an ``explore`` object
(the candidates of the risk-utility map, :mod:`privaudit.remediation.explore`). Infinity is the string ``"inf"``. Same inputs and ``SOURCE_DATE_EPOCH`` give
byte-identical output.
"""

from __future__ import annotations

import json
from typing import Any

from privaudit import __version__

SCHEMA_VERSION = 1


def found_identifiers(checks: list) -> dict[str, str]:
    """Columns the ``direct_identifiers`` scan found holding direct identifiers (declared quasi-identifier,
    sensitive or other, or undeclared): column -> kind (``email``, ``phone`` ...)."""
    found: dict[str, str] = {}
    for c in checks:
        if c.assessor != "direct_identifiers" or not isinstance(c.details, dict):
            continue
        for item in [*c.details.get("declared_warnings", []), *c.details.get("undeclared_findings", [])]:
            if isinstance(item, dict) and "column" in item:
                found[item["column"]] = str(item.get("kind", ""))
    return found


def masked_details(details: Any, found: dict[str, str], sensitive: Any) -> Any:
    """``details`` with the values of ``found`` columns masked (:func:`privaudit.discovery.scan.mask`) in its
    ``worst_classes``: a column the scan recognises as e-mail addresses or names, declared a
    quasi-identifier, would otherwise be printed in full, 20 rows per check. The sensitive values
    listed for a class are masked too when the check's sensitive column is such a column. A copy: the
    audit's own details are left as measured."""
    from privaudit.discovery.scan import mask

    rows = details.get("worst_classes") if isinstance(details, dict) else None
    if not found or not isinstance(rows, list):
        return details
    names = sensitive if isinstance(sensitive, (list, tuple)) else [sensitive]
    kinds = [found[n] for n in names if isinstance(n, str) and n in found]
    out = []
    for row in rows:
        if not isinstance(row, dict):
            out.append(row)
            continue
        row = dict(row)
        if isinstance(row.get("values"), dict):
            row["values"] = {k: mask(v, found[k]) if k in found and v is not None else v
                             for k, v in row["values"].items()}
        if kinds and isinstance(row.get("sensitive_values"), dict):
            masked: dict[str, int] = {}
            for value, count in row["sensitive_values"].items():
                key = mask(value, kinds[0])
                masked[key] = masked.get(key, 0) + count
            row["sensitive_values"] = masked
        out.append(row)
    return {**details, "worst_classes": out}


def report_dict(audit: Any) -> dict:
    """The JSON report of an audit; the HTML and PDF reports are drawn from it. Values of columns the scan
    found holding direct identifiers are masked in the lists of worst classes (:func:`masked_details`)."""
    policy, table = audit.policy, audit.table
    found = found_identifiers(audit.checks)
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
        **({"explore": audit.explore} if getattr(audit, "explore", None) is not None else {}),
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
                "details": masked_details(c.details, found, (c.params or {}).get("sensitive")),
                **({"quasi_identifiers": list(c.quasi_identifiers)} if c.quasi_identifiers else {}),
            }
            for c in audit.checks
        ],
        "utility": list(getattr(audit, "utility", None) or []),
    }


def render_json(audit: Any) -> str:
    return json.dumps(report_dict(audit), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
