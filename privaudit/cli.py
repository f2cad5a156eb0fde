"""The ``privaudit`` command line.

Exit codes: 0 every error-severity check passed; 1 at least one failed; 2 bad input or usage, or a
check ended in error. Bad input is one line on stderr, never a traceback, and leaves no output file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

# Our matrix products are small: BLAS worker threads only contend for the cores (measured 20x slower
# under load). Set before numpy is first imported; an explicit setting by the user wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
from pathlib import Path
from typing import Sequence

from privaudit import __version__
from privaudit.core.atomic import atomic_write
from privaudit.core.errors import PrivauditError

STATUS_MARK = {"pass": "PASS", "fail": "FAIL", "error": "ERROR"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="privaudit", description="Privacy audit and compliance checks for microdata releases."
    )
    parser.add_argument("--version", action="version", version=f"privaudit {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    audit = sub.add_parser("audit", help="audit a released table against a policy")
    audit.add_argument("released", help="the released table (CSV or Parquet)")
    audit.add_argument("--policy", required=True, help="policy YAML file")
    audit.add_argument("--original", help="the original table (same rows, or joined by a record_id column)")
    audit.add_argument("--engine", choices=["in-process", "chunked", "duckdb", "spark"], default="in-process",
                       help="who computes the class summary: in memory (default), in chunks past memory, "
                       "DuckDB, or Spark")
    _report_arguments(audit)

    policy = sub.add_parser("policy", help="policy tools")
    psub = policy.add_subparsers(dest="policy_command", required=True, metavar="ACTION")
    psub.add_parser("schema", help="print the policy's JSON Schema (with plugin assessors)")
    check = psub.add_parser("check", help="validate a policy, optionally against a table's columns")
    check.add_argument("policy", help="policy YAML file")
    check.add_argument("--data", help="a table whose columns and values the policy must fit")
    check.add_argument("--allow-outside-paths", action="store_true")

    remediate = sub.add_parser("remediate", help="transform a failing release until its re-audit passes")
    remediate.add_argument("released", nargs="?", help="the released table (CSV or Parquet)")
    remediate.add_argument("--list", action="store_true", help="list the remediation methods and exit")
    remediate.add_argument("--policy", help="policy YAML file (its checks are the targets)")
    remediate.add_argument("--method", help="remediation method (default: the policy's remediation.method)")
    remediate.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                           help="a method option (repeatable), e.g. --option max_suppression=0.05")
    remediate.add_argument("--out", help="where to write the remediated table (only when its re-audit passes)")
    _report_arguments(remediate)

    sub.add_parser("plugins", help="list assessors and remediators with their source package")
    return parser


def _report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", dest="json_out", metavar="OUT", help="write the JSON report here")
    parser.add_argument("--html", dest="html_out", metavar="OUT", help="write the HTML report here")
    parser.add_argument("--pdf", dest="pdf_out", metavar="OUT", help="write the PDF report here")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors; no progress bar")
    parser.add_argument("--allow-outside-paths", action="store_true",
                        help="let the policy reference files outside its own folder")


def _print_audit(result, out) -> None:
    width = max([len(c.id) for c in result.checks] + [5])
    for c in result.checks:
        mark = STATUS_MARK[c.status] if c.severity == "error" or c.status != "fail" else "WARN"
        print(f"{mark:5}  {c.id:<{width}}  {c.message}", file=out)
    summary = (f"{len(result.failed)} failed, {len(result.warned)} warned, {len(result.errored)} errored "
               f"of {len(result.checks)} checks")
    print(f"\nverdict: {'PASS' if result.passed else 'FAIL'} ({summary})", file=out)


def _check_outputs(outputs: list[str], inputs: list[str | None]) -> None:
    """Refuse before any work: a missing output folder, or an output that is one of the inputs."""
    for p in outputs:
        folder = Path(p).parent
        if not folder.is_dir():
            raise PrivauditError(f"{p}: the output folder {str(folder)!r} does not exist")
        for src in inputs:
            if src and Path(src).exists() and Path(p).exists() and os.path.samefile(src, p):
                raise PrivauditError(f"{p}: an output would overwrite an input file")


def _render_reports(result, args) -> list[tuple[str, bytes | str]]:
    from privaudit.report.json_report import render_json

    rendered: list[tuple[str, bytes | str]] = []
    if args.json_out:
        rendered.append((args.json_out, render_json(result)))
    if args.html_out or args.pdf_out:
        from privaudit.report.html import render_html

        html = render_html(result)
        if args.html_out:
            rendered.append((args.html_out, html))
        if args.pdf_out:
            from privaudit.report.pdf import render_pdf

            rendered.append((args.pdf_out, render_pdf(html)))
    return rendered


def _progress(args):
    from privaudit.core.progress import ProgressBar

    return ProgressBar(enabled=False if args.quiet else None)


def cmd_audit(args) -> int:
    from privaudit.core.audit import run_audit

    _check_outputs([p for p in (args.json_out, args.html_out, args.pdf_out) if p],
                   [args.released, args.original, args.policy])
    bar = _progress(args)
    try:
        result = run_audit(args.released, args.policy, original=args.original,
                           allow_outside_paths=args.allow_outside_paths, progress=bar, engine=args.engine)
    finally:
        bar.close()
    for path, data in _render_reports(result, args):  # all rendered before any is written
        atomic_write(path, data)
    if not args.quiet:
        _print_audit(result, sys.stdout)
    return result.exit_code


def cmd_remediate(args) -> int:
    from privaudit.core.plugins import get_registry

    registry = get_registry()
    if args.list:
        for name in sorted(registry.remediators):
            r = registry.remediators[name]
            fields = ", ".join(f"{f}={info.default!r}" if not info.is_required() else f
                               for f, info in r.options.model_fields.items())
            print(f"{name:<16} {r.description}\n{'':<16} options: {fields or '(none)'}")
        return 0
    if not args.released or not args.policy or not args.out:
        raise PrivauditError("remediate needs RELEASED, --policy and --out (or --list)")
    from privaudit.remediation.engine import parse_options, remediate

    outputs = [p for p in (args.out, args.json_out, args.html_out, args.pdf_out) if p]
    _check_outputs(outputs, [args.released, args.policy])
    bar = _progress(args)
    try:
        outcome = remediate(args.released, args.policy, args.out, method=args.method,
                            options=parse_options(args.option), registry=registry, progress=bar,
                            allow_outside_paths=args.allow_outside_paths)
    finally:
        bar.close()
    rendered = _render_reports(outcome.after, args)
    if outcome.offered:
        rendered.insert(0, (args.out, outcome.output))
        for suffix, data in outcome.remediation.artefacts.items():
            rendered.append((str(Path(args.out).with_suffix("")) + suffix, data))
    for path, data in rendered:
        atomic_write(path, data)
    if not args.quiet:
        rem = outcome.after.remediation
        print(f"before: {'PASS' if outcome.before.passed else 'FAIL'} "
              f"({len(outcome.before.failed)} failed)  ->  after {rem['method']}: "
              f"{'PASS' if outcome.offered else 'FAIL'} ({len(outcome.after.failed)} failed)")
        for key, value in rem["loss"].items():
            if not isinstance(value, (dict, list)):  # nested figures are in the reports
                print(f"  {key}: {value:.6g}" if isinstance(value, float) else f"  {key}: {value}")
        for note in rem["notes"]:
            print(f"  note: {note}")
        print(f"wrote {args.out}" if outcome.offered else
              "no remediated table written: its re-audit does not pass (see the report)")
        _print_audit(outcome.after, sys.stdout)
    return 0 if outcome.offered else (2 if outcome.after.errored else 1)


def cmd_policy(args) -> int:
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


def cmd_plugins(args) -> int:
    from privaudit.core.plugins import get_registry

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


COMMANDS = {"audit": cmd_audit, "policy": cmd_policy, "plugins": cmd_plugins, "remediate": cmd_remediate}


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except PrivauditError as exc:
        print(f"privaudit: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # output piped into a command that stopped reading (head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("privaudit: interrupted; no output was written", file=sys.stderr)
        return 130
    except Exception as exc:  # never a traceback for users; --debug shows it
        if args.debug:
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(f"privaudit: internal error: {type(exc).__name__}: {first} (run with --debug for details)",
              file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
