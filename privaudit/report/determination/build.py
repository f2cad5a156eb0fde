"""The determination's sections (:mod:`.model`) from an audit's JSON report and the figures the driver adds
(:mod:`privaudit.pipeline.determination`: initial and residual risk, what each variable lost)."""

from __future__ import annotations

from typing import Any

from privaudit.common.numbers import fmt
from privaudit.core.release_context import ReleaseContextSpec, derive_threshold
from privaudit.report.determination.model import (
    ATTACKS,
    ISO_20889,
    WP29,
    Document,
    Section,
    Table,
    pair,
    tags,
    technique,
    verdict,
)

SIGNATURE_FIELDS = ("signer", "role", "conditions", "review_date")


def context_of(report: dict) -> dict[str, Any]:
    """The report's context block, or the most protective one (public use, high invasion of privacy) when the
    policy states none, said as such."""
    held = report.get("context")
    if held:
        return {**held, "assumed": False}
    derived = derive_threshold(ReleaseContextSpec(release_model="public_use"))
    return {
        "spec": {"release_model": "public_use"},
        **derived.to_dict(),
        "threshold": derived.value,
        "findings": [],
        "assumed": True,
    }


def signature(report: dict, options: dict[str, Any]) -> dict[str, Any]:
    """Signer, role, conditions and review date: the options given, else the policy's context block."""
    spec = (report.get("context") or {}).get("spec", {})
    out = {k: options.get(k) if options.get(k) not in (None, [], "") else spec.get(k) for k in SIGNATURE_FIELDS}
    out["conditions"] = list(out["conditions"] or [])
    out["date"] = options.get("date") or str(report.get("generated_at", ""))[:10]
    return out


def build_document(figures: dict[str, Any], registry: Any, options: dict[str, Any]) -> Document:
    """The whole document: ``figures`` as :func:`privaudit.pipeline.determination.figures_of_audit` makes them,
    ``registry`` the plugins whose assessor records say what each check stands for, ``options`` the signer's."""
    report = figures["report"]
    context = context_of(report)
    measure = context["measure"]
    initial, residual = figures["initial"], figures["residual"]
    residual_value = max(residual["prosecutor"][measure], residual["journalist"][measure])
    initial_value = max(initial["prosecutor"][measure], initial["journalist"][measure])
    very_small = residual_value <= context["threshold"] and bool(report["summary"]["passed"])
    sign = signature(report, options)
    headline = {
        "threshold": context["threshold"],
        "measure": measure,
        "residual": residual_value,
        "initial": initial_value,
        "very_small": very_small,
        "passed": bool(report["summary"]["passed"]),
    }
    sections = [
        _summary(report, context, headline, initial, residual),
        _context(context),
        _variables(report, figures.get("lost")),
        _risk(initial, residual, context),
        _wp29(report, registry),
        _intruder(report, registry),
        _hipaa(report, registry, context, headline, sign),
        _signature(sign, very_small),
    ]
    title = "De-identification determination"
    subtitle = f"{report['policy']['name']}: {report['input']['path']} ({fmt(report['input']['rows'])} records)"
    return Document(title, subtitle, sections, headline)


def _summary(report: dict, context: dict, head: dict, initial: dict, residual: dict) -> Section:
    s = report["summary"]
    conclusion = (
        "The risk of re-identification is very small for the stated context"
        if head["very_small"]
        else "The risk of re-identification is NOT shown to be very small for the stated context"
    )
    return Section(
        "Determination",
        [
            f"{conclusion}: {head['measure']} risk {pair(head['residual'], head['initial'])} against the threshold "
            f"{fmt(context['threshold'])}; figures are written release (original).",
            f"Audit verdict: {'pass' if s['passed'] else 'fail'}; {s['checks_total']} checks, {s['checks_failed']} "
            f"failed, {s['checks_warned']} warned, {s['checks_errored']} in error"
            + (f", {s['checks_excepted']} excepted" if s.get("checks_excepted") else "")
            + ".",
            f"Records {pair(residual['records'], initial['records'])}; equivalence classes "
            f"{pair(residual['classes'], initial['classes'])}; sample uniques {pair(residual['uniques'], initial['uniques'])} "
            "of the records.",
            f"Policy {report['policy']['path']} (SHA-256 {report['policy']['sha256'][:16]}…); release SHA-256 "
            f"{str(report['input'].get('sha256') or '')[:16]}…; audited {report['generated_at']} by privaudit "
            f"{report['tool']['version']}.",
        ],
    )


