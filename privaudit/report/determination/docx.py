"""The determination as a Word document (python-docx, the optional extra ``determination``): the same blocks
as the HTML, headings of level 1 for the sections, tables in Word's "Table Grid" style."""

from __future__ import annotations

import io

from privaudit.core.errors import PrivauditError
from privaudit.report.determination.model import Document


def render_docx(document: Document) -> bytes:
    """The document's bytes (``.docx``)."""
    try:
        import docx
    except ImportError:  # pragma: no cover - the extra is part of the test environment
        raise PrivauditError("--docx needs python-docx: pip install 'privaudit[determination]'") from None
    out = docx.Document()
    out.core_properties.title = document.title
    out.add_heading(document.title, level=0)
    out.add_paragraph(document.subtitle)
    for section in document.sections:
        out.add_heading(section.title, level=1)
        for text in section.paragraphs:
            out.add_paragraph(text)
        for table in section.tables:
            grid = out.add_table(rows=1, cols=len(table.header))
            grid.style = "Table Grid"
            for cell, text in zip(grid.rows[0].cells, table.header, strict=True):
                cell.text = text
            for row in table.rows:
                for cell, text in zip(grid.add_row().cells, row, strict=True):
                    cell.text = text
        for text in section.after:
            out.add_paragraph(text)
    buffer = io.BytesIO()
    out.save(buffer)
    return buffer.getvalue()
