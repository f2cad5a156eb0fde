"""Generalization hierarchies: rooted trees whose leaves are data values.

A hierarchy is held as a :class:`networkx.DiGraph` (edges parent -> child) whose nodes are
``(level, label)`` pairs: leaves are at level 0, the root at level ``height``. Keying nodes by level
keeps ARX-style files unambiguous where a label repeats on several levels (``*`` or an age band).

Two sources are understood:

* ARX-style CSV: one row per leaf, ``leaf;level-1;...;root`` (``;`` or ``,`` detected);
* inline nested YAML: ``{root: {inner: [leaf, leaf], other: {leaf: null}}}``.

Both are validated: one root, every leaf at the same depth, every node with exactly one parent.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import networkx as nx
import numpy as np
import pandas as pd

from privaudit.core.errors import HierarchyError


#: the largest hierarchy file read (a path to /dev/zero or a huge file is refused, not read)
MAX_HIERARCHY_BYTES = 64 * 2**20


class Hierarchy:
    """A validated generalization tree with every leaf at depth ``height``."""

    def __init__(self, rows: Sequence[Sequence[str]], source: str):
        self.source = source
        if not rows:
            raise HierarchyError(f"hierarchy {source}: it is empty")
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            width = len(rows[0])
            bad = next(r for r in rows if len(r) != width)
            raise HierarchyError(
                f"hierarchy {source}: uneven depth: leaf {bad[0]!r} has {len(bad) - 1} levels above it, "
                f"leaf {rows[0][0]!r} has {width - 1}"
            )
        roots = sorted({r[-1] for r in rows})
        if len(roots) != 1:
            raise HierarchyError(f"hierarchy {source}: more than one root: {', '.join(map(repr, roots[:5]))}")
        self.height = len(rows[0]) - 1
        graph = nx.DiGraph()
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
                graph.add_edge(parent, child)
        if self.height == 0:
            graph.add_node((0, rows[0][0]))
        if not nx.is_arborescence(graph):  # pragma: no cover - guaranteed by the checks above
            raise HierarchyError(f"hierarchy {source}: it is not a tree")
        self.graph = graph
        self.root = (self.height, roots[0])
        self.leaves = leaves
        # table[level] maps leaf -> its label at that level
        self.table = pd.DataFrame(rows, columns=list(range(self.height + 1))).set_index(0, drop=False)
        self._label_levels: dict[str, int] = {}
        for level, label in graph.nodes:
            self._label_levels.setdefault(label, level)

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_csv(cls, path: str | Path, display: str | None = None) -> "Hierarchy":
        """Read an ARX-style hierarchy file (one row per leaf, delimiter ``;`` or ``,``)."""
        path = Path(path)
        display = display or str(path)
        try:
            size = path.stat().st_size
            if size > MAX_HIERARCHY_BYTES:
                raise HierarchyError(f"hierarchy {display}: {size:,} bytes; a hierarchy file holds at most "
                                     f"{MAX_HIERARCHY_BYTES:,}")
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
        rows = [[cell.strip() for cell in r] for r in csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)]
        return cls(rows, display)

    @classmethod
    def from_nested(cls, tree: Any, display: str) -> "Hierarchy":
        """Build from nested YAML: a one-key mapping ``{root: children}``; children are a mapping
        (inner nodes), a list (leaves, or one-key mappings), or null (a leaf)."""
        if not isinstance(tree, Mapping) or len(tree) != 1:
            raise HierarchyError(f"hierarchy {display}: an inline hierarchy must be a mapping with exactly one root")
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
        return cls(rows, display)

    # ----------------------------------------------------------------- queries
    def level_of(self, label: str) -> int | None:
        """The lowest level at which ``label`` is a node, or None when it is not in the tree."""
        return self._label_levels.get(label)

    def generalize(self, values: pd.Series | Iterable[str], level: int) -> pd.Series:
        """Map leaf values to their ancestor at ``level`` (0 = unchanged). Unknown values map to NA."""
        if not 0 <= level <= self.height:
            raise ValueError(f"level {level} outside 0..{self.height}")
        mapping = self.table[level]
        return pd.Series(values).map(mapping)

    def check_values(self, values: pd.Series, column: str, *, leaves_only: bool) -> None:
        """Raise a HierarchyError naming the first value of ``values`` that is not in the tree."""
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

    def __repr__(self) -> str:
        return f"Hierarchy({self.source!r}, height={self.height}, leaves={len(self.leaves)})"