def _context(context: dict) -> Section:
    spec = context["spec"]
    rows = [
        ["Release model", str(spec.get("release_model", ""))],
        ["Recipient", str(spec.get("recipient") or "not stated")],
        ["Controls in place", ", ".join(spec.get("controls") or []) or "none"],
        ["Invasion of privacy", str(spec.get("invasion_of_privacy", "high"))],
        ["Motives and capacity", str(spec.get("motives_capacity", "high"))],
        ["Threshold", f"{fmt(context['threshold'])} ({context['measure']} risk)"],
    ]
    paragraphs = []
    if context.get("assumed"):
        paragraphs.append(
            "The policy states no context block: the most protective context is assumed (public use, high "
            "invasion of privacy)."
        )
    after = [f"Derivation: {'; '.join(context['steps'])}.", f"Source: {context['source']}."]
    findings = context.get("findings") or []
    table = Table(["Context", ""], rows)
    tables = [table]
    if findings:
        tables.append(
            Table(
                ["Bound", "Value", "Measure", "Set by", "Supported by the context"],
                [
                    [
                        f["check"],
                        fmt(f["value"]),
                        str(f.get("measure") or ""),
                        "context" if f.get("derived") else "policy",
                        ("yes: " if f["supported"] else "no: ") + f["note"],
                    ]
                    for f in findings
                ],
            )
        )
    return Section("Context and threshold", paragraphs, tables, after)


def _variables(report: dict, lost: dict | None) -> Section:
    scope = report["scope"]
    release_columns = set(report["input"]["columns"])
    changes = {v["column"]: v for v in (lost or {}).get("variables", [])}
    method = (report.get("remediation") or {}).get("method")
    synthetic = any(c.get("details", {}).get("synthetic_attack") for c in report["checks"])
    rows = []
    for role, columns in (("identifier", scope["identifiers"]), ("quasi-identifier", scope["quasi_identifiers"])):
        for column in columns:
            change = changes.get(column)
            done = "synthetic" if synthetic else technique(column, role, change, release_columns, method)
            what = {
                "removed": "removed from the release"
                if role == "identifier"
                else (change or {}).get("description", ""),
                "none": "none" if lost is not None or role == "identifier" else "none (no remediation recorded)",
                "synthetic": "replaced by synthetic values",
            }.get(done) or (change or {}).get("description", done)
            if done == "perturbed" and method:
                what = f"{what} (method {method})"
            rows.append([column, role, done, what, ISO_20889[done]])
    paragraphs = []
    if lost:
        paragraphs.append(
            f"Cells changed {fmt(lost['cells_changed'])} of {fmt(lost['cells'])}; records whose every "
            f"quasi-identifier was suppressed {fmt(lost['records_suppressed'])} of {fmt(lost['records'])}."
        )
    return Section(
        "Identifiers and quasi-identifiers",
        paragraphs,
        [Table(["Column", "Role", "Technique", "What was done", "ISO/IEC 20889 class"], rows)],
    )


def _risk(initial: dict, residual: dict, context: dict) -> Section:
    rows = []
    for model, words in (("prosecutor", "Prosecutor (sample)"), ("journalist", "Journalist (population)")):
        for kind in ("maximum", "average"):
            bound = fmt(context["threshold"]) if kind == context["measure"] else ""
            rows.append([f"{words}, {kind}", fmt(initial[model][kind]), fmt(residual[model][kind]), bound])
    rows.append(["Sample uniques (share of records)", fmt(initial["uniques"]), fmt(residual["uniques"]), ""])
    rows.append(["Equivalence classes", fmt(initial["classes"]), fmt(residual["classes"]), ""])
    population = (
        "F_k from the weight column"
        if residual["population"] == "weights"
        else "no population figures (no weight column): the journalist's F_k is the sample's, as ARX without a population table"
    )
    return Section(
        "Initial and residual risk",
        [],
        [Table(["Figure", "Initial (original)", "Residual (release)", "Threshold"], rows)],
        [f"Risk models: El Emam 2013 ch. 16-18, as ARX 3.9 computes them; {population}."],
    )


