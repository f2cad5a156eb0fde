"""What every report-writing command shares: the report options, the refusals made before any work, and
rendering every report before writing any."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from privaudit.core.errors import PrivauditError
from privaudit.pipeline.arguments import CHECK_TIMEOUT, FAIL_ON
from privaudit.runtime.atomic import is_special, stage_output


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", dest="json_out", metavar="OUT", help="write the JSON report here")
    parser.add_argument("--html", dest="html_out", metavar="OUT", help="write the HTML report here")
    parser.add_argument("--pdf", dest="pdf_out", metavar="OUT", help="write the PDF report here")
    parser.add_argument("--junit", dest="junit_out", metavar="OUT", help="write JUnit XML here (a test case per check)")
    parser.add_argument(
        "--sarif", dest="sarif_out", metavar="OUT", help="write SARIF 2.1.0 here (code scanning: a result per check)"
    )
    parser.add_argument(
        "--markdown",
        dest="markdown_out",
        metavar="OUT",
        help="write a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)",
    )
    parser.add_argument("--annotations", choices=["github"], help="print GitHub Actions annotations for failing checks")
    parser.add_argument(
        "--fail-on",
        type=FAIL_ON.cli,
        metavar="{error,warning}",
        default="error",
        help="which failing checks fail the run: error-severity ones (default) or warnings too",
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors; no progress bar")
    parser.add_argument(
        "--allow-outside-paths", action="store_true", help="let the policy reference files outside its own folder"
    )
    parser.add_argument(
        "--check-timeout",
        type=CHECK_TIMEOUT.cli,
        metavar="SECONDS",
        help="end a check that runs longer as an error (default: the policy's check_timeout, else no limit)",
    )
    parser.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="the most memory (address space) privaudit may use, "
        "e.g. 4G: running out is one line naming the step, not a crash",
    )


def report_outputs(args) -> list[str]:
    """The report paths the command line asked for; an empty one (``--json "$UNSET"``) is refused."""
    flags = {
        "--json": args.json_out,
        "--html": args.html_out,
        "--pdf": args.pdf_out,
        "--junit": args.junit_out,
        "--sarif": args.sarif_out,
        "--markdown": args.markdown_out,
    }
    for flag, path in [
        *flags.items(),
        ("--records", getattr(args, "records_out", None)),
        ("--out", getattr(args, "out", None)),
    ]:
        if path is not None and not str(path).strip():
            raise PrivauditError(f"{flag}: the output path is empty")
    return [p for p in flags.values() if p]


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file: by resolved path, or by inode (hard links)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_outputs(outputs: list[str], inputs: list[str | Path | None]) -> None:
    """Refuse before any work: a missing output folder, an output that is a folder, one given twice or twice
    ``-``, and an output that is one of the inputs (the data, the policy and every file it names) -- compared
    by resolved path and by inode. Streams and devices (``-``, ``/dev/null``, a FIFO) are written through."""
    seen: list[Path] = []
    stdout = 0
    for p in outputs:
        if str(p) == "-":
            stdout += 1
            if stdout > 1:
                raise PrivauditError("- (standard output) is given for two outputs")
            continue
        path = Path(p)
        if path.is_dir():
            raise PrivauditError(f"{p}: is a directory, not an output file")
        folder = path.parent
        if not folder.is_dir():
            raise PrivauditError(f"{p}: the output folder {str(folder)!r} does not exist")
        if is_special(path):
            continue
        for other in seen:
            if same_file(path, other):
                raise PrivauditError(f"{p}: given for two outputs")
        seen.append(path)
        for src in inputs:
            if src is not None and str(src) != "-" and same_file(path, Path(src)):
                raise PrivauditError(f"{p}: an output would overwrite an input file ({src})")


def policy_files(policy: str | Path | None) -> list[Path]:
    """The files a policy names (hierarchies, population tables), resolved against its folder, read from the
    YAML without validating it (outputs must not overwrite them); [] when the file cannot be read."""
    if policy is None:
        return []
    from privaudit.core.policy import read_policy_document

    try:
        doc = read_policy_document(Path(policy))[0]
    except PrivauditError:
        return []
    folder = Path(policy).resolve().parent
    named = [spec.get("hierarchy") for spec in (doc.get("columns") or {}).values() if isinstance(spec, dict)]
    for check in (c for c in (doc.get("checks") or []) if isinstance(c, dict)):
        named.append(check.get("population"))
        randomized = check.get("randomized")
        if isinstance(randomized, dict):
            named += [r.get("matrix") for r in randomized.values() if isinstance(r, dict)]
    return [folder / n for n in named if isinstance(n, str)]


def render_reports(result, args) -> list[tuple[str, bytes | str]]:
    """Every report the command line asked for, rendered (nothing written yet); what plugin report code
    prints goes to standard error (it must not corrupt ``--json -``)."""
    from privaudit.runtime.guard import stdout_to_stderr
    from privaudit.runtime.memory import step

    with stdout_to_stderr(), step("rendering the reports"):
        return _render_reports(result, args)


def _render_reports(result, args) -> list[tuple[str, bytes | str]]:
    from privaudit.report.json_report import render_json, report_of

    data = report_of(result)  # the typed report, built once, read by every format
    rendered: list[tuple[str, bytes | str]] = []
    if args.json_out:
        rendered.append((args.json_out, render_json(data)))
    if args.junit_out or args.sarif_out or args.markdown_out:
        from privaudit.report.ci import junit_xml, markdown, sarif

        if args.junit_out:
            rendered.append((args.junit_out, junit_xml(data, args.fail_on)))
        if args.sarif_out:
            assessors = {c.assessor.name: c.assessor for c in result.policy.checks}
            rendered.append((args.sarif_out, sarif(data, args.fail_on, assessors)))
        if args.markdown_out:
            rendered.append((args.markdown_out, markdown(data, args.fail_on)))
    if args.html_out or args.pdf_out:
        from privaudit.report.html import render_html

        html = render_html(result)
        if args.html_out:
            rendered.append((args.html_out, html))
        if args.pdf_out:
            from privaudit.report.pdf import render_audit_pdf

            rendered.append((args.pdf_out, render_audit_pdf(result, html)))
    return rendered


def write_all(rendered: list[tuple[str, bytes | str]]) -> None:
    """Write what :func:`render_reports` (and the command) rendered, everything rendered before anything is
    written: streams and devices are written through and regular files staged beside their targets
    (:func:`~privaudit.runtime.atomic.stage_output`), then every staged file is renamed into place. If writing
    fails or is interrupted (Ctrl-C) before the renames, the staged files are dropped and every existing
    output file (or symbolic link) is left as it was, so that "no output was written" stays true of files."""
    staged: list = []
    try:
        for path, data in rendered:
            pending = stage_output(path, data)
            if pending is not None:
                staged.append(pending)
    except BaseException:
        for pending in staged:
            pending.discard()
        raise
    for i, pending in enumerate(staged):
        try:
            pending.commit()
        except BaseException:
            for rest in staged[i + 1 :]:
                rest.discard()
            raise


def progress_bar(args):
    from privaudit.runtime.progress import ProgressBar

    return ProgressBar(enabled=False if args.quiet else None)


def finish(result, args) -> int:
    """Print the annotations asked for and return the exit code, with ``--fail-on warning`` counting a failing
    warning check as a failure."""
    if args.annotations == "github":
        import sys

        from privaudit.report.ci import github_annotations
        from privaudit.report.json_report import report_of

        sys.stdout.write(github_annotations(report_of(result), args.fail_on))
    code = result.exit_code
    if code == 0 and args.fail_on == "warning" and result.warned:
        code = 1
    return code
