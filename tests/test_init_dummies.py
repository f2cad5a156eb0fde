"""One variable coded as several 0/1 dummies is one key variable: ``privaudit init`` drafts every dummy of it as
a quasi-identifier when one is (Wooldridge's ``wage1``: ``construc``, ``ndurman``, ``trcommpu``, ``trade``,
``services``, ``profserv`` are the industry a person works in; Wooldridge 2016, *Introductory Econometrics*,
data set WAGE1, from the 1976 Current Population Survey)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.discovery.dummies import one_hot_groups
from privaudit.testing import run_cli

WAGE1 = Path(__file__).parent / "data" / "surveys" / "wage1.csv"


def test_wage1_industry_dummies_are_key_variables_together(tmp_path):
    shutil.copy(WAGE1, tmp_path / "wage1.csv")
    result = run_cli("init", tmp_path / "wage1.csv", "--out", tmp_path / "policy.yaml")
    assert result.code == 0, result.stderr
    columns = yaml.safe_load((tmp_path / "policy.yaml").read_text())["columns"]
    industry = ["construc", "ndurman", "trcommpu", "trade", "services", "profserv"]
    assert {columns[c]["role"] for c in industry} == {"quasi_identifier"}
    assert "one of 6 dummies" in (tmp_path / "policy.yaml").read_text()
    # the drafted policy audits: the siblings carry hierarchies as the dummy they joined
    check = run_cli("policy", "check", tmp_path / "policy.yaml", "--data", tmp_path / "wage1.csv")
    assert check.code == 0, check.stderr


def test_wage1_groups_are_industry_occupation_and_region():
    frame = pd.read_csv(WAGE1, dtype=str)
    groups = one_hot_groups(frame, list(frame.columns))
    assert ["northcen", "south", "west"] in groups
    assert ["construc", "ndurman", "trcommpu", "trade", "services", "profserv"] in groups
    assert ["profocc", "clerocc", "servocc"] in groups
    assert not any("female" in g or "married" in g for g in groups)  # two 1s in one row: not one variable


@settings(max_examples=50, deadline=None)
@given(
    categories=st.lists(st.integers(0, 4), min_size=5, max_size=60),
    extra=st.lists(st.booleans(), min_size=5, max_size=60),
)
def test_one_hot_coding_of_one_variable_is_one_group(categories, extra):
    """Every one-hot coding of a categorical column (its categories seen at least once each, in some row a
    zero in all: a base category) is found as one group; a dummy independent of it that shares a 1 with one
    of its dummies in some row is not added to it."""
    n = min(len(categories), len(extra))
    cats = pd.Series(categories[:n])
    seen = sorted(c for c in cats.unique() if c != 0)
    if len(seen) < 2:
        return
    frame = pd.DataFrame({f"d{c}": (cats == c).astype(int).astype(str) for c in seen})
    other = pd.Series(extra[:n]).astype(int)
    frame["other"] = other.astype(str)
    groups = one_hot_groups(frame, list(frame.columns))
    dummies = [f"d{c}" for c in seen]
    overlaps = bool(((cats != 0) & (other == 1)).any())
    has_both = other.nunique() == 2
    if overlaps or not has_both:
        assert dummies in groups
    else:  # "other" never meets a 1 of the dummies: it may be one more category of the same variable
        assert dummies + ["other"] in groups
