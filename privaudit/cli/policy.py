"""``privaudit policy check|schema``: validate a policy (and that a table fits it), print its JSON Schema."""

from __future__ import annotations

import json


def add_parser(sub) -> None:
    policy = sub.add_parser("policy", help="policy tools")
    psub = policy.add_subparsers(dest="policy_command", required=True, metavar="ACTION")
    psub.add_parser("schema", help="print the policy's JSON Schema (with plugin assessors)")
    check = psub.add_parser("check", help="validate a policy, optionally against a table's columns")
    check.add_argument("policy", help="policy YAML file")
    check.add_argument("--data", help="a table whose columns and values the policy must fit")
    check.add_argument("--allow-outside-paths", action="store_true")


def run(args) -> int:
    from privaudit.core.plugins import get_registry

    registry = get_registry()
    if args.policy_command == "schema":
        from privaudit.core.schema import policy_json_schema

        print(json.dumps(policy_json_schema(registry), indent=2))
        return 0
    from privaudit.core.policy import load_policy

    policy = load_policy(args.policy, registry, allow_outside_paths=args.allow_outside_paths)
    if args.data:
        from privaudit.core.data import load_table

        table = load_table(args.data, policy)
        print(f"{args.policy}: valid; {len(policy.checks)} checks; fits {args.data} ({table.rows} rows)")
    else:
        print(f"{args.policy}: valid; {len(policy.checks)} checks, {len(policy.columns)} columns")
    return 0
