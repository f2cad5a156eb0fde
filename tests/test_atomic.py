"""A writer killed mid-write leaves no partial output file; a finished write replaces the old file whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from privaudit.runtime.atomic import atomic_write

SLOW_WRITER = textwrap.dedent("""
    import os, sys, time
    import privaudit.runtime.atomic as atomic
    real_write = os.write
    def slow_write(fd, data):
        n = real_write(fd, bytes(data[:4096]))
        print("writing", flush=True)
        time.sleep(0.05)
        return n
    os.write = slow_write
    atomic.atomic_write(sys.argv[1], b"x" * 10_000_000)
""")


def test_killed_writer_leaves_nothing(tmp_path):
    target = tmp_path / "report.json"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"  # the write is under way
    time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert list(tmp_path.iterdir()) == []


def test_killed_writer_keeps_the_previous_file(tmp_path):
    target = tmp_path / "report.json"
    target.write_text("previous complete report")
    proc = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    assert target.read_text() == "previous complete report"


def test_write_replaces_whole(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    atomic_write(target, "new content")
    assert target.read_text() == "new content"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]
    assert oct(os.stat(target).st_mode & 0o777) in ("0o644", "0o640", "0o600", "0o664")
