"""commit-msg hook: the subject is one line of at most 72 characters, and a body is parted from it by a blank
line. Usage (pre-commit passes the message file): ``python3 scripts/check_commit_subject.py MSGFILE``."""

from __future__ import annotations

import sys
from pathlib import Path

LIMIT = 72


def problems(message: str) -> list[str]:
    lines = [line for line in message.splitlines() if not line.startswith("#")]
    if not lines or not lines[0].strip():
        return ["the commit message has no subject line"]
    found = []
    if len(lines[0]) > LIMIT:
        found.append(f"the subject is {len(lines[0])} characters long; at most {LIMIT}")
    if len(lines) > 1 and lines[1].strip():
        found.append("the second line must be blank: the detail goes in the body, after a blank line")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: check_commit_subject.py MSGFILE", file=sys.stderr)
        return 2
    found = problems(Path(argv[1]).read_text(encoding="utf-8", errors="replace"))
    for line in found:
        print(f"{argv[1]}: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
