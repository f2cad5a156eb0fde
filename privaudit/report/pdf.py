"""The PDF audit report: WeasyPrint's rendering of the HTML report with its print CSS, as PDF/A-3b.

The PDF is archival: PDF/A-3b (ISO 19005-3, level B; WeasyPrint's ``pdf_variant``: XMP metadata with
``pdfaid:part=3``, an sRGB output intent, every font embedded), and :func:`render_audit_pdf` embeds the
JSON report and the policy as associated files named ``report.json`` and ``policy.yaml`` (PDF/A-3 allows
embedded files of any type). The policy attachment holds the exact bytes whose SHA-256 the report states
(a dict policy: its canonical JSON, which is also YAML). The signed PDF alone is then the whole audit
record: ``pypdf.PdfReader(path).attachments`` gives both back.

The print rules live in the same stylesheet as the screen rules (``templates/report.css``,
``@media print``): A4 pages, a running header with the release name and the verdict, a "page X of Y"
footer, one PDF bookmark per chapter and per check (``bookmark-level`` on h2/h3). Fonts are DejaVu,
which WeasyPrint embeds (as subsets) in the PDF.

WeasyPrint is given :class:`DataOnlyFetcher`: every URL whose scheme is not ``data:`` is refused (and
recorded), so neither the templates nor a value in the data can make the renderer read a local file
(``file://``) or call the network (``http://``). The HTML's ``dcterms.created`` date (the audit's
``generated_at``, which honours ``SOURCE_DATE_EPOCH``) becomes the PDF's creation date.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from weasyprint import HTML
from weasyprint.urls import URLFetcher

DESCRIPTIONS = {
    "report.json": "the audit's JSON report (privaudit report schema)",
    "policy.yaml": "the policy the release was audited against, as read",
}


class RefusedURL(ValueError):
    """Raised for every URL the report's fetcher will not load."""


class DataOnlyFetcher(URLFetcher):
    """A WeasyPrint URL fetcher that loads ``data:`` URLs only and records every URL it refuses."""

    def __init__(self) -> None:
        super().__init__(allowed_protocols=("data",), allow_redirects=False, timeout=1)
        self.refused: list[str] = []

    def fetch(self, url, headers=None):
        scheme = url.split(":", 1)[0].strip().lower() if ":" in url else ""
        if scheme != "data":
            self.refused.append(url)
            raise RefusedURL(f"the report loads no external resource: {url}")
        return super().fetch(url, headers)


def render_audit_pdf(result, html: str | None = None) -> bytes:
    """The PDF of an audit (:class:`~privaudit.pipeline.audit.AuditResult`) with ``report.json`` and
    ``policy.yaml`` attached; ``html`` is the already rendered HTML report, if there is one."""
    from privaudit.report.json_report import render_json, report_of

    if html is None:
        from privaudit.report.html import render_html

        html = render_html(result)
    return render_pdf(
        html,
        attachments={
            "report.json": render_json(report_of(result)).encode("utf-8"),
            "policy.yaml": result.policy.source,
        },
    )


def render_pdf(
    html: str, fetcher: DataOnlyFetcher | None = None, attachments: Mapping[str, bytes] | None = None
) -> bytes:
    """The PDF of the HTML report (``html`` as made by :func:`privaudit.report.html.render_html`).

    ``fetcher`` may be passed to inspect what was refused afterwards; by default a fresh
    :class:`DataOnlyFetcher` is used. WeasyPrint's warnings about refused URLs are kept out of the
    user's terminal (the report itself references none).
    """
    from weasyprint import Attachment

    fetcher = fetcher or DataOnlyFetcher()
    files = [
        Attachment(
            string=data,
            name=name,
            relationship="Source" if name == "policy.yaml" else "Data",
            description=DESCRIPTIONS.get(name),
        )
        for name, data in (attachments or {}).items()
    ]
    logger = logging.getLogger("weasyprint")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        document = HTML(string=html, base_url=None, url_fetcher=fetcher, media_type="print")
        return document.write_pdf(pdf_identifier=None, pdf_variant="pdf/a-3b", attachments=files)
    finally:
        logger.setLevel(level)
