"""Generalization hierarchies: rooted trees whose leaves are data values.

A hierarchy is held as a parent map (:attr:`Hierarchy.parent_of`, child -> parent) over nodes that are
``(level, label)`` pairs: leaves are at level 0, the root at level ``height``. Keying nodes by level
keeps ARX-style files unambiguous where a label repeats on several levels (``*`` or an age band).

Two sources are understood:

* ARX-style CSV: one row per leaf, ``leaf;level-1;...;root`` (``;`` or ``,`` detected). An **uneven**
  tree (leaves at different depths) keeps every row equally wide and leaves the unused cells at the end of
  a short row empty: ``Dog;Mammal;`` beside ``Cat;Felid;Mammal``. Rows of different widths without empty
  trailing cells are refused (a forgotten level is the likelier cause).
* inline nested YAML: ``{root: {inner: [leaf, leaf], other: {leaf: null}}}``; branches may have any
  depth. Explicit edge weights (Definition 3 of Mauger, Le Mahec & Dequen, TDP 2023, seeds/003, Section
  3.1) use the two-key form ``{tree: {root: ...}, weights: {node: w, ...}}``: ``w >= 0`` is the weight
  ``omega(node, parent)`` of the edge from ``node`` up to its parent; unlisted edges weigh 1.

Both are validated: one root, every node with exactly one parent, weights on existing non-root nodes.

Uneven trees are held *padded*: a leaf ``d`` edges below the root is repeated on levels ``1 .. height -
d`` (edges of weight 0, the copies published as the leaf itself), so every leaf has an ancestor at every
level, full-domain generalization stays defined (a short branch keeps its leaf until the level where its
real parent sits) and every consumer of :attr:`Hierarchy.table` keeps working. ``Hierarchy.depth`` gives
each leaf's real depth.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privaudit.core.errors import HierarchyError

if TYPE_CHECKING:  # pragma: no cover - pandas is imported where a table is built: `policy check` never loads it
    import numpy as np
    import pandas as pd

#: the largest hierarchy file read (a path to /dev/zero or a huge file is refused, not read)
MAX_HIERARCHY_BYTES = 64 * 2**20
#: the most levels a hierarchy has (ARX's hierarchies have tens; far more were slow to refuse later)
MAX_LEVELS = 1_000
#: the most labels (leaves x labels per row) a hierarchy holds: few enough to read quickly at every audit
MAX_LABELS = 1_000_000


def _refuse_oversized(source: str, leaves: int, width: int) -> None:
    """One line for a hierarchy too deep or too large to build in the normal time of an audit."""
    if width - 1 > MAX_LEVELS:
        raise HierarchyError(f"hierarchy {source}: {width - 1:,} levels; a hierarchy has at most {MAX_LEVELS:,}")
    if leaves * width > MAX_LABELS:
        raise HierarchyError(
            f"hierarchy {source}: {leaves:,} leaves of {width:,} labels each; a hierarchy holds at "
            f"most {MAX_LABELS:,} labels (generalize the column before the audit, or split it)"
        )


class Hierarchy:
    """A validated generalization tree, held with every leaf at depth ``height`` (short branches padded)."""

    def __init__(
        self,
        rows: Sequence[Sequence[str]],
        source: str,
        *,
        uneven: bool = False,
        weights: Mapping[Any, Any] | None = None,
    ):
        """``rows``: one per leaf, ``leaf, parent, ..., root``. ``uneven``: rows may be of different
        lengths (padded, see the module docstring); ``weights``: explicit edge weights by node label."""
        self.source = source
        if not rows:
            raise HierarchyError(f"hierarchy {source}: it is empty")
        rows = [list(r) for r in rows]
        _refuse_oversized(source, len(rows), max(len(r) for r in rows))
        for r in rows:
            if not r or any(cell == "" for cell in r):
                raise HierarchyError(
                    f"hierarchy {source}: leaf {(r or [''])[0]!r}: an empty label "
                    "(only trailing cells of a row may be empty)"
                )
        widths = {len(r) for r in rows}
        if len(widths) != 1 and not uneven:
            width = len(rows[0])
            bad = next(r for r in rows if len(r) != width)
            raise HierarchyError(
                f"hierarchy {source}: uneven depth: leaf {bad[0]!r} has {len(bad) - 1} levels above it, "
                f"leaf {rows[0][0]!r} has {width - 1} (an uneven tree keeps rows equally wide, "
                "short rows ending in empty cells)"
            )
        width = max(widths)
        #: real number of edges from each leaf to the root
        self.depth: dict[str, int] = {r[0]: len(r) - 1 for r in rows}
        rows = [[r[0]] * (width - len(r) + 1) + r[1:] for r in rows]  # pad: repeat the leaf
        roots = sorted({r[-1] for r in rows})
        if len(roots) != 1:
            raise HierarchyError(f"hierarchy {source}: more than one root: {', '.join(map(repr, roots[:5]))}")
        self.height = len(rows[0]) - 1
        parent_of: dict[tuple[int, str], tuple[int, str]] = {}
        leaves: list[str] = []
        seen: set[str] = set()
        for row in rows:
            if row[0] in seen:
                raise HierarchyError(f"hierarchy {source}: leaf {row[0]!r} is listed twice")
            seen.add(row[0])
            leaves.append(row[0])
            for level in range(self.height):
                child, parent = (level, row[level]), (level + 1, row[level + 1])
                known = parent_of.get(child)
                if known is not None and known != parent:
                    raise HierarchyError(
                        f"hierarchy {source}: value {row[level]!r} at level {level} has two parents: "
                        f"{known[1]!r} and {parent[1]!r}"
                    )
                parent_of[child] = parent
        # One root, one parent per node and levels rising by one on every edge make this a tree (a plain
        # parent map: networkx, used here before, cost a quarter of the CLI's start-up for this alone).
        #: child -> parent, over the (level, label) nodes of the padded tree
        self.parent_of = parent_of
        #: every (level, label) node of the padded tree
        self.nodes: frozenset[tuple[int, str]] = frozenset(parent_of) | {(self.height, roots[0])}
        self.root = (self.height, roots[0])
        self.leaves = leaves
        self._rows = rows  # the padded rows, until :attr:`table` is first read
        self._label_levels: dict[str, int] = {}
        for level, label in sorted(self.nodes):
            self._label_levels.setdefault(label, level)
        #: padded copies of short-branch leaves: (level, label) nodes published as the leaf itself
        self.padded: frozenset[tuple[int, str]] = frozenset(
            (level, leaf) for leaf, d in self.depth.items() for level in range(1, self.height - d + 1)
        )
        #: explicit weight of the edge from every non-root node up to its parent (None: no weights given)
        self.edge_weight: dict[tuple[int, str], float] | None = None
        if weights is not None:
            self.edge_weight = self._weights(weights)

    def _weights(self, weights: Mapping[Any, Any]) -> dict[tuple[int, str], float]:
        """Validate the ``weights`` mapping (label -> omega(label, parent)) onto the padded tree."""
        if not isinstance(weights, Mapping):
            raise HierarchyError(f"hierarchy {self.source}: weights must be a mapping node: weight")
        real = {}  # label -> the node whose edge to its parent is the real edge of that label
        for level, label in sorted(self.nodes):
            if (level, label) in self.padded or (level, label) == self.root:
                continue
            if label in real:
                raise HierarchyError(
                    f"hierarchy {self.source}: node {label!r} appears on several levels; weights need distinct labels"
                )
            top = level + self.height - self.depth[label] if level == 0 else level  # top padded copy
            real[label] = (top, label)
        out: dict[tuple[int, str], float] = {}
        for level, label in self.nodes:  # real edges weigh 1 unless listed; padding edges 0
            if (level, label) == self.root:
                continue
            copy = (level == 0 or (level, label) in self.padded) and label in self.depth
            out[(level, label)] = 0.0 if copy and level < self.height - self.depth[label] else 1.0
        for label, value in weights.items():
            label = str(label)
            if label == self.root[1]:
                raise HierarchyError(f"hierarchy {self.source}: node {label!r}: the root has no edge to weigh")
            if label not in real:
                raise HierarchyError(f"hierarchy {self.source}: node {label!r}: weighted but not in the tree")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise HierarchyError(f"hierarchy {self.source}: node {label!r}: weight {value!r} is not a number")
            if value < 0:
                raise HierarchyError(
                    f"hierarchy {self.source}: node {label!r}: weight {value!r} is negative "
                    "(Definition 3: weights in R+)"
                )
            out[real[label]] = float(value)
        return out

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_csv(cls, path: str | Path, display: str | None = None) -> Hierarchy:
        """Read an ARX-style hierarchy file (one row per leaf, delimiter ``;`` or ``,``)."""
        path = Path(path)
        display = display or str(path)
        try:
            size = path.stat().st_size
            if size > MAX_HIERARCHY_BYTES:
                raise HierarchyError(
                    f"hierarchy {display}: {size:,} bytes; a hierarchy file holds at most {MAX_HIERARCHY_BYTES:,}"
                )
            text = path.read_bytes().decode("utf-8-sig")
        except FileNotFoundError:
            raise HierarchyError(f"hierarchy {display}: file not found") from None
        except UnicodeDecodeError as exc:
            raise HierarchyError(f"hierarchy {display}: not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise HierarchyError(f"hierarchy {display}: cannot be read ({exc.strerror})") from None
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if not lines:
            raise HierarchyError(f"hierarchy {display}: it is empty")
        delimiter = ";" if lines[0].count(";") >= lines[0].count(",") else ","
        _refuse_oversized(display, len(lines), lines[0].count(delimiter) + 1)  # before parsing: from the first row
        rows = [[cell.strip() for cell in r] for r in csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)]
        uneven = len({len(r) for r in rows}) == 1 and any(r and r[-1] == "" for r in rows)
        if uneven:  # equally wide rows, short ones ending in empty cells
            for r in rows:
                while r and r[-1] == "":
                    r.pop()
        return cls(rows, display, uneven=uneven)

    @classmethod
    def from_nested(cls, tree: Any, display: str) -> Hierarchy:
        """Build from nested YAML: a one-key mapping ``{root: children}``; children are a mapping
        (inner nodes), a list (leaves, or one-key mappings), or null (a leaf)."""
        weights = None
        if isinstance(tree, Mapping) and set(tree) == {"tree", "weights"}:
            tree, weights = tree["tree"], tree["weights"]
            if not isinstance(weights, Mapping):
                raise HierarchyError(f"hierarchy {display}: weights must be a mapping node: weight")
        if not isinstance(tree, Mapping) or len(tree) != 1:
            raise HierarchyError(
                f"hierarchy {display}: an inline hierarchy must be a mapping with exactly one root "
                "(or {tree: {root: ...}, weights: {node: weight}})"
            )
        rows: list[list[str]] = []

        def walk(node: Any, path: list[str], depth: int) -> None:
            if depth > 64:
                raise HierarchyError(f"hierarchy {display}: nested deeper than 64 levels")
            if node is None:
                rows.append(list(reversed(path)))
            elif isinstance(node, Mapping):
                if not node:
                    rows.append(list(reversed(path)))
                for label, child in node.items():
                    walk(child, path + [str(label)], depth + 1)
            elif isinstance(node, list):
                for item in node:
                    if isinstance(item, Mapping):
                        walk(item, path, depth + 1)
                    else:
                        walk(None, path + [str(item)], depth + 1)
            else:
                walk(None, path + [str(node)], depth + 1)

        walk(tree, [], 0)
        return cls(rows, display, uneven=True, weights=weights)

    # ----------------------------------------------------------------- queries
    def level_of(self, label: str) -> int | None:
        """The lowest level at which ``label`` is a node, or None when it is not in the tree."""
        return self._label_levels.get(label)

    @cached_property
    def table(self) -> pd.DataFrame:
        """``table[level]`` maps leaf -> its label at that level (index: the leaves). Built on first read:
        validating a policy (``privaudit policy check``) never imports pandas."""
        import pandas as pd

        return pd.DataFrame(self._rows, columns=list(range(self.height + 1))).set_index(0, drop=False)

    def generalize(self, values: pd.Series | Iterable[str], level: int) -> pd.Series:
        """Map leaf values to their ancestor at ``level`` (0 = unchanged). Unknown values map to NA."""
        if not 0 <= level <= self.height:
            raise ValueError(f"level {level} outside 0..{self.height}")
        import pandas as pd

        mapping = self.table[level]
        return pd.Series(values).map(mapping)

    def check_values(self, values: pd.Series, column: str, *, leaves_only: bool) -> None:
        """Raise a HierarchyError naming the first value of ``values`` that is not in the tree."""
        import pandas as pd

        present = pd.Series(values.dropna().unique())
        allowed = set(self.leaves) if leaves_only else set(self._label_levels)
        missing = present[~present.isin(allowed)]
        if len(missing):
            what = "a leaf of" if leaves_only else "in"
            raise HierarchyError(
                f"column {column!r}: value {str(missing.iloc[0])!r} is not {what} hierarchy {self.source}"
            )

    def leaf_ancestors(self, leaves: Sequence[str]) -> np.ndarray:
        """Matrix ``A[i, j]`` = label of leaf ``leaves[i]`` at level ``j`` (object array)."""
        return self.table.loc[list(leaves)].to_numpy(dtype=object)

    @property
    def digest(self) -> str:
        """SHA-256 of the tree itself (every leaf's row, padded, and the explicit edge weights), whatever file
        or inline form it came from: two reports generalized with the same tree carry the same digest."""
        import hashlib
        import json

        weights = None if self.edge_weight is None else sorted([lv, lb, w] for (lv, lb), w in self.edge_weight.items())
        text = json.dumps({"rows": self._rows, "weights": weights}, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def __repr__(self) -> str:
        return f"Hierarchy({self.source!r}, height={self.height}, leaves={len(self.leaves)})"
