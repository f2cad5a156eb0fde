"""µ-ARGUS's metadata as a privaudit policy's decisions (``privaudit init DATA --from-muargus FILE.rda``).

What maps (µ-ARGUS 5.1 user's manual, Statistics Netherlands, sections 4.1, 4.1.1, 6.1-6.3;
github.com/sdcTools/muargus ``resources/MUmanual5.1.3.pdf``):

* ``<IDLEVEL>`` 1..5 -- a quasi-identifier; level 0 -- role ``other`` (the manual: "an individual cannot be
  identified by this variable"). The levels also give the attacker scenarios: µ-ARGUS's automatic
  specification "using the identification level" combines each level-1 variable with each variable of level
  <= 2, with each of level <= 3 ... (manual 4.1.1, the Statistics Netherlands rule for microdata under
  contract), as ``SelectCombinationsController.calculateTablesForID`` enumerates them: one table per set of
  one variable from each level in use, later ones drawn from the levels up to theirs. Each table is a
  scenario (its checks' ``quasi_identifiers``); the levels themselves are written in the policy's header
  comment. The tables' thresholds are chosen in µ-ARGUS's Specify|Combinations, not in the ``.rda``: the
  drafted checks keep the starter's.
* ``<WEIGHT>`` -- role ``weight``; ``<HOUSE_ID>`` -- role ``household_id``.
* ``<SUPPRESSPRIORITY>`` (``<SUPPRESSWEIGHT>``) -- ``importance``: a higher priority is suppressed later
  (manual 3.4.4: "assign sex the maximum priority weight (100) so as to discourage suppressing"), so the
  quasi-identifiers are ranked by priority, highest first, as importance 1, 2 ... (ties share a rank; µ-ARGUS's
  default priority is 50).
* the two missing codes -- missing values: the policy's ``data.missing`` holds those no other column has as a
  value (it applies to every column); the ``.asc`` reader makes them missing column by column
  (:mod:`privaudit.io.muargus`).
* ``.grc`` recodings (``--recode COLUMN=FILE.grc``, and any ``COLUMN.grc`` beside the ``.rda``) and
  ``<TRUNCABLE>`` -- a hierarchy file: each recoding one level (a code no line collects stays itself, as
  µ-ARGUS keeps it), recodings that nest chained finest first; truncation one level per digit chopped
  (``136``, ``13*``, ``1**``, ``*``), used when no recoding is given.
* ``.cdl`` code lists -- value labels, carried by the ``.asc`` reader on the columns (the policy has no field
  for them).

What does not map is listed (the command prints it, the policy's header says it): ``<RELATED>`` (suppress
together), ``<HOUSEHOLD>`` (a household-level variable: µ-ARGUS suppresses it in every member), keywords
µ-ARGUS itself skips, recodings that do not nest, and the tables' thresholds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from privaudit.core.errors import DataError
from privaudit.discovery.decided import Decided
from privaudit.io.muargus import Rda, RdaVariable, Recode, code_list, find_beside, read_cdl, read_grc, read_rda


def tables_for_id(variables: list[RdaVariable]) -> list[list[str]]:
    """The combinations µ-ARGUS generates from the identification levels
    (``SelectCombinationsController.calculateTablesForID``): with the variables of level > 0 listed level by
    level and L the number of levels in use, every set of L of them, one at each depth d drawn after the
    previous from the variables of the first d levels in use."""
    levels = sorted({v.idlevel for v in variables if v.idlevel > 0})
    ordered = [v for level in levels for v in variables if v.idlevel == level]
    sizes = [sum(1 for v in ordered if v.idlevel <= level) for level in levels]

    def walk(start: int, depth: int, chosen: list[str]) -> Iterator[list[str]]:
        if depth == len(levels):
            yield chosen
            return
        for i in range(start, sizes[depth]):
            yield from walk(i + 1, depth + 1, [*chosen, ordered[i].name])

    return list(walk(0, 0, [])) if levels else []


def _importance(qis: list[RdaVariable]) -> dict[str, int]:
    """Priority, highest first, as importance 1, 2 ...; a variable without one has µ-ARGUS's default, 50."""
    priorities = sorted({v.priority if v.priority is not None else 50 for v in qis}, reverse=True)
    rank = {p: i for i, p in enumerate(priorities, start=1)}
    return {v.name: rank[v.priority if v.priority is not None else 50] for v in qis}


