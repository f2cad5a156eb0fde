"""Sample uniques of column combinations (privaudit/discovery/uniques.py): the share agrees with a
plain pandas count of f_k = 1 on any table, and the columns proposed by content are candidates that make
records unique."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.discovery.uniques import MIN_GAIN, Codes, unique_makers

_cell = st.sampled_from(["1", "2", "3", "", "x"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_cell, _cell, _cell), min_size=1, max_size=40), st.sets(st.sampled_from("abc"), min_size=1))
def test_unique_share_is_the_share_of_records_alone_in_their_class(rows, chosen):
    frame = pd.DataFrame(rows, columns=["a", "b", "c"])
    columns = sorted(chosen)
    expected = float((frame.groupby(columns, dropna=False)["a"].transform("size") == 1).mean())
    assert Codes(frame).unique_share(columns) == expected


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_cell, _cell, _cell), min_size=2, max_size=40))
def test_unique_makers_are_candidates_that_make_records_unique(rows):
    frame = pd.DataFrame(rows, columns=["a", "b", "c"])
    codes = Codes(frame)
    made = unique_makers(codes, ["a"], ["b", "c"])
    names = [name for name, _ in made]
    assert set(names) <= {"b", "c"} and len(set(names)) == len(names)
    if made:  # what was proposed raises the share of sample uniques by at least MIN_GAIN together
        assert codes.unique_share(["a", *names]) - codes.unique_share(["a"]) >= MIN_GAIN - 1e-12
    else:
        assert codes.unique_share(["a", "b", "c"]) - codes.unique_share(["a"]) < MIN_GAIN
