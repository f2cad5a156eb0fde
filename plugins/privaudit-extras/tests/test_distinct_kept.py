"""The ``distinct_kept`` utility measure: golden values on tables small enough to count by hand, and through
``privaudit audit --original`` into the JSON report (its label from the record, its direction higher)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest
from privaudit_extras import distinct_kept
from privaudit_extras.distinct_kept import compute

from privaudit.testing import registry_with, run_cli


def test_golden_by_hand():
    original = pd.DataFrame({"age": [20.0, 21.0, 22.0, 23.0, None], "zip": ["a", "b", "c", "c", "d"]})
    release = pd.DataFrame({"age": [20.0, 20.0, 25.0, 25.0, 23.0], "zip": ["a", "b", "c", "c", None]})
    entries = compute(SimpleNamespace(release=release, original=original, quasi_identifiers=["age", "zip"]))
    by_column = {e["column"]: e for e in entries}
    # age: original {20, 21, 22, 23}; the release keeps 20 and 23 (25 is new): 2/4
    assert by_column["age"]["value"] == 0.5 and by_column["age"]["raw"] == 2.0
    assert by_column["age"]["details"] == {"original_distinct": 4, "release_distinct": 3}
    # zip: original {a, b, c, d}; d suppressed: 3/4
    assert by_column["zip"]["value"] == 0.75
    assert by_column[None]["value"] == pytest.approx(0.625) and entries[0]["column"] is None
    assert {e["measure"] for e in entries} == {"distinct_kept"}


def test_a_column_without_original_values_has_no_figure():
    original = pd.DataFrame({"age": [None, None], "zip": ["a", "a"]})
    release = pd.DataFrame({"age": [None, None], "zip": ["a", "a"]})
    by_column = {
        e["column"]: e
        for e in compute(SimpleNamespace(release=release, original=original, quasi_identifiers=["age", "zip"]))
    }
    assert by_column["age"]["value"] is None and by_column["zip"]["value"] == 1.0 and by_column[None]["value"] == 1.0


def test_the_record():
    measure = registry_with(distinct_kept).of("measure")["distinct_kept"]
    assert measure.direction == "higher" and measure.needs == frozenset({"original"})
    assert measure.label.startswith("distinct values kept")


def test_through_the_audit_with_an_original(release):
    original = pd.read_csv(release / "data.csv")
    masked = original.copy()
    masked["age"] = (masked["age"] // 10) * 10  # decades: of 62 exact ages only the 6 round ones survive
    masked.loc[masked["zip"] == "z3", "zip"] = "*"
    masked.to_csv(release / "masked.csv", index=False)
    policy = release / "policy.yaml"
    policy.write_text(policy.read_text() + "utility: [granularity, distinct_kept]\n")
    out = release / "r.json"
    done = run_cli(
        "audit", release / "masked.csv", "--policy", policy, "--original", release / "data.csv", "--json", out
    )
    assert done.code in (0, 1), done.stderr
    figures = {e["column"]: e for e in json.loads(out.read_text())["utility"] if e["measure"] == "distinct_kept"}
    ages = set(original["age"])
    assert figures["age"]["value"] == pytest.approx(len({a for a in ages if a % 10 == 0}) / len(ages))
    assert figures["zip"]["value"] == pytest.approx(2 / 3)
    assert figures[None]["value"] == pytest.approx((figures["age"]["value"] + 2 / 3) / 2)
    without = run_cli("audit", release / "masked.csv", "--policy", policy)
    assert without.code == 2 and "'distinct_kept' needs the original table" in without.stderr
