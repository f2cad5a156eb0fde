"""Wall time and peak memory of a child process with everything it starts (Spark's JVM, DuckDB threads run
inside it), shared by the benchmarks that run each tool in a subprocess of its own.

Peak memory is sampled from ``/proc`` (resident pages of the child and all its descendants) while the child
runs; ``ru_maxrss`` would miss grandchildren.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass


def tree_rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and all its descendants, from /proc (MiB)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        total += rss.get(p, 0)
        todo.extend(children.get(p, []))
    return total / 2**20


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_mb: float


def run_sampled(cmd: list[str], env: dict | None = None, every: float = 0.05) -> Run:
    """Run ``cmd`` to its end, sampling the memory of its process tree every ``every`` seconds."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = [0.0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], tree_rss_mb(proc.pid))
            time.sleep(every)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    sampler.join()
    return Run(proc.returncode, out, err, time.perf_counter() - start, peak[0])


def audit_check(folder, check_id: str, engine: str, memory_limit: str, repo) -> tuple[float, object]:
    """Run the audit of ``folder``'s released.csv / policy.yaml / original.csv (the linkage benchmarks'
    layout) with privaudit from ``repo`` under ``engine``; return (wall seconds, the check ``check_id``),
    raising if the check ended in error."""
    import sys

    sys.path.insert(0, str(repo))
    from privaudit.pipeline.audit import run_audit

    options = {"memory_limit": memory_limit} if engine == "duckdb" else {}
    t0 = time.perf_counter()
    result = run_audit(
        folder / "released.csv", folder / "policy.yaml", original=folder / "original.csv", engine=engine, **options
    )
    wall = time.perf_counter() - t0
    check = next(c for c in result.checks if c.id == check_id)
    if check.status == "error":
        raise RuntimeError(check.message)
    return wall, check
