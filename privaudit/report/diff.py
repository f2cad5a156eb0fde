"""Two JSON reports compared (``privaudit diff BASE.json NEW.json``, ``audit --baseline``): per check the value
before and after, the signed change and whether it got worse in the check's own direction; status changes;
classes that fell below k and new sample uniques, as far as both reports list classes; utility changes.

A regression is an error-severity check that got worse by more than the tolerance (even while it still
passes: the gate holds the release to its baseline, not only to the threshold), or went from pass to fail (or
error). Reports of different designs -- anything in the policy that changes what is measured
(:mod:`privaudit.report.diff_design`) -- are refused unless the caller allows it; the changes are then listed
first, and an error check of the baseline that the new policy dropped or made a warning counts against the
release.

A check that the new report says an exception of the policy accepts (``excepted``: in force on the new audit's
day, :mod:`privaudit.pipeline.exceptions`) is not a regression, whatever its value or status did: the row says
``excepted (approver, role, until DATE)`` and keeps the reasons it was excused from (``excused``). Only a
demotion, a change of the policy's design, still counts.

Which way a value improves comes from the check's ``better`` (``"higher"``/``"lower"``, written by the audit
from the assessor's declaration); for reports without it, from the value, threshold and status of either
report (a passing value below its threshold: lower is better); when neither says, only the status counts.

The comparison (:func:`compare`) is a plain dict, the ``--json`` output; the other outputs render it:
:func:`terminal_text`, :func:`markdown` (a pull-request comment) and :func:`html` (autoescaped Jinja2).
"""

from __future__ import annotations

import json
import math
from typing import Any

from privaudit.core.errors import DataError
from privaudit.plugin.result import Report
from privaudit.plugin.text import fmt
from privaudit.report.diff_design import design_changes

DIFF_VERSION = 1


# ------------------------------------------------------------------------------------------ tolerance
#: no tolerance: any change toward worse counts (``--tolerance``, parsed by :mod:`privaudit.pipeline.arguments`)
NO_TOLERANCE = ("absolute", 0.0)


# ------------------------------------------------------------------------------------------ comparing
def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if value == "inf":
        return math.inf
    if value == "-inf":
        return -math.inf
    return None


def direction(*checks: dict | None) -> str | None:
    """Which way a check's value improves: its declared ``better``, else inferred from a report where the value
    and a numeric threshold differ (a pass below the threshold, or a fail above it: lower is better)."""
    for c in checks:
        if c and c.get("better") in ("higher", "lower"):
            return c["better"]
    for c in checks:
        if not c or c.get("status") not in ("pass", "fail"):
            continue
        v, t = _number(c.get("value")), _number(c.get("threshold"))
        if v is None or t is None or v == t:
            continue
        return "lower" if (c["status"] == "pass") == (v < t) else "higher"
    return None


def _beyond(change: float, before: float | None, tolerance: tuple[str, float]) -> bool:
    kind, amount = tolerance
    allowed = amount if kind == "absolute" else amount * abs(before or 0.0)
    return change > allowed * (1 + 1e-12) + 1e-15


def _judged(severity: str | None, fail_on: str) -> bool:
    """Whether a check of this severity can regress (error checks; warnings too under ``--fail-on warning``)."""
    return severity == "error" or (severity is not None and fail_on == "warning")


