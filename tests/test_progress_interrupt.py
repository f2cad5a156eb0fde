"""The progress bar (terminal only, after a delay) and Ctrl-C (no partial files, exit 130)."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT

from privaudit.runtime.progress import ProgressBar


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_draws_on_a_terminal_after_the_delay():
    stream = FakeTTY()
    bar = ProgressBar(stream=stream, delay=0.0)
    bar("record linkage", 5, 10)
    bar("record linkage", 10, 10)
    text = stream.getvalue()
    assert "record linkage" in text and "50.0%" in text and "100.0%" in text and text.endswith("\n")


def test_bar_silent_before_the_delay_and_off_a_terminal():
    stream = FakeTTY()
    ProgressBar(stream=stream, delay=60.0)("work", 1, 10)
    assert stream.getvalue() == ""
    plain = io.StringIO()
    ProgressBar(stream=plain, delay=0.0)("work", 1, 10)
    assert plain.getvalue() == ""
    quiet = FakeTTY()
    ProgressBar(enabled=False, stream=quiet, delay=0.0)("work", 1, 10)
    assert quiet.getvalue() == ""


@pytest.mark.slow
def test_ctrl_c_leaves_no_output(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    # a slow audit: Fellegi-Sunter linkage of the adult extract against itself with no blocking (9e8 pairs)
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        (ROOT / "policies" / "adult.yaml")
        .read_text()
        .replace(
            "checks:\n",
            "checks:\n  - {assessor: record_linkage, method: probabilistic, blocking: [], estimation: both, "
            "max_rate: 1}\n",
        )
        .replace("hierarchies/", str(ROOT / "policies" / "hierarchies") + "/")
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "privaudit",
            "audit",
            str(ROOT / "examples" / "adult" / "release.csv"),
            "--policy",
            str(policy),
            "--original",
            str(ROOT / "examples" / "adult" / "release.csv"),
            "--allow-outside-paths",
            "--json",
            str(out / "r.json"),
            "--pdf",
            str(out / "r.pdf"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip() == "privaudit: interrupted; no output was written"
    assert list(out.iterdir()) == []
