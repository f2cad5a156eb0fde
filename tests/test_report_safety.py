"""Report safety: values are text, never markup; the PDF renderer fetches nothing but ``data:`` URLs.

A local HTTP server counts the requests it receives: a template or a value that references
``http://`` or ``file://`` must leave it at zero, and the fetcher must list every URL it refused.
"""

from __future__ import annotations

import base64
import http.server
import threading

import pandas as pd
import pytest
from conftest import write_policy
from report_helpers import parse_html, pdf_pages_text, table_rows

from privaudit.pipeline.audit import run_audit
from privaudit.plugin.sections import DataTable
from privaudit.report.html import environment, render_html
from privaudit.report.pdf import DataOnlyFetcher, render_pdf

# a 1 x 1 PNG
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf"
        "c0f01f0005000201e5270ddc0000000049454e44ae426082"
    )
).decode()


@pytest.fixture
def server():
    """A local HTTP server; yields (base URL, list of requested paths)."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/css")
            self.end_headers()
            self.wfile.write(b"body { color: red }")

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()
    httpd.server_close()


def test_fetcher_refuses_file_and_http_urls_in_the_document(server, tmp_path):
    base, hits = server
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    html = f"""<!DOCTYPE html><html><head>
<link rel="stylesheet" href="{base}/linked.css">
<style>@import url({base}/imported.css); body {{ background: url(file://{secret}); }}
@font-face {{ font-family: X; src: url({base}/font.ttf); }}</style></head>
<body><p>before</p><img src="file://{secret}"><img src="{base}/image.png">
<object data="file://{secret}"></object><iframe src="file://{secret}"></iframe>
<svg xmlns="http://www.w3.org/2000/svg"><image href="{base}/svg-image.png" width="5" height="5"/></svg>
<img src="data:image/png;base64,{PNG}"><p>after</p></body></html>"""
    fetcher = DataOnlyFetcher()
    pdf = render_pdf(html, fetcher=fetcher)
    assert hits == []
    refused = set(fetcher.refused)
    for url in (
        f"{base}/linked.css",
        f"{base}/imported.css",
        f"file://{secret}",
        f"{base}/image.png",
        f"{base}/font.ttf",
    ):
        assert url in refused, (url, refused)
    assert not any(u.startswith("data:") for u in refused)
    text = " ".join(pdf_pages_text(pdf))
    assert "before" in text and "after" in text and "TOP-SECRET" not in text


def test_data_urls_still_load():
    fetcher = DataOnlyFetcher()
    response = fetcher.fetch(f"data:image/png;base64,{PNG}")
    assert response.read().startswith(b"\x89PNG")
    with pytest.raises(ValueError):
        fetcher.fetch("file:///etc/passwd")
    with pytest.raises(ValueError):
        fetcher.fetch("FILE:///etc/passwd")
    assert fetcher.refused == ["file:///etc/passwd", "FILE:///etc/passwd"]


HOSTILE = ["<script>alert(1)</script>", '<img src="file:///etc/passwd">', '"><b>bold</b>']


@pytest.fixture
def hostile_report(server, tmp_path, monkeypatch):
    """An audit whose values, column names and policy name carry markup and URLs."""
    base, hits = server
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    link = f'<link rel="stylesheet" href="{base}/x.css">'
    values = HOSTILE + [link]
    rows = [{"zip<i>": v, "dx": "a"} for v in values] + [{"zip<i>": "lonely", "dx": link}]  # classes of one
    data = tmp_path / "hostile.csv"
    pd.DataFrame(rows).to_csv(data, index=False)
    policy = write_policy(
        tmp_path,
        f"""version: 1
name: '<script>alert("name")</script> {base}/policy-name'
columns:
  zip<i>: {{role: quasi_identifier}}
  dx: {{role: sensitive}}
checks:
  - {{id: '<b>k</b>', assessor: k_anonymity, k: 2}}
  - {{id: ldiv, assessor: l_diversity, sensitive: dx, l: 2}}
report: {{show_sensitive_values: true}}
""",
    )
    result = run_audit(data, policy)
    return render_html(result), hits, values


def test_values_are_text_in_the_html(hostile_report):
    html, _, values = hostile_report
    tree = parse_html(html)
    assert not tree.find_all("script") and not tree.find_all("img") and not tree.find_all("link")
    assert not [b for b in tree.find_all("b") if b.text() in ("bold", "k")]  # only the report's own <b>
    assert not tree.find_all("i")
    text = tree.find("body").text()
    for v in values:
        assert v in text  # shown literally
    assert '<script>alert("name")</script>' in tree.find("h1").text()
    assert "<b>k</b>" in [row[0] for row in table_rows(tree.find("table", cls="summary"))]
    for node in tree.iter():
        assert "src" not in node.attrs
        assert node.attrs.get("href") is None or node.attrs["href"].startswith("#")


@pytest.mark.slow
def test_values_fetch_nothing_in_the_pdf(hostile_report):
    html, hits, values = hostile_report
    fetcher = DataOnlyFetcher()
    pdf = render_pdf(html, fetcher=fetcher)
    assert hits == [] and fetcher.refused == []  # escaped: nothing was even attempted
    text = " ".join(pdf_pages_text(pdf))
    assert '<img src="file:///etc/passwd">' in text and "<script>alert(1)</script>" in text


def test_every_template_autoescapes():
    env = environment()
    for name in env.list_templates():
        template = env.from_string("{{ v }}")
        assert template.render(v="<x>") == "&lt;x&gt;"
        source = env.loader.get_source(env, name)[0]
        assert "| safe" not in source and "|safe" not in source and "autoescape false" not in source, name


def test_table_widths_are_plain_lengths():
    DataTable(["a"], [["x"]], widths=("40%",))
    for bad in ("url(http://127.0.0.1/x)", "40%; background: red", "expression(alert(1))"):
        with pytest.raises(ValueError):
            DataTable(["a"], [["x"]], widths=(bad,))
