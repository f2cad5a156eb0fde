"""What every report-writing command shares: the report options, the refusals made before any work, and
rendering every report before writing any."""

from __future__ import annotations

import argparse
import os
from functools import partial
from pathlib import Path
from typing import Any

from privaudit.core.errors import PrivauditError
from privaudit.pipeline.arguments import CHECK_TIMEOUT, FAIL_ON
from privaudit.runtime.atomic import is_special, stage_output

#: The flags every report-writing command adds after the formats' own: no output format may be named after one.
COMMON_FLAGS = ("--annotations", "--fail-on", "--quiet", "--allow-outside-paths", "--check-timeout", "--max-memory")


def output_formats() -> list[Any]:
    """The registered output formats (:class:`~privaudit.plugin.output.OutputFormat`), in registration order.
    When an installed plugin is broken the built-in ones are listed, so that ``--help`` still works: the
    command itself then stops with the one line naming the plugin, as it loads the registry again."""
    from privaudit.pipeline.plugins import build_registry, get_registry, make_manager

    try:
        registry = get_registry()
    except PrivauditError:
        registry = build_registry(make_manager(load_entry_points=False))
    return list(registry.of("output").values())


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    from privaudit.cli.options import registry_wanted

    taken = {flag for action in parser._actions for flag in action.option_strings} | set(COMMON_FLAGS)
    command = parser.prog.split()[-1]
    formats = output_formats() if registry_wanted(command) else []  # only the parser of the command being run
    for fmt in formats:  # one flag per registered format: --json OUT, --junit OUT ...
        if fmt.flag in taken:
            continue  # a format may not take over a flag of the command (its own options win)
        parser.add_argument(fmt.flag, dest=fmt.dest, metavar="OUT", help=fmt.help)
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


def requested(args: argparse.Namespace) -> list[tuple[Any, str]]:
    """The registered output formats the command line asked for, with their paths, in registration order."""
    return [(fmt, path) for fmt in output_formats() if (path := getattr(args, fmt.dest, None)) is not None]


def report_outputs(args: argparse.Namespace) -> list[str]:
    """The report paths the command line asked for; an empty one (``--json "$UNSET"``) is refused, and so is
    ``-`` for a format that cannot be written to standard output."""
    asked = requested(args)
    for flag, path in [
        *((fmt.flag, path) for fmt, path in asked),
        ("--records", getattr(args, "records_out", None)),
        ("--out", getattr(args, "out", None)),
    ]:
        if path is not None and not str(path).strip():
            raise PrivauditError(f"{flag}: the output path is empty")
    for fmt, path in asked:
        if str(path) == "-" and not fmt.stdout:
            raise PrivauditError(f"{fmt.flag}: this format cannot be written to standard output (-); give a file")
    return [path for _, path in asked]


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
    from privaudit.plugin.output import OutputRequest
    from privaudit.report.json_report import report_of
    from privaudit.runtime.guard import PluginFailure, call_plugin

    cache: dict[str, Any] = {}  # what the formats of this run share: the report's data, the HTML page
    rendered: list[tuple[str, bytes | str]] = []
    registry = getattr(result, "registry", None)
    for fmt, path in requested(args):
        request = OutputRequest(str(path), args.fail_on, result, cache, report_of)
        origin = registry.origin.get(f"output:{fmt.name}") if registry is not None else None
        if origin is None or origin.package == "privaudit":
            content = fmt.render(result, request)  # a built-in's failure is an internal error, as before
        else:
            try:
                content = call_plugin(partial(fmt.render, result, request), f"output format {fmt.name!r}", origin)
            except PluginFailure as exc:
                raise PrivauditError(f"{fmt.flag} {path}: {exc}") from None
        if not isinstance(content, (str, bytes)):
            raise PrivauditError(
                f"{fmt.flag} {path}: output format {fmt.name!r} rendered {type(content).__name__}, not text or bytes"
            )
        rendered.append((str(path), content))
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
