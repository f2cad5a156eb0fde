"""The machine fails: the disk fills, the process is killed or terminated, memory runs
out, two runs write one output. Each fault is produced for real: a small tmpfs that fills, a child
process killed with SIGKILL at random moments, SIGTERM, ``ulimit -v`` and ``--max-memory``, two
processes at once. Never a PASS, a partial output or a traceback."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_plugin_faults import install, pythonpath, workspace

from privaudit.runtime.atomic import TEMPORARY, write_output
from privaudit.testing import run_cli

K = [{"id": "k", "assessor": "k_anonymity", "k": 2}]


def one_line(stderr: str, *phrases: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------------------------------ disk full
@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs the test fills (root only): unmounted afterwards."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def fill(disk: Path, leave: int) -> None:
    """Take all but ``leave`` bytes of the filesystem."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    assert free >= leave, (free, leave)
    (disk / "filler").write_bytes(b"\0" * (free - leave))


def test_a_disk_that_fills_leaves_earlier_outputs_and_no_partial_one(tmp_path, small_disk):
    data, policy = workspace(tmp_path, [], K)
    sizes = {}
    for flag, name in (("--json", "r.json"), ("--html", "r.html")):  # how large each report is
        assert run_cli("audit", data, "--policy", policy, flag, tmp_path / name, "--quiet").code == 0
        sizes[name] = (tmp_path / name).stat().st_size
    room = (sizes["r.json"] // 4096 + 2) * 4096  # tmpfs allocates 4 KiB pages: the JSON report and a page more
    assert sizes["r.html"] > room + 8 * 1024
    (small_disk / "r.json").write_text("the previous JSON report")
    (small_disk / "r.html").write_text("the previous HTML report")
    fill(small_disk, room)  # room for the JSON report, not for the HTML one
    result = run_cli(
        "audit", data, "--policy", policy, "--json", small_disk / "r.json", "--html", small_disk / "r.html", "--quiet"
    )
    assert result.code == 2
    one_line(result.stderr, f"{small_disk / 'r.html'}: cannot be written (No space left on device)")
    assert (small_disk / "r.json").read_text() == "the previous JSON report"  # staged, then dropped
    assert (small_disk / "r.html").read_text() == "the previous HTML report"
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "r.html", "r.json"]


def test_a_disk_that_fills_leaves_no_remediated_table(tmp_path, small_disk):
    data, policy = workspace(tmp_path, [], [{"id": "k", "assessor": "k_anonymity", "k": 2}])
    fill(small_disk, 0)
    out = small_disk / "fixed.csv"
    result = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "suppress",
        "--out",
        out,
        "--json",
        small_disk / "r.json",
        "--quiet",
        "--even-if-passing",  # k = 2 passes already: written only when asked
    )
    assert result.code == 2
    one_line(result.stderr, "fixed.csv: cannot be written (No space left on device)")
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]


# ------------------------------------------------------------------------------------ killed, terminated
def whole_or_absent(folder: Path, *names: str) -> None:
    for name in names or ("r.json", "r.html"):
        path = folder / name
        if path.exists():
            text = path.read_bytes()
            assert json.loads(text) if name.endswith(".json") else text.rstrip().endswith(b"</html>"), name


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.mark.slow
def test_killed_at_random_moments_no_partial_output_and_no_stale_temporary(tmp_path):
    data, policy = workspace(tmp_path, [], K)
    out = tmp_path / "out"
    out.mkdir()
    command = [
        sys.executable,
        "-m",
        "privaudit",
        "audit",
        str(data),
        "--policy",
        str(policy),
        "--json",
        str(out / "r.json"),
        "--html",
        str(out / "r.html"),
        "--quiet",
    ]
    env = {**os.environ, "PYTHONPATH": pythonpath()}
    started = time.monotonic()
    assert subprocess.run(command, env=env, capture_output=True).returncode == 0
    full = time.monotonic() - started
    for name in ("r.json", "r.html"):
        (out / name).write_text("stale")  # a previous run's outputs: whole, and replaced whole or kept
    rng = random.Random(32)
    for _ in range(4):
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 1.1) * full)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for name in ("r.json", "r.html"):  # the previous file, or a whole new one: never partial
            if (out / name).read_bytes() != b"stale":
                whole_or_absent(out, name)
            (out / name).write_text("stale")
    # a temporary a killed run left between naming its file and the rename (a dead process's pid)
    (out / f".r.json.{dead_pid()}{TEMPORARY}").write_bytes(b"{partial")
    alive = out / f".r.json.{os.getpid()}.x{TEMPORARY}"  # a running writer's: kept
    alive.write_bytes(b"in progress")
    assert (
        run_cli("audit", data, "--policy", policy, "--json", out / "r.json", "--html", out / "r.html", "--quiet").code
        == 0
    )
    assert sorted(p.name for p in out.iterdir()) == sorted(["r.json", "r.html", alive.name])
    whole_or_absent(out)


