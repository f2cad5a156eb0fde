"""What the commands print on the terminal: every text that came from the input (check ids, messages,
file names, values) goes through :func:`printable`, so a newline or an escape sequence in a policy or a
table cannot fake a line (``verdict: PASS``) or drive the terminal."""

from __future__ import annotations

from privaudit.plugin.text import printable  # noqa: F401 (re-exported for the commands)

STATUS_MARK = {"pass": "PASS", "fail": "FAIL", "error": "ERROR"}


def print_audit(result, out) -> None:
    """One line per check, the utility sentence (what the release keeps), then the verdict."""
    width = max([len(printable(c.id)) for c in result.checks] + [5])
    for c in result.checks:
        mark = STATUS_MARK[c.status] if c.severity == "error" or c.status != "fail" else "WARN"
        line = f"{mark:5}  {printable(c.id):<{width}}  {printable(c.message)}"
        if getattr(c, "excepted", None):
            from privaudit.report.diff import excepted_words

            line += f" [{printable(excepted_words(c.excepted))}]"
        print(line, file=out)
    from privaudit.report.chapters.utility import headline

    sentence = headline(getattr(result, "utility", None) or [])
    if sentence:
        print(f"\nutility: {printable(sentence)}", file=out)
    summary = (
        f"{len(result.failed)} failed, {len(result.warned)} warned, {len(result.errored)} errored "
        f"of {len(result.checks)} checks"
    )
    excepted = len(getattr(result, "excepted", None) or [])
    if excepted:
        summary += f"; {excepted} failing check{'s' * (excepted != 1)} excepted by the policy"
    print(f"\nverdict: {'PASS' if result.passed else 'FAIL'} ({summary})", file=out)


def print_lost(lost: dict | None, out) -> None:
    """The "what was lost" table of a remediation (:mod:`privaudit.report.lost_table`)."""
    from privaudit.report.lost_table import lines

    for line in lines(lost or {}):
        print(printable(line), file=out)
