"""Output files: atomic for regular files, written through for everything else.

:func:`write_output` is how every output is written. ``-`` is standard output. A path that is a FIFO, a
character device or another special file (``/dev/null``, ``/dev/stdout`` as root) is written through,
never replaced; a symbolic link is followed and its target written (atomically when the target is a
regular file), so the link stays a link. A regular (or new) file is written atomically
(:func:`atomic_write`): a reader sees the old file or the complete new one, never a partial one.

The bytes go to an unnamed file in the target's folder (Linux ``O_TMPFILE``): if the process is killed
mid-write, nothing named is left behind. Only a complete file is linked under a temporary name and
renamed over the target. Where ``O_TMPFILE`` is not available, a named temporary file is used and
removed on any error.
"""

from __future__ import annotations

import os
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


def write_output(path: str | Path, data: bytes | str) -> bool:
    """Write ``data`` to ``path`` as the module's docstring says; True when a regular file was written
    (one a caller may remove again), False when the bytes went through to a stream or device."""
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
        return False
    if is_special(path):
        try:
            with open(path, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            raise PrivauditError(f"{path}: cannot be written ({exc.strerror})") from None
        return False
    target = Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path)  # keep the link a link
    try:
        atomic_write(target, data)
    except PermissionError:
        raise PrivauditError(f"{path}: cannot be written (permission denied)") from None
    except IsADirectoryError:
        raise PrivauditError(f"{path}: is a directory") from None
    except OSError as exc:
        raise PrivauditError(f"{path}: cannot be written ({exc.strerror})") from None
    return True


def atomic_write(path: str | Path, data: bytes | str) -> None:
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise PrivauditError(f"{path}: the output folder {str(folder)!r} does not exist")
    if hasattr(os, "O_TMPFILE"):
        try:
            fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o644)
        except OSError:
            fd = None
        if fd is not None:
            tmp = folder / f".{path.name}.{os.getpid()}.tmp"
            try:
                _write_all(fd, data)
                linked = _link_unnamed(fd, tmp)
            finally:
                os.close(fd)
            if linked:
                _replace(tmp, path)
                return
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        _write_all(fd, data)
        os.close(fd)
        fd = -1
        os.chmod(name, 0o644)
        _replace(Path(name), path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        Path(name).unlink(missing_ok=True)
        raise


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