def _check_row(b: dict | None, n: dict | None, tolerance: tuple[str, float], fail_on: str = "error") -> dict:
    """One check before and after. Its regressions, each a reason: ``worse`` beyond the tolerance (even while it
    still passes), ``stopped_passing``, ``demoted`` (an error check of the baseline made a warning), ``dropped``
    (an error check of the baseline no longer run) and ``added_failing`` (an error check the baseline did not
    run, which does not pass), ``errored`` (a failing check that now ends in error: nothing measured): a check
    is judged at the stricter of its two severities."""
    ref = n or b
    assert ref is not None
    better = direction(n, b)
    vb, vn = (_number(b.get("value")) if b else None), (_number(n.get("value")) if n else None)
    change = None
    if vb is not None and vn is not None:
        change = 0.0 if vb == vn else vn - vb  # inf - inf is no change
    worse = None
    beyond = False
    if change is not None and better is not None:
        toward_worse = change if better == "lower" else -change
        worse = toward_worse > 0
        beyond = worse and _beyond(toward_worse, vb, tolerance)
    sb, sn = (b or {}).get("status"), (n or {}).get("status")
    bsev = None if b is None else b.get("severity", "error")
    nsev = None if n is None else n.get("severity", "error")
    judged = _judged(bsev, fail_on) or _judged(nsev, fail_on)
    reasons = []
    if b is not None and n is not None and judged:
        if beyond:
            reasons.append("worse")
        if sb == "pass" and sn in ("fail", "error"):
            reasons.append("stopped_passing")
        elif sn == "error" and sb != "error":
            reasons.append("errored")  # no figure to hold to the baseline
    if bsev == "error" and nsev == "warning" and fail_on == "error":
        reasons.append("demoted")
    if n is None and _judged(bsev, fail_on):
        reasons.append("dropped")
    if b is None and _judged(nsev, fail_on) and sn != "pass":
        reasons.append("added_failing")
    excepted = (n or {}).get("excepted") if sn == "fail" else None
    excused = [r for r in reasons if r != "demoted"] if excepted else []
    reasons = [r for r in reasons if r not in excused]
    return {
        "id": ref["id"],
        **({"renamed_from": b["id"]} if b is not None and n is not None and b["id"] != n["id"] else {}),
        "assessor": ref.get("assessor"),
        "severity": nsev or bsev,
        "severity_before": bsev,
        "status_before": sb,
        "status_after": sn,
        "value_before": (b or {}).get("value"),
        "value_after": (n or {}).get("value"),
        "threshold_before": (b or {}).get("threshold"),
        "threshold_after": (n or {}).get("threshold"),
        "change": change,
        "better": better,
        "worse": worse,
        "beyond_tolerance": bool(beyond),
        "status_changed": sb != sn,
        "regression": bool(reasons),
        "reasons": reasons,
        **({"excepted": excepted, "excused": excused} if excepted else {}),
    }


def _class_key(row: dict) -> str:
    return json.dumps(row.get("values") or {}, sort_keys=True, ensure_ascii=False)


def _class_changes(base: dict, new: dict) -> dict:
    """Classes below k in the new report that the base report did not list below k, and new sample uniques
    (classes of one record), from the checks' lists of worst classes (``details.worst_classes``): only as
    far as both reports list classes (the lists are capped by ``report.max_classes``)."""

    def listed(report: dict) -> tuple[dict, dict, bool]:
        below, uniques, any_list = {}, {}, False
        for c in report["checks"]:
            rows = (c.get("details") or {}).get("worst_classes") if isinstance(c.get("details"), dict) else None
            if not isinstance(rows, list):
                continue
            k = (c.get("params") or {}).get("k")
            for row in rows:
                if not isinstance(row, dict) or not isinstance(row.get("values"), dict) or "size" not in row:
                    continue
                any_list = True
                key, size = _class_key(row), row.get("record_size", row["size"])
                if isinstance(k, int) and not isinstance(k, bool) and isinstance(size, int) and size < k:
                    below.setdefault(key, {"values": row["values"], "size": size, "k": k})
                if size == 1:
                    uniques.setdefault(key, {"values": row["values"], "size": 1})
        return below, uniques, any_list

    b_below, b_unique, b_any = listed(base)
    n_below, n_unique, n_any = listed(new)
    if not (b_any and n_any):
        return {"compared": False, "fell_below_k": [], "new_sample_uniques": []}
    return {
        "compared": True,
        "fell_below_k": [v for key, v in n_below.items() if key not in b_below],
        "new_sample_uniques": [v for key, v in n_unique.items() if key not in b_unique],
    }


