"""``privaudit remediate``: transform a failing release until its re-audit passes, or list the methods."""

from __future__ import annotations

import sys
from pathlib import Path

from privaudit.cli.outputs import (add_report_arguments, check_outputs, policy_files, progress_bar,
                                   render_reports, report_outputs, write_all)
from privaudit.cli.terminal import print_audit, printable
from privaudit.core.errors import PrivauditError

OUT_FORMATS = (".csv", ".tsv", ".txt", ".parquet", ".pq")  # --out: Parquet by suffix, else CSV (what privaudit reads)


def add_parser(sub) -> None:
    remediate = sub.add_parser("remediate", help="transform a failing release until its re-audit passes")
    remediate.add_argument("released", nargs="?", help="the released table (CSV or Parquet)")
    remediate.add_argument("--list", action="store_true", help="list the remediation methods and exit")
    remediate.add_argument("--policy", help="policy YAML file (its checks are the targets)")
    remediate.add_argument("--method", help="remediation method (default: the policy's remediation.method)")
    remediate.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                           help="a method option (repeatable), e.g. --option max_suppression=0.05")
    remediate.add_argument("--out", help="where to write the remediated table (only when its re-audit passes)")
    add_report_arguments(remediate)


def _list(registry) -> int:
    for name in sorted(registry.remediators):
        r = registry.remediators[name]
        fields = ", ".join(f"{f}={info.default!r}" if not info.is_required() else f
                           for f, info in r.options.model_fields.items())
        print(f"{name:<16} {r.description}\n{'':<16} options: {fields or '(none)'}")
    return 0


def run(args) -> int:
    from privaudit.core.plugins import get_registry

    registry = get_registry()
    if args.list:
        return _list(registry)
    if not args.released or not args.policy or not args.out:
        raise PrivauditError("remediate needs RELEASED, --policy and --out (or --list)")
    from privaudit.cli.options import parse_options
    from privaudit.remediation.engine import remediate

    suffix = Path(args.out).suffix.lower() if args.out != "-" else ""
    if suffix and suffix not in OUT_FORMATS:  # a device or FIFO (no suffix) gets CSV
        raise PrivauditError(f"--out {args.out}: unknown format {suffix!r}; use .csv or .parquet (a table privaudit "
                             "can read again)")
    inputs = [args.released, args.policy, *policy_files(args.policy)]
    check_outputs([args.out, *report_outputs(args)], inputs)
    bar = progress_bar(args)
    try:
        outcome = remediate(args.released, args.policy, args.out, method=args.method,
                            options=parse_options(args.option), registry=registry, progress=bar,
                            allow_outside_paths=args.allow_outside_paths, check_timeout=args.check_timeout)
    finally:
        bar.close()
    rendered = render_reports(outcome.after, args)
    if outcome.offered:
        rendered.insert(0, (args.out, outcome.output))
        for suffix, data in outcome.remediation.artefacts.items():
            rendered.append((str(Path(args.out).with_suffix("")) + suffix, data))
        check_outputs([path for path, _ in rendered], inputs)  # the artefacts' names are known only now
    write_all(rendered)
    if not args.quiet:
        _print_outcome(outcome, args.out)
    return 0 if outcome.offered else (2 if outcome.after.errored else 1)


def _print_outcome(outcome, out: str) -> None:
    rem = outcome.after.remediation
    print(f"before: {'PASS' if outcome.before.passed else 'FAIL'} "
          f"({len(outcome.before.failed)} failed)  ->  after {rem['method']}: "
          f"{'PASS' if outcome.offered else 'FAIL'} ({len(outcome.after.failed)} failed)")
    for key, value in rem["loss"].items():
        if not isinstance(value, (dict, list)):  # nested figures are in the reports
            print(f"  {key}: {value:.6g}" if isinstance(value, float) else f"  {key}: {value}")
    for note in rem["notes"]:
        print(f"  note: {printable(note)}")
    print(f"wrote {out}" if outcome.offered else
          "no remediated table written: its re-audit does not pass (see the report)")
    print_audit(outcome.after, sys.stdout)
