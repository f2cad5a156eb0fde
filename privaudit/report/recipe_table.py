"""A recipe's table (``remediation.recipe`` of the JSON report): the input, then each step's re-audit -- the
verdict, the error checks' values, the prosecutor's average risk, granularity and what was lost -- as sdcApp
shows each step's risk and utility beside the original's (Templ, Kowarik & Meindl, JSS 67(4), 2015, section
5). One builder for the terminal, the Markdown summary and the report's Recipe chapter."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from privaudit.plugin.text import fmt


def _count(value: Any) -> str:
    return "-" if value is None else fmt(value)


def _share(value: Any, total: Any) -> str:
    if value is None:
        return "-"
    if not total:
        return fmt(value)
    return f"{fmt(value)} ({100 * value / total:.1f} %)"


def recipe_rows(recipe: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """(headers, rows as text): one row per step, the input first (step 0)."""
    steps = list(recipe.get("steps") or [])
    check_ids = headline_checks(steps)
    removed = any(s.get("records_removed") for s in steps)
    headers = [
        "step",
        "method",
        "verdict",
        "risk",
        *check_ids,
        "granularity",
        "cells changed",
        "by this step",
        "records suppressed",
        *(["records removed"] if removed else []),
    ]
    rows = []
    for i, s in enumerate(steps):
        checks = s.get("checks") or {}
        verdict = "PASS" if s.get("passed") else f"FAIL ({s.get('checks_failed', 0) + s.get('checks_errored', 0)})"
        rows.append(
            [
                str(i),
                "input" if i == 0 else str(s.get("method")),
                verdict,
                f"{float(s.get('risk') or 0.0):.4f}",
                *(_check(checks.get(cid)) for cid in check_ids),
                "-" if s.get("granularity") is None else f"{float(s['granularity']):.4f}",
                _count(s.get("cells_changed")),
                _count(s.get("cells_changed_by_step")) if i else "-",
                _share(s.get("records_suppressed"), s.get("records")),
                *([_count(s.get("records_removed"))] if removed else []),
            ]
        )
    return headers, rows


def headline_checks(steps: list[Mapping[str, Any]]) -> list[str]:
    """The error checks the table shows: those that fail or err at some step (the input's failures first),
    else every error check."""
    every = list(dict.fromkeys(cid for s in steps for cid in (s.get("checks") or {})))
    failing = [
        cid
        for cid in every
        if any((s.get("checks") or {}).get(cid, {}).get("status") in ("fail", "error") for s in steps)
    ]
    return failing or every


def _check(entry: Mapping[str, Any] | None) -> str:
    """A check's value, marked when it fails."""
    if entry is None:
        return "-"
    value = entry.get("value")
    text = fmt(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)
    status = entry.get("status")
    return text + ("\u00a0✗" if status in ("fail", "error") else "")


def markdown(recipe: Mapping[str, Any], cell: Any) -> list[str]:
    """The recipe's table in Markdown (``cell`` escapes a cell's text)."""
    headers, rows = recipe_rows(recipe)
    lines = [
        "",
        f"**Recipe** {cell(str(recipe.get('source')))}: each step audited again, the input first",
        "",
        "| " + " | ".join(cell(h) for h in headers) + " |",
        "|" + "|".join("---" if i < 3 else "---:" for i in range(len(headers))) + "|",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    failing = recipe.get("failing_step")
    if failing is not None:
        lines += ["", f"Step {failing} fails the policy: nothing was written."]
    return lines
