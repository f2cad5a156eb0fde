"""ordered_map: the chunked engine's two-at-a-time batches keep a sequential loop's order and errors."""

from __future__ import annotations

import threading
import time

import pytest

from privaudit.engines._pipeline import ordered_map


def test_results_come_in_input_order_whatever_finishes_first():
    def slow_first(i):
        time.sleep(0.02 if i % 3 == 0 else 0.0)
        return i * i

    assert list(ordered_map(slow_first, range(20))) == [i * i for i in range(20)]
    assert list(ordered_map(slow_first, range(20), workers=1)) == [i * i for i in range(20)]


def test_at_most_ahead_items_are_in_flight():
    taken, running, peak = [], [0], [0]
    lock = threading.Lock()

    def items():
        for i in range(12):
            taken.append(i)
            yield i

    def work(i):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return i

    for result in ordered_map(work, items(), workers=2, ahead=3):
        assert len(taken) <= result + 3  # the source is read no further than 3 items ahead
    assert peak[0] <= 2


def test_an_error_surfaces_in_order_and_stops_the_map():
    seen = []

    def work(i):
        if i == 4:
            raise ValueError("bad batch 4")
        return i

    with pytest.raises(ValueError, match="bad batch 4"):
        for result in ordered_map(work, range(100)):
            seen.append(result)
    assert seen == [0, 1, 2, 3]
