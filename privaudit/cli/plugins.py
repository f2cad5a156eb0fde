"""``privaudit plugins``: the installed assessors and remediators with their package and module."""

from __future__ import annotations


def add_parser(sub) -> None:
    sub.add_parser("plugins", help="list assessors and remediators with their source package")


def run(args) -> int:
    from privaudit.pipeline.plugins import get_registry

    registry = get_registry()
    rows = []
    for kind, table in (("assessor", registry.assessors), ("remediator", registry.remediators)):
        for name in sorted(table):
            origin = registry.origin[f"{kind}:{name}"]
            rows.append((kind, name, f"{origin.package} {origin.version}", origin.name))
    widths = [max(len(r[i]) for r in rows) for i in range(3)] if rows else [0, 0, 0]
    print(f"{'KIND':<{widths[0]}}  {'NAME':<{widths[1]}}  {'PACKAGE':<{widths[2]}}  MODULE")
    for r in rows:
        print(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}")
    return 0
