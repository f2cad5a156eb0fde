"""``privaudit policy check|schema``: validate a policy (and that a table fits it), print its JSON Schema."""

from __future__ import annotations

import json


def add_parser(sub) -> None:
    policy = sub.add_parser("policy", help="policy tools")
    psub = policy.add_subparsers(dest="policy_command", required=True, metavar="ACTION")
    psub.add_parser("schema", help="print the policy's JSON Schema (with plugin assessors)")
    check = psub.add_parser(
        "check",
        help="validate a policy, optionally against a table (its columns, values, "
        "undeclared columns and the direct identifiers the scan finds)",
    )
    check.add_argument("policy", nargs="+", help="policy YAML file(s)")
    check.add_argument("--data", help="a table whose columns and values the policy must fit")
    check.add_argument("--allow-outside-paths", action="store_true")


def run(args) -> int:
    from privaudit.pipeline.plugins import get_registry

    registry = get_registry()
    if args.policy_command == "schema":
        from privaudit.core.schema import policy_json_schema

        print(json.dumps(policy_json_schema(registry), indent=2))
        return 0
    for path in args.policy:
        check_one(path, args, registry)
    return 0


def check_one(path: str, args, registry) -> None:
    """Validate one policy file (and, with ``--data``, that the table fits it); raise on the first problem."""
    from privaudit.core.policy import load_policy

    policy = load_policy(path, registry, allow_outside_paths=args.allow_outside_paths)
    if args.data:
        from privaudit.discovery.scan import SAMPLE_ROWS, scan_frame
        from privaudit.io.data import load_input

        table = load_input(args.data, policy)
        print(f"{path}: valid; {_count(len(policy.checks), 'check')}; fits {args.data} ({_count(table.rows, 'row')})")
        undeclared = [c for c in table.columns if c not in policy.columns]
        if undeclared:
            print(f"undeclared columns (not in the policy): {', '.join(undeclared)}")
        for f in scan_frame(table.frame.head(SAMPLE_ROWS)):  # the direct_identifiers check's scan
            spec = policy.columns.get(f.column)
            if spec is not None and (
                spec.role == "identifier" or (spec.role in ("record_id", "household_id") and f.kind == "record_key")
            ):
                continue
            where = "undeclared" if spec is None else f"declared {spec.role}"
            print(
                f"finding: {f.column} ({where}): {f.label}, {f.share:.0%} of sampled values; examples "
                f"{', '.join(f.examples)}"
            )
    else:
        print(f"{path}: valid; {_count(len(policy.checks), 'check')}; {_count(len(policy.columns), 'column')}")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
