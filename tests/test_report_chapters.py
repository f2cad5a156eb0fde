"""Report chapters are registered extensions (privaudit/plugin/chapter.py): the built-in ones in
privaudit/report/chapters/ and a third party's, drawn from a renderer-neutral content model with every value
escaped (Jinja2's autoescape, https://jinja.palletsprojects.com/en/stable/api/#autoescaping), in the place and rank
they ask for; a chapter that fails is a note naming its plugin, as a failing section is."""

from __future__ import annotations

import pandas as pd
import pytest

from privaudit.plugin.chapter import (
    Chapter,
    ChapterContent,
    Grid,
    Heading,
    Link,
    Paragraph,
    Strong,
    Table,
)
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import DataTable
from privaudit.testing import audit_frame, registry_with

BUILT_IN = ["remediation", "recipe", "explore", "synthetic", "utility", "series"]
POLICY = {
    "columns": {"age": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}},
    "checks": [{"id": "k2", "assessor": "k_anonymity", "k": 2}],
}
FRAME = pd.DataFrame({"age": ["20", "20", "30", "30"], "disease": ["a", "b", "a", "b"]})


def _html(*plugins) -> str:
    from privaudit.report.html import render_html

    registry = registry_with(*plugins, entry_points=False)
    result = audit_frame(FRAME, POLICY, registry=registry)
    return render_html(result, registry)


class ThirdParty:
    """Two chapters: one after the checks with every kind of block, one that raises."""

    @staticmethod
    def _size(report):
        rows = report.data["input"]["rows"]
        anchor = report.checks[0].anchor
        return ChapterContent(
            blocks=(
                Paragraph(("The release holds ", Strong(str(rows)), " records <script>alert(1)</script>.")),
                Heading("By value", id="size-by-value"),
                Table(DataTable(["age", "records"], [["20", 2], ["30", 2]], numeric=frozenset({1}))),
                Grid(("check", "status"), (((Link("k2", anchor),), ("pass",)),), row_styles=("ok",), style="sizes"),
            ),
            headline=Paragraph(("Size: ", Link("the size chapter", "size"), ".")),
        )

    @staticmethod
    def _broken(report):
        raise ZeroDivisionError("no records to divide by")

    @hookimpl
    def privaudit_report_chapters(self):
        return [
            Chapter("size", "Size of the release", self._size, place="after_checks"),
            Chapter("broken", "A broken chapter", self._broken, place="before_checks", rank=1),
        ]


def test_the_built_in_chapters_are_registered():
    from privaudit.pipeline.plugins import get_registry

    registry = get_registry()  # an installed plugin's chapters come after the built-ins
    assert [n for n in registry.of("chapter") if registry.origin[f"chapter:{n}"].package == "privaudit"] == BUILT_IN
    assert list(registry.of("chapter"))[: len(BUILT_IN)] == BUILT_IN
    assert [registry.origin[f"chapter:{n}"].name for n in BUILT_IN] == [
        f"privaudit.report.chapters.{n}" for n in BUILT_IN
    ]


def test_a_plain_audit_has_only_the_chapters_with_something_to_say():
    """No remediation, exploration, synthetic attack or earlier release: those chapters say nothing; the
    utility figures of any release do."""
    html = _html()
    for name in ["remediation", "explore", "synthetic", "series"]:
        assert f'<section id="{name}"' not in html
    assert html.index('<section id="summary"') < html.index('<section id="utility" class="chapter">')


@pytest.mark.slow
def test_a_third_party_chapter_is_drawn_escaped_in_its_place():
    html = _html(ThirdParty())
    size = html.index('<section id="size" class="chapter">')
    assert html.index('<section id="checks"') < size < html.index('<section id="scope"')
    assert "<h2>Size of the release</h2>" in html
    assert "The release holds <strong>4</strong> records &lt;script&gt;alert(1)&lt;/script&gt;." in html
    assert "<script>alert" not in html
    assert '<h3 class="sub" id="size-by-value">By value</h3>' in html
    assert '<tr class="ok"><td class="id"><a href="#check-1">k2</a></td><td>pass</td></tr>' in html
    summary = html[html.index('<section id="summary"') : html.index('<section id="checks"')]
    assert '<p>Size: <a href="#size">the size chapter</a>.</p>' in summary


@pytest.mark.slow
def test_a_failing_chapter_is_a_note_naming_its_plugin_not_a_lost_report():
    html = _html(ThirdParty())
    broken = html[html.index('<section id="broken" class="chapter">') :]
    assert broken.index("<h2>A broken chapter</h2>") < broken.index("</section>")
    note = broken[: broken.index("</section>")]
    assert '<p class="note">(The chapter &#39;broken&#39; of plugin ' in note
    assert "(test_report_chapters " in note  # the package of an in-process plugin is its module
    assert "failed: ZeroDivisionError: no records to divide by)</p>" in note
    summary_end = html.index('<section id="checks"')
    assert html.index('<section id="summary"') < html.index('<section id="broken"') < summary_end


def test_a_chapter_that_returns_something_else_is_a_note():
    from privaudit.plugin.chapter import ChapterInput
    from privaudit.report.html import build_chapter

    chapter = Chapter("odd", "Odd", lambda report: "<p>raw html</p>")
    content = build_chapter(chapter, ChapterInput(result=None, data={}))
    assert content is not None and len(content.blocks) == 1
    (note,) = content.blocks
    assert isinstance(note, Paragraph) and "build returned str, not a ChapterContent" in note.parts[0]


def test_a_chapter_that_has_nothing_to_say_is_left_out():
    from privaudit.plugin.chapter import ChapterInput
    from privaudit.report.html import build_chapter

    assert build_chapter(Chapter("quiet", "Quiet", lambda report: None), ChapterInput(result=None, data={})) is None


def test_a_chapter_place_must_be_known():
    with pytest.raises(ValueError, match="front, before_checks, after_checks"):
        Chapter("x", "X", lambda report: None, place="middle")  # type: ignore[arg-type]