def _checks_tagged(report: dict, registry: Any, tag: str) -> list[dict]:
    assessors = getattr(registry, "assessors", {}) or {}
    return [c for c in report["checks"] if tag in tags(assessors.get(c["assessor"]))]


def _wp29(report: dict, registry: Any) -> Section:
    rows = []
    for key, words in WP29.items():
        found = _checks_tagged(report, registry, key)
        if not found:
            rows.append([words, "not assessed", "—"])
            continue
        open_ = [c for c in found if c["status"] != "pass" and not c.get("excepted")]
        worst = "fail" if any(c["severity"] == "error" for c in open_) else "pass, with warnings" if open_ else "pass"
        rows.append([words, ", ".join(f"{c['id']} ({verdict(c)})" for c in found), worst])
    return Section(
        "Article 29 Working Party criteria (Opinion 05/2014)",
        [],
        [Table(["Criterion", "Checks (verdict)", "Verdict"], rows)],
    )


def _intruder(report: dict, registry: Any) -> Section:
    rows = []
    for key, words in ATTACKS.items():
        found = _checks_tagged(report, registry, key)
        if not found:
            rows.append([words, "—", "not simulated"])
        for i, c in enumerate(found):
            rows.append([words if i == 0 else "", f"{c['id']} ({verdict(c)})", _short(c["message"])])
    return Section(
        "Motivated intruder (UK ICO)",
        ["The attacks simulated against the release and what they found:"],
        [Table(["Attack", "Check (verdict)", "Finding"], rows)],
    )


def _short(message: str, limit: int = 240) -> str:
    first = str(message).splitlines()[0] if message else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _hipaa(report: dict, registry: Any, context: dict, head: dict, sign: dict) -> Section:
    spec = context["spec"]
    methods = sorted({c["assessor"] for c in report["checks"]})
    safe_harbor = _checks_tagged(report, registry, "hipaa:safe_harbor")
    conclusion = (
        "the risk is very small that the information could be used, alone or with other reasonably available "
        "information, by an anticipated recipient to identify an individual"
        if head["very_small"]
        else "the risk is not shown to be very small: this is not an Expert Determination"
    )
    rows = [
        ["Anticipated recipient", str(spec.get("recipient") or "not stated")],
        ["Methods", f"{len(report['checks'])} checks ({', '.join(methods)}); El Emam's risk models"],
        [
            "Results",
            f"{head['measure']} risk {pair(head['residual'], head['initial'])}, threshold {fmt(context['threshold'])}",
        ],
        ["Conclusion", conclusion],
        ["Conditions", "; ".join(sign["conditions"]) or "none stated"],
        ["Expiry (review date)", str(sign["review_date"] or "not stated")],
        ["Signature", f"{sign['signer'] or 'not signed'} ({sign['role'] or 'role not stated'}), {sign['date']}"],
    ]
    if safe_harbor:
        rows.append(["Safe Harbor check", "; ".join(f"{c['id']}: {verdict(c)}" for c in safe_harbor)])
    tables = [Table(["Element (45 CFR 164.514(b)(1))", ""], rows)]
    exceptions = report.get("exceptions") or []
    if exceptions:
        tables.append(
            Table(
                ["Exception", "Approved by", "In force", "Justification"],
                [
                    [
                        e["check"],
                        f"{e['approver']['name']} ({e['approver']['role']}), {e['date']}",
                        e["note"],
                        _short(e["justification"], 120),
                    ]
                    for e in exceptions
                ],
            )
        )
    return Section("HIPAA Expert Determination elements", [], tables)


def _signature(sign: dict, very_small: bool) -> Section:
    paragraphs = [
        "Conditions of the release:" if sign["conditions"] else "No conditions are stated.",
    ]
    after = [
        f"Review date: {sign['review_date'] or 'not stated'}.",
        "I have applied the methods above and determine that "
        + (
            "the release meets the stated threshold."
            if very_small
            else "the release does NOT meet the stated threshold."
        ),
    ]
    return Section(
        "Conditions, review and signature",
        paragraphs,
        [Table(["#", "Condition"], [[str(i), c] for i, c in enumerate(sign["conditions"], 1)])]
        if sign["conditions"]
        else [],
        after
        + [
            f"Name: {sign['signer'] or '____________________'}",
            f"Role: {sign['role'] or '____________________'}",
            f"Date: {sign['date']}",
            "Signature: ____________________",
        ],
    )
