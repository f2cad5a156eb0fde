"""Reading rendered reports back: a small HTML tree (stdlib html.parser) and PDF text (pypdf)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: dict, parent: Node | None = None):
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node | str] = []

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def iter(self) -> Iterator[Node]:
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None, id: str | None = None) -> list[Node]:
        return [
            n
            for n in self.iter()
            if (tag is None or n.tag == tag)
            and (cls is None or cls in n.classes)
            and (id is None or n.attrs.get("id") == id)
        ]

    def find(self, tag: str | None = None, cls: str | None = None, id: str | None = None) -> Node:
        found = self.find_all(tag, cls, id)
        assert found, f"no <{tag or '*'} class={cls} id={id}>"
        return found[0]

    def text(self) -> str:
        parts = []
        for c in self.children:
            parts.append(c if isinstance(c, str) else c.text())
        return "".join(parts)

    def clean_text(self) -> str:
        return re.sub(r"\s+", " ", self.text()).strip()


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, dict(attrs), self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse_html(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


def table_rows(table: Node) -> list[list[str]]:
    """The body rows of a table as lists of cell texts."""
    body = table.find("tbody")
    return [[td.clean_text() for td in tr.find_all("td")] for tr in body.find_all("tr")]


def pdf_pages_text(data: bytes) -> list[str]:
    """Each page's text, whitespace collapsed: poppler's pdftotext when installed (fast), else pypdf."""
    import shutil
    import subprocess

    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", "-enc", "UTF-8", "-", "-"], input=data, capture_output=True, check=True
        ).stdout.decode("utf-8")
        pages = text.split("\f")
        if pages and not pages[-1].strip():
            pages.pop()
    else:
        import io

        import pypdf

        pages = [page.extract_text() or "" for page in pypdf.PdfReader(io.BytesIO(data)).pages]
    return [re.sub(r"\s+", " ", page) for page in pages]


def pdf_outline_titles(data: bytes) -> list[tuple[int, str]]:
    import io

    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data))
    out: list[tuple[int, str]] = []

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                out.append((depth, item.title))

    walk(reader.outline, 0)
    return out
