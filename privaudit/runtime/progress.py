"""A progress bar for long-running work, on stderr, only on a terminal.

Assessors and remediators call ``ctx.progress(label, done, total)``; nothing is drawn until the work has
taken ``delay`` seconds (about 2 s), nor when stderr is not a TTY or ``--quiet`` was given.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class ProgressBar:
    def __init__(self, enabled: bool | None = None, stream: TextIO | None = None, delay: float = 2.0, width: int = 30):
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


class TqdmProgress:
    """Progress as tqdm bars, one per label: widgets in a notebook (``tqdm.auto`` with ipywidgets), text
    elsewhere. The ``privaudit.audit``/``remediate`` API uses it inside a Jupyter kernel; the command line
    keeps :class:`ProgressBar`. Needs the ``notebook`` extra (tqdm, ipywidgets)."""

    def __init__(self, **tqdm_options) -> None:
        from tqdm.auto import tqdm

        self._tqdm = tqdm
        self._options = {"leave": False, **tqdm_options}
        self._bars: dict[str, object] = {}

    def __call__(self, label: str, done: int, total: int) -> None:
        if total <= 0:
            return
        bar = self._bars.get(label)
        if bar is None:
            bar = self._bars[label] = self._tqdm(total=total, desc=label[:40], **self._options)
        bar.total = total
        bar.update(max(min(done, total) - bar.n, 0))
        if done >= total:
            bar.close()
            del self._bars[label]

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (IPython's ZMQ shell)."""
    shell = sys.modules.get("IPython")
    try:
        return shell is not None and type(shell.get_ipython()).__name__ == "ZMQInteractiveShell"
    except Exception:  # noqa: BLE001 - IPython half-initialised: not a notebook
        return False


def api_progress(progress: Any) -> Any:
    """The progress callback of the library API: ``None`` (default) draws tqdm bars in a notebook when tqdm
    is installed and nothing elsewhere; ``True`` asks for tqdm bars (an error without tqdm); ``False`` none;
    a callable ``f(label, done, total)`` is used as is."""
    from privaudit.core.errors import PrivauditError

    if callable(progress):
        return progress
    if progress is False or (progress is None and not in_notebook()):
        return None
    try:
        return TqdmProgress()
    except ImportError:
        if progress is None:
            return None
        raise PrivauditError("progress bars need tqdm: pip install 'privaudit[notebook]'") from None
