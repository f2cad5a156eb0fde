"""The lattice search on many quasi-identifiers: tags inferred by boxes of the lattice's grid, figures shared
between the searches of one problem (explore's suppression limits), and counts that are the audit's.

A search that starts from what another search of the same problem evaluated must find the node a search on
its own finds (the inference is the monotonicity the search already relies on: Kohlmayer et al., "Flash:
efficient, stable and optimal k-anonymity", 2012, Section IV; El Emam et al., OLA, JAMIA 2009)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_generalization import AGE, SEX, ZIP, categorical, context, make_policy, small_case

from privaudit.remediation.generalization import CostModel, GeneralizationProblem, LatticeSearch
from privaudit.remediation.generalization.lattice import lattice_nodes

FLAG = {"*": ["0", "1"]}


def _outcome(result) -> tuple:
    return result.levels, result.cost, result.satisfied, result.suppressed.tolist(), result.nodes.tolist()


@st.composite
def limits_cases(draw):
    frame, policy = small_case(draw)
    limits = draw(st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.3]), min_size=2, max_size=4))
    return frame, policy, limits


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=limits_cases(), metric=st.sampled_from(["NLLM", "Loss", "Distortion"]))
def test_searches_sharing_one_problem_find_what_independent_searches_find(case, metric):
    """Explore searches one problem at several suppression limits, each starting from the figures the ones
    before evaluated; each must return the node, cost and records of a search on a fresh problem."""
    frame, policy, limits = case
    shared = GeneralizationProblem.from_context(context(frame, policy))
    for share in limits:
        budget = int(np.floor(share * len(frame)))
        alone = LatticeSearch(
            GeneralizationProblem.from_context(context(frame, policy)), CostModel(shared.domains, metric), budget
        )
        expected = alone.search()
        got = LatticeSearch(shared, CostModel(shared.domains, metric), budget).search()
        assert _outcome(got) == _outcome(expected)


def many_qi_case(n_flags: int = 10, n: int = 400, seed: int = 5, scenario: bool = True):
    """``n_flags`` binary quasi-identifiers (flat hierarchies) beside zip, age and sex: a lattice of
    3 * 3 * 2 * 2**n_flags nodes, most of which the search should never evaluate."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "zip": categorical(rng.choice(["13053", "13068", "14850", "14853"], n)),
            "age": categorical(rng.choice(["20", "30", "40", "50", "60"], n)),
            "sex": categorical(rng.choice(["M", "F"], n)),
            **{f"f{i}": categorical(rng.choice(["0", "1"], n, p=[0.8, 0.2])) for i in range(n_flags)},
            "disease": categorical(rng.choice(["flu", "cold", "hiv"], n)),
        }
    )
    columns = {
        "zip": {"role": "quasi_identifier", "hierarchy": ZIP},
        "age": {"role": "quasi_identifier", "hierarchy": AGE},
        "sex": {"role": "quasi_identifier", "hierarchy": SEX},
        **{f"f{i}": {"role": "quasi_identifier", "hierarchy": FLAG} for i in range(n_flags)},
        "disease": {"role": "sensitive"},
    }
    checks = [
        {"assessor": "k_anonymity", "k": 5},
        {"assessor": "l_diversity", "sensitive": "disease", "l": 2},
    ]
    if scenario:  # an attacker who knows zip and age only
        checks.append({"id": "k_scenario", "assessor": "k_anonymity", "k": 20, "quasi_identifiers": ["zip", "age"]})
    return frame, make_policy(columns, checks)


@pytest.mark.slow
def test_many_qi_search_evaluates_a_sliver_of_the_lattice():
    frame, policy = many_qi_case(scenario=False)
    problem = GeneralizationProblem.from_context(context(frame, policy))
    result = LatticeSearch(problem, CostModel(problem.domains, "NLLM"), 0).search()
    size = 3 * 3 * 2 * 2**10
    assert result.satisfied and result.lattice_size == size
    assert result.evaluated < size / 10  # pruning by monotonicity and the cost bound


