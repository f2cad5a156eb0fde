"""``privaudit audit RELEASED --policy POLICY``: audit a release; the exit code is the verdict."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privaudit.cli.outputs import (
    add_report_arguments,
    check_outputs,
    finish,
    policy_files,
    progress_bar,
    render_reports,
    report_outputs,
    write_all,
)
from privaudit.cli.terminal import print_audit
from privaudit.common.formats import PARQUET_SUFFIXES
from privaudit.core.errors import PrivauditError

if TYPE_CHECKING:
    from privaudit.pipeline.audit import AuditResult

RECORD_FORMATS = (".csv", *PARQUET_SUFFIXES)  # --records: Parquet by suffix, else CSV


def add_parser(sub) -> None:
    audit = sub.add_parser("audit", help="audit a released table against a policy")
    audit.add_argument(
        "released",
        nargs="?",
        help="the released table: a CSV or Parquet file, a directory, a glob "
        "or an object-store URI (s3://, gs://, abfs://)",
    )
    audit.add_argument("--policy", required=True, help="policy YAML file")
    audit.add_argument(
        "--original",
        help="the original table (same rows, or joined by a record_id column); for a "
        "synthetic release, the training table it was generated from",
    )
    audit.add_argument(
        "--control",
        help="a holdout (control) table from the same population, not used to make the "
        "release (synthetic-release checks)",
    )
    audit.add_argument(
        "--previous",
        action="append",
        default=[],
        metavar="FILE",
        help="an earlier release of the same population (repeatable), for the checks that compose "
        "releases (see 'privaudit plugins')",
    )
    from privaudit.cli.options import registry_wanted
    from privaudit.core.errors import PrivauditError
    from privaudit.engines import engines
    from privaudit.pipeline.arguments import ENGINE

    try:  # the registered engines (privaudit.plugin.engine), when this command's parser is the one in use
        known = engines() if registry_wanted("audit") else {}
    except PrivauditError:  # a broken plugin: the command says so in one line when it builds the registry
        known = {}

    audit.add_argument(
        "--engine",
        type=ENGINE.cli,
        metavar="{" + ",".join(known) + "}" if known else "ENGINE",
        default="in-process",
        help="who computes the class summary: "
        + "; ".join(f"{name}: {spec.description}" for name, spec in known.items()),
    )
    audit.add_argument(
        "--engine-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the engine (repeatable): duckdb threads, memory_limit, temp_directory, "
        "database; spark master, shuffle_partitions, driver_memory; chunked batch_rows ...",
    )
    audit.add_argument(
        "--table",
        help="audit this table of the engine's catalog instead of a file (duckdb: with "
        "--engine-option database=FILE; spark: a table of the session's catalog)",
    )
    audit.add_argument(
        "--records",
        dest="records_out",
        metavar="OUT",
        help="write per-record risk here (.csv or .parquet; in-process engine)",
    )
    from privaudit.pipeline.arguments import TODAY

    audit.add_argument(
        "--today",
        type=TODAY.cli,
        metavar="DATE",
        help="judge the policy's exceptions on this day (YYYY-MM-DD; default: SOURCE_DATE_EPOCH's day, else today)",
    )
    audit.add_argument(
        "--sheet", metavar="NAME", help="the sheet of an .xlsx or .ods file to read (default: the first)"
    )
    add_report_arguments(audit)
    from privaudit.cli.diff import add_baseline_arguments

    add_baseline_arguments(audit)


def run(args) -> int:
    from privaudit.pipeline.audit import run_audit

    options, diff_outputs = _checked_arguments(args)
    baseline = _baseline(args)
    bar = progress_bar(args)
    try:
        result = run_audit(
            args.released,
            args.policy,
            original=args.original,
            control=args.control,
            previous=args.previous or None,
            allow_outside_paths=args.allow_outside_paths,
            progress=bar,
            engine=args.engine,
            check_timeout=args.check_timeout,
            today=args.today,
            **options,
        )
    finally:
        bar.close()
    rendered = render_reports(result, args)
    if args.records_out:
        from privaudit.remediation.export import table_bytes
        from privaudit.report.records import records_frame

        rendered.append((args.records_out, table_bytes(records_frame(result), args.records_out, na_rep="")))
    comparison = None
    if baseline is not None:
        comparison = _comparison(result, baseline, args)
        from privaudit.cli.diff import rendered as rendered_comparison

        rendered += rendered_comparison(comparison, diff_outputs)
    write_all(rendered)  # all rendered before any is written
    if not args.quiet:
        print_audit(result, sys.stdout)
        if comparison is not None:
            from privaudit.cli.diff import print_comparison

            print("", file=sys.stdout)
            print_comparison(comparison, sys.stdout)
    code = finish(result, args)
    if comparison is None or code == 2:
        return code
    # a gate never passes a failing release: the audit's verdict stands, and a regression fails the run too
    return max(code, comparison["exit_code"])


def _checked_arguments(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """The engine options and the comparison's outputs, once every argument has been checked and no output
    would overwrite an input: a bad argument is one line before any work."""
    from privaudit.cli.options import parse_options
    from privaudit.pipeline.arguments import POLICY

    POLICY.value(args.policy, api=False)  # as the API validates policy=
    options = parse_options(args.engine_option, "--engine-option")
    if args.table is not None:
        if args.released:
            raise PrivauditError(f"give either RELEASED ({args.released}) or --table {args.table}, not both")
        options["table"] = args.table
    elif not args.released:
        raise PrivauditError("audit needs RELEASED (a file, directory, glob or URI) or --table NAME")

    if args.records_out and args.engine != "in-process":
        raise PrivauditError(
            f"--records needs the in-process engine (per-record view); the {args.engine} engine "
            "summarises classes, not records"
        )
    if args.records_out and args.records_out != "-":  # a device or FIFO (no suffix) gets CSV
        suffix = Path(args.records_out).suffix.lower()
        if suffix and suffix not in RECORD_FORMATS:
            raise PrivauditError(f"--records {args.records_out}: unknown format {suffix!r}; use .csv or .parquet")
    from privaudit.cli.diff import baseline_outputs

    diff_outputs = baseline_outputs(args)
    if not args.baseline and (args.tolerance is not None or args.allow_changed_policy):
        flag = "--tolerance" if args.tolerance is not None else "--allow-changed-policy"
        raise PrivauditError(f"{flag} compares with a baseline: pass --baseline BASE.json")
    outputs = report_outputs(args) + ([args.records_out] if args.records_out else [])
    outputs += [p for p in diff_outputs.values() if p]
    if options.get("jvm_log") is not None:  # the spark engine's log is an output too: never over an input
        outputs.append(str(options["jvm_log"]))
    check_outputs(
        outputs,
        [
            args.released,
            args.original,
            args.control,
            args.policy,
            *args.previous,
            args.baseline,
            *policy_files(args.policy),
        ],
    )
    return options, diff_outputs


def _baseline(args: argparse.Namespace) -> tuple[dict[str, Any], tuple[str, float]] | None:
    """``--baseline``'s report and the ``--tolerance`` to compare with, if any: read before any work, so a
    bad baseline is one line, and no audit runs."""
    if not args.baseline:
        return None
    from privaudit.pipeline.arguments import TOLERANCE
    from privaudit.report.diff import NO_TOLERANCE
    from privaudit.report.diff_input import read_report

    tolerance = NO_TOLERANCE if args.tolerance is None else TOLERANCE.value(args.tolerance, api=False)
    return read_report(args.baseline, "baseline"), tolerance


def _comparison(
    result: AuditResult, baseline: tuple[dict[str, Any], tuple[str, float]], args: argparse.Namespace
) -> dict[str, Any]:
    """This audit compared with the baseline's report (:func:`privaudit.report.diff.compare`)."""
    base, tolerance = baseline
    from privaudit.report.diff import compare
    from privaudit.report.json_report import report_of

    return compare(
        base,
        report_of(result),
        tolerance,
        args.allow_changed_policy,
        (str(args.baseline), "this audit"),
        args.fail_on,
    )
