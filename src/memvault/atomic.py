"""Crash-safe file writes: the one way memvault replaces a file on disk.

A reader must only ever see the old file or the new one, never half of either, and two
writers must not lose each other's changes. The recipe (the one Hermes Agent uses for
its memory files, so both can share them):

1. hold ``<file>.lock`` (an ``flock`` lock through ``filelock``) for the whole
   read-modify-write, so writers take turns; readers need no lock;
2. write a temporary file in the same directory (same file system, so the rename is
   atomic), flush and ``fsync`` it, and give it its mode;
3. ``os.replace`` it over the file, then ``fsync`` the directory so the rename itself
   survives a power cut.

If anything fails before step 3 the temporary file is removed and the file is untouched.
A temporary file left by a killed writer is removed by the next locked write.

:func:`atomic_write` does all three steps. A read-modify-write holds :func:`file_lock`
itself and calls :func:`replace_file` inside it; :func:`replacing` streams a large file
(an export) through the same steps 2 and 3.

Modes: ``mode=None`` keeps the mode of the file being replaced, and a new file is
private (0600, what ``tempfile.mkstemp`` creates); an explicit ``mode`` is applied as
given, whatever the umask.

This module imports nothing from memvault, so every layer may use it; callers turn
:data:`LockTimeout` and ``OSError`` into their own errors.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from filelock import FileLock
from filelock import Timeout as LockTimeout

#: Seconds a writer waits for the lock before giving up with :data:`LockTimeout`.
LOCK_TIMEOUT = 10.0

#: The mode of a new file when none is asked for.
PRIVATE_MODE = 0o600

_TEMP_SUFFIX = ".tmp"


def lock_path(path: Path) -> Path:
    """The lock file that guards ``path``: ``<name>.lock`` beside it."""
    return path.with_name(path.name + ".lock")


@contextmanager
def file_lock(path: Path, *, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the lock of ``path`` (creating its directory); raises :data:`LockTimeout`.

    A fresh lock object per call, so threads of one process exclude each other as well
    as processes do.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path(path)), timeout=timeout)
    lock.acquire()
    try:
        yield
    finally:
        lock.release()


def atomic_write(
    path: Path, data: str | bytes, *, mode: int | None = None, timeout: float = LOCK_TIMEOUT
) -> None:
    """Replace ``path`` with ``data`` (``str`` is written as UTF-8) under its lock."""
    with file_lock(path, timeout=timeout):
        replace_file(path, data, mode=mode)


def replace_file(path: Path, data: str | bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` durably; the caller holds :func:`file_lock`.

    Because the lock is held, a temporary file of ours already beside ``path`` belongs to
    a writer that died, and is removed first.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(_temp_prefix(path) + "*" + _TEMP_SUFFIX):
        stale.unlink(missing_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = _temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        _commit(tmp, path, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextmanager
def replacing(path: Path, *, mode: int | None = None) -> Iterator[TextIO]:
    """A text handle (UTF-8) whose content replaces ``path`` when the block ends cleanly.

    For output too large to build in memory. An exception inside the block removes the
    temporary file and leaves ``path`` as it was. No lock is taken: hold
    :func:`file_lock` around the block if other writers may race. The directory must
    exist (a path a user typed is not created for them).
    """
    fd, tmp = _temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _commit(tmp, path, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable; a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_prefix(path: Path) -> str:
    return f".{path.name}."


def _temp_beside(path: Path) -> tuple[int, Path]:
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=_temp_prefix(path), suffix=_TEMP_SUFFIX)
    return fd, Path(name)


def _commit(tmp: Path, path: Path, mode: int | None) -> None:
    """Give ``tmp`` its mode, move it over ``path`` and make the move durable."""
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = PRIVATE_MODE
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    fsync_directory(path.parent)


__all__ = [
    "LOCK_TIMEOUT",
    "PRIVATE_MODE",
    "LockTimeout",
    "atomic_write",
    "file_lock",
    "fsync_directory",
    "lock_path",
    "replace_file",
    "replacing",
]
