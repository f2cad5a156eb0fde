"""No refactoring changes a figure: the JSON reports of the bundled example and of audits of the shared
datasets (every built-in assessor; tests/data/golden/PROVENANCE.md) are the reports kept in tests/data/golden,
apart from the tool version, every figure equal beyond rounding: floating-point figures within the code's own
relative tolerance (:data:`privaudit.common.thresholds.TOLERANCE`, relative to ``max(1, |figure|)`` as
:func:`privaudit.common.thresholds.exceeds` judges), everything else exactly. Run through the CLI from the
repository root."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from privaudit.common.thresholds import TOLERANCE

# privaudit's own figures: an installed plugin's measure would add utility entries (conftest.builtin_plugins_only)
pytestmark = pytest.mark.usefixtures("builtin_plugins_only")

G = "tests/data/golden"
SCENARIOS = {
    "example": ["examples/adult/release.csv", "--policy", "policies/adult.yaml"],
    "class": ["tests/data/sdcmicro/testdata.csv", "--policy", f"{G}/class_checks.yaml"],
    "masked": [
        f"{G}/masked400.csv",
        "--policy",
        f"{G}/masked_checks.yaml",
        "--original",
        "tests/data/linkage_distance/adult_head400.csv",
    ],
    "synthetic": [
        f"{G}/synthetic300.csv",
        "--policy",
        f"{G}/synthetic_checks.yaml",
        "--original",
        f"{G}/population1000.csv",
        "--control",
        "tests/data/linkage_distance/adult_head400.csv",
    ],
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_report_is_the_golden_one(name, run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    out = tmp_path / "report.json"
    code, _, err = run_cli("audit", *SCENARIOS[name], "--json", out)
    assert code in (0, 1), err
    report = json.loads(out.read_text())
    report["tool"].pop("version")
    golden = json.loads((ROOT / G / f"{name}.json").read_text())
    assert [c["id"] for c in report["checks"]] == [c["id"] for c in golden["checks"]]
    assert difference(report, golden, "report") is None


def _figure(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def difference(mine: object, kept: object, where: str) -> str | None:
    """Where ``mine`` differs from ``kept`` (a JSON path and the two values), None when they agree: same keys in
    the same order, same lists, a float within :data:`TOLERANCE` of the kept one relative to ``max(1, |kept|)``,
    everything else equal."""
    if isinstance(kept, float) and _figure(mine) or isinstance(mine, float) and _figure(kept):
        close = abs(float(mine) - float(kept)) <= TOLERANCE * max(1.0, abs(float(kept)))  # type: ignore[arg-type]
        return None if close else f"{where}: {mine!r} != {kept!r}"
    if isinstance(kept, dict) and isinstance(mine, dict):
        if list(mine) != list(kept):
            return f"{where}: keys {list(mine)} != {list(kept)}"
        return next((d for k in kept if (d := difference(mine[k], kept[k], f"{where}.{k}"))), None)
    if isinstance(kept, list) and isinstance(mine, list):
        if len(mine) != len(kept):
            return f"{where}: {len(mine)} items != {len(kept)}"
        return next(
            (d for i, (m, k) in enumerate(zip(mine, kept, strict=True)) if (d := difference(m, k, f"{where}[{i}]"))),
            None,
        )
    return None if type(mine) is type(kept) and mine == kept else f"{where}: {mine!r} != {kept!r}"


def test_figures_differing_by_rounding_agree_and_others_do_not():
    """The comparison itself: the last bits of 0.1 + 0.2 are rounding, a change in the 10th digit is not, and a
    key, an integer or a string is compared exactly."""
    assert difference({"v": 0.1 + 0.2, "n": 3}, {"v": 0.3, "n": 3}, "r") is None
    assert difference({"v": 1e6 * (1 + 1e-13)}, {"v": 1e6}, "r") is None
    assert difference({"v": 0.3000000001}, {"v": 0.3}, "r") == "r.v: 0.3000000001 != 0.3"
    assert difference({"n": 4}, {"n": 3}, "r") == "r.n: 4 != 3"
    assert difference({"s": "inf"}, {"s": 1.0}, "r") == "r.s: 'inf' != 1.0"
    assert difference({"a": 1, "b": 2}, {"b": 2, "a": 1}, "r") is not None
    assert difference([True], [1], "r") is not None
