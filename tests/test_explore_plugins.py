"""remediate --explore treats a third party's remediator as a built-in one: its declared candidates are on the
risk-utility map (Duncan, Keller-McNulty & Stokes, NISS TR 121, 2001) and in the candidates' table and can be
recommended, through the library, ``privaudit.explore`` and the command line; one that raises, exits, hangs
or returns something else than the table it was given is one failed row naming its package, as a
misbehaving assessor is one errored check (tests/test_plugin_faults.py), and the others are still ranked.

The plugin (tests/data/explore_plugin/privaudit_coarsen.py) is installed for real, through its ``privaudit``
entry point: a dist-info folder beside a copy of it, on the ``PYTHONPATH`` of a subprocess or on ``sys.path``
of this process, with the registry rebuilt."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, write_policy
from test_explore import POLICY, _table

PLUGIN = ROOT / "tests" / "data" / "explore_plugin" / "privaudit_coarsen.py"
LABEL = "privaudit-coarsen 2.1.0"
MISBEHAVING = {
    "mis_raise": "failed: raised RuntimeError: the explorer broke",
    "mis_exit0": "failed: called sys.exit(0)",
    "mis_hang": "failed: did not finish within the time limit of 2 s",
    "mis_garbage": "failed: returned DataFrame, not a Remediation holding a table",
    "mis_not_a_list": "failed: declared str, not a list",
    "mis_shape": "failed: changed the table's columns",
}


def install(folder: Path) -> Path:
    """The plugin as an installed distribution in ``folder`` (a dist-info with its entry point)."""
    site = folder / "site"
    site.mkdir()
    shutil.copy(PLUGIN, site)
    info = site / "privaudit_coarsen-2.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: privaudit-coarsen\nVersion: 2.1.0\n")
    (info / "entry_points.txt").write_text("[privaudit]\ncoarsen = privaudit_coarsen\n")
    return site


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The plugin installed for this process (undone afterwards: other tests must not see it)."""
    from privaudit.pipeline.plugins import get_registry

    site = install(tmp_path)
    monkeypatch.syspath_prepend(str(site))
    get_registry.cache_clear()
    yield site
    get_registry.cache_clear()
    sys.modules.pop("privaudit_coarsen", None)


def privaudit(site: Path, *args) -> subprocess.CompletedProcess:
    path = os.pathsep.join([str(site), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return subprocess.run(
        [sys.executable, "-m", "privaudit", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        timeout=300,
    )


@pytest.mark.slow
def test_failing_remediators_are_rows_and_the_others_still_ranked(tmp_path, installed):
    """Each way to fail is one row "failed: ... (package P V)" in the JSON and on the map, never
    recommended; the third party's working remediator and the built-ins are ranked as ever."""
    from privaudit.pipeline.explore import explore_release

    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    methods = ["suppress", "coarsen", *MISBEHAVING, "local_suppression"]
    found = explore_release(str(data), str(policy), methods=",".join(methods), check_timeout=2)
    cands = found.report.explore["candidates"]
    failed = {c["method"]: c for c in cands if "failure" in c}
    assert set(failed) == set(MISBEHAVING)
    for method, phrase in MISBEHAVING.items():
        c = failed[method]
        assert c["failure"].startswith(phrase) and c["failure"].endswith(f"(package {LABEL})"), c
        assert c["risk"] is None and c["utility"] is None and not c["passes"] and not c["frontier"]
    rec = found.exploration.recommended
    assert rec is not None and cands[rec]["passes"] and "failure" not in cands[rec]
    assert {"suppress", "coarsen"} <= {c["method"] for c in cands if "failure" not in c}
    assert any(c["method"] == "coarsen+local_suppression" for c in cands)  # refined like a built-in's
    # one row per failing remediator: after its first failure none of its other candidates runs
    assert [c["method"] for c in cands].count("mis_exit0") == 1
    assert found.report.explore["methods"]["coarsen"] == {
        "title": "ZIP prefix and bands",
        "description": "keep the first digits of the ZIP code and band the numeric column",
        "package": LABEL,
    }
    from privaudit.report.chapters.explore import explore_view

    view = explore_view({"explore": found.report.explore})
    assert view is not None and view.methods is not None
    for method in MISBEHAVING:
        i = next(i for i, c in enumerate(cands) if c["method"] == method)
        assert re.search(rf'class="candidate failed" data-index="{i}"[^>]*>#{i} {method}: failed: ', str(view.svg))
        assert view.table.rows[i][5] == cands[i]["failure"] and view.table.rows[i][3] == "—"
    assert ["coarsen", "ZIP prefix and bands"] == view.methods.rows[1][:2]


@pytest.mark.slow
def test_the_python_api_recommends_a_third_party_candidate(tmp_path, installed):
    import privaudit
    from privaudit.core.errors import PrivauditError

    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    found = privaudit.explore(str(data), str(policy), methods="coarsen", options={"digits": [3, 2, 1]})
    assert [c["options"]["digits"] for c in found.candidates] == [3, 2, 1]
    rec = found.candidates[found.recommended]
    assert rec["method"] == "coarsen" and rec["passes"] and rec["options"] == {"digits": 1, "width": 20}
    assert found.table is not None and set(found.table["zip"].astype(str)) == {"1"}
    with pytest.raises(PrivauditError) as info:
        privaudit.explore(str(data), str(policy), methods="coarsen", options={"depth": [1]})
    assert "method 'coarsen' has no option 'depth'" in str(info.value)
    assert "its options: digits, width, zip_column, band_column" in str(info.value)


@pytest.mark.slow
def test_the_command_line_explores_a_third_party_method(tmp_path):
    """``--method THIRDPARTY --option NAME=V1,V2 --explore``: its candidates, its own words in the report, the
    recommended one written and audited again; an option it lacks is one line listing its options, exit 2."""
    site = install(tmp_path)
    data, policy = _table(tmp_path / "t.csv"), write_policy(tmp_path, POLICY)
    out = tmp_path / "o.csv"
    run = privaudit(
        site, "remediate", data, "--policy", policy, "--explore", "--method", "coarsen", "--option",
        "digits=2,1", "--out", out, "--json", tmp_path / "r.json", "--html", tmp_path / "r.html",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    ex = json.loads((tmp_path / "r.json").read_text())["explore"]
    assert [c["options"]["digits"] for c in ex["candidates"]] == [2, 1]
    assert ex["candidates"][ex["recommended"]]["options"]["digits"] == 1 and out.exists()
    html = (tmp_path / "r.html").read_text()
    assert "Recommended: #1, ZIP prefix and bands (coarsen; digits: 1; width: 20)" in html and LABEL in html
    assert privaudit(site, "audit", out, "--policy", policy, "--quiet").returncode == 0
    bad = privaudit(
        site, "remediate", data, "--policy", policy, "--explore", "--method", "coarsen", "--option", "depth=1"
    )
    lines = bad.stderr.strip().splitlines()
    assert bad.returncode == 2 and len(lines) == 1 and "Traceback" not in bad.stderr, bad.stderr
    assert "method 'coarsen' has no option 'depth'" in lines[0]
    assert "its options: digits, width, zip_column, band_column" in lines[0]