def _group_labels(recode: Recode, values: list[str]) -> dict[str, str]:
    """The published label of each new code: its label in the recoding's code list, else the old codes it
    collects as the ``.grc`` writes them (``21-30``); made distinct."""
    cdl_path = find_beside(recode.path, recode.codelist) if recode.codelist else None
    cdl = read_cdl(cdl_path) if cdl_path is not None else {}
    labels = {}
    for new, sets in recode.groups.items():
        text = ",".join(str(low) if low == high else f"{low or ''}-{high or ''}" for low, high in sets)
        labels[new] = cdl.get(new) or text
    seen: dict[str, int] = {}
    for label in labels.values():
        seen[label] = seen.get(label, 0) + 1
    out = {new: (f"{label} ({new})" if seen[label] > 1 else label) for new, label in labels.items()}
    clash = set(out.values()) & set(values)  # a label that is also a code of the column: named by its file
    return {new: (f"{label} ({recode.path.stem})" if label in clash else label) for new, label in out.items()}


def _recode_level(recode: Recode, values: list[str]) -> list[str]:
    labels = _group_labels(recode, values)
    out = []
    for value in values:
        new = recode.new_code(value)
        out.append(labels[new] if new is not None else value)
    return out


def recode_hierarchy(values: list[str], recodes: list[Recode]) -> tuple[str, list[str], list[str]]:
    """The hierarchy of the recodings that nest, finest first, as ARX-style CSV; the files used and the notes
    on those left out (a privaudit hierarchy is one chain)."""
    levels = [(r, _recode_level(r, values)) for r in recodes]
    levels.sort(key=lambda item: -len(set(item[1])))
    chain: list[tuple[Recode, list[str]]] = []
    notes = []
    for recode, level in levels:
        below = chain[-1][1] if chain else values
        parents: dict[str, str] = {}
        if all(parents.setdefault(b, a) == a for b, a in zip(below, level, strict=True)):
            chain.append((recode, level))
        else:
            notes.append(f"{recode.path.name} does not nest in {chain[-1][0].path.name}: not used" if chain else "")
    rows = [";".join([v, *(level[i] for _, level in chain), "*"]) for i, v in enumerate(values)]
    return "\n".join(rows) + "\n", [r.path.name for r, _ in chain], [n for n in notes if n]


def truncation_hierarchy(values: list[str]) -> str:
    """µ-ARGUS's truncation (manual 4.2.1: "chop off digits from the end of the code") as a masking hierarchy:
    one more trailing character replaced by ``*`` per level, then ``*``; shorter codes end earlier (an uneven
    tree: trailing empty cells, docs/hierarchies.md)."""
    width = max(len(v) for v in values)
    rows = []
    for v in values:
        cells = [v] + [v[: len(v) - i] + "*" * i for i in range(1, len(v))] + ["*"]
        rows.append(";".join(cells + [""] * (width + 1 - len(cells))))
    return "\n".join(rows) + "\n"


def _hierarchy(v: RdaVariable, frame: pd.DataFrame, recodes: list[Recode], decided: Decided) -> None:
    values = sorted({s for s in frame[v.name].str.strip() if s and s not in v.missing})
    if not values:
        return
    if recodes:
        text, used, notes = recode_hierarchy(values, recodes)
        decided.unmapped += [f"{v.name}: {n}" for n in notes]
        if v.truncable:
            decided.unmapped.append(f"{v.name}: <TRUNCABLE> (a recoding is given, and one hierarchy per column)")
        for r in recodes:
            if r.missing:
                decided.note(v.name, f"{r.path.name} sets the missing codes {' '.join(r.missing)} after recoding")
        decided.hierarchies[v.name] = (text, f"hierarchy from the µ-ARGUS recoding {', '.join(used)}")
    elif v.truncable:
        decided.hierarchies[v.name] = (truncation_hierarchy(values), "hierarchy from <TRUNCABLE>: digits chopped")


def _recodes(rda: Rda, given: dict[str, list[Path]]) -> dict[str, list[Recode]]:
    """``--recode COLUMN=FILE.grc`` and the ``.grc`` files beside the ``.rda`` named as a variable."""
    names = {v.name.lower(): v.name for v in rda.variables}
    out: dict[str, list[Recode]] = {}
    for column, paths in given.items():
        if rda.variable(column) is None:
            raise DataError(f"--recode {column}=...: {rda.path} has no variable {column!r}")
        out[column] = [read_grc(p) for p in paths]
    for path in sorted(rda.path.parent.glob("*")):
        if path.suffix.lower() == ".grc" and path.stem.lower() in names:
            column = names[path.stem.lower()]
            if column not in given:
                out.setdefault(column, []).append(read_grc(path))
    return out


