"""Two JSON reports compared (``privaudit diff BASE.json NEW.json``, ``audit --baseline``): per check the value
before and after, the signed change and whether it got worse in the check's own direction; status changes;
classes that fell below k and new sample uniques, as far as both reports list classes; utility changes.

A regression is an error-severity check that got worse by more than the tolerance, or went from pass to
fail (or error). Reports of different audits -- other quasi-identifiers, hierarchies (by digest), population
model or check parameters -- are refused unless the caller allows it; the changes are then listed first.

Which way a value improves comes from the check's ``better`` (``"higher"``/``"lower"``, written by the audit
from the assessor's declaration); for reports without it, from the value, threshold and status of either
report (a passing value below its threshold: lower is better); when neither says, only the status counts.

The comparison (:func:`compare`) is a plain dict, the ``--json`` output; the other outputs render it:
:func:`terminal_text`, :func:`markdown` (a pull-request comment) and :func:`html` (autoescaped Jinja2).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from privaudit.core.errors import DataError
from privaudit.report.text import fmt

DIFF_VERSION = 1
#: check parameters that state the population model (a change of one is named as such)
POPULATION_KEYS = ("population", "sampling_fraction", "population_size", "model", "population_model")


# ------------------------------------------------------------------------------------------ reading
def read_report(path: str | Path, label: str) -> dict:
    """A JSON report from a file, or one line naming the file and what is wrong with it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{path}: {label} report not found") from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory, not a JSON report") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise DataError(f"{path}: JSON nested too deeply") from None
    return checked_report(data, str(path))


def checked_report(data: Any, name: str) -> dict:
    """``data`` if it looks like a privaudit audit report of a schema this version reads, else one line."""
    tool = data.get("tool") if isinstance(data, dict) else None
    if not isinstance(tool, dict) or tool.get("name") != "privaudit":
        raise DataError(f"{name}: not a privaudit JSON report (privaudit audit --json OUT writes one)")
    if data.get("schema_version") != 1:
        raise DataError(f"{name}: report schema_version {data.get('schema_version')!r}; this privaudit reads 1")
    checks = data.get("checks")
    if not isinstance(checks, list) or not all(
        isinstance(c, dict) and isinstance(c.get("id"), str) and c.get("status") in ("pass", "fail", "error")
        for c in checks
    ):
        raise DataError(f"{name}: checks: not a list of checks with id and status")
    for key in ("scope", "input", "policy", "summary"):
        if not isinstance(data.get(key), dict):
            raise DataError(f"{name}: {key}: missing from the report")
    return data


# ------------------------------------------------------------------------------------------ tolerance
def parse_tolerance(text: str | None) -> tuple[str, float]:
    """``"0.01"`` (absolute) or ``"5%"`` (relative to the value before); one line when it is neither."""
    if text is None:
        return "absolute", 0.0
    raw = str(text).strip()
    relative = raw.endswith("%")
    try:
        number = float(raw[:-1] if relative else raw)
    except ValueError:
        raise DataError(f"--tolerance {text}: a number (absolute) or a percentage like 5%") from None
    if not math.isfinite(number) or number < 0:
        raise DataError(f"--tolerance {text}: must be a finite number, not negative")
    return ("relative", number / 100) if relative else ("absolute", number)


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


def _policy_changes(base: dict, new: dict) -> list[str]:
    """What makes the two reports audits of different designs, one phrase each."""
    changes = []
    bq, nq = base["scope"].get("quasi_identifiers"), new["scope"].get("quasi_identifiers")
    if bq != nq:
        changes.append(f"quasi-identifiers {bq} -> {nq}")
    bh, nh = base["scope"].get("hierarchies"), new["scope"].get("hierarchies")
    if bh != nh:
        if bh is None or nh is None:
            changes.append(f"hierarchy digests only in the {'new' if bh is None else 'base'} report")
        else:
            cols = sorted(c for c in set(bh) | set(nh) if bh.get(c) != nh.get(c))
            changes.append(f"hierarchies of {', '.join(cols)} differ (by digest)")
    base_checks = {c["id"]: c for c in base["checks"]}
    for c in new["checks"]:
        b = base_checks.get(c["id"])
        if b is None or b.get("params") == c.get("params"):
            continue
        bp, np_ = b.get("params") or {}, c.get("params") or {}
        keys = sorted(k for k in set(bp) | set(np_) if bp.get(k) != np_.get(k))
        population = [k for k in keys if k in POPULATION_KEYS]
        what = "population model" if population and len(population) == len(keys) else "parameters"
        changes.append(f"check {c['id']!r}: {what} " + ", ".join(f"{k} {bp.get(k)!r} -> {np_.get(k)!r}" for k in keys))
    return changes


