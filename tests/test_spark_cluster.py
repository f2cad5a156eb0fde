"""The Spark engine on a real multi-process cluster: Spark's ``local-cluster[2,1,1024]`` master starts two
executor JVMs beside the driver, so the SQL passes run where the data is partitioned and only the class
summary comes back. Run through the CLI in a process of its own (a session's master cannot
change once a process has one), compared with the in-process report."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="pyspark is not installed")


def _report(tmp_path, name, *extra):
    out = tmp_path / f"{name}.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "privaudit",
            "audit",
            str(ROOT / "examples/adult/release.csv"),
            "--policy",
            str(ROOT / "policies/adult.yaml"),
            "--json",
            str(out),
            "--quiet",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == "" and done.stdout == ""  # --quiet: the JVMs' notices go to their logs, not the terminal
    return json.loads(out.read_text())


@pytest.mark.slow
def test_local_cluster_gives_the_in_process_report(tmp_path):
    reference = _report(tmp_path, "in-process")
    cluster = _report(
        tmp_path,
        "cluster",
        "--engine",
        "spark",
        "--engine-option",
        "master=local-cluster[2,1,1024]",
        "--engine-option",
        "shuffle_partitions=4",
    )
    assert cluster["engine"] == "spark"
    for key in ("checks", "scope", "policy"):
        assert cluster[key] == reference[key], key
    assert cluster["input"]["sha256"] == reference["input"]["sha256"] and cluster["input"]["rows"] == 30162
