"""``privaudit plugins``: every registered extension, by kind, with its package, version and module."""

from __future__ import annotations

import json


def add_parser(sub) -> None:
    p = sub.add_parser(
        "plugins", help="list every registered extension (assessors, remediators ...) with its source package"
    )
    p.add_argument("--json", action="store_true", help="print the same list as JSON")


def rows() -> list[dict[str, str]]:
    """One row per registered extension: kind, name, package, version, module; kinds in registry order."""
    from privaudit.pipeline.plugins import KINDS, get_registry

    registry = get_registry()
    found = []
    for kind in KINDS:
        for name in sorted(registry.of(kind.name)):
            origin = registry.origin[f"{kind.name}:{name}"]
            found.append(
                {
                    "kind": kind.name,
                    "name": name,
                    "package": origin.package,
                    "version": origin.version,
                    "module": origin.name,
                }
            )
    return found


def run(args) -> int:
    found = rows()
    if getattr(args, "json", False):
        print(json.dumps({"extensions": found}, indent=2))
        return 0
    table = [(r["kind"], r["name"], f"{r['package']} {r['version']}", r["module"]) for r in found]
    widths = [max([len(h)] + [len(r[i]) for r in table]) for i, h in enumerate(("KIND", "NAME", "PACKAGE"))]
    print(f"{'KIND':<{widths[0]}}  {'NAME':<{widths[1]}}  {'PACKAGE':<{widths[2]}}  MODULE")
    for r in table:
        print(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}")
    return 0
