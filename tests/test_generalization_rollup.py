"""The lattice search's speed paths give what the slow paths give: packed-key roll-ups (rollup.py, packed.py),
the winner's records from its snapshot, the loss figures read off node counts (metrics.all_metrics); and a
run loads no name list it does not need."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_generalization import AGE, SEX, ZIP, cases, categorical, context, make_policy

from privaudit.remediation.generalization import CostModel, GeneralizationProblem, LatticeSearch, all_metrics
from privaudit.remediation.generalization.metrics import ALL_METRICS, generalization_shares
from privaudit.remediation.generalization.packed import column, merge, pack


def test_merge_keeps_first_appearance_order_and_sums_counts():
    first, merged = merge(np.array([7, 3, 7, 9, 3, 7]), np.array([1, 2, 3, 4, 5, 6]))
    assert first.tolist() == [0, 1, 3] and merged.tolist() == [10, 7, 4]


def test_packed_columns_read_back():
    cols = [np.array([0, 3, 2]), np.array([4, 0, 1]), np.array([1, 1, 0])]
    radices = [4, 5, 2]
    strides = [10, 2, 1]
    key = pack(cols, strides, 3)
    for values, stride, radix in zip(cols, strides, radices, strict=False):
        assert column(key, stride, radix).tolist() == values.tolist()


@st.composite
def two_sensitive_cases(draw):
    """Two l-diversity checks on two sensitive columns: the roll-up's generic path (no merge by class)."""
    n = draw(st.integers(1, 24))
    pick = lambda values: draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))  # noqa: E731
    frame = pd.DataFrame(
        {
            "zip": categorical(pick(["13053", "13068", "14850", "14853", None])),
            "age": categorical(pick(["20", "30", "40", "50", "60"])),
            "sex": categorical(pick(["M", "F"])),
            "disease": categorical(pick(["flu", "cold", "hiv"])),
            "job": categorical(pick(["a", "b"])),
        }
    )
    checks = [
        {"assessor": "k_anonymity", "k": draw(st.integers(1, 3))},
        {"assessor": "l_diversity", "sensitive": "disease", "l": 2},
        {"assessor": "l_diversity", "sensitive": "job", "l": 2},
    ]
    columns = {
        "zip": {"role": "quasi_identifier", "hierarchy": ZIP},
        "age": {"role": "quasi_identifier", "hierarchy": AGE},
        "sex": {"role": "quasi_identifier", "hierarchy": SEX},
        "disease": {"role": "sensitive"},
        "job": {"role": "sensitive"},
    }
    return frame, make_policy(columns, checks)


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=two_sensitive_cases(), suppression=st.sampled_from([0.0, 0.3]))
def test_generic_roll_up_agrees_with_the_audit_summary(case, suppression):
    frame, policy = case
    problem = GeneralizationProblem.from_context(context(frame, policy))
    costs = CostModel(problem.domains, "Loss")
    budget = int(np.floor(suppression * len(frame)))
    search = LatticeSearch(problem, costs, budget)
    counter = search.counter
    assert counter.supported and not counter.one_sensitive
    for index in np.random.default_rng(1).permutation(len(search.lattice)):
        levels = search.lattice[index]
        slow = int(search.violating_records(search.generalized(levels), search.tagging_checks).sum())
        assert counter.violating_records(levels) == slow
        quick = counter.exact_cost(levels, costs, budget, 100)
        if quick is not None:
            ok, nodes, _ = search.exact(levels)
            assert quick[0] == ok
            if ok:
                assert quick[1] == pytest.approx(costs.table_cost(nodes))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.one_of(cases(), two_sensitive_cases()), suppression=st.sampled_from([0.1, 0.3]))
def test_winner_records_from_the_snapshot_are_the_exact_step_s(case, suppression):
    """The winner's suppressed records, found from the classes the snapshot suppressed, are those of
    LatticeSearch.exact on the records, on every node where the snapshot's exact step decides."""
    frame, policy = case
    problem = GeneralizationProblem.from_context(context(frame, policy))
    costs = CostModel(problem.domains, "Precision")
    search = LatticeSearch(problem, costs, int(np.floor(suppression * len(frame))))
    if not search.fast_exact:
        return
    for index in range(len(search.lattice)):
        found = search.counter.exact_suppression(search.lattice[index], costs, search.budget, 100)
        if found is None or not found[0]:
            continue
        ok, nodes, suppressed = search.exact(search.lattice[index])
        quick_nodes, quick_suppressed = search._records_of(index)
        assert ok and (quick_suppressed == suppressed).all() and (quick_nodes == nodes).all()


def test_loss_figures_from_node_counts_match_the_records():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "zip": categorical(rng.choice(["13053", "13068", "14850", "14853"], 200)),
            "age": categorical(rng.choice(["20", "30", "40", "50", "60"], 200)),
            "sex": categorical(rng.choice(["M", "F"], 200)),
        }
    )
    policy = make_policy(
        {
            "zip": {"role": "quasi_identifier", "hierarchy": ZIP},
            "age": {"role": "quasi_identifier", "hierarchy": AGE},
            "sex": {"role": "quasi_identifier", "hierarchy": SEX},
        },
        [{"assessor": "k_anonymity", "k": 5}],
    )
    problem = GeneralizationProblem.from_context(context(frame, policy))
    search = LatticeSearch(problem, CostModel(problem.domains, "Loss"), 10)
    result = search.search()
    nodes = result.nodes
    figures = all_metrics(problem.domains, nodes)
    for metric in ALL_METRICS:
        assert figures["alteration_pct"][metric] == pytest.approx(
            CostModel(problem.domains, metric).alteration(nodes), rel=1e-12
        )
    shares = generalization_shares(problem.domains, nodes)
    assert figures["generalized_values_pct"] == shares["generalized_values_pct"]
    assert figures["root_values_pct"] == shares["root_values_pct"]
    for j, d in enumerate(problem.domains):
        level = d.level[nodes[:, j]]
        assert figures["per_column"][d.column]["generalized_values_pct"] == 100.0 * float((level > 0).mean())


START_UP = """
import sys
from privaudit.pipeline.plugins import get_registry
from privaudit.discovery.scan import scan_frame
import pandas as pd
get_registry()
scan_frame(pd.DataFrame({"country": [f"Country-{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(40)] * 3}))
print("faker" in sys.modules)
"""


@pytest.mark.slow
def test_start_up_loads_no_name_list_a_column_cannot_need():
    """Faker's name lists (about 0.3 s to import) are loaded only when a column holds values shaped like full
    names (two to four words) or its header says names: an adult-like column of one-word labels needs none."""
    done = subprocess.run([sys.executable, "-c", START_UP], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"]
