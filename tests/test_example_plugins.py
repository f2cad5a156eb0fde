"""Every kind of extension has a third-party example: with the two example plugin packages installed
(plugins/privaudit-likeness: assessors and report sections; plugins/privaudit-extras: an engine, a reader, a
utility measure, a report chapter, an output format and a remediator), ``privaudit plugins --json`` lists, from
packages other than privaudit, at least one extension of each kind the registry knows (KINDS). Discovery is
through installed entry points (importlib.metadata, the ``privaudit`` group), so the command runs in a fresh
interpreter, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

import pytest

from privaudit.pipeline.plugins import KINDS

EXAMPLES = ("privaudit-likeness", "privaudit-extras")


def _missing() -> list[str]:
    out = []
    for name in EXAMPLES:
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            out.append(name)
    return out


@pytest.mark.slow
@pytest.mark.skipif(
    bool(_missing()),
    reason=f"the example plugins are not installed ({', '.join(_missing())}): "
    "pip install ./plugins/privaudit-likeness ./plugins/privaudit-extras",
)
def test_every_kind_has_a_third_party_extension():
    done = subprocess.run(
        [sys.executable, "-m", "privaudit", "plugins", "--json"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["extensions"]
    third_party = {e["kind"] for e in listed if e["package"] != "privaudit"}
    assert {kind.name for kind in KINDS} <= third_party
    by_package = {e["package"] for e in listed if e["package"] != "privaudit"}
    assert set(EXAMPLES) <= by_package
