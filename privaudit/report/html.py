"""The self-contained HTML audit report (also the source of the PDF, see :mod:`privaudit.report.pdf`).

The page is built from the run's typed report (:func:`privaudit.report.json_report.report_of`), the
registry's assessor metadata (title, what it protects, what it measures, formula, reference) and one
:class:`~privaudit.plugin.sections.ReportSection` per check: drawn by the
:class:`~privaudit.plugin.sections.Section` registered for the check's assessor (``privaudit_report_sections``;
the generic section when none is), handed the check as a typed :class:`~privaudit.plugin.sections.CheckEntry`
(:func:`check_entry`, built once per check). Beside the checks, every registered chapter (:class:`~privaudit.plugin.chapter.Chapter`,
``privaudit_report_chapters``; the built-in ones in :mod:`privaudit.report.chapters`) that has something to say
is drawn in its place and rank from its renderer-neutral content (``templates/chapter.html.j2``). The report of
a ``privaudit remediate`` run is a remediation report: its cover names the input and the remediated file, and
the "Remediation" chapter follows the cover.

Everything is inline (CSS in a ``<style>`` element, charts as ``<svg>``): the file makes no request of
any kind. The Jinja2 environment escapes every value (``autoescape=True`` for all templates); only chart
markup from :mod:`privaudit.plugin.charts` is trusted. Nothing depends on the clock except
``generated_at``, which honours ``SOURCE_DATE_EPOCH``: the same inputs give byte-identical HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import PurePath
from types import MappingProxyType
from typing import Any

import jinja2
from markupsafe import Markup, escape

from privaudit import __version__
from privaudit.core.errors import first_line
from privaudit.plugin.chapter import PLACES, Chapter, ChapterCheck, ChapterContent, ChapterInput, Paragraph
from privaudit.plugin.figures import generic_section
from privaudit.plugin.result import Report, ReportCheck
from privaudit.plugin.sections import CheckEntry, KeyValues, ReportSection
from privaudit.plugin.text import fmt, threshold_text, visible
from privaudit.report.chapters.remediation import remediation_view
from privaudit.report.json_report import report_of

TEMPLATE = "report.html.j2"
PROTECTS = {"identity": "identity disclosure", "attribute": "attribute disclosure"}
STATUS_LABEL = {"pass": "PASS", "fail": "FAIL", "error": "ERROR"}
MISSING_QI = {
    "value": (
        "a missing or suppressed quasi-identifier value is a value of its own: a record with a missing "
        "age is grouped only with other records whose age is missing."
    ),
    "wildcard": (
        "a missing or suppressed quasi-identifier value matches any value when counting how many "
        "records a person hides among (sdcMicro's semantics), and the sensitive values those records hold are "
        "the ones an intruder sees: suppressing a value protects the record."
    ),
}
ROLE_LABEL = {
    "quasi_identifier": "quasi-identifier (an intruder may know it)",
    "sensitive": "sensitive (the value to protect)",
    "identifier": "direct identifier (must be empty)",
    "record_id": "record id (links to the original)",
    "weight": "sampling weight",
    "other": "other (neither known nor protected)",
    "household_id": "household id (groups the records of one household or person)",
}
DEFAULT_LIMITS = {
    "identity": "protects against finding a person's record, not against learning their sensitive values.",
    "attribute": "protects sensitive values, not against finding a person's record on its own.",
}


@dataclass
class SectionView:
    """What the templates need about one check."""

    number: int
    anchor: str
    check: dict
    title: str
    assessor: Any
    protects: str
    status: str
    badge: str
    value_text: str
    threshold_text: str
    section: ReportSection
    entry: CheckEntry[Any, Any] | None = None  # the typed check the section was drawn from (None: no model at hand)


def status_badge(status: str, severity: str, excepted: bool = False) -> str:
    """PASS / FAIL / WARN (a failed warning-severity check) / EXCEPTED (a failing check one of the policy's
    exceptions accepts) / ERROR."""
    if status == "fail" and excepted:
        return "EXCEPTED"
    if status == "fail" and severity == "warning":
        return "WARN"
    return STATUS_LABEL.get(status, status.upper())


def human_size(n: int | None) -> str:
    if n is None:
        return "—"
    if n < 1024:
        return f"{n:,} bytes"
    for unit in ("kB", "MB", "GB", "TB"):
        n /= 1024.0
        if n < 1024 or unit == "TB":
            return f"{n:.1f} {unit}"
    return ""  # pragma: no cover


def human_time(iso: str) -> str:
    """``2026-11-22T00:49:11Z`` -> ``2026-11-22 00:49:11 UTC``."""
    return iso.replace("T", " ").replace("Z", " UTC") if iso else "—"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The report's Jinja2 environment: templates from ``privaudit/report/templates``, autoescape on for all,
    every printed value shown with its control and bidirectional formatting characters as escapes
    (:func:`privaudit.plugin.text.visible`)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(files("privaudit.report") / "templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=visible,  # every printed value: no hidden control or bidi-reordering characters
    )
    env.filters["fmt"] = fmt
    env.filters["wbr"] = break_opportunities
    env.filters["shorten"] = shorten
    env.tests["keyvalues"] = lambda v: isinstance(v, KeyValues)
    env.tests["number"] = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    return env


def check_entry(check: ReportCheck, audit: Any, registry: Any) -> CheckEntry[Any, Any] | None:
    """The :class:`~privaudit.plugin.sections.CheckEntry` of one check of the typed report, as sections read it:
    its parameters the typed object the check ran with (:attr:`ReportCheck.typed_params`, the policy's own;
    validated from the report's ``params`` for a check read back from JSON), its details validated once
    against the assessor's ``Details`` model (None for an errored check or an assessor without a model). None
    when ``registry`` does not know the check's assessor (there is no model to read it with: the check gets
    the generic section). A check whose details or parameters its models reject raises pydantic's
    ``ValidationError`` (:func:`section_for` turns it into a note under the generic section)."""
    assessor = registry.assessors.get(check.assessor)
    if assessor is None:
        return None
    params = check.typed_params
    if not isinstance(params, assessor.params):
        params = assessor.params.model_validate(check.params)
    model = getattr(assessor, "details", None)
    details = None if model is None or check.status == "error" else model.model_validate(check.details)
    return CheckEntry(
        id=check.id,
        assessor=check.assessor,
        status=check.status,
        severity=check.severity,
        value=check.value,
        threshold=check.threshold,
        message=check.message,
        params=params,
        details=details,
        quasi_identifiers=tuple(check.quasi_identifiers) if check.quasi_identifiers else None,
        better=check.better,
        raw=MappingProxyType(check.to_dict()),
    )


def drawn_section(check: CheckEntry[Any, Any], audit: Any, registry: Any) -> ReportSection | None:
    """The section drawn for ``check`` by the :class:`~privaudit.plugin.sections.Section` registered for its
    assessor (a third party's replaces a built-in one: :func:`privaudit.pipeline.plugins.build_registry`);
    None when no section is registered for it. Exceptions of the plugin propagate (:func:`section_for` turns
    them into a note naming the plugin)."""
    registered = registry.of("section").get(check.assessor)
    return registered.draw(check, audit) if registered is not None else None


def _failed_section_note(check: dict, exc: BaseException, registry: Any) -> str:
    """The note a failed section leaves in the generic one: which plugin's section, and its error."""
    origin = getattr(registry, "origin", {}).get(f"section:{check['assessor']}")
    who = f"plugin {origin.package!r} {origin.version}" if origin is not None else "the plugin"
    return f"(The section of {who} for this check failed: {type(exc).__name__}: {first_line(exc)})"


def section_for(check: ReportCheck, audit: Any, registry: Any) -> tuple[ReportSection, CheckEntry[Any, Any] | None]:
    """The section the report shows for ``check`` (a check of the typed report) and the typed entry it was
    drawn from (:func:`check_entry`): the error block, the drawn section (:func:`drawn_section`), or the generic
    one when none is drawn, or when the plugin's section fails or the check's details do not validate."""
    error = check.status == "error"
    entry = None
    try:
        entry = check_entry(check, audit, registry)
        section = None if error or entry is None else drawn_section(entry, audit, registry)
    except BaseException as exc:  # a plugin's broken section (sys.exit() included) must not cost the report
        from privaudit.runtime.guard import interrupted

        if isinstance(exc, KeyboardInterrupt) and interrupted():
            raise
        if error:
            return ReportSection(summary=check.message), None
        section = generic_section(check.to_dict())
        section.paragraphs.append(_failed_section_note(check.to_dict(), exc, registry))
        return section, entry
    if error:
        return ReportSection(summary=check.message), entry
    if not isinstance(section, ReportSection):
        return generic_section(check.to_dict()), entry
    return section, entry


def check_views(report: Report, audit: Any, registry: Any) -> list[SectionView]:
    """One view per check of the typed report, its section drawn from the typed check (:func:`section_for`);
    ``SectionView.check`` is the check's JSON entry, as the templates and chapters print it."""
    views = []
    for i, typed in enumerate(report.checks, start=1):
        check = typed.to_dict()
        assessor = registry.assessors.get(typed.assessor)
        section, entry = section_for(typed, audit, registry)
        error = typed.status == "error"
        views.append(
            SectionView(
                number=i,
                anchor=f"check-{i}",
                check=check,
                title=getattr(assessor, "title", None) or check["assessor"],
                assessor=assessor,
                protects=PROTECTS.get(getattr(assessor, "protects", ""), "—"),
                status=check["status"],
                badge=status_badge(check["status"], check["severity"], "excepted" in check),
                value_text="—" if error else (section.value_text or fmt(check["value"])),
                threshold_text=section.threshold_text
                or threshold_text(check["threshold"] if not error else check["params"]),
                section=section,
                entry=entry,
            )
        )
    return views


def limitations(views: list[SectionView]) -> list[tuple[str, str]]:
    """What each model used does not protect against: (assessor title, text), one per assessor."""
    out: dict[str, tuple[str, str]] = {}
    for v in views:
        name = v.check["assessor"]
        text = v.section.limitations or DEFAULT_LIMITS.get(getattr(v.assessor, "protects", ""), "")
        if name not in out or (v.section.limitations and not out[name][1]):
            out[name] = (v.title, text)
    return list(out.values())


def methodology(views: list[SectionView]) -> list[dict]:
    """Each assessor used, once, with its metadata for the appendix."""
    seen: dict[str, dict] = {}
    for v in views:
        a = v.assessor
        name = v.check["assessor"]
        if name in seen:
            continue
        seen[name] = {
            "name": name,
            "title": v.title,
            "protects": v.protects,
            "measures": getattr(a, "measures", "") or "",
            "formula": getattr(a, "formula", "") or "",
            "reference": getattr(a, "reference", "") or "",
            "known": a is not None,
        }
    return list(seen.values())


def column_rows(data: dict, policy: Any) -> list[list[str]]:
    """One row per column of the release: name, role, type (with ", hierarchy" when it has one)."""
    rows = []
    for name in data["input"]["columns"]:
        spec = policy.columns.get(name)
        if spec is None:
            rows.append([name, "not in the policy (neither known nor protected)", "—"])
            continue
        kind = spec.type + (", hierarchy" if name in policy.hierarchies else "")
        rows.append([name, ROLE_LABEL.get(spec.role, spec.role), kind])
    return rows


def break_opportunities(text: Any) -> Markup:
    """``text`` escaped, with a ``<wbr>`` after each ``_``: a check id such as ``reidentification_risk``
    wraps at its word boundaries in a narrow column, not in mid-word, and copies as typed (WeasyPrint
    honours ``<wbr>`` in a link only when the link is a block: ``report.css``, ``td.id a``)."""
    return Markup(str(escape(text)).replace("_", "_<wbr>"))


def shorten(text: Any, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked by an ellipsis (for the PDF's running header,
    a margin box that neither wraps an unbroken name nor gives way to the verdict beside it)."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def token_label(token: str) -> str:
    return "(empty cell)" if token == "" else f"“{token}”"


@dataclass
class ChapterView:
    """One registered chapter as the templates draw it: where it goes, its anchor, title and style, its
    content."""

    name: str
    place: str
    anchor: str
    title: str
    style: str
    content: ChapterContent


def _failed_chapter(chapter: Chapter, origin: Any, exc: BaseException) -> ChapterContent:
    """The note that stands for a chapter whose plugin failed: the chapter's title, the plugin and the error."""
    who = f"plugin {origin.name!r} ({origin.package} {origin.version})" if origin is not None else "its plugin"
    text = f"(The chapter {chapter.name!r} of {who} failed: {type(exc).__name__}: {first_line(exc)})"
    return ChapterContent(blocks=(Paragraph((text,), style="note"),))


def build_chapter(chapter: Chapter, report: ChapterInput, origin: Any = None) -> ChapterContent | None:
    """One chapter's content for this run (None: nothing to say). A chapter that raises (``sys.exit()``
    included) or returns something else than a :class:`~privaudit.plugin.chapter.ChapterContent` is a note
    naming its plugin: the report is never lost to it (as a failing section, :func:`section_for`)."""
    try:
        content = chapter.build(report)
        if content is not None and not isinstance(content, ChapterContent):
            raise TypeError(f"build returned {type(content).__name__}, not a ChapterContent")
        return content
    except BaseException as exc:  # a plugin's broken chapter must not cost the report
        from privaudit.runtime.guard import interrupted

        if isinstance(exc, KeyboardInterrupt) and interrupted():
            raise
        return _failed_chapter(chapter, origin, exc)


def chapter_views(result: Any, data: dict, views: list[SectionView], registry: Any) -> list[ChapterView]:
    """Every registered chapter with something to say for this run, in report order: by place
    (:data:`~privaudit.plugin.chapter.PLACES`), then rank, then name."""
    report = ChapterInput(
        result=result,
        data=data,
        checks=tuple(ChapterCheck(v.check, v.anchor, v.entry, v.title, v.value_text, v.threshold_text) for v in views),
        registry=registry,
    )
    chapters = sorted(registry.of("chapter").values(), key=lambda c: (PLACES.index(c.place), c.rank, c.name))
    out = []
    for chapter in chapters:
        content = build_chapter(chapter, report, registry.origin.get(f"chapter:{chapter.name}"))
        if content is not None:
            out.append(
                ChapterView(
                    name=chapter.name,
                    place=chapter.place,
                    anchor=content.id or chapter.name,
                    title=content.title or chapter.title,
                    style=content.style or "chapter",
                    content=content,
                )
            )
    return out


def render_html(result: Any, registry: Any = None) -> str:
    """The HTML report of an :class:`~privaudit.pipeline.audit.AuditResult`, as one self-contained page."""
    if registry is None:
        registry = result.registry
    report = report_of(result)
    data = report.to_dict()  # what the templates and chapters print
    views = check_views(report, result, registry)
    remediation = remediation_view(data, views, registry)
    chapters = chapter_views(result, data, views, registry)
    s = data["summary"]
    scope = data["scope"]
    context = {
        "data": data,
        "checks": views,
        "verdict": "PASS" if s["passed"] else "FAIL",
        "file_name": PurePath(data["input"]["path"]).name,
        "policy_file": PurePath(data["policy"]["path"]).name,
        "original_file": PurePath(data["original"]["path"]).name
        if data["original"] and not (remediation and data["original"]["sha256"] == remediation.input_sha256)
        else None,
        "remediation": remediation,
        "chapters": chapters,
        "placed": {place: [c for c in chapters if c.place == place and c.content.blocks] for place in PLACES},
        "file_size": human_size(data["input"]["size"]),
        "generated": human_time(data["generated_at"]),
        "version": __version__,
        "missing_qi_text": MISSING_QI.get(scope["missing_qi"], scope["missing_qi"]),
        "column_rows": column_rows(data, result.policy),
        "special_categories": scope.get("special_categories", []),
        "unknowable": scope.get("unknowable", {}),
        "exceptions": data.get("exceptions", []),
        "bound_sign": {c["id"]: {"lower": "≤", "higher": "≥"}.get(c.get("better", ""), "") for c in data["checks"]},
        "missing_tokens": ", ".join(token_label(t) for t in scope["missing_tokens"]),
        "limitations": limitations(views),
        "methodology": methodology(views),
        "max_classes": result.policy.report.max_classes,
        "show_sensitive": result.policy.report.show_sensitive_values,
    }
    return environment().get_template(TEMPLATE).render(**context)