def _utility_changes(base: dict, new: dict, tolerance: tuple[str, float]) -> list[dict] | None:
    """Utility figures of both reports (top-level ``utility``: ``{measure, column, value, ...}``, value 1 =
    nothing lost, so higher is better), matched by measure and column; None unless both reports carry them."""
    bu, nu = base.get("utility"), new.get("utility")
    if not isinstance(bu, list) or not isinstance(nu, list):
        return None

    def keyed(items: list) -> dict:
        return {(str(u.get("measure")), str(u.get("column"))): u for u in items if isinstance(u, dict)}

    bk, nk = keyed(bu), keyed(nu)
    rows = []
    for key in list(dict.fromkeys([*nk, *bk])):
        b, n = bk.get(key), nk.get(key)
        if (b is None or b.get("value") is None) and (n is None or n.get("value") is None):
            continue  # a measure neither report has a figure of
        vb, vn = (_number(b.get("value")) if b else None), (_number(n.get("value")) if n else None)
        change = None if vb is None or vn is None else (0.0 if math.isclose(vb, vn, abs_tol=1e-12) else vn - vb)
        worse = None if change is None else change < 0
        rows.append(
            {
                "measure": key[0],
                "column": None if key[1] == "None" else key[1],
                "value_before": None if b is None else b.get("value"),
                "value_after": None if n is None else n.get("value"),
                "change": change,
                "worse": worse,
                "beyond_tolerance": bool(worse) and _beyond(-change, vb, tolerance),
            }
        )
    return rows


def compare(
    base: dict | Report,
    new: dict | Report,
    tolerance: tuple[str, float] = ("absolute", 0.0),
    allow_changed_policy: bool = False,
    names: tuple[str, str] = ("BASE", "NEW"),
    fail_on: str = "error",
) -> dict:
    """The comparison of two JSON reports (see the module docstring); one line (DataError) when they audit
    different designs (:mod:`privaudit.report.diff_design`) and ``allow_changed_policy`` is false.
    ``fail_on="warning"``: warning-severity checks can regress too (as ``--fail-on warning`` makes them fail an
    audit). A report is a JSON report read back (:func:`privaudit.report.diff_input.read_report`, which
    admits the reports of older versions, missing newer keys) or this run's typed report, read as the JSON it
    writes."""
    base, new = (r.to_dict() if isinstance(r, Report) else r for r in (base, new))
    changes, pairs = design_changes(base, new)
    if changes and not allow_changed_policy:
        raise DataError(
            f"{names[0]} and {names[1]} audit different policies ({'; '.join(changes)}): the figures "
            "are not comparable; pass --allow-changed-policy to compare them anyway"
        )
    rows = [_check_row(b, n, tolerance, fail_on) for b, n in pairs]
    utility = _utility_changes(base, new, tolerance)
    regressions = [r["id"] for r in rows if r["regression"]]
    return {
        "diff_version": DIFF_VERSION,
        "base": _side(base, names[0]),
        "new": _side(new, names[1]),
        "tolerance": {"kind": tolerance[0], "amount": tolerance[1]},
        "fail_on": fail_on,
        "policy_changes": changes,
        "checks": [r for r in rows if r["status_before"] is not None and r["status_after"] is not None],
        "added_checks": [r["id"] for r in rows if r["status_before"] is None],
        "removed_checks": [r["id"] for r in rows if r["status_after"] is None],
        "unpaired_checks": [r for r in rows if r["status_before"] is None or r["status_after"] is None],
        "classes": _class_changes(base, new),
        **({"utility": utility} if utility is not None else {}),
        "regressions": regressions,
        "regressed": bool(regressions),
        "exit_code": 1 if regressions else 0,
    }


def _side(report: dict, name: str) -> dict:
    return {
        "report": name,
        "input": report["input"].get("path"),
        "sha256": report["input"].get("sha256"),
        "rows": report["input"].get("rows"),
        "policy": report["policy"].get("name"),
        "generated_at": report.get("generated_at"),
        "passed": report["summary"].get("passed"),
    }


# ------------------------------------------------------------------------------------------ rendering
def _value(v: Any) -> str:
    return "—" if v is None else fmt(v)


def _change(row: dict) -> str:
    c = row["change"]
    if c is None:
        return "—"
    if c == 0:
        return "0"
    return ("+" if c > 0 else "") + fmt(c)


