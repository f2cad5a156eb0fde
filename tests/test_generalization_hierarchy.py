"""Definition 3 in its general form (Mauger, Le Mahec & Dequen, "Optimizing Privacy and Data Utility: Metrics
and Strategies", TDP 16(3), 2023; the source papers, seeds/003, Sections 2.2 and 3.1): hierarchies with
explicit edge weights and uneven depth, the ``Weights`` metric built on them (cost matrices, GAA, lattice),
and one-line errors for hierarchies that do not parse."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.core.errors import HierarchyError
from privaudit.core.hierarchy import Hierarchy
from privaudit.remediation.generalization.domain import domain_from_hierarchy
from privaudit.remediation.generalization.metrics import cost_matrix, node_costs
from privaudit.testing import run_cli

#: Figure 2a / Example 1: Race with omega(Cat, Felid) = 1, omega(Lion, Felid) = 1, omega(Dog, Mammal) = 4,
#: omega(Felid, Mammal) = 3 -- an uneven tree (Dog sits directly under Mammal)
RACE = {
    "tree": {"Mammal": {"Felid": ["Cat", "Lion"], "Dog": None}},
    "weights": {"Cat": 1, "Lion": 1, "Dog": 4, "Felid": 3},
}
#: Example 1's costs matrix, rows and columns Cat, Lion, Dog, Felid, Mammal (Section 3.1)
EXAMPLE_1 = [[0, 1, 4, 1, 4], [1, 0, 4, 1, 4], [4, 4, 0, 4, 4], [0, 0, 3, 0, 3], [0, 0, 0, 0, 0]]
ORDER = [(0, "Cat"), (0, "Lion"), (0, "Dog"), (1, "Felid"), (2, "Mammal")]


def _matrix(hierarchy: Hierarchy, metric: str = "Weights") -> np.ndarray:
    domain = domain_from_hierarchy("race", hierarchy, [])
    ids = {(int(lv), lab): i for i, (lv, lab) in enumerate(zip(domain.level[:-1], domain.labels[:-1], strict=False))}
    return cost_matrix(domain, node_costs(domain, metric), np.array([ids[n] for n in ORDER]))


def test_example_1_costs_matrix():
    """Example 1: M(Cat, Dog) = cost(Cat, Mammal) = 1 + 3 = 4, M(Felid, Dog) = 3, M(Dog, *) = 4 ..."""
    assert _matrix(Hierarchy.from_nested(RACE, "race")).tolist() == EXAMPLE_1


def test_uneven_arx_csv_with_empty_trailing_cells(tmp_path):
    """The same tree as an ARX-style CSV: rows equally wide, the short row ending in an empty cell. It is held
    padded (Dog repeated on level 1) and, without weights, every real edge weighs 1 under ``Weights``."""
    path = tmp_path / "race.csv"
    path.write_text("Cat;Felid;Mammal\nLion;Felid;Mammal\nDog;Mammal;\n")
    h = Hierarchy.from_csv(path)
    assert h.height == 2 and h.depth == {"Cat": 2, "Lion": 2, "Dog": 1}
    assert h.generalize(["Cat", "Dog"], 1).tolist() == ["Felid", "Dog"]
    assert h.generalize(["Cat", "Dog"], 2).tolist() == ["Mammal", "Mammal"]
    # unit weights: Cat -> Mammal 2 edges, Dog -> Mammal 1 edge
    assert _matrix(h).tolist() == [[0, 1, 2, 1, 2], [1, 0, 2, 1, 2], [1, 1, 0, 1, 1], [0, 0, 1, 0, 1], [0, 0, 0, 0, 0]]


def test_seven_metrics_on_an_uneven_tree_count_lost_leaves():
    """NCP on the uneven tree: C(Felid) = (2 - 1)/3, C(Mammal) = (3 - 1)/3; Dog -> Mammal loses 2 leaves."""
    m = _matrix(Hierarchy.from_nested(RACE, "race"), "NCP")
    assert m[2, 0] == pytest.approx(2 / 3) and m[0, 1] == pytest.approx(1 / 3) and m[3, 2] == pytest.approx(1 / 3)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=3), min_size=2, max_size=6),
    st.lists(st.floats(min_value=0, max_value=10, allow_nan=False), min_size=20, max_size=20),
)
def test_costs_matrix_is_the_weight_of_the_path_to_the_lca(depths, weights):
    """Definition 5 against a brute force on the tree: M(v, v') = sum of the weights on the path from v to
    LCA(v, v'), for uneven trees (leaf i hangs ``depths[i]`` edges below the root) and arbitrary weights."""
    tree: dict = {}
    for i, d in enumerate(depths):
        node = tree.setdefault("r", {})
        for step in range(1, d):
            node = node.setdefault(f"n{i % 2}_{step}", {})  # two branches share their inner nodes
        node[f"leaf{i}"] = None
    h0 = Hierarchy.from_nested(tree, "t")
    labels = sorted({lab for _, lab in h0.nodes if (_, lab) not in h0.padded} - {"r"})
    w = {lab: weights[i] for i, lab in enumerate(labels)}
    h = Hierarchy.from_nested({"tree": tree, "weights": w}, "t")
    graph = nx.DiGraph()  # the unpadded tree, edges child -> parent
    for leaf, *path in (list(r) for r in _rows(tree)):
        for child, parent in zip([leaf] + path, path, strict=False):
            graph.add_edge(child, parent)
    leaves = [f"leaf{i}" for i in range(len(depths))]
    domain = domain_from_hierarchy("t", h, [])
    ids = {lab: i for i, (lv, lab) in enumerate(zip(domain.level[:-1], domain.labels[:-1], strict=False)) if lv == 0}
    got = cost_matrix(domain, node_costs(domain, "Weights"), np.array([ids[x] for x in leaves]))
    for a, u in enumerate(leaves):
        up_u = nx.descendants(graph, u) | {u}
        for b, v in enumerate(leaves):
            lca = next(x for x in nx.dfs_preorder_nodes(graph, u) if x in (nx.descendants(graph, v) | {v}))
            path = nx.shortest_path(graph, u, lca)
            assert lca in up_u
            assert got[a, b] == pytest.approx(sum(w[x] for x in path[:-1]))


def _rows(tree):
    out = []

    def walk(node, path):
        for label, child in node.items():
            if child is None:
                out.append([label] + path[::-1])
            else:
                walk(child, path + [label])

    walk(tree, [])
    return out


# ------------------------------------------------------------------ end to end


def _remediate(tmp_path, hierarchy, xs, *options):
    pd.DataFrame({"x": xs, "s": ["u"] * len(xs)}).to_csv(tmp_path / "release.csv", index=False)
    policy = {
        "version": 1,
        "name": "weighted",
        "columns": {"x": {"role": "quasi_identifier", "hierarchy": hierarchy}, "s": {"role": "sensitive"}},
        "checks": [{"assessor": "k_anonymity", "k": 2}],
    }
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(policy))
    args = []
    for o in options:
        args += ["--option", o]
    return run_cli(
        "remediate",
        tmp_path / "release.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--method",
        "generalize",
        *args,
        "--out",
        tmp_path / "fixed.csv",
        "--json",
        tmp_path / "r.json",
        "--quiet",
    )


@pytest.mark.parametrize(
    "metric, expected",
    [
        # weights Cat 3, Lion 3, Felid 0, Dog 1: mu_bar(Cat, Lion) = 3 + 3 = 6 > mu_bar(Cat, Dog) = 3 + 1 = 4
        ("Weights", ["Mammal", "Lion", "Lion", "Mammal", "Mammal"]),
        # NLLM ignores the explicit weights: Cat joins Lion under Felid (1/3 + 1/3 against 2/3 + 2/3)
        ("NLLM", ["Felid", "Felid", "Felid", "Dog", "Dog"]),
    ],
)
def test_gaa_merges_by_the_hierarchy_weights(tmp_path, metric, expected):
    tree = {"tree": RACE["tree"], "weights": {"Cat": 3, "Lion": 3, "Felid": 0, "Dog": 1}}
    result = _remediate(tmp_path, tree, ["Cat", "Lion", "Lion", "Dog", "Dog"], "algorithm=gaa", f"metric={metric}")
    assert result.code == 0, result.stderr
    assert pd.read_csv(tmp_path / "fixed.csv", dtype=str)["x"].tolist() == expected


def test_lattice_on_an_uneven_weighted_hierarchy(tmp_path):
    """Level 1 publishes Felid for Cat and Lion and keeps Dog (its padded copy): 2-anonymous."""
    result = _remediate(tmp_path, RACE, ["Cat", "Lion", "Lion", "Dog", "Dog"], "metric=Weights")
    assert result.code == 0, result.stderr
    assert pd.read_csv(tmp_path / "fixed.csv", dtype=str)["x"].tolist() == ["Felid"] * 3 + ["Dog"] * 2


@pytest.mark.parametrize(
    "hierarchy, message",
    [
        ({"tree": RACE["tree"], "weights": {"Dog": -1}}, "node 'Dog': weight -1 is negative"),
        ({"tree": RACE["tree"], "weights": {"Wolf": 1}}, "node 'Wolf': weighted but not in the tree"),
        ({"tree": RACE["tree"], "weights": {"Dog": "heavy"}}, "node 'Dog': weight 'heavy' is not a number"),
        ({"tree": RACE["tree"], "weights": {"Mammal": 1}}, "node 'Mammal': the root has no edge to weigh"),
        ({"tree": RACE["tree"], "weights": [1, 2]}, "weights must be a mapping"),
        ({"tree": {"A": [], "B": []}, "weights": {}}, "exactly one root"),
    ],
)
def test_bad_weighted_hierarchy_is_one_line_exit_2(tmp_path, hierarchy, message):
    result = _remediate(tmp_path, hierarchy, ["Cat", "Dog"])
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "policy.yaml:columns.x" in lines[0], result.stderr


def test_bad_uneven_csv_names_the_file_and_node(tmp_path):
    (tmp_path / "h.csv").write_text("Cat;Felid;Mammal\nDog;;Mammal\n")
    with pytest.raises(HierarchyError, match=r"hierarchy .*h.csv: leaf 'Dog': an empty label"):
        Hierarchy.from_csv(tmp_path / "h.csv")


def test_unknown_metric_is_one_line_exit_2(tmp_path):
    result = _remediate(tmp_path, RACE, ["Cat", "Dog"], "metric=Entropy")
    assert result.code == 2 and len(result.stderr.strip().splitlines()) == 1 and "metric" in result.stderr


def test_python_api_reports_the_weights_metric(tmp_path):
    import privaudit

    frame = pd.DataFrame({"x": ["Cat", "Lion", "Lion", "Dog", "Dog"], "s": ["u"] * 5})
    policy = {
        "version": 1,
        "name": "w",
        "columns": {"x": {"role": "quasi_identifier", "hierarchy": RACE}, "s": {"role": "sensitive"}},
        "checks": [{"assessor": "k_anonymity", "k": 2}],
    }
    outcome = privaudit.remediate(frame, policy, method="generalize", metric="Weights")
    assert outcome.table["x"].tolist() == ["Felid"] * 3 + ["Dog"] * 2
