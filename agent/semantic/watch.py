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

Each folder is watched before it is listed, so a change made after its listing raises an event.
The first listing of every folder is handed, once, to the search walk that comes right after it
(`take_listings`, the first search of a watched session: the tree is listed once, not twice),
while nothing has changed since: no event at the first poll, none queued at the hand-over.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from lsp_bridge.watch import FolderWatch

from .. import treestamps
from ..languages import SOURCE_SUFFIXES
from ..walk import ALWAYS_SKIPPED

MAX_FOLDERS = 50_000
# Entries of the first listing kept for the first search walk, ~290 bytes each (Django: 10,000;
# Home Assistant: 39,000); past it the walk lists the folders itself.
MAX_HANDED = 100_000
RACY_NS = treestamps.RACY_NS  # a folder changed this recently may change again within the same mtime tick


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
        self._polls = 0
        # Each folder's listing as the construction made it, after the folder's watch was in place.
        self._handed: dict[str, list[os.DirEntry[str]]] | None = {}
        self._handed_entries = 0
        self._watch = FolderWatch.create()
        self._list(str(root), [])
        if self._watch is None:
            self._handed = None
        elif self._began is not None:
            self._began()

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

    def take_listings(self) -> dict[str, list[os.DirEntry[str]]] | None:
        """The construction's listing of each watched folder (absolute path → its entries,
        unsorted), once, for the search walk about to begin: only while the watch is healthy, its
        first poll drained nothing and nothing is queued now, so that each is the folder as it is.
        A change from here on raises an event, which retires whatever that walk keeps."""
        handed, self._handed = self._handed, None
        if handed is None or not self.healthy or self.pending():
            return None
        return handed

    def pending(self) -> bool:
        """Events are queued that no poll has seen yet (True when not watching: anything may have changed)."""
        return self._watch is None or self._watch.pending()

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None

    def _list(self, folder: str, found: list[Path]) -> None:
        """(Re)read one folder; new subfolders are read recursively (their files count as new).
        The folder is watched before it is read: a change after the read raises an event."""
        watched = self._watch is None or self._watch.add(folder)  # (re)created folders too
        try:
            mtime = os.stat(folder).st_mtime_ns
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            self._forget(folder, found)
            return
        if not watched:
            self.close()  # past the watch limit: mtimes from now on
            self._handed = None
        if self._handed is not None and self._polls == 0:  # (the construction's listing only)
            self._handed_entries += len(entries)
            if self._handed_entries > MAX_HANDED:
                self._handed = None
            else:
                self._handed[folder] = entries
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
        self._polls += 1
        if self._polls > 1 or changes is None or changes.paths or changes.new_folders:
            self._handed = None  # (the first listings are handed over only before anything changed)
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
