"""Which files under a set of folders changed since the last look, without stat'ing them all.

On Linux an inotify watch on each folder reports writes, creations, deletions and renames of its
entries. The kernel queues the event inside the system call that made the change, so draining the
queue before a request sees every change made before that request began — by our own tools, an
editor, git or a shell command. `drain()` returns None when the queue overflowed (or the watch
broke): the caller must then look at everything again. `FolderWatch.create()` is None where
inotify is missing, and `add()` is False once the kernel's watch limit is reached; callers fall
back to stat'ing every file. Not seen by any watch: writes through mmap, and changes made by other
machines on a network filesystem.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import threading
from dataclasses import dataclass, field
from typing import Any

try:  # a thin ctypes wrapper over inotify_init1/add_watch/read (Linux only)
    import inotify_simple
except ImportError:  # pragma: no cover - not Linux, or the package is missing
    inotify_simple = None
else:
    # It finds libc lazily with ctypes.util.find_library, which runs `ldconfig -p` (20-40 ms on a
    # cold start); the process's own symbols already include libc's inotify calls.
    if getattr(inotify_simple, "_libc", ...) is None:
        with contextlib.suppress(OSError):
            inotify_simple._libc = ctypes.CDLL(None, use_errno=True)

MAX_FOLDERS = 100_000
_flags: Any = inotify_simple.flags if inotify_simple is not None else None


@dataclass
class Changes:
    """Paths whose folder reported an event (the entry may have changed, appeared or gone), and
    folders created or moved in since the last drain (not watched yet: the caller lists them)."""

    paths: set[str] = field(default_factory=set)
    new_folders: set[str] = field(default_factory=set)


class FolderWatch:
    """One inotify instance watching folders (not recursively: each folder is added)."""

    def __init__(self, notify: Any) -> None:
        self._notify = notify
        self._folders: dict[int, str] = {}
        self._watched: set[str] = set()
        self._lock = threading.Lock()
        self.broken = False
        self.generation = 0  # counts folders that stopped being watched (their cached answers are void)

    @classmethod
    def create(cls) -> FolderWatch | None:
        if inotify_simple is None:
            return None
        try:
            return cls(inotify_simple.INotify(nonblocking=True))
        except OSError:  # the per-user instance limit
            return None

    def add(self, folder: str) -> bool:
        """Watch `folder`'s entries; False when the kernel refuses (watch limit, folder gone)."""
        if folder in self._watched:
            return True
        if len(self._watched) >= MAX_FOLDERS:
            return False
        mask = (_flags.MODIFY | _flags.CLOSE_WRITE | _flags.ATTRIB | _flags.CREATE | _flags.DELETE | _flags.MOVED_FROM
                | _flags.MOVED_TO | _flags.DELETE_SELF | _flags.MOVE_SELF | _flags.ONLYDIR | _flags.DONT_FOLLOW)
        try:
            wd = self._notify.add_watch(folder, mask)
        except OSError:
            return False
        with self._lock:
            self._folders[wd] = folder
            self._watched.add(folder)
        return True

    def watching(self, folder: str) -> bool:
        return not self.broken and folder in self._watched

    def pending(self) -> bool:
        """Whether events are queued since the last drain (a change happened), without reading
        them; True when the watch is broken (nothing can be known). About 2 µs: a select on the fd."""
        if self.broken:
            return True
        try:
            readable, _, _ = select.select([self._notify.fileno()], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(readable)

    def drain(self) -> Changes | None:
        """Everything queued since the last drain; None when events were lost (overflow) and the
        caller must re-examine everything."""
        if self.broken:
            return None
        out = Changes()
        with self._lock:
            while True:
                try:
                    events = self._notify.read(timeout=0)
                except OSError:
                    self.broken = True
                    return None
                if not events:
                    return out
                for event in events:
                    if event.mask & _flags.Q_OVERFLOW:
                        self.broken = True
                        return None
                    folder = self._folders.get(event.wd)
                    if folder is None:
                        continue
                    if event.mask & _flags.IGNORED:  # the watch is gone (folder deleted or unmounted)
                        self._folders.pop(event.wd, None)
                        self._watched.discard(folder)
                        self.generation += 1
                        continue
                    if event.mask & (_flags.DELETE_SELF | _flags.MOVE_SELF):
                        out.paths.add(folder)
                        continue
                    path = os.path.join(folder, event.name) if event.name else folder
                    if event.mask & _flags.ISDIR:
                        if event.mask & (_flags.CREATE | _flags.MOVED_TO):
                            out.new_folders.add(path)
                        out.paths.add(path)
                    else:
                        out.paths.add(path)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._notify.close()