@pytest.mark.slow
def test_sigterm_is_handled_as_ctrl_c(tmp_path):
    site = install(tmp_path)
    data, policy = workspace(tmp_path, ["hang"], K)
    out = tmp_path / "r.json"
    env = {**os.environ, "PYTHONPATH": pythonpath(site)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "privaudit", "audit", str(data), "--policy", str(policy), "--json", str(out), "--quiet"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr.readline().strip() == "hanging"  # the audit is inside a check
    proc.send_signal(signal.SIGTERM)
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert err.strip() == "privaudit: terminated; no output was written" and rest == ""
    assert not out.exists() and not list(tmp_path.glob(f"*{TEMPORARY}"))


# ------------------------------------------------------------------------------------------- memory
def big_release(folder: Path, megabytes: int) -> Path:
    data = folder / "big.csv"
    line = b"10001,31,flu\n"
    data.write_bytes(b"zip,age,disease\n" + line * (megabytes * 2**20 // len(line)))
    return data


@pytest.mark.slow
def test_memory_limits_give_one_line_naming_the_step(tmp_path):
    data, policy = workspace(tmp_path, [], K)
    big = big_release(tmp_path, 128)
    env = {**os.environ, "PYTHONPATH": pythonpath()}
    audit = f"{sys.executable} -m privaudit audit {big} --policy {policy} --quiet"
    try:
        for command in (f"ulimit -v {600 * 1024}; exec {audit}", f"exec {audit} --max-memory 1G"):
            proc = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True, timeout=120)
            assert proc.returncode == 2, proc.stderr
            one_line(
                proc.stderr,
                f"{big}: about 768 MiB once loaded in memory",
                "the memory limit leaves",
                "--engine chunked or --engine duckdb",
            )
    finally:
        big.unlink()
    proc = subprocess.run(
        [sys.executable, "-m", "privaudit", "audit", str(data), "--policy", str(policy), "--max-memory", "512M"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    one_line(proc.stderr, "--max-memory 512M: privaudit needs at least 1024 MiB")


def test_a_check_that_runs_out_of_memory_is_an_error_naming_it(tmp_path, monkeypatch):
    from privaudit.pipeline.plugins import get_registry

    site = install(tmp_path)
    monkeypatch.syspath_prepend(str(site))
    get_registry.cache_clear()
    try:
        data, policy = workspace(tmp_path, ["allocate"], K)
        out = tmp_path / "r.json"
        assert run_cli("audit", data, "--policy", policy, "--json", out, "--quiet").code == 2
    finally:
        get_registry.cache_clear()
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    assert checks["allocate"]["status"] == "error" and "--engine chunked or duckdb" in checks["allocate"]["message"]
    assert checks["k"]["status"] == "pass"


# ------------------------------------------------------------------------------------ two writers at once
def test_two_writers_of_one_output_leave_a_whole_file_from_one_of_them(tmp_path):
    target = tmp_path / "report.json"
    contents = [bytes([ord("a") + i]) * (1 << 20) for i in range(2)]
    seen: list[bytes] = []
    stop = threading.Event()

    def writer(data: bytes) -> None:
        for _ in range(25):
            write_output(target, data)

    def reader() -> None:
        while not stop.is_set():
            if target.exists():
                seen.append(target.read_bytes()[:: 1 << 16])

    threads = [threading.Thread(target=writer, args=(c,)) for c in contents]
    watch = threading.Thread(target=reader)
    watch.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    watch.join()
    whole = {c[:: 1 << 16] for c in contents}
    assert seen and all(s in whole for s in seen) and target.read_bytes() in contents
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


@pytest.mark.slow
def test_two_runs_writing_one_report_at_once(tmp_path):
    runs = []
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        runs.append(workspace(folder, [], K))
    target = tmp_path / "r.json"
    env = {**os.environ, "PYTHONPATH": pythonpath()}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "privaudit", "audit", str(d), "--policy", str(p), "--json", str(target), "--quiet"],
            env=env,
        )
        for d, p in runs
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    report = json.loads(target.read_text())
    assert report["input"]["path"] in {str(d) for d, _ in runs}
    assert not list(tmp_path.glob(f".*{TEMPORARY}"))
