"""Helpers for tests of privaudit and of its plugins.

They run the real pipeline (CSV file -> policy -> class summary -> assessors), so a plugin's tests
exercise exactly what the CLI does::

    from privaudit.testing import audit_frame, check_result

    result = audit_frame(frame, {"columns": {...}, "checks": [{"assessor": "beta_likeness", "beta": 1}]})
    assert check_result(result, "beta_likeness")["status"] == "pass"
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Mapping

import pandas as pd
import yaml

from .audit import AuditResult, run_audit
from .plugins import Registry, build_registry, make_manager
from .report.json_report import report_dict


def registry_with(*plugins: Any, entry_points: bool = True) -> Registry:
    """A registry of the built-ins, the installed entry points, and ``plugins`` (modules or objects)."""
    return build_registry(make_manager(load_entry_points=entry_points, extra_plugins=plugins))


def audit_frame(frame: pd.DataFrame, policy: Mapping[str, Any], *, registry: Registry | None = None,
                files: Mapping[str, str] | None = None, original: pd.DataFrame | None = None) -> AuditResult:
    """Audit ``frame`` against ``policy`` (a dict; ``version`` and ``name`` are filled in) through the
    same loading path as the CLI. ``files`` are extra files (hierarchies ...) written beside the policy."""
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
        return run_audit(folder / "data.csv", folder / "policy.yaml", original=original_path, registry=registry)


def check_result(result: AuditResult, check_id: str) -> dict:
    """The JSON-report entry of one check (id, status, value, threshold, details ...)."""
    for check in report_dict(result)["checks"]:
        if check["id"] == check_id:
            return check
    raise KeyError(f"no check {check_id!r} in the audit (have: {[c.id for c in result.checks]})")