def _beyond(change: float, before: float | None, tolerance: tuple[str, float]) -> bool:
    kind, amount = tolerance
    allowed = amount if kind == "absolute" else amount * abs(before or 0.0)
    return change > allowed * (1 + 1e-12) + 1e-15


def _check_row(b: dict | None, n: dict | None, tolerance: tuple[str, float], fail_on: str = "error") -> dict:
    ref = n or b
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
    status_worse = sb == "pass" and sn in ("fail", "error")
    severity = ref.get("severity", "error")
    return {
        "id": ref["id"],
        "assessor": ref.get("assessor"),
        "severity": severity,
        "status_before": sb,
        "status_after": sn,
        "value_before": (b or {}).get("value"),
        "value_after": (n or {}).get("value"),
        "change": change,
        "better": better,
        "worse": worse,
        "beyond_tolerance": bool(beyond),
        "status_changed": sb != sn,
        "regression": (severity == "error" or fail_on == "warning")
        and n is not None
        and b is not None
        and (bool(beyond) or status_worse),
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
        vb, vn = (_number(b.get("value")) if b else None), (_number(n.get("value")) if n else None)
        change = None if vb is None or vn is None else (0.0 if vb == vn else vn - vb)
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
    base: dict,
    new: dict,
    tolerance: tuple[str, float] = ("absolute", 0.0),
    allow_changed_policy: bool = False,
    names: tuple[str, str] = ("BASE", "NEW"),
    fail_on: str = "error",
) -> dict:
    """The comparison of two JSON reports (see the module docstring); one line (DataError) when they audit
    different designs and ``allow_changed_policy`` is false. ``fail_on="warning"``: warning-severity checks
    can regress too (as ``--fail-on warning`` makes them fail an audit)."""
    changes = _policy_changes(base, new)
    if changes and not allow_changed_policy:
        raise DataError(
            f"{names[0]} and {names[1]} audit different policies ({'; '.join(changes)}): the figures "
            "are not comparable; pass --allow-changed-policy to compare them anyway"
        )
    bc, nc = {c["id"]: c for c in base["checks"]}, {c["id"]: c for c in new["checks"]}
    rows = [_check_row(bc.get(i), nc.get(i), tolerance, fail_on) for i in dict.fromkeys([*nc, *bc])]
    utility = _utility_changes(base, new, tolerance)
    regressions = [r["id"] for r in rows if r["regression"]]
    out = {
        "diff_version": DIFF_VERSION,
        "base": _side(base, names[0]),
        "new": _side(new, names[1]),
        "tolerance": {"kind": tolerance[0], "amount": tolerance[1]},
        "fail_on": fail_on,
        "policy_changes": changes,
        "checks": [r for r in rows if r["status_before"] is not None and r["status_after"] is not None],
        "added_checks": [r["id"] for r in rows if r["status_before"] is None],
        "removed_checks": [r["id"] for r in rows if r["status_after"] is None],
        "classes": _class_changes(base, new),
        **({"utility": utility} if utility is not None else {}),
        "regressions": regressions,
        "regressed": bool(regressions),
        "exit_code": 1 if regressions else 0,
    }
    return out


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


def _verdict_of(row: dict) -> str:
    if row["regression"]:
        return "REGRESSION"
    if row["worse"]:
        return "worse" + ("" if row["beyond_tolerance"] else " (within tolerance)")
    if row["worse"] is False and row["change"]:
        return "better"
    if row["better"] is None and row["change"]:
        return "changed (direction unknown)"
    return "unchanged" if not row["status_changed"] else "status changed"


def _tolerance_text(d: dict) -> str:
    t = d["tolerance"]
    return f"{fmt(t['amount'] * 100)}%" if t["kind"] == "relative" else fmt(t["amount"])


