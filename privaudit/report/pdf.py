"""The PDF audit report: WeasyPrint's rendering of the HTML report with its print CSS.

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

from weasyprint import HTML
from weasyprint.urls import URLFetcher


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


def render_pdf(html: str, fetcher: DataOnlyFetcher | None = None) -> bytes:
    """The PDF of the HTML report (``html`` as made by :func:`privaudit.report.html.render_html`).

    ``fetcher`` may be passed to inspect what was refused afterwards; by default a fresh
    :class:`DataOnlyFetcher` is used. WeasyPrint's warnings about refused URLs are kept out of the
    user's terminal (the report itself references none).
    """
    fetcher = fetcher or DataOnlyFetcher()
    logger = logging.getLogger("weasyprint")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        document = HTML(string=html, base_url=None, url_fetcher=fetcher, media_type="print")
        return document.write_pdf(pdf_identifier=None)
    finally:
        logger.setLevel(level)