def _mark(status: str | None, severity: str | None) -> str:
    """PASS / FAIL / WARN (a failing warning-severity check, as the audit prints it) / ERROR."""
    if status is None:
        return "—"
    return "WARN" if status == "fail" and severity == "warning" else status.upper()


def _status(row: dict) -> str:
    before = _mark(row["status_before"], row["severity_before"])
    after = _mark(row["status_after"], row["severity"])
    if row["status_before"] is None or row["status_after"] is None:  # a check only one report runs
        return after if row["status_before"] is None else before
    return before if before == after else f"{before}->{after}"


def excepted_words(exception: dict) -> str:
    """An exception in force, in words: ``excepted (A. Checker, output checker, until 2027-01-31)``."""
    approver = exception.get("approver") or {}
    who = ", ".join(str(approver[k]) for k in ("name", "role") if approver.get(k))
    return f"excepted ({who}, until {exception.get('expires')})"


def _verdict_of(row: dict) -> str:
    if row["regression"]:
        return "REGRESSION"
    if row.get("excepted"):
        return excepted_words(row["excepted"])
    if row["status_before"] is None:
        return "added"
    if row["status_after"] is None:
        return "removed"
    if row["worse"]:
        return "worse" + ("" if row["beyond_tolerance"] else " (within tolerance)")
    if row["worse"] is False and row["change"]:
        return "better"
    if row["better"] is None and row["change"]:
        return "changed (direction unknown)"
    return "unchanged" if not row["status_changed"] else "status changed"


def _against(row: dict) -> str:
    """How the value after stands against its threshold: ``538 ≥ 5`` (a passing check, higher is better)."""
    t, v = _number(row["threshold_after"]), row["value_after"]
    if t is None or v is None or row["better"] is None:
        return ""
    passes = row["status_after"] == "pass"
    sign = {("higher", True): "≥", ("higher", False): "<", ("lower", True): "≤", ("lower", False): ">"}
    return f" ({fmt(v)} {sign[(row['better'], passes)]} {fmt(row['threshold_after'])})"


def explained(row: dict) -> str:
    """Why a row is a regression, in words (empty for a row that is not one)."""
    words = []
    for reason in row["reasons"]:
        if reason == "worse":
            state = "still passes" if row["status_after"] == "pass" else "does not pass"
            words.append(f"{state}{_against(row)}, worse than the baseline ({_value(row['value_before'])})")
        elif reason == "stopped_passing" and "worse" not in row["reasons"]:
            words.append(f"stopped passing{_against(row)}; the baseline had {_value(row['value_before'])}")
        elif reason == "stopped_passing":
            words.append("stopped passing")
        elif reason == "errored":
            words.append("ended in error: nothing measured to hold to the baseline")
        elif reason == "demoted":
            words.append("an error check of the baseline made a warning: it no longer gates the release")
        elif reason == "dropped":
            words.append("an error check of the baseline that the new policy no longer runs")
        elif reason == "added_failing":
            words.append("an error check the baseline did not run, and it does not pass")
    if row.get("renamed_from"):
        words.append(f"was {row['renamed_from']!r}")
    return "; ".join(words)


def _tolerance_text(d: dict) -> str:
    t = d["tolerance"]
    return f"{fmt(t['amount'] * 100)}%" if t["kind"] == "relative" else fmt(t["amount"])


def _verdicts(d: dict, arrow: str = "->") -> str:
    """The release's verdict before and after, the first thing said (a FAIL that became a PASS first of all)."""
    before, after = ("PASS" if d[side]["passed"] else "FAIL" for side in ("base", "new"))
    if before == after:
        return f"release: {after}, as in the baseline"
    return f"release: {before} {arrow} {after} ({'now passes' if after == 'PASS' else 'no longer passes'} its audit)"


