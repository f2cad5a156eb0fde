"""What the commands print on the terminal: every text that came from the input (check ids, messages,
file names, values) goes through :func:`printable`, so a newline or an escape sequence in a policy or a
table cannot fake a line (``verdict: PASS``) or drive the terminal."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text) -> str:
    """``text`` with control characters shown as escapes (``\\n``, ``\\x1b``), never sent to the terminal."""
    return _CONTROL.sub(lambda m: {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(m.group(0), f"\\x{ord(m.group(0)):02x}"
                                                                          if ord(m.group(0)) < 256 else
                                                                          f"\\u{ord(m.group(0)):04x}"), str(text))

STATUS_MARK = {"pass": "PASS", "fail": "FAIL", "error": "ERROR"}


def print_audit(result, out) -> None:
    """One line per check, then the verdict."""
    width = max([len(printable(c.id)) for c in result.checks] + [5])
    for c in result.checks:
        mark = STATUS_MARK[c.status] if c.severity == "error" or c.status != "fail" else "WARN"
        print(f"{mark:5}  {printable(c.id):<{width}}  {printable(c.message)}", file=out)
    summary = (f"{len(result.failed)} failed, {len(result.warned)} warned, {len(result.errored)} errored "
               f"of {len(result.checks)} checks")
    print(f"\nverdict: {'PASS' if result.passed else 'FAIL'} ({summary})", file=out)
