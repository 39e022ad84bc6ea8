"""Source files created or deleted since the last look, for a long-lived process (the daemon)
whose servers must hear of files that editors, git or shell commands added.

Creating, deleting or renaming a file changes its folder: with inotify folder watches
(lsp_bridge.watch) only the folders that reported an event are listed again; without them (or
after lost events) every folder's mtime is compared (about 700 on Django: ~13 ms).

After lost events (the kernel's queue overflowed, e.g. a `git checkout` of thousands of files)
a new watch is put on every folder *before* the mtimes are compared, so a change made after the
comparison raises an event and one made before it is in the comparison: the watch is healthy
again from the next poll on, under a new `generation` (whatever was trusted under the old watch
must be looked at again). A watch that stopped at the kernel's limit is not retried.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from lsp_bridge.watch import FolderWatch

from ..languages import SOURCE_SUFFIXES
from ..walk import ALWAYS_SKIPPED

MAX_FOLDERS = 50_000
RACY_NS = 2_000_000_000  # a folder changed this recently may change again within the same mtime tick


class NewFileWatcher:
    def __init__(self, root: Path, suffixes: tuple[str, ...] = SOURCE_SUFFIXES, *,
                 began: Callable[[], object] | None = None):
        """`began` is called each time a watch is in place (what was known before it is unvouched)."""
        self.root = root
        self.suffixes = suffixes
        self._folders: dict[str, tuple[int, frozenset[str], frozenset[str]]] = {}  # mtime, subfolders, files
        self._watch: FolderWatch | None = None
        self._retired = 0  # generations used by watches that broke: a new watch starts past them
        self._began = began
        self.events: set[str] | None = None  # paths named by the last poll's events (None: not watching)
        self._list(str(root), [])
        self._watch = self._new_watch()

    def _new_watch(self) -> FolderWatch | None:
        """A watch on every listed folder, or None (no inotify, or past the kernel's limit)."""
        watch = FolderWatch.create()
        if watch is not None and all(watch.add(folder) for folder in self._folders):
            if self._began is not None:
                self._began()
            return watch
        if watch is not None:
            watch.close()
        return None

    def covers(self, path: str) -> bool:
        """Whether a change to the file `path` (absolute) raises an event here."""
        return self._watch is not None and self._watch.watching(os.path.dirname(path))

    @property
    def generation(self) -> int:
        """Changes whenever a folder stops being watched (answers of `covers` may have changed)."""
        return self._retired + self._watch.generation if self._watch is not None else -1

    @property
    def healthy(self) -> bool:
        """Every listed folder is watched and no event was lost: a change to one is seen."""
        return self._watch is not None and not self._watch.broken

    def pending(self) -> bool:
        """Events are queued that no poll has seen yet (True when not watching: anything may have changed)."""
        return self._watch is None or self._watch.pending()

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None

    def _list(self, folder: str, found: list[Path]) -> None:
        """(Re)read one folder; new subfolders are read recursively (their files count as new)."""
        try:
            mtime = os.stat(folder).st_mtime_ns
            entries = list(os.scandir(folder))
        except OSError:
            self._forget(folder, found)
            return
        subs, files = set(), set()
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in ALWAYS_SKIPPED and not entry.name.startswith("."):
                        subs.add(entry.name)
                elif entry.name.endswith(self.suffixes):
                    files.add(entry.name)
            except OSError:
                continue
        old = self._folders.get(folder)
        old_subs, old_files = (old[1], old[2]) if old else (frozenset(), frozenset())
        self._folders[folder] = (mtime, frozenset(subs), frozenset(files))
        if self._watch is not None and not self._watch.add(folder):  # (re)created folders too
            self.close()  # past the watch limit: mtimes from now on
        if old is not None:
            found.extend(Path(folder, name) for name in files ^ old_files)
        for name in old_subs - subs:
            self._forget(os.path.join(folder, name), found)
        for name in subs - old_subs:
            if len(self._folders) < MAX_FOLDERS:
                path = os.path.join(folder, name)
                self._list(path, found)
                if old is not None:  # a folder that appeared: everything in it is new
                    found.extend(self._files_under(path))

    def _files_under(self, folder: str) -> list[Path]:
        out: list[Path] = []
        for path, (_, _, files) in self._folders.items():
            if path == folder or path.startswith(folder + os.sep):
                out.extend(Path(path, name) for name in files)
        return out

    def _forget(self, folder: str, found: list[Path]) -> None:
        for path in [p for p in self._folders if p == folder or p.startswith(folder + os.sep)]:
            found.extend(Path(path, name) for name in self._folders.pop(path)[2])

    def poll(self) -> list[Path]:
        """Source files created or deleted since the last poll (or construction)."""
        found: list[Path] = []
        changes = self._watch.drain() if self._watch is not None else None
        self.events = changes.paths if changes is not None else None
        if changes is not None:
            # (the folders named themselves are looked up one by one: a set of every folder, built
            # per poll, cost each warm request ~80 us on Django's 3,200 folders)
            touched = {os.path.dirname(p) for p in changes.paths} | {p for p in changes.paths if p in self._folders}
            for folder in sorted(touched):
                if folder in self._folders:
                    self._list(folder, found)
            return sorted(set(found))
        # Lost events (or never watched): watch again (only after an overflow; a watch refused at
        # the kernel's limit stays off), then compare every folder's mtime.
        broken = self._watch is not None and self._watch.broken
        if broken and self._watch is not None:
            self._retired += self._watch.generation + 1
        self.close()
        if broken:
            self._watch = self._new_watch()
        for folder, (mtime, _, _) in list(self._folders.items()):
            if folder not in self._folders:  # forgotten while handling an earlier folder
                continue
            try:
                now = os.stat(folder).st_mtime_ns
            except OSError:
                self._forget(folder, found)
                continue
            if now != mtime or time.time_ns() - now < RACY_NS:
                self._list(folder, found)
        return sorted(set(found))
