"""Output files: atomic for regular files, written through for everything else.

:func:`write_output` is how every output is written. ``-`` is standard output. A path that is a FIFO, a
character device or another special file (``/dev/null``, ``/dev/stdout`` as root) is written through,
never replaced; a symbolic link is followed and its target written (atomically when the target is a
regular file), so the link stays a link. A regular (or new) file is written atomically
(:func:`atomic_write`): a reader sees the old file or the complete new one, never a partial one.

The bytes go to an unnamed file in the target's folder (Linux ``O_TMPFILE``): if the process is killed
mid-write, nothing named is left behind. Only a complete file is linked under a temporary name and
renamed over the target. Where ``O_TMPFILE`` is not available, a named temporary file is used and
removed on any error. A temporary name says it is privaudit's and which process made it
(``.<name>.<pid>.<random>.privaudit.tmp``): a process killed between naming its file and the rename
leaves one behind, and the next write into that folder removes it (:func:`sweep_stale`) unless that
process still runs. Two runs writing one output at once each rename a whole file of their own, so the
output is whole, from one of them.

Several outputs (a command's reports) are written in two steps: :func:`stage_output` writes each in full
(streams and devices through, regular files beside their targets), then every :class:`Staged` file is
committed; if a write fails or is interrupted before that, the staged files are dropped and every regular
target, a symbolic link or the file it names, is left as it was (``cli/outputs.py: write_all``).
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import sys
import tempfile
from pathlib import Path

from privaudit.core.errors import PrivauditError


def is_special(path: str | Path) -> bool:
    """Whether ``path`` is standard output (``-``) or an existing file that is not a regular file or a
    directory (FIFO, device, socket), following symbolic links: written through, never replaced."""
    if str(path) == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


class Staged:
    """A regular output file written in full beside its target, not yet in its place: :meth:`commit` puts it
    there (rename over the target), :meth:`discard` drops it. Unnamed (``O_TMPFILE``) until committed where
    the system allows, so a process killed in between leaves nothing named behind."""

    def __init__(self, shown: str | Path, target: Path, fd: int | None, name: Path | None):
        self.shown, self.target, self._fd, self._name = str(shown), target, fd, name

    def commit(self) -> None:
        """Rename the finished file over the target; a failure is one line naming the output."""
        tmp = self._name
        if self._fd is not None:
            tmp = self.target.parent / f".{self.target.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMPORARY}"
            try:  # a name of its own: two writers of one output in one process (threads) never collide
                linked = _link_unnamed(self._fd, tmp)
            finally:
                os.close(self._fd)
                self._fd = None
            if not linked:
                raise PrivauditError(f"{self.shown}: cannot be written (the finished file could not be linked)")
        self._name = None
        try:
            _replace(tmp, self.target)
        except OSError as exc:
            raise PrivauditError(f"{self.shown}: cannot be written ({exc.strerror})") from None

    def discard(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._name is not None:
            self._name.unlink(missing_ok=True)
            self._name = None


def stage_output(path: str | Path, data: bytes | str) -> Staged | None:
    """The first half of :func:`write_output`: ``-``, a FIFO or a device is written through now (None); a
    regular file (or a symbolic link's target, so the link stays a link) is written in full beside its target
    and returned as :class:`Staged`, the target untouched until ``commit``. Errors are one line."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if str(path) == "-":
        sys.stdout.flush()
        stream = getattr(sys.stdout, "buffer", None)
        if stream is None:  # a text-only stdout (redirected in process): write the text
            sys.stdout.write(data.decode("utf-8", errors="replace"))
        else:
            stream.write(data)
            stream.flush()
        return None
    if is_special(path):
        try:
            with open(path, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            raise PrivauditError(f"{path}: cannot be written ({exc.strerror})") from None
        return None
    target = Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path)  # keep the link a link
    try:
        return _stage(target, data, path)
    except PermissionError:
        raise PrivauditError(f"{path}: cannot be written (permission denied)") from None
    except IsADirectoryError:
        raise PrivauditError(f"{path}: is a directory") from None
    except OSError as exc:
        raise PrivauditError(f"{path}: cannot be written ({exc.strerror})") from None


def write_output(path: str | Path, data: bytes | str) -> bool:
    """Write ``data`` to ``path`` as the module's docstring says; True when a regular file was written
    (one a caller may remove again), False when the bytes went through to a stream or device."""
    staged = stage_output(path, data)
    if staged is None:
        return False
    staged.commit()
    return True


def atomic_write(path: str | Path, data: bytes | str) -> None:
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    _stage(path, data, path).commit()


def _stage(path: Path, data: bytes, shown: str | Path) -> Staged:
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise PrivauditError(f"{shown}: the output folder {str(folder)!r} does not exist")
    if path.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(path))
    sweep_stale(folder)
    if hasattr(os, "O_TMPFILE"):
        try:
            fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o644)
        except OSError:
            fd = None
        if fd is not None:
            try:
                _write_all(fd, data)
            except BaseException:
                os.close(fd)
                raise
            return Staged(shown, path, fd, None)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=TEMPORARY, dir=folder)
    try:
        _write_all(fd, data)
        os.close(fd)
        fd = -1
        os.chmod(name, 0o644)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        Path(name).unlink(missing_ok=True)
        raise
    return Staged(shown, path, None, Path(name))


TEMPORARY = ".privaudit.tmp"
_STALE = re.compile(r"^\..+\.(\d+)(?:\.[^.]+)?" + re.escape(TEMPORARY) + "$")


def sweep_stale(folder: Path) -> None:
    """Remove the temporary files a killed privaudit process left in ``folder`` (named as the module
    says, made by a process that no longer runs); errors are ignored (another run may remove them too)."""
    try:
        names = [e.name for e in os.scandir(folder) if e.name.endswith(TEMPORARY)]
    except OSError:
        return
    for name in names:
        match = _STALE.match(name)
        if match is None or _alive(int(match.group(1))):
            continue
        try:
            os.unlink(folder / name)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def _link_unnamed(fd: int, target: Path) -> bool:
    """Give the unnamed file ``fd`` the name ``target`` (linkat with AT_EMPTY_PATH, else via /proc)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.linkat(fd, b"", -100, os.fsencode(target), 0x1000) == 0:  # AT_FDCWD, AT_EMPTY_PATH
            return True
    except (OSError, AttributeError):
        pass
    try:
        os.link(f"/proc/self/fd/{fd}", target, follow_symlinks=True)
        return True
    except OSError:
        return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


def _replace(tmp: Path, path: Path) -> None:
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
