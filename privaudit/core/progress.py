"""A progress bar for long-running work, on stderr, only on a terminal.

Assessors and remediators call ``ctx.progress(label, done, total)``; nothing is drawn until the work has
taken ``delay`` seconds (about 2 s), nor when stderr is not a TTY or ``--quiet`` was given.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    def __init__(self, enabled: bool | None = None, stream: TextIO | None = None, delay: float = 2.0,
                 width: int = 30):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.delay = delay
        self.width = width
        self._started: dict[str, float] = {}
        self._drawn = False

    def __call__(self, label: str, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        now = time.monotonic()
        start = self._started.setdefault(label, now)
        if now - start < self.delay and done < total:
            return
        share = min(max(done / total, 0.0), 1.0)
        filled = int(round(share * self.width))
        self.stream.write(f"\r{label[:40]:<40} [{'#' * filled}{'.' * (self.width - filled)}] {share:6.1%}")
        self._drawn = True
        if done >= total:
            self.stream.write("\n")
            self._drawn = False
            self._started.pop(label, None)
        self.stream.flush()

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False