def terminal_text(d: dict) -> str:
    """What ``privaudit diff`` prints (control characters escaped by the caller's terminal module)."""
    lines = []
    if d["policy_changes"]:
        lines.append("policy changes (compared anyway, --allow-changed-policy):")
        lines += [f"  - {c}" for c in d["policy_changes"]]
    lines.append(f"base: {d['base']['input']} ({d['base']['report']})  new: {d['new']['input']} ({d['new']['report']})")
    for r in d["checks"]:
        status = (
            r["status_before"].upper()
            if r["status_before"] == r["status_after"]
            else f"{r['status_before'].upper()}->{r['status_after'].upper()}"
        )
        lines.append(
            f"{_verdict_of(r):<26} {r['id']:<22} {status:<10} {_value(r['value_before'])} -> "
            f"{_value(r['value_after'])} ({_change(r)})"
        )
    for i in d["added_checks"]:
        lines.append(f"{'added':<26} {i}")
    for i in d["removed_checks"]:
        lines.append(f"{'removed':<26} {i}")
    classes = d["classes"]
    if classes["compared"]:
        lines.append(
            f"classes newly below k: {len(classes['fell_below_k'])}; new sample uniques: "
            f"{len(classes['new_sample_uniques'])} (as far as the reports list classes)"
        )
    for u in d.get("utility") or []:
        lines.append(
            f"utility {u['measure']}{' of ' + u['column'] if u['column'] else ''}: "
            f"{_value(u['value_before'])} -> {_value(u['value_after'])} ({_change(u)})"
            + (" worse" if u["worse"] else "")
        )
    n = len(d["regressions"])
    lines.append("")
    kind = "error-severity " if d.get("fail_on", "error") == "error" else ""
    lines.append(
        f"diff: {'REGRESSION' if n else 'no regression'} ({n} {kind}check{'s' * (n != 1)} got "
        f"worse beyond the tolerance {_tolerance_text(d)} or stopped passing)"
    )
    return "\n".join(lines) + "\n"


def markdown(d: dict) -> str:
    """A Markdown summary for a pull-request comment (cells escaped as the CI summary escapes them)."""
    from privaudit.report.ci import _cell, _code

    n = len(d["regressions"])
    lines = [
        f"## privaudit diff: {'❌ regression' if n else '✅ no regression'}",
        "",
        f"{_code(d['base']['input'])} → {_code(d['new']['input'])}; tolerance {_cell(_tolerance_text(d))}.",
        "",
    ]
    if d["policy_changes"]:
        lines += ["**Policy changes** (compared anyway):", ""] + [f"- {_cell(c)}" for c in d["policy_changes"]] + [""]
    lines += ["| check | status | before | after | change | verdict |", "|---|---|---:|---:|---:|---|"]
    for r in d["checks"]:
        status = (
            r["status_before"]
            if r["status_before"] == r["status_after"]
            else f"{r['status_before']} → {r['status_after']}"
        )
        lines.append(
            f"| {_code(r['id'])} | {_cell(status)} | {_cell(_value(r['value_before']))} | "
            f"{_cell(_value(r['value_after']))} | {_cell(_change(r))} | {_cell(_verdict_of(r))} |"
        )
    if d["added_checks"] or d["removed_checks"]:
        lines += [
            "",
            f"Added checks: {_cell(', '.join(d['added_checks']) or 'none')}; removed: "
            f"{_cell(', '.join(d['removed_checks']) or 'none')}.",
        ]
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
        d=d, change=_change, verdict=_verdict_of, tolerance=_tolerance_text(d), regressions=len(d["regressions"])
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
<p>Base: <code>{{ d.base.input }}</code> ({{ d.base.report }}); new: <code>{{ d.new.input }}</code> ({{ d.new.report }});
tolerance {{ tolerance }}.</p>
{% if d.policy_changes %}<h2>Policy changes</h2><ul>{% for c in d.policy_changes %}<li>{{ c }}</li>{% endfor %}</ul>{% endif %}
<h2>Checks</h2>
<table><tr><th>check</th><th>status before</th><th>status after</th><th>before</th><th>after</th><th>change</th><th>verdict</th></tr>
{% for r in d.checks %}<tr{% if r.regression %} class="regression"{% endif %}><td>{{ r.id }}</td><td>{{ r.status_before }}</td>
<td>{{ r.status_after }}</td><td class="n">{{ r.value_before | value }}</td><td class="n">{{ r.value_after | value }}</td>
<td class="n">{{ change(r) }}</td><td>{{ verdict(r) }}</td></tr>
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