@pytest.mark.slow
@pytest.mark.parametrize("scenario", [False, True])
def test_many_qi_search_finds_the_optimum_of_the_fully_tagged_lattice(scenario):
    """The passing node of least gen(N) (ties: the lower tie weight, fewer levels, the lower index: the search's
    order) among the tags of the whole lattice, where the search evaluates a few of them."""
    frame, policy = many_qi_case(n_flags=6, scenario=scenario)
    problem = GeneralizationProblem.from_context(context(frame, policy))
    costs = CostModel(problem.domains, "NLLM")
    search = LatticeSearch(problem, costs, 0)
    result = search.search()
    status = LatticeSearch(GeneralizationProblem.from_context(context(frame, policy)), costs, 0).tag()
    passing = np.flatnonzero(status == 1)
    best = passing[np.lexsort((passing, search.height_sum[passing], search.tie[passing], search.gen_cost[passing]))[0]]
    assert result.levels == tuple(int(x) for x in search.lattice[best])
    assert result.evaluated < (status != 0).sum() / 4


def test_box_tagging_infers_what_whole_lattice_comparisons_infer():
    """Tagging by boxes of the grid (_propagate) marks exactly the untagged nodes above (below) a node that a
    comparison against every node marks, in the lexicographic order of lattice_nodes."""
    frame, policy = many_qi_case(n_flags=3, n=120)
    problem = GeneralizationProblem.from_context(context(frame, policy))
    search = LatticeSearch(problem, CostModel(problem.domains, "NLLM"), 0)
    lattice = search.lattice
    rng = np.random.default_rng(0)
    boxes = np.zeros(len(lattice), dtype=np.int8)
    whole = np.zeros(len(lattice), dtype=np.int8)
    for node in rng.integers(0, len(lattice), 30):
        tag = int(rng.choice([-1, 1]))
        search._propagate(boxes, int(node), tag)
        above = (lattice >= lattice[node]).all(axis=1) if tag > 0 else (lattice <= lattice[node]).all(axis=1)
        whole[above & (whole == 0)] = tag
        assert (boxes == whole).all()


def test_lattice_nodes_are_in_mixed_radix_order():
    nodes = lattice_nodes([2, 0, 3, 1])
    strides = np.array([4 * 2, 4 * 2, 2, 1])
    assert nodes.shape == (3 * 1 * 4 * 2, 4)
    assert (nodes @ strides == np.arange(len(nodes))).all()
    assert (np.diff(nodes @ np.array([100, 10, 5, 1])) > 0).all()  # lexicographic


def test_scenario_checks_are_counted_as_the_audit_counts_them():
    """A check on an attacker scenario (a subset of the quasi-identifiers) groups records by that subset; the
    tag's count of records in violating classes must be the audit's at every node (the snapshot roll-up only
    sees classes on every quasi-identifier, so it must stand aside)."""
    frame, policy = many_qi_case(n_flags=2, n=150)
    problem = GeneralizationProblem.from_context(context(frame, policy))
    search = LatticeSearch(problem, CostModel(problem.domains, "NLLM"), 10)
    for index in range(0, len(search.lattice), 7):
        slow = int(search.violating_records(search.generalized(search.lattice[index]), search.tagging_checks).sum())
        assert search._violating_count(index) == slow