def _table(rows: list[list[str]]) -> list[str]:
    """Rows of cells, each column as wide as its widest cell (the last cell left unpadded)."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join([*(c.ljust(w) for c, w in zip(r, widths, strict=False)), r[-1]]).rstrip() for r in rows]


def _check_cells(r: dict) -> list[str]:
    tail = explained(r)
    return [
        _verdict_of(r),
        r["id"],
        _status(r),
        f"{_value(r['value_before'])} -> {_value(r['value_after'])} ({_change(r)})"
        if r["status_before"] and r["status_after"]
        else "",
        tail,
    ]


def terminal_text(d: dict) -> str:
    """What ``privaudit diff`` prints (control characters escaped by the caller's terminal module)."""
    lines = [_verdicts(d)]
    if d["policy_changes"]:
        lines.append("policy changes (compared anyway, --allow-changed-policy):")
        lines += [f"  - {c}" for c in d["policy_changes"]]
    lines.append(f"base: {d['base']['input']} ({d['base']['report']})  new: {d['new']['input']} ({d['new']['report']})")
    rows = d["checks"] + d.get("unpaired_checks", [])
    lines += _table([_check_cells(r) for r in rows])
    classes = d["classes"]
    if classes["compared"]:
        lines.append(
            f"classes newly below k: {len(classes['fell_below_k'])}; new sample uniques: "
            f"{len(classes['new_sample_uniques'])} (as far as the reports list classes)"
        )
    changed = [u for u in d.get("utility") or [] if u["change"] is None or u["change"] != 0]
    lines += _table(
        [
            [
                f"utility {u['measure']}" + (f" ({u['column']})" if u["column"] else ""),
                f"{_value(u['value_before'])} -> {_value(u['value_after'])} ({_change(u)})",
                "worse" if u["worse"] else "",
            ]
            for u in changed
        ]
    )
    if d.get("utility") and len(changed) < len(d["utility"]):
        same = len(d["utility"]) - len(changed)
        lines.append(f"utility: {same} figure{'s' * (same != 1)} unchanged")
    n = len(d["regressions"])
    lines.append("")
    kind = "error-severity " if d.get("fail_on", "error") == "error" else ""
    lines.append(
        f"diff: {'REGRESSION' if n else 'no regression'} ({n} {kind}check{'s' * (n != 1)} got "
        f"worse beyond the tolerance {_tolerance_text(d)}, stopped passing or left the gate)"
    )
    return "\n".join(lines) + "\n"


def markdown(d: dict) -> str:
    """A Markdown summary for a pull-request comment (cells escaped as the CI summary escapes them)."""
    from privaudit.report.ci import _cell, _code

    n = len(d["regressions"])
    lines = [
        f"## privaudit diff: {'❌ regression' if n else '✅ no regression'}",
        "",
        f"{_cell(_verdicts(d, '→'))}.",
        "",
        f"{_code(d['base']['input'])} → {_code(d['new']['input'])}; tolerance {_cell(_tolerance_text(d))}.",
        "",
    ]
    if d["policy_changes"]:
        lines += ["**Policy changes** (compared anyway):", ""] + [f"- {_cell(c)}" for c in d["policy_changes"]] + [""]
    lines += ["| check | status | before | after | change | verdict |", "|---|---|---:|---:|---:|---|"]
    for r in d["checks"] + d.get("unpaired_checks", []):
        verdict = _verdict_of(r) + (f": {explained(r)}" if r["regression"] else "")
        lines.append(
            f"| {_code(r['id'])} | {_cell(_status(r))} | {_cell(_value(r['value_before']))} | "
            f"{_cell(_value(r['value_after']))} | {_cell(_change(r))} | {_cell(verdict)} |"
        )
    if d["classes"]["compared"]:
        lines += [
            "",
            f"Classes newly below k: {len(d['classes']['fell_below_k'])}; new sample uniques: "
            f"{len(d['classes']['new_sample_uniques'])} (as far as the reports list classes).",
        ]
    if d.get("utility"):
        lines += ["", "| utility | column | before | after | change | verdict |", "|---|---|---:|---:|---:|---|"]
        for u in d["utility"]:
            verdict = "worse" if u["worse"] else "better" if u["worse"] is False and u["change"] else "unchanged"
            lines.append(
                f"| {_cell(u['measure'])} | {_cell(u['column'] or '')} | {_cell(_value(u['value_before']))} | "
                f"{_cell(_value(u['value_after']))} | {_cell(_change(u))} | {verdict} |"
            )
    return "\n".join(lines) + "\n"


def html(d: dict) -> str:
    """A self-contained HTML page of the comparison (Jinja2, every value autoescaped)."""
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["value"] = _value
    page = env.from_string(_PAGE)
    return page.render(
        d=d,
        rows=d["checks"] + d.get("unpaired_checks", []),
        change=_change,
        verdict=_verdict_of,
        explained=explained,
        status=_status,
        verdicts=_verdicts(d, "→"),
        tolerance=_tolerance_text(d),
        regressions=len(d["regressions"]),
    )


def to_json(d: dict) -> str:
    return json.dumps(jsonable(d), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def jsonable(d: Any) -> Any:
    """Infinities as ``"inf"`` (as the audit report writes them)."""
    if isinstance(d, dict):
        return {k: jsonable(v) for k, v in d.items()}
    if isinstance(d, list):
        return [jsonable(v) for v in d]
    if isinstance(d, float) and math.isinf(d):
        return "inf" if d > 0 else "-inf"
    if isinstance(d, float) and math.isnan(d):
        return None
    return d


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>privaudit diff</title>
<style>body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}td.n{text-align:right}
.regression{color:#b00020;font-weight:bold}</style></head><body>
<h1>privaudit diff: {% if regressions %}<span class="regression">regression</span>{% else %}no regression{% endif %}</h1>
<p><strong>{{ verdicts }}</strong></p>
<p>Base: <code>{{ d.base.input }}</code> ({{ d.base.report }}); new: <code>{{ d.new.input }}</code> ({{ d.new.report }});
tolerance {{ tolerance }}.</p>
{% if d.policy_changes %}<h2>Policy changes</h2><ul>{% for c in d.policy_changes %}<li>{{ c }}</li>{% endfor %}</ul>{% endif %}
<h2>Checks</h2>
<table><tr><th>check</th><th>status</th><th>before</th><th>after</th><th>change</th><th>verdict</th></tr>
{% for r in rows %}<tr{% if r.regression %} class="regression"{% endif %}><td>{{ r.id }}</td><td>{{ status(r) }}</td>
<td class="n">{{ r.value_before | value }}</td><td class="n">{{ r.value_after | value }}</td>
<td class="n">{{ change(r) }}</td><td>{{ verdict(r) }}{% if r.regression %}: {{ explained(r) }}{% endif %}</td></tr>
{% endfor %}</table>
{% if d.added_checks or d.removed_checks %}<p>Added checks: {{ d.added_checks | join(", ") or "none" }}; removed:
{{ d.removed_checks | join(", ") or "none" }}.</p>{% endif %}
{% if d.classes.compared %}<h2>Classes</h2><p>Newly below k: {{ d.classes.fell_below_k | length }}; new sample uniques:
{{ d.classes.new_sample_uniques | length }} (as far as the reports list classes).</p>
<ul>{% for c in d.classes.fell_below_k %}<li>below k = {{ c.k }}: {% for k, v in c["values"].items() %}{{ k }} = {{ v }}{% if not loop.last %}, {% endif %}{% endfor %} ({{ c.size }} records)</li>{% endfor %}
{% for c in d.classes.new_sample_uniques %}<li>sample unique: {% for k, v in c["values"].items() %}{{ k }} = {{ v }}{% if not loop.last %}, {% endif %}{% endfor %}</li>{% endfor %}</ul>{% endif %}
{% if d.get("utility") %}<h2>Utility</h2><table><tr><th>measure</th><th>column</th><th>before</th><th>after</th><th>change</th></tr>
{% for u in d.utility %}<tr><td>{{ u.measure }}</td><td>{{ u.column or "" }}</td><td class="n">{{ u.value_before | value }}</td>
<td class="n">{{ u.value_after | value }}</td><td class="n">{{ change(u) }}</td></tr>{% endfor %}</table>{% endif %}
</body></html>
"""
