"""Reading and writing the journal folder's own files safely: anything can be planted in a
workspace, so nothing there is followed (symlinks), blocked on (FIFOs) or read without a bound;
and the per-workspace advisory lock (flock) that keeps two codeagent processes apart."""

from __future__ import annotations

import fcntl
import os
import stat
import time
from pathlib import Path

from .errors import JournalError

NOFOLLOW, CLOEXEC = getattr(os, "O_NOFOLLOW", 0), getattr(os, "O_CLOEXEC", 0)


def open_for_append(path: Path, *, exclusive: bool) -> int:
    """A descriptor to append to a progress file, made 0600 if new; never through a symlink."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | NOFOLLOW | CLOEXEC | (os.O_EXCL if exclusive else 0)
    try:
        return os.open(path, flags, 0o600)
    except OSError as exc:  # a symlink or anything else planted under that name: never written through
        raise JournalError(f"cannot write the journal's progress file {path}: {exc.strerror or exc}") from exc


def read_regular(path: Path, limit: int) -> bytes:
    """A journal file's bytes, only if it is a regular file (not a symlink, FIFO or device) of at
    most `limit` bytes: anything can be planted in a workspace."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW | CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path.name} is not a regular file")
        if st.st_size > limit:
            raise OSError(f"{path.name} is {st.st_size} bytes, over {limit}")
        return fh.read(limit + 1)


def acquire(path: Path, timeout: float) -> int:
    """An exclusive flock on `path`, waiting at most `timeout` seconds: the descriptor, whose
    closing releases it (and which the kernel releases when the process dies, kill -9 included)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | CLOEXEC | NOFOLLOW, 0o600)
    except OSError as exc:
        raise JournalError(f"cannot open the edit journal's lock {path}: {exc.strerror or exc}") from exc
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise JournalError(f"another process holds the edit journal's lock {path} (waited {timeout:g} s); "
                                   "is another codeagent writing this workspace?") from None
            time.sleep(0.05)
        except OSError:
            os.close(fd)
            raise
