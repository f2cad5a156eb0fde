"""``privaudit diff BASE.json NEW.json``: compare two JSON reports (last quarter's approved release and today's
candidate, say). Exit code 1 when an error-severity check got worse beyond ``--tolerance`` or stopped passing,
0 otherwise, 2 on bad input (one line). ``audit --baseline BASE.json`` runs the audit and this comparison in
one step (:func:`baseline_outputs`). The comparison itself is :mod:`privaudit.report.diff`."""

from __future__ import annotations

import sys

from privaudit.cli.outputs import check_outputs, write_all
from privaudit.cli.terminal import printable
from privaudit.core.errors import PrivauditError
from privaudit.pipeline.arguments import FAIL_ON, TOLERANCE


def add_parser(sub) -> None:
    diff = sub.add_parser("diff", help="compare two JSON reports: what got worse between two audits")
    diff.add_argument("base", help="the JSON report to compare against (e.g. the approved release's)")
    diff.add_argument("new", help="the JSON report of the candidate")
    add_comparison_arguments(diff)
    diff.add_argument("--json", dest="json_out", metavar="OUT", help="write the comparison as JSON here ('-': stdout)")
    diff.add_argument(
        "--markdown",
        dest="markdown_out",
        metavar="OUT",
        help="write a Markdown summary here (a pull-request comment; '-': stdout)",
    )
    diff.add_argument("--html", dest="html_out", metavar="OUT", help="write an HTML page here ('-': stdout)")
    diff.add_argument(
        "--fail-on",
        type=FAIL_ON.cli,
        metavar="{error,warning}",
        default="error",
        help="which checks can regress: error-severity ones (default) or warnings too",
    )
    diff.add_argument("--quiet", action="store_true", help="print nothing but errors")


def add_comparison_arguments(parser) -> None:
    parser.add_argument(
        "--tolerance",
        metavar="T",
        default=None,
        help="how much worse a value may get before it counts: absolute (0.01) or relative to the "
        "value before (5%%); default 0",
    )
    parser.add_argument(
        "--allow-changed-policy",
        action="store_true",
        help="compare reports of different designs: anything in the policy that changes what is measured "
        "(the changes are listed first; an error check the new policy dropped or made a warning still counts "
        "as a regression)",
    )


def rendered(comparison: dict, outputs: dict[str, str | None]) -> list[tuple[str, str]]:
    """The comparison in every format asked for (``json``, ``markdown``, ``html`` -> path)."""
    from privaudit.report import diff as rd

    render = {"json": rd.to_json, "markdown": rd.markdown, "html": rd.html}
    return [(path, render[kind](comparison)) for kind, path in outputs.items() if path]


def print_comparison(comparison: dict, out) -> None:
    from privaudit.report.diff import terminal_text

    for line in terminal_text(comparison).splitlines():
        print(printable(line), file=out)


def run(args) -> int:
    from privaudit.report.diff import NO_TOLERANCE, compare
    from privaudit.report.diff_input import read_report

    outputs = {"json": args.json_out, "markdown": args.markdown_out, "html": args.html_out}
    for flag, path in outputs.items():
        if path is not None and not str(path).strip():
            raise PrivauditError(f"--{flag}: the output path is empty")
    check_outputs([p for p in outputs.values() if p], [args.base, args.new])
    tolerance = NO_TOLERANCE if args.tolerance is None else TOLERANCE.value(args.tolerance, api=False)
    base, new = read_report(args.base, "base"), read_report(args.new, "new")
    comparison = compare(base, new, tolerance, args.allow_changed_policy, (str(args.base), str(args.new)), args.fail_on)
    to_stdout = any(p == "-" for p in outputs.values())
    write_all(rendered(comparison, outputs))
    if not args.quiet and not to_stdout:
        print_comparison(comparison, sys.stdout)
    return comparison["exit_code"]


def baseline_outputs(args) -> dict[str, str | None]:
    """The comparison outputs of ``audit --baseline`` (``--diff-json``, ``--diff-markdown``, ``--diff-html``)."""
    outputs = {"json": args.diff_json, "markdown": args.diff_markdown, "html": args.diff_html}
    if any(outputs.values()) and not args.baseline:
        flag = next(f"--diff-{k}" for k, v in outputs.items() if v)
        raise PrivauditError(f"{flag} compares with a baseline: pass --baseline BASE.json")
    return outputs


def add_baseline_arguments(parser) -> None:
    parser.add_argument(
        "--baseline",
        metavar="BASE.json",
        help="compare the audit with this JSON report (as "
        "privaudit diff does); the exit code is then the comparison's: 1 on a regression",
    )
    add_comparison_arguments(parser)
    parser.add_argument("--diff-json", metavar="OUT", help="with --baseline: write the comparison as JSON here")
    parser.add_argument("--diff-markdown", metavar="OUT", help="with --baseline: write the comparison as Markdown here")
    parser.add_argument("--diff-html", metavar="OUT", help="with --baseline: write the comparison as HTML here")
