"""ordered_map, and checks run two at a time: the order, errors and figures of a sequential run."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from privaudit.runtime.concurrency import ordered_map
from privaudit.testing import load_policy


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


def test_checks_side_by_side_give_the_sequential_report(monkeypatch):
    """The example audit, with the concurrent checks on one thread and on two: the same JSON, byte for
    byte; results keep the policy's order; a failing summary still reports per check."""
    import json

    from privaudit.pipeline import audit
    from privaudit.report.json_report import render_json, report_of

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    root = Path(__file__).resolve().parents[1]
    outputs = []
    for workers in (1, 2):
        monkeypatch.setattr(audit, "CHECK_WORKERS", workers)
        result = audit.run_audit(root / "examples/adult/release.csv", root / "policies/adult.yaml")
        text = render_json(report_of(result))
        outputs.append(text)
        ids = [c.id for c in result.checks]
        assert ids[0] == "direct_identifiers" and ids == [c["id"] for c in json.loads(text)["checks"]]
    assert outputs[0] == outputs[1]


def test_a_summary_that_cannot_be_built_is_each_checks_error(monkeypatch):
    from privaudit.core.context import AuditContext
    from privaudit.pipeline import audit

    class Broken(AuditContext):
        @property
        def summary(self):
            raise RuntimeError("no summary today")

    monkeypatch.setattr(audit, "CHECK_WORKERS", 2)
    root = Path(__file__).resolve().parents[1]
    policy = load_policy(root / "policies/adult.yaml")
    from privaudit.io.data import load_table

    table = load_table(root / "examples/adult/release.csv", policy)
    ctx = Broken(policy, table.frame)
    results = audit.run_checks(ctx, audit.checks_to_run(policy, audit.get_registry()))
    class_based = [r for r in results if r.assessor not in ("direct_identifiers", "refining_columns")]
    assert class_based and all(r.status == "error" and "no summary today" in r.message for r in class_based)
