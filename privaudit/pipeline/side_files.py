"""The files written beside a remediated table, and the policy it audits again with.

A remediation may publish files with its table (the hierarchies built for quasi-identifiers the policy gave
none, randomized response's matrices) and may re-audit the table with a changed policy (those columns typed
``nominal`` with the built hierarchies, checks given the published keep probabilities). The written table then
audits again only with that policy, so it is written beside the table as ``<stem>.reaudit.policy.yaml``: the
given policy's document with those changes, its other relative paths rewritten for the new folder, and
``privaudit audit OUT --policy <stem>.reaudit.policy.yaml`` gives the re-audit's verdict and figures.

Where they go: beside the output (``<out folder>/<out stem><suffix>``), or in the side folder given
(``--side-files DIR``); for an output that is a stream (``-``) or a device or FIFO (``/dev/null``), nowhere
unless a side folder is given (a side file beside ``/dev/stdout`` would be a file in ``/dev``).
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from privaudit.common.jsonable import jsonable
from privaudit.core.policy import Policy
from privaudit.plugin.remediator import Remediation

POLICY_SUFFIX = ".reaudit.policy.yaml"
#: keys of a check that are not its assessor's parameters
_CHECK_KEYS = ("assessor", "id", "severity", "quasi_identifiers")


@dataclass
class Side:
    """The side files (path, bytes), the written policy's path, whether auditing with it needs
    ``--allow-outside-paths``, and the report's built hierarchies with the names of the files written."""

    files: list[tuple[str, bytes]] = field(default_factory=list)
    policy_file: str | None = None
    outside_paths: bool = False
    built_hierarchies: dict[str, dict] = field(default_factory=dict)


def side_location(out: str | Path, side_dir: str | Path | bool | None = None) -> tuple[Path, str] | None:
    """(folder, stem) of the side files of ``out``, or None when they go nowhere (a stream or device output
    without ``side_dir``; ``side_dir=False``: nothing is written, as the library API writes nothing)."""
    if side_dir is False:
        return None
    text = str(out)
    stem = "stdout" if text == "-" else Path(text).with_suffix("").name
    if side_dir is not None and side_dir is not True:
        return Path(side_dir), stem
    if text == "-":
        return None
    path = Path(text)
    if str(path.absolute()).startswith("/dev/") or (path.exists() and not path.is_file()):
        return None
    return path.parent, stem


def side_files(policy: Policy, result: Remediation, out: str | Path, location: tuple[Path, str] | None) -> Side:
    """What to write beside ``out`` for ``result`` (see the module docstring)."""
    built = copy.deepcopy(result.changes.get("built_hierarchies") or {})
    if location is None:
        for entry in built.values():
            entry["file"] = None
        return Side(built_hierarchies=built)
    folder, stem = location
    files = [(str(folder / f"{stem}{suffix}"), data) for suffix, data in result.artefacts.items()]
    written = {Path(path).name for path, _ in files}
    for entry in built.values():
        name = f"{stem}.{entry['file']}"
        entry["file"] = name if name in written else None
    hierarchy_files = {c: f"{stem}.{change['file']}" for c, change in result.column_overrides.items()}
    if not (result.column_overrides or result.check_overrides) or not set(hierarchy_files.values()) <= written:
        return Side(files, None, False, built)  # nothing to change, or the hierarchies are not written (said)
    text, outside = _policy_text(policy, result, folder, hierarchy_files, out)
    path = str(folder / f"{stem}{POLICY_SUFFIX}")
    files.append((path, text.encode("utf-8")))
    return Side(files, path, outside, built)


def _policy_text(
    policy: Policy, result: Remediation, folder: Path, hierarchy_files: dict[str, str], out: str | Path
) -> tuple[str, bool]:
    """The YAML of ``policy`` as the re-audit used it, for a file in ``folder``; and whether a path in it
    leads outside ``folder``."""
    doc: Any = yaml.safe_load(policy.source.decode("utf-8-sig")) if policy.source else None
    if not isinstance(doc, dict):
        doc = policy.model.model_dump(mode="json", exclude_none=True)
    doc = copy.deepcopy(doc)
    same = folder.resolve() == policy.folder
    outside = False

    def moved(value: str) -> str:
        nonlocal outside
        target = policy.folder / value
        if same or not target.is_file():
            return value
        relative = os.path.relpath(target.resolve(), folder.resolve())
        outside |= relative.startswith("..")
        return relative

    columns = doc.setdefault("columns", {})
    for name, spec in columns.items():
        if isinstance(spec, dict) and isinstance(spec.get("hierarchy"), str) and name not in hierarchy_files:
            spec["hierarchy"] = moved(spec["hierarchy"])
    for name, change in result.column_overrides.items():
        spec = columns.setdefault(name, {"role": "quasi_identifier"})
        spec["type"] = change["type"]
        spec.pop("order", None)
        spec["hierarchy"] = hierarchy_files[name]
    checks = doc.get("checks") or []
    for check, spec in zip(policy.checks, checks, strict=False):
        if not isinstance(spec, dict):
            continue
        for key, value in list(spec.items()):
            if key not in _CHECK_KEYS and isinstance(value, str):
                spec[key] = moved(value)
        if check.id in result.check_overrides:
            spec.update(jsonable(result.check_overrides[check.id]))
    changes = []
    if hierarchy_files:
        changes.append(f"{', '.join(hierarchy_files)} typed nominal with the hierarchies built for them")
    if result.check_overrides:
        changes.append(f"the parameters published for {', '.join(result.check_overrides)}")
    header = f"# privaudit remediate re-audited {Path(out).name} with this policy: {policy.path.name} with " + (
        " and ".join(changes) + ".\n"
    )
    return header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, default_flow_style=False), outside