@st.composite
def scenario_cases(draw):
    """Checks on attacker scenarios and sensitive columns with missing values: the snapshot roll-up groups
    by the scenario's digits and leaves a missing sensitive value out of the distinct count."""
    n = draw(st.integers(1, 30))
    pick = lambda values: draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))  # noqa: E731
    frame = pd.DataFrame(
        {
            "zip": categorical(pick(["13053", "13068", "14850", "14853", None])),
            "age": categorical(pick(["20", "30", "40", "50", "60"])),
            "sex": categorical(pick(["M", "F"])),
            "disease": categorical(pick(["flu", "cold", "hiv", None])),
            "score": pick([1.0, 2.5, 3.0, float("nan")]),
        }
    )
    subsets = st.sampled_from([["zip", "age"], ["sex"], ["age", "sex"], ["zip", "age", "sex"]])
    checks = [{"id": "k", "assessor": "k_anonymity", "k": draw(st.integers(1, 3))}]
    for i, sensitive in enumerate(draw(st.lists(st.sampled_from(["disease", "score"]), max_size=3))):
        check = {"id": f"l{i}", "assessor": "l_diversity", "sensitive": sensitive, "l": draw(st.sampled_from([1, 2]))}
        if draw(st.booleans()):
            check["quasi_identifiers"] = draw(subsets)
        checks.append(check)
    if draw(st.booleans()):
        checks.append(
            {"id": "ks", "assessor": "k_anonymity", "k": draw(st.integers(2, 6)), "quasi_identifiers": draw(subsets)}
        )
    columns = {
        "zip": {"role": "quasi_identifier", "hierarchy": ZIP},
        "age": {"role": "quasi_identifier", "hierarchy": AGE},
        "sex": {"role": "quasi_identifier", "hierarchy": SEX},
        "disease": {"role": "sensitive"},
        "score": {"role": "sensitive", "type": "numeric"},
    }
    return frame, make_policy(columns, checks)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=scenario_cases(), suppression=st.sampled_from([0.0, 0.2]))
def test_roll_up_with_scenarios_and_missing_sensitive_values_agrees_with_the_audit(case, suppression):
    frame, policy = case
    problem = GeneralizationProblem.from_context(context(frame, policy))
    costs = CostModel(problem.domains, "NLLM")
    budget = int(np.floor(suppression * len(frame)))
    search = LatticeSearch(problem, costs, budget)
    assert search.counter is not None and search.counter.supported
    for index in np.random.default_rng(2).permutation(len(search.lattice)):
        levels = search.lattice[index]
        slow = int(search.violating_records(search.generalized(levels), search.tagging_checks).sum())
        assert search.counter.violating_records(levels) == slow
    brute = LatticeSearch(problem, costs, budget)
    brute.counter, brute.fast_exact = None, False  # every count and the exact step from the audit summary
    assert _outcome(search.search()) == _outcome(brute.search())


@pytest.mark.slow
def test_roll_up_packs_wide_rows_in_two_keys():
    """Six quasi-identifiers of 1,000 values and a sensitive column of 1,000: the QI digits (about 1e18) and the
    sensitive digits do not fit one int64 together, each does alone; the roll-up still counts as the audit."""
    rng = np.random.default_rng(4)
    n = 1000
    frame = pd.DataFrame({f"q{i}": categorical([f"v{x}" for x in rng.permutation(n)]) for i in range(6)})
    frame["s"] = categorical([f"s{x}" for x in rng.permutation(n)])
    columns = {f"q{i}": {"role": "quasi_identifier"} for i in range(6)}
    columns["s"] = {"role": "sensitive"}
    policy = make_policy(
        columns, [{"assessor": "k_anonymity", "k": 2}, {"assessor": "l_diversity", "sensitive": "s", "l": 2}]
    )
    problem = GeneralizationProblem.from_context(context(frame, policy))
    radices = [d.n_nodes for d in problem.domains] + [n]
    assert (
        float(np.prod(np.array(radices, dtype=float))) >= 2.0**62 > float(np.prod(np.array(radices[:-1], dtype=float)))
    )
    search = LatticeSearch(problem, CostModel(problem.domains, "NLLM"), 0)
    assert search.counter is not None and search.counter.supported
    for index in range(len(search.lattice)):
        slow = int(search.violating_records(search.generalized(search.lattice[index]), search.tagging_checks).sum())
        assert search.counter.violating_records(search.lattice[index]) == slow
