"""What each variable lost (privaudit.utility.variable_loss) and the short cells of sensitive values
(privaudit.plugin.text.value_counts_text): the words a person reads on a remediation report's first page."""

from __future__ import annotations

import pandas as pd
import pytest

from privaudit.plugin.text import value_counts_text
from privaudit.report.lost_table import lines, markdown, totals
from privaudit.utility.variable_loss import column_changes, describe_labels, variable_changes


def test_each_variable_in_words():
    before = pd.DataFrame(
        {
            "age": [23, 28, 81, 18, 36, 95],
            "sex": pd.Categorical(["F", "M", "M", "F", "F", "M"]),
            "region": ["n", "s", "e", "w", "n", "s"],
            "educ": ["a", "b", "c", "a", "b", "c"],
        }
    )
    after = pd.DataFrame(
        {
            "age": pd.Categorical(["20-29", "20-29", "80+", None, "30-39", "80+"]),
            "sex": pd.Categorical(["F", "M", "M", None, "F", "M"]),
            "region": pd.Categorical(["*"] * 6),
            "educ": ["a", "b", "c", "a", "b", "c"],
        }
    )
    lost = variable_changes(before, after, ["age", "sex", "region", "educ"], {"region": {"*"}})
    by = {v["column"]: v for v in lost["variables"]}
    assert by["age"]["status"] == "recoded" and by["age"]["cells_changed"] == 6
    assert by["age"]["description"] == "6 exact values → 3 bands 10 wide, top-coded 80+; 1 value (16.7 %) suppressed"
    assert by["sex"]["status"] == "suppressed" and by["sex"]["description"] == "kept; 1 value (16.7 %) suppressed"
    assert by["region"]["status"] == "deleted" and by["region"]["description"].startswith("deleted")
    assert by["educ"] == {**by["educ"], "status": "kept", "description": "kept", "cells_changed": 0}
    assert lost["deleted"] == ["region"] and lost["cells_changed"] == 6 + 1 + 6
    # record 3 lost age and sex but kept educ (and region is '*' for all): not a suppressed record
    assert lost["records_suppressed"] == 0 and lost["cells"] == 24


def test_records_suppressed_and_numbers_compared_as_numbers():
    before = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": pd.Categorical(["x", "y", "x"])})
    after = pd.DataFrame({"a": [1, None, 3], "b": pd.Categorical(["x", None, "x"])})
    lost = variable_changes(before, after, ["a", "b"])
    assert lost["records_suppressed"] == 1 and lost["cells_changed"] == 2
    assert column_changes(pd.Series([1.0, 2.0]), pd.Series([1, 2]))["status"] == "kept"


def test_recoded_values_without_intervals():
    result = column_changes(pd.Series(list("abcdab")), pd.Series(["ab", "ab", "cd", "cd", "ab", "ab"]))
    assert result["description"] == "4 exact values → 2 groups"
    moved = column_changes(pd.Series([1.0, 2.0, 3.0, 4.0]), pd.Series([1.5, 1.5, 3.5, 3.5]))
    assert moved["status"] == "recoded" and moved["distinct_after"] == 2


@pytest.mark.parametrize(
    "labels, shape",
    [
        (["20-29", "30-39", "90-99"], {"intervals": True, "width": 10}),
        (["[0, 5[", "[5, 10["], {"intervals": True, "width": 5}),
        (["-10--1", "0-9", ">=80"], {"intervals": True, "width": 10, "top_code": ">=80"}),
        (["<20", "20-24"], {"intervals": True, "width": 5, "bottom_code": "<20"}),
        (["north", "south"], {"intervals": False}),
    ],
)
def test_interval_labels(labels, shape):
    assert describe_labels(labels) == shape


def test_terminal_and_markdown_say_the_same():
    before = pd.DataFrame({"q": ["a", "b"], "r": ["x", "y"]})
    after = pd.DataFrame({"q": ["a", "b"], "r": [None, None]})
    lost = variable_changes(before, after, ["q", "r"])
    text = "\n".join(lines(lost))
    md = "\n".join(markdown(lost, str))
    assert "q  kept" in text and "r  deleted: every value suppressed" in text
    assert "| r | deleted: every value suppressed | 2 (100.0 %) |" in md
    assert totals(lost) in text and totals(lost) in md and "deleted: r" in totals(lost)


def test_a_continuous_sensitive_attribute_is_summarised():
    wages = {f"{50 + 0.37 * i:.2f}": 1 for i in range(5000)}
    cell = value_counts_text(wages)
    assert cell.startswith("5,000 distinct values from ") and "quartiles" in cell and len(cell) < 120
    assert value_counts_text({"flu": 3, "cold": 1}) == "flu (3), cold (1)"
    many = {f"code{i}": i for i in range(30)}
    assert value_counts_text(many).endswith(", and 20 more") and "code29 (29)" in value_counts_text(many)
    # quartiles weighted by the counts
    assert "quartiles 1, 1, 5 (138 records)" in value_counts_text(
        {str(i): (100 if i == 1 else 1) for i in range(1, 40)}
    )
