"""The determination as HTML (every value escaped; no external resource) and as PDF/A-3b with the JSON
report and the policy attached, through the audit report's machinery (:func:`privaudit.report.pdf.render_pdf`)."""

from __future__ import annotations

import json
from html import escape

from privaudit.report.determination.model import Document, Section, Table

STYLE = """
@page { size: A4; margin: 18mm 16mm; @bottom-right { content: "page " counter(page) " of " counter(pages);
  font-family: "DejaVu Sans", sans-serif; font-size: 8pt; color: #555; } }
body { font-family: "DejaVu Sans", sans-serif; font-size: 9.5pt; line-height: 1.35; color: #111; max-width: 60em;
  margin: auto; }
h1 { font-size: 17pt; margin: 0 0 2pt; } .subtitle { color: #444; margin: 0 0 10pt; }
h2 { font-size: 12pt; margin: 14pt 0 4pt; border-bottom: 1px solid #999; bookmark-level: 1; break-after: avoid; }
table { border-collapse: collapse; width: 100%; margin: 4pt 0 6pt; } tr { break-inside: avoid; }
thead { display: table-header-group; }
th, td { border: 1px solid #bbb; padding: 2pt 4pt; text-align: left; vertical-align: top; }
th { background: #eee; } p { margin: 3pt 0; }
"""


def _table(table: Table) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in table.header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in table.rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _section(section: Section) -> str:
    parts = [f"<section><h2>{escape(section.title)}</h2>"]
    parts += [f"<p>{escape(p)}</p>" for p in section.paragraphs]
    parts += [_table(t) for t in section.tables]
    parts += [f"<p>{escape(p)}</p>" for p in section.after]
    return "".join(parts) + "</section>"


def render_html(document: Document, created: str = "") -> str:
    """The document as one self-contained HTML page (``created``: the audit's time, the PDF's creation date)."""
    meta = f'<meta name="dcterms.created" content="{escape(created)}">' if created else ""
    figures = escape(json.dumps(document.figures, sort_keys=True))
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">{meta}'
        f"<title>{escape(document.title)}</title><style>{STYLE}</style></head><body>"
        f'<h1>{escape(document.title)}</h1><p class="subtitle">{escape(document.subtitle)}</p>'
        + "".join(_section(s) for s in document.sections)
        + f'<script type="application/json" id="figures">{figures}</script></body></html>\n'
    )


def render_pdf(document: Document, report_json: bytes, policy_source: bytes, created: str = "") -> bytes:
    """The document as PDF/A-3b with ``report.json`` and ``policy.yaml`` attached, as the audit's PDF."""
    from privaudit.report.pdf import render_pdf as pdf_of_html

    return pdf_of_html(
        render_html(document, created), attachments={"report.json": report_json, "policy.yaml": policy_source}
    )
