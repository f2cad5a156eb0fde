"""``privaudit determination [RELEASED] --policy POLICY --original ORIGINAL`` (or ``--report REPORT.json``): the
de-identification determination a privacy officer files, as HTML, PDF/A and DOCX. Exit code 0 when it
concludes that the risk is very small for the policy's context, 1 when it does not, 2 on bad input."""

from __future__ import annotations

import sys


def add_parser(sub) -> None:
    det = sub.add_parser(
        "determination",
        help="write the de-identification determination of a release (HTML, PDF/A, DOCX)",
    )
    det.add_argument("released", nargs="?", help="the released table (default with --report: the report's input)")
    det.add_argument("--policy", help="policy YAML file (default with --report: the report's policy)")
    det.add_argument("--original", required=True, help="the original table, before de-identification")
    det.add_argument(
        "--report", metavar="REPORT.json", help="the audit's JSON report (privaudit audit --json): no audit is run"
    )
    det.add_argument(
        "--previous", action="append", default=[], metavar="FILE", help="an earlier release (repeatable), as audit's"
    )
    det.add_argument("--html", dest="html_out", metavar="OUT", help="write the determination as HTML here")
    det.add_argument("--pdf", dest="pdf_out", metavar="OUT", help="write it as PDF/A-3b (report and policy attached)")
    det.add_argument("--docx", dest="docx_out", metavar="OUT", help="write it as a Word document")
    det.add_argument("--signer", help="who signs (default: the policy's context.signer)")
    det.add_argument("--role", help="the signer's role (default: context.role)")
    det.add_argument(
        "--conditions",
        action="append",
        metavar="TEXT",
        help="a condition of the release (repeatable; default: context.conditions)",
    )
    det.add_argument("--review-date", metavar="DATE", help="when the determination is reviewed (YYYY-MM-DD)")
    det.add_argument("--date", metavar="DATE", help="the signature's date (default: the audit's day)")
    det.add_argument("--today", metavar="DATE", help="judge the policy's exceptions on this day (as audit's)")
    det.add_argument("--allow-outside-paths", action="store_true", help="let the policy name files outside its folder")
    det.add_argument("--quiet", action="store_true", help="print nothing but errors")


def run(args) -> int:
    from privaudit.cli.outputs import check_outputs, policy_files, write_all
    from privaudit.core.errors import PrivauditError
    from privaudit.pipeline.determination import determine, signer_options

    outputs = {"html": args.html_out, "pdf": args.pdf_out, "docx": args.docx_out}
    if not any(outputs.values()):
        raise PrivauditError("determination writes a document: give --html, --pdf or --docx OUT")
    options = signer_options(args.signer, args.role, args.conditions, args.review_date, args.date)
    check_outputs(
        [p for p in outputs.values() if p],
        [args.released, args.original, args.policy, args.report, *args.previous, *policy_files(args.policy)],
    )
    audit_options = {"allow_outside_paths": args.allow_outside_paths}
    if args.report is None:
        audit_options.update(previous=args.previous or None, today=args.today)
    elif args.previous or args.today:
        raise PrivauditError("--previous and --today go to the audit: with --report the audit has already run")
    result = determine(args.released, args.policy, args.original, args.report, options, **audit_options)
    render = {"html": lambda: result.to_html().encode("utf-8"), "pdf": result.to_pdf, "docx": result.to_docx}
    write_all([(path, render[kind]()) for kind, path in outputs.items() if path])
    if not args.quiet:
        f = result.figures
        print(
            f"determination: {f['measure']} risk {f['residual']:.4g} (original {f['initial']:.4g}), threshold "
            f"{f['threshold']:g}: {'very small' if f['very_small'] else 'NOT shown to be very small'}",
            file=sys.stdout,
        )
    return 0 if result.very_small else 1
