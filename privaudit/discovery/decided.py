"""What an office already decided, imported into a drafted policy (``privaudit init DATA --from-muargus
FILE.rda``, ``--from-ddi CODEBOOK.xml``, ``--from-sdcmicro FILE.rds``).

An importer (:mod:`privaudit.discovery.muargus`, :mod:`privaudit.discovery.ddi`,
:mod:`privaudit.discovery.sdcmicro`) reads the other tool's metadata into a :class:`Decided`: the roles it
fixes, the importance of quasi-identifiers, the attacker scenarios, hierarchies, missing codes, variable
labels, the evidence of each choice and what does not map. :func:`draft_decided` drafts the policy around
it with :func:`privaudit.discovery.draft.draft` (the roles given, as ``--role`` gives them; the columns the
metadata leave open drafted as usual), then puts the rest of the decisions in the draft.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privaudit.core.errors import DataError, did_you_mean


@dataclass
class Decided:
    """A tool's decisions about a table's columns, in the policy's terms."""

    source: str  # "µ-ARGUS metadata Demodata.rda", as the draft's first comment names it
    roles: dict[str, str] = field(default_factory=dict)
    importance: dict[str, int] = field(default_factory=dict)
    scenarios: dict[str, list[str]] = field(default_factory=dict)  # name -> quasi-identifiers
    hierarchies: dict[str, tuple[str, str]] = field(default_factory=dict)  # column -> (CSV text, note)
    column_missing: dict[str, list[str]] = field(default_factory=dict)  # column -> its missing codes
    labels: dict[str, str] = field(default_factory=dict)  # variable labels
    value_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)  # column -> evidence, in the YAML comment
    comments: list[str] = field(default_factory=list)  # lines of the policy's header comment
    unmapped: list[str] = field(default_factory=list)  # what the policy cannot hold

    def note(self, column: str, text: str) -> None:
        self.notes.setdefault(column, []).append(text)


def check_columns(decided: Decided, columns: list[str], data: str, metadata: str) -> None:
    """Every column the metadata name with a role is in the table; else one line naming the file and column."""
    named = list(decided.roles) + [c for c in decided.column_missing if c not in decided.roles]
    for name in named:
        if name not in columns:
            raise DataError(f"{metadata}: names the variable {name!r}, which {data} lacks{did_you_mean(name, columns)}")


def blank_missing(frame: pd.DataFrame, decided: Decided) -> pd.DataFrame:
    """``frame`` with each column's own missing codes made missing (empty text), as the draft reads missing."""
    frame = frame.copy()
    for column, codes in decided.column_missing.items():
        if column in frame.columns and codes:
            frame[column] = frame[column].where(~frame[column].str.strip().isin(codes), "")
    return frame


def global_missing(frame: pd.DataFrame, decided: Decided) -> tuple[list[str], list[str]]:
    """The missing codes the policy's ``data.missing`` can hold (it applies to every column) -- those no other
    column holds as a value -- and the notes on those it cannot."""
    safe: list[str] = []
    notes: list[str] = []
    codes = sorted({c for cs in decided.column_missing.values() for c in cs})
    held = {c: set(frame[c].str.strip().unique()) for c in frame.columns} if codes else {}
    for code in codes:
        owners = {col for col, cs in decided.column_missing.items() if code in cs}
        clash = next((c for c in frame.columns if c not in owners and code in held[c]), None)
        if clash is None:
            safe.append(code)
        else:
            notes.append(
                f"missing code {code!r} of {', '.join(sorted(owners))} is a value of {clash}: not in data.missing "
                "(which applies to every column); the µ-ARGUS reader makes it missing column by column"
                if decided.source.startswith("µ-ARGUS")
                else f"missing code {code!r} of {', '.join(sorted(owners))} is a value of {clash}: not in "
                "data.missing (which applies to every column); recode it to empty before auditing"
            )
    return safe, notes


def draft_decided(
    frame: pd.DataFrame, source: str, decided: Decided, profile: Any, roles: dict[str, str], starter: Any
) -> Any:
    """The draft of ``frame`` with ``decided`` in it: roles fixed (``roles``, the user's ``--role``, win),
    importance, hierarchies, scenarios (and their checks), missing codes, the evidence in each column's
    comment, and what does not map in the header comment."""
    from privaudit.discovery.draft import draft
    from privaudit.discovery.uniques import Codes

    safe, missing_notes = global_missing(frame, decided)
    frame = blank_missing(frame, decided)
    _drop_unfit_weights(frame, decided)
    given = {**decided.roles, **roles}
    result = draft(frame, source, profile, given, starter, {**decided.labels})
    by_name = {c.name: c for c in result.columns}
    for name, notes in decided.notes.items():
        if name in by_name:
            by_name[name].notes = notes + [n for n in by_name[name].notes if n != "the role given by --role"]
    for name, (text, note) in decided.hierarchies.items():
        col = by_name.get(name)
        if col is None or col.role != "quasi_identifier":
            continue
        for old in [h for h in result.hierarchies if h == col.hierarchy]:
            del result.hierarchies[old]
        col.hierarchy = f"hierarchies/{_file_name(name)}.csv"
        col.type, col.order = "nominal", None
        result.hierarchies[col.hierarchy] = text
        col.notes = [note] + [
            n
            for n in col.notes
            if "hierarchy" not in n and "nominal, so that" not in n and not n.startswith("numbers:")
        ]
    qis = [c.name for c in result.columns if c.role == "quasi_identifier"]
    if decided.importance:
        for c in result.columns:
            c.importance = decided.importance.get(c.name) if c.role == "quasi_identifier" else None
    if decided.scenarios:
        scenarios = {n: [q for q in cols if q in qis] for n, cols in decided.scenarios.items()}
        result.scenarios = {n: cols for n, cols in scenarios.items() if cols}
        whole = Codes(frame)
        result.unique_counts = {n: whole.unique_count(cols) for n, cols in result.scenarios.items()}
        result.uniques = {n: k / len(frame) for n, k in result.unique_counts.items()}
        if starter is not None:
            sensitive = [c.name for c in result.columns if c.role == "sensitive"]
            has_weight = any(c.role == "weight" for c in result.columns)
            asked = dict(result.scenarios)
            if len(asked) == 1 and next(iter(asked.values())) != qis:  # one scenario, not every key variable:
                asked["all_key_variables"] = qis  # expanded with it, then its checks dropped
            checks = starter.checks(profile, sensitive, bool(qis), has_weight, asked)
            if asked != result.scenarios:
                checks = [c for c in checks if not str(c.get("id", "")).endswith("_all_key_variables")]
            result.checks = checks
            result.unique_limits = starter.unique_share_limits(result.checks)
    result.missing = safe
    result.header = [f"Imported from {decided.source}."] + decided.comments
    result.limits_applied += missing_notes + [f"not mapped: {u}" for u in decided.unmapped]
    return result


def _drop_unfit_weights(frame: pd.DataFrame, decided: Decided) -> None:
    """A weight the metadata name whose values are not all positive numbers (a policy's weight must be: as
    ``init --role COLUMN=weight`` requires) is left to the draft, and said."""
    from privaudit.common.numeric import to_numeric

    for name in [n for n, r in decided.roles.items() if r == "weight" and n in frame.columns]:
        numbers = to_numeric(frame[name], errors="coerce")
        if not (numbers > 0).all():
            del decided.roles[name]
            decided.unmapped.append(f"{name}: named a weight, but not a positive number in every row (role drafted)")


def _file_name(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("._") or "column"


__all__ = ["Decided", "blank_missing", "check_columns", "draft_decided", "global_missing"]
