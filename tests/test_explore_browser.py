"""The --explore HTML report opened in a real browser: headless Chromium (Debian's ``chromium``, installed by
.ci/run) driven over the DevTools protocol (``websocket-client``). The page must load with no console error,
no request leaving it, and the map's points drawn where the JSON report puts them."""

from __future__ import annotations

import itertools
import json
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import write_policy
from test_explore import POLICY, _table

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)"),
]


class DevTools:
    """A minimal DevTools-protocol client of one page target: commands by id, events kept."""

    def __init__(self, url: str):
        import websocket

        self.ws = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict] = []

    def send(self, method: str, **params) -> dict:
        ident = next(self.ids)
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == ident:
                assert "error" not in message, message
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, seconds: float = 30) -> dict:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for e in self.events:
                if e.get("method") == method:
                    return e
            self.events.append(json.loads(self.ws.recv()))
        raise AssertionError(f"no {method} within {seconds} s")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def browser(tmp_path):
    port = _free_port()
    profile = tmp_path / "profile"
    proc = subprocess.Popen(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            f"--remote-debugging-port={port}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        targets = None
        for _ in range(150):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                    targets = [t for t in json.load(r) if t.get("type") == "page"]
                if targets:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        assert targets, "chromium did not open its DevTools port"
        client = DevTools(targets[0]["webSocketDebuggerUrl"])
        yield client
        client.ws.close()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


POINTS = """(() => {
  const svg = document.getElementById('ru-map');
  const box = svg.getBoundingClientRect();
  const vb = svg.viewBox.baseVal;
  return JSON.stringify({box: [box.left, box.top, box.width, box.height], vb: [vb.width, vb.height],
    riskMax: parseFloat(svg.dataset.riskMax),
    bound: (b => b ? b.getBoundingClientRect().left : null)(svg.querySelector('.risk-bound')),
    recommended: (r => r ? (b => [b.left + b.width / 2, b.top + b.height / 2])(r.getBoundingClientRect()) : null)(
      svg.querySelector('circle.recommended')),
    points: [...svg.querySelectorAll('.candidate')].map(e => {
      const r = e.getBoundingClientRect();
      return {index: +e.dataset.index, x: r.left + r.width / 2, y: r.top + r.height / 2,
              passes: e.dataset.passes === 'true', kind: e.tagName};
    })});
})()"""


def test_explore_report_in_chromium(tmp_path, browser, run_cli):
    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    html, report = tmp_path / "r.html", tmp_path / "r.json"
    code, _, err = run_cli("remediate", data, "--policy", policy, "--explore", "--html", html, "--json", report)
    assert code == 0, err
    explore = json.loads(report.read_text())["explore"]
    b = browser
    for domain in ("Page", "Runtime", "Log", "Network"):
        b.send(f"{domain}.enable")
    b.send("Page.navigate", url=Path(html).as_uri())
    b.wait_for("Page.loadEventFired")
    found = json.loads(b.send("Runtime.evaluate", expression=POINTS, returnByValue=True)["result"]["value"])
    # no console error, no exception, no request but the page itself
    errors = [
        e
        for e in b.events
        if e.get("method") == "Runtime.exceptionThrown"
        or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")
        or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
    ]
    assert not errors, errors
    requests = [e["params"]["request"]["url"] for e in b.events if e.get("method") == "Network.requestWillBeSent"]
    assert requests and all(u == Path(html).as_uri() or u.startswith("data:") for u in requests), requests
    # every candidate drawn once, where the JSON puts it (the map's axes: risk 0..riskMax, utility 0..1)
    from privaudit.report.chapters.explore import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH

    left, top, width, height = found["box"]
    sx, sy = width / found["vb"][0], height / found["vb"][1]
    assert sorted(p["index"] for p in found["points"]) == list(range(len(explore["candidates"])))
    for p in found["points"]:
        c = explore["candidates"][p["index"]]
        x = LEFT + c["risk"] / found["riskMax"] * (WIDTH - RIGHT - LEFT)
        y = (HEIGHT - BOTTOM) - c["utility"] * (HEIGHT - BOTTOM - TOP)
        assert p["x"] == pytest.approx(left + x * sx, abs=0.6) and p["y"] == pytest.approx(top + y * sy, abs=0.6)
        assert p["passes"] == c["passes"] and p["kind"] == ("circle" if c["passes"] else "rect")
    # the policy's bound drawn at its risk, the recommended candidate ringed
    bound_x = LEFT + explore["risk_bound"] / found["riskMax"] * (WIDTH - RIGHT - LEFT)
    assert found["bound"] == pytest.approx(left + bound_x * sx, abs=1.0)
    rec = next(p for p in found["points"] if p["index"] == explore["recommended"])
    assert found["recommended"] == pytest.approx([rec["x"], rec["y"]], abs=0.6)
