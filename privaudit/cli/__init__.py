"""The ``privaudit`` command line: one module per command, each with ``add_parser(sub)`` and ``run(args)``.

Exit codes: 0 every error-severity check passed; 1 at least one failed; 2 bad input or usage, or a
check ended in error. Bad input is one line on stderr, never a traceback, and leaves no output file.

A new command is a module here listed in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys

# Our matrix products are small: BLAS worker threads only contend for the cores, worst when the
# machine is loaded. Set before numpy is first imported; an explicit setting by the user wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
from collections.abc import Sequence  # noqa: E402 (after the BLAS settings)

from privaudit import __version__  # noqa: E402 (after the BLAS settings)
from privaudit.cli.terminal import printable  # noqa: E402 (after the BLAS settings)
from privaudit.core.errors import PrivauditError, first_line  # noqa: E402 (after the BLAS settings)

#: Command name -> module (in ``privaudit.cli``) with ``add_parser(sub)`` and ``run(args)``, in help order.
COMMANDS = {
    "audit": "audit",
    "policy": "policy",
    "remediate": "remediate",
    "plugins": "plugins",
    "init": "init",
    "report": "report",
    "diff": "diff",
    "determination": "determination",
}


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (a CI log shows the error, not a page of usage), exit 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {printable(message)} (see '{self.prog} --help')\n")


def _selected(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs (its first word that names one), or None (``--help``, ``--version``)."""
    return next((a for a in argv if a in COMMANDS), None)


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser; given ``argv``, only the command it runs reads the plugin registry while
    its parser is built (``privaudit --help`` loads none)."""
    from privaudit.cli.options import parsing_for

    with parsing_for("*" if argv is None else _selected(argv)):
        return _build_parser()


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="privaudit", description="Privacy audit and compliance checks for microdata releases.")
    parser.add_argument("--version", action="version", version=f"privaudit {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS.values():
        importlib.import_module(f"{__name__}.{module}").add_parser(sub)
    return parser


def _stopped(exc: KeyboardInterrupt) -> int:
    """Ctrl-C (exit 130) or SIGTERM (exit 143): staged outputs were dropped on the way out."""
    from privaudit.runtime.guard import Terminated

    terminated = isinstance(exc, Terminated)
    print(f"privaudit: {'terminated' if terminated else 'interrupted'}; no output was written", file=sys.stderr)
    return 143 if terminated else 130


def main(argv: Sequence[str] | None = None) -> int:
    import signal

    previous = signal.getsignal(signal.SIGTERM)
    try:
        from privaudit.runtime import guard, memory  # light: no numpy or pandas yet

        guard.terminate_like_interrupt()  # SIGTERM behaves as Ctrl-C does: no partial output
        return _main(argv, memory)
    except KeyboardInterrupt as exc:  # while the command starts, or while an error is being reported
        return _stopped(exc)
    finally:
        if previous is not None and threading_main():
            signal.signal(signal.SIGTERM, previous)


def threading_main() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _escape_unencodable() -> None:
    """Text the terminal's encoding cannot show (``PYTHONIOENCODING=ascii``, ``LANG=C`` on old systems) is
    printed as backslash escapes, not an internal error; reports written to ``-`` are bytes, unaffected."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # a stream redirected in process (StringIO)
            pass


@contextlib.contextmanager
def _warnings_as_lines(debug: bool):
    """Standard error carries privaudit's own lines: its notices (:class:`PrivauditWarning`) as one line each,
    every other Python warning (a library's FutureWarning, numpy's "Mean of empty slice" on an all-missing
    column) only with --debug, never a source path and line on an ordinary run."""
    import warnings

    from privaudit.core.errors import PrivauditWarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if issubclass(category, PrivauditWarning):
            print(f"privaudit: warning: {printable(str(message))}", file=sys.stderr)
        elif debug:
            print(
                f"privaudit: debug: {filename}:{lineno}: {category.__name__}: {printable(str(message))}",
                file=sys.stderr,
            )

    with warnings.catch_warnings():
        warnings.simplefilter("always", PrivauditWarning)
        warnings.showwarning = show
        yield


@contextlib.contextmanager
def _sheet(name: str | None):
    """``--sheet NAME``: the sheet the spreadsheet readers read for this run (privaudit/io/office.py)."""
    if name is None:
        yield
        return
    from privaudit.io.office import SHEET

    token = SHEET.set(name)
    try:
        yield
    finally:
        SHEET.reset(token)


def _main(argv: Sequence[str] | None, memory) -> int:
    _escape_unencodable()
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        args = _parser(argv).parse_args(argv)
    except KeyboardInterrupt as exc:  # Ctrl-C while the command starts
        return _stopped(exc)
    try:
        if getattr(args, "max_memory", None):
            memory.apply_max_memory(args.max_memory)
        with _warnings_as_lines(args.debug), _sheet(getattr(args, "sheet", None)):
            return importlib.import_module(f"{__name__}.{COMMANDS[args.command]}").run(args)
    except PrivauditError as exc:
        print(f"privaudit: error: {printable(exc)}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # output piped into a command that stopped reading (head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as exc:
        return _stopped(exc)
    except MemoryError:  # under --max-memory or ulimit -v: one line naming the step, never a traceback
        print(f"privaudit: error: {printable(memory.out_of_memory_message())}", file=sys.stderr)
        return 2
    except Exception as exc:  # never a traceback for users; --debug shows it
        if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc) and not args.debug:
            # no address space left for a thread's stack: memory ran out too
            print(f"privaudit: error: {printable(memory.out_of_memory_message())}", file=sys.stderr)
            return 2
        if args.debug:
            raise
        first = first_line(exc)
        print(
            f"privaudit: internal error: {type(exc).__name__}: {printable(first)} (run with --debug for details)",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
