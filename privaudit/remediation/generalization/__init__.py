"""Generalization over hierarchies: information-loss metrics, GAA (local recoding), optimal lattice search.

* :mod:`.domain`   -- a QI's hierarchy as integer node arrays (ancestors, LCA), records as node ids;
* :mod:`.metrics`  -- the information-loss metrics as edge weights, cost matrices, alteration (Def. 3-9
  of Mauger, Le Mahec & Dequen, TDP 2023);
* :mod:`.problem`  -- the release as a generalization problem, and publishing a result as a table;
* :mod:`.model`    -- the privacy model Phi (the policy's class-based checks) on coded tables/classes;
* :mod:`.gaa`      -- the Greedy Anonymization Algorithm with strategies S1-S7;
* :mod:`.lattice`  -- full-domain generalization, optimal lattice search with monotonicity pruning;
* :mod:`.rollup`   -- class counts of lattice nodes rolled up from finer nodes' snapshots (Flash);
* :mod:`.packed`   -- the roll-ups' inner loop on packed int64 row keys (a speed trick, isolated).

The ``generalize`` remediator (:mod:`privaudit.remediation.methods.generalize`) wires them to the CLI.
"""

from privaudit.remediation.generalization.domain import (
    AttributeDomain,
    domain_from_hierarchy,
    encode_column,
    implicit_domain,
)
from privaudit.remediation.generalization.gaa import STRATEGIES, GAAResult, gaa
from privaudit.remediation.generalization.lattice import LatticeResult, LatticeSearch, lattice_nodes
from privaudit.remediation.generalization.metrics import (
    ALL_METRICS,
    EXTRA_METRICS,
    METRICS,
    NORMALISED,
    CostModel,
    all_metrics,
    attribute_weights,
    cost_matrix,
    edge_weights,
    generalization_shares,
    node_costs,
    resolve_weighting,
)
from privaudit.remediation.generalization.model import ClassModel, coded_context
from privaudit.remediation.generalization.problem import GeneralizationProblem

__all__ = [
    "AttributeDomain",
    "domain_from_hierarchy",
    "encode_column",
    "implicit_domain",
    "STRATEGIES",
    "GAAResult",
    "gaa",
    "LatticeResult",
    "LatticeSearch",
    "lattice_nodes",
    "ALL_METRICS",
    "EXTRA_METRICS",
    "METRICS",
    "NORMALISED",
    "CostModel",
    "all_metrics",
    "attribute_weights",
    "cost_matrix",
    "edge_weights",
    "generalization_shares",
    "node_costs",
    "resolve_weighting",
    "ClassModel",
    "coded_context",
    "GeneralizationProblem",
]