def _role(v: RdaVariable, decided: Decided) -> None:
    if v.weight:
        decided.roles[v.name] = "weight"
        decided.note(v.name, "µ-ARGUS <WEIGHT>")
    elif v.house_id:
        decided.roles[v.name] = "household_id"
        decided.note(v.name, "µ-ARGUS <HOUSE_ID>")
    elif v.idlevel > 0:
        decided.roles[v.name] = "quasi_identifier"
        decided.note(v.name, f"µ-ARGUS identification level {v.idlevel}")
    elif v.recodable and not v.numeric:
        decided.roles[v.name] = "other"
        decided.note(v.name, "µ-ARGUS identification level 0: not identifying, the office decided")
    if v.household:
        decided.note(v.name, "µ-ARGUS <HOUSEHOLD>: the same for every member of a household")
        decided.unmapped.append(f"{v.name}: <HOUSEHOLD> (µ-ARGUS suppresses it in every member; no policy field)")
    if v.related:
        decided.unmapped.append(f"{v.name}: <RELATED> {v.related} (suppressed together; no policy field)")
    decided.unmapped += [f"{v.name}: {k} (a keyword µ-ARGUS skips too)" for k in v.unknown]


def decided_from_rda(rda: Rda, frame: pd.DataFrame, recode: dict[str, list[Path]] | None = None) -> Decided:
    """The decisions of ``rda`` on the table ``frame`` (text columns; see the module docstring)."""
    decided = Decided(f"µ-ARGUS metadata {rda.path.name}")
    for v in rda.variables:
        _role(v, decided)
        if v.missing:
            decided.column_missing[v.name] = list(v.missing)
    missing = [v.name for v in rda.variables if v.name not in frame.columns]
    if missing:
        return decided  # the caller names the first (check_columns)
    qis = [v for v in rda.variables if v.idlevel > 0 and not v.weight and not v.house_id]
    decided.importance = _importance(qis)
    for v in qis:
        priority = v.priority if v.priority is not None else 50
        decided.note(v.name, f"suppression priority {priority}: importance {decided.importance[v.name]}")
    for column, recodes in _recodes(rda, recode or {}).items():
        found = rda.variable(column)
        if found is not None and found in qis:
            _hierarchy(found, frame, recodes, decided)
        else:
            files = ", ".join(r.path.name for r in recodes)
            decided.unmapped.append(f"{column}: {files} (not a quasi-identifier: no hierarchy)")
    for v in qis:
        if v.truncable and v.name not in decided.hierarchies:
            _hierarchy(v, frame, [], decided)
    for v in rda.variables:
        labels = code_list(rda, v)
        if labels:
            decided.value_labels[v.name] = labels
        elif v.codelist:
            decided.unmapped.append(f"{v.name}: code list {v.codelist} not found beside {rda.path.name}")
    _scenarios(rda, qis, decided)
    return decided


def _scenarios(rda: Rda, qis: list[RdaVariable], decided: Decided) -> None:
    tables = tables_for_id(qis)
    decided.scenarios = {"_".join(t): t for t in tables}
    levels = sorted({v.idlevel for v in qis})
    decided.comments.append("µ-ARGUS identification levels (1 the most identifying; level 0 is not identifying):")
    decided.comments += [f"  {lv}: {', '.join(v.name for v in qis if v.idlevel == lv)}" for lv in levels]
    decided.comments.append(
        f"Scenarios: the {len(tables)} combinations µ-ARGUS generates from the levels (manual 4.1.1); their "
        "thresholds are set in µ-ARGUS, not in the .rda: the checks keep the starter's."
    )
    if decided.value_labels:
        decided.comments.append(
            "Code lists (.cdl): "
            + ", ".join(f"{c} ({len(v)} labels)" for c, v in decided.value_labels.items())
            + "; the .asc reader carries them as value labels (the policy holds none)."
        )


__all__ = ["decided_from_rda", "read_rda", "recode_hierarchy", "tables_for_id", "truncation_hierarchy"]
