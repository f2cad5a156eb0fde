"""The Spark engine through the command line, each run in a process of its own (so that it starts its own
JVM): bad input found once the JVM runs, and a JVM that cannot start, are one line and exit 2, as with
the in-process engine; the JVM's and Spark launcher's notices (``WARNING: Using incubator modules``,
``Setting default log level``) never reach the terminal."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="pyspark is not installed")

POLICY = str(ROOT / "policies/adult.yaml")


def _audit(path, out, *extra):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "privaudit",
            "audit",
            str(path),
            "--policy",
            POLICY,
            "--json",
            str(out),
            "--quiet",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_a_ragged_row_found_by_spark_is_the_in_process_line(tmp_path):
    lines = (ROOT / "examples/adult/release.csv").read_text().splitlines()[:40]
    bad = tmp_path / "ragged.csv"
    bad.write_text("\n".join(lines[:20] + ["39,Male"] + lines[20:]) + "\n")
    reference = _audit(bad, tmp_path / "a.json")
    spark = _audit(bad, tmp_path / "b.json", "--engine", "spark", "--engine-option", "master=local[1]")
    assert reference.returncode == spark.returncode == 2
    assert spark.stderr.splitlines() == reference.stderr.splitlines()
    assert len(spark.stderr.splitlines()) == 1 and "line 21: expected 9 fields, found 1" in spark.stderr, spark.stderr
    assert not (tmp_path / "b.json").exists() and spark.stdout == ""


@pytest.mark.slow
def test_a_jvm_that_cannot_start_is_one_line(tmp_path):
    done = _audit(
        ROOT / "examples/adult/release.csv",
        tmp_path / "r.json",
        "--engine",
        "spark",
        "--engine-option",
        "driver_memory=lots",
    )
    assert done.returncode == 2 and not (tmp_path / "r.json").exists()
    assert done.stderr.splitlines() == [
        "privaudit: error: the Spark engine's JVM did not start: Invalid maximum heap size: -Xmxlots"
    ], done.stderr


@pytest.mark.slow
def test_jvm_log_keeps_the_jvms_own_output(tmp_path):
    """``--engine-option jvm_log=FILE``: the JVM's output, which privaudit keeps off the terminal, is kept in
    FILE to investigate a failure (without it, a temporary file deleted at exit). The command's stderr is
    still privaudit's one line; the log is an output, so it may not name an input."""
    log = tmp_path / "jvm.log"
    done = _audit(
        ROOT / "examples/adult/release.csv",
        tmp_path / "r.json",
        "--engine",
        "spark",
        "--engine-option",
        "driver_memory=lots",
        "--engine-option",
        f"jvm_log={log}",
    )
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "Invalid maximum heap size: -Xmxlots" in done.stderr and "Invalid maximum heap size" in log.read_text()
    release = tmp_path / "release.csv"
    release.write_bytes((ROOT / "examples/adult/release.csv").read_bytes())
    before = release.read_bytes()
    done = _audit(release, tmp_path / "r.json", "--engine", "spark", "--engine-option", f"jvm_log={release}")
    assert done.returncode == 2 and "an output would overwrite an input file" in done.stderr, done.stderr
    assert release.read_bytes() == before
    done = _audit(
        release,
        tmp_path / "r.json",
        "--engine",
        "spark",
        "--engine-option",
        "jvm_log=-",
        "--engine-option",
        "master=local[1]",
    )
    assert done.returncode == 2 and done.stderr.splitlines() == [
        "privaudit: error: --engine-option jvm_log=-: give a file (standard output and error are privaudit's own)"
    ]
