"""What the server has been told about files: open documents (version, hash, text) and a stat
snapshot of the workspace's source files, so changes on disk are noticed before the next request."""

from __future__ import annotations

import hashlib
import os
import stat as stat_mode
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from lsp_bridge.positions import Decode, TextLines, normalize_text
from lsp_bridge.watch import FolderWatch

# Folders no language server should index for us (pyright's and tsserver's defaults agree).
# The default; agent passes its own list (agent/walk.py SERVER_SKIPPED) through SessionPool(skip_dirs=...).
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
                       ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".codeagent",
                       "dist", "build", ".next", ".eggs"})

Stat = tuple[int, int]  # (mtime_ns, size)
MAX_QUIET_STATS = 256  # linked files DocumentStore.quiet stats itself; with more, the scan runs (in a thread)


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class OpenDoc:
    path: Path
    language_id: str
    version: int
    hash: str
    lines: TextLines
    stat: Stat
    diag_seq: int = 0  # the server's publish count for this file when we last sent it text


@dataclass(frozen=True)
class DiskFile:
    """A file read from disk: its bytes' hash, the normalised text, and the stat seen when read."""

    hash: str
    lines: TextLines
    stat: Stat


def read_file(path: Path, decode: Decode = normalize_text) -> DiskFile | None:
    """Read `path` (None if it is not a readable file), its text decoded by `decode`."""
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            data = handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None
    return DiskFile(file_hash(data), TextLines(decode(data)), (st.st_mtime_ns, st.st_size))


def stat_of(path: Path) -> Stat | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def stat_linked(path: Path) -> tuple[Stat | None, bool]:
    """`stat_of(path)`, and whether the file is a symbolic link or has other hard links: a change
    made through another path raises no event in this path's folder (one lstat for a plain file)."""
    try:
        st = os.lstat(path)
        linked = stat_mode.S_ISLNK(st.st_mode) or st.st_nlink > 1
        if stat_mode.S_ISLNK(st.st_mode):
            st = os.stat(path)
    except OSError:
        return None, False
    return (st.st_mtime_ns, st.st_size), linked


def walk_sources(root: Path, suffixes: Mapping[str, str], limit: int,
                 folders: list[str] | None = None, skip_dirs: frozenset[str] = SKIP_DIRS) -> Iterator[Path]:
    """Source files under `root` with one of `suffixes`, skipping hidden, vendored and build folders
    (the folders walked are appended to `folders`)."""
    count = 0
    for folder, dirs, files in os.walk(root):
        if folders is not None:
            folders.append(folder)
        dirs[:] = sorted(d for d in dirs if d not in skip_dirs and not d.startswith("."))
        for name in sorted(files):
            if os.path.splitext(name)[1].lower() in suffixes:
                yield Path(folder) / name
                count += 1
                if count >= limit:
                    return


class DocumentStore:
    """Open documents (bounded, least recently used closed first) and the disk snapshot.

    Changes on disk are found by `scan`: with a folder watch (lsp_bridge.watch, `watch=True`) only
    the files whose folder reported an event are stat'ed, and files created in the tree are found
    too; without one (or after the watch lost events) every known file is stat'ed.

    When the watch has nothing queued, `quiet` knows the scan's answer (nothing changed) without
    running it, and until the next scan begins `vouches` says whether that still holds: every
    known file in a watched folder (`trusted`) then has the stat recorded here, with no stat."""

    def __init__(self, *, max_open: int = 200, watch: bool = False, skip_dirs: frozenset[str] = SKIP_DIRS) -> None:
        self.skip_dirs = skip_dirs
        self.open: OrderedDict[Path, OpenDoc] = OrderedDict()
        self.pinned: set[Path] = set()  # kept open for good (files the server would otherwise skip)
        self.snapshot: dict[Path, Stat] = {}
        self.max_open = max_open
        self._want_watch = watch
        self._watch: FolderWatch | None = None
        self._suffixes: Mapping[str, str] = {}
        self._root: Path | None = None
        self._limit = 0
        self._unapplied: set[Path] = set()  # found by a scan, not yet recorded by apply_scan
        self._lock = threading.Lock()
        # Files whose changes the watch may not see (links; noted outside a walk or scan): stat'ed.
        self._linked: set[Path] = set()
        self._scans = 0  # scans begun: each may drain events, which voids an earlier `quiet`
        self._quiet_at: int | None = None  # `_scans` when `quiet` last found nothing changed

    @property
    def watching(self) -> bool:
        return self._watch is not None and not self._watch.broken

    def take_snapshot(self, root: Path, suffixes: Mapping[str, str], limit: int) -> None:
        self.close()
        self._root, self._suffixes, self._limit = root, suffixes, limit
        folders: list[str] = []
        self.snapshot = {}
        self._linked = set()
        # Each folder is watched before its files are stat'ed: a change made between the two
        # raises an event (the next scan looks), where it would be missed the other way round.
        watch = FolderWatch.create() if self._want_watch else None
        watched = 0
        for path in walk_sources(root, suffixes, limit, folders, self.skip_dirs):
            watched = self._watch_walked(watch, folders, watched)
            st, linked = stat_linked(path)
            if st is not None:
                self.snapshot[path] = st
                if linked:
                    self._linked.add(path)
        if watch is not None and self._watch_walked(watch, folders, watched) >= 0 and len(self.snapshot) < limit:
            self._watch = watch  # (a truncated tree is re-stat'ed instead)
        elif watch is not None:
            watch.close()

    @staticmethod
    def _watch_walked(watch: FolderWatch | None, folders: list[str], watched: int) -> int:
        """Watch the walked folders from `watched` on; how many are watched now (-1: one was refused)."""
        if watch is None or watched < 0:
            return watched
        for folder in folders[watched:]:
            if not watch.add(folder):
                return -1
        return len(folders)

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None

    def scan(self) -> dict[Path, Stat | None]:
        """Files that differ from what the server was last told (safe to run in a worker thread):
        {path: new stat, or None if gone}. Apply with `apply_scan`."""
        with self._lock:
            self._scans += 1
            watch = self._watch
            changes = watch.drain() if watch is not None else None
            if watch is None or changes is None:
                if watch is not None and self._root is not None:  # events were lost: look again at everything
                    return self._rescan()
                known = list(self.snapshot.items()) + [(p, d.stat) for p, d in list(self.open.items())]
                return {path: now for path, before in known if (now := stat_of(path)) != before}
            candidates = set(self._unapplied)
            folders_hit = [Path(p) for p in changes.paths if os.path.splitext(p)[1].lower() not in self._suffixes]
            candidates.update(Path(p) for p in changes.paths if os.path.splitext(p)[1].lower() in self._suffixes)
            if folders_hit:  # a folder removed or renamed: every known file below it
                prefixes = tuple(str(f) + os.sep for f in folders_hit)
                candidates.update(p for p in list(self.snapshot) if str(p).startswith(prefixes))
            for folder in sorted(changes.new_folders):
                candidates.update(self._watch_new_folder(Path(folder)))
            candidates.update(p for p in list(self.open) if not watch.watching(str(p.parent)))
            candidates.update(self._linked)  # an edit through a link's other path raises no event here
            found: dict[Path, Stat | None] = {}
            for path in candidates:
                doc = self.open.get(path)
                before = doc.stat if doc is not None else self.snapshot.get(path)
                now, linked = stat_linked(path)
                if linked:
                    self._linked.add(path)
                else:
                    self._linked.discard(path)
                if now != before:
                    found[path] = now
            self._unapplied = set(found)
            return found

    def quiet(self) -> bool:
        """True when the watch shows that nothing changed since the last scan, so the scan would
        find nothing and need not run: no event queued, none lost, nothing found and unapplied,
        no scan under way, and the open documents in unwatched folders and the linked files
        unchanged (stat'ed here, as a scan would; past MAX_QUIET_STATS of them a scan runs)."""
        watch = self._watch
        if watch is None or watch.broken or len(self._linked) > MAX_QUIET_STATS or not self._lock.acquire(blocking=False):
            return False
        try:
            if self._unapplied or watch.pending():
                return False
            for path, doc in self.open.items():
                if not watch.watching(os.path.dirname(path)) and stat_of(path) != doc.stat:
                    return False
            for path in self._linked:
                opened = self.open.get(path)
                if stat_of(path) != (opened.stat if opened is not None else self.snapshot.get(path)):
                    return False
            self._quiet_at = self._scans
            return True
        finally:
            self._lock.release()

    def vouches(self) -> bool:
        """Whether `quiet`'s finding still holds: no scan began since (it may have drained events
        of changes not recorded yet) and no event is queued (the kernel queues one inside the
        system call that makes a change), so the known stats of `trusted` files are current."""
        watch = self._watch
        return (self._quiet_at is not None and self._quiet_at == self._scans and watch is not None
                and not watch.broken and not self._unapplied and not watch.pending())

    def trusted(self, path: Path) -> bool:
        """A known file whose changes raise an event of the watch: its folder is watched, it is no link."""
        watch = self._watch
        return (watch is not None and (path in self.snapshot or path in self.open) and path not in self._linked
                and watch.watching(os.path.dirname(path)))

    def _watch_new_folder(self, folder: Path) -> list[Path]:
        """A folder that appeared: watch it (and its subfolders) and list its source files."""
        if self._watch is None or self._root is None or not folder.is_relative_to(self._root):
            return []
        rel_parts = folder.relative_to(self._root).parts
        if any(part in self.skip_dirs or part.startswith(".") for part in rel_parts):
            return []
        folders: list[str] = []
        files = list(walk_sources(folder, self._suffixes, self._limit, folders, self.skip_dirs))
        for sub in folders:
            if not self._watch.add(sub):
                self._watch.broken = True  # past the watch limit: the next scans stat everything
        return files

    def _rescan(self) -> dict[Path, Stat | None]:
        """After lost events: a fresh walk (new files too) compared with what is known; the watch
        is rebuilt."""
        assert self._root is not None
        old = dict(self.snapshot)
        opened = {p: d.stat for p, d in self.open.items()}
        self.take_snapshot(self._root, self._suffixes, self._limit)
        fresh, self.snapshot = self.snapshot, old
        found: dict[Path, Stat | None] = {}
        for path, st in fresh.items():
            if st != opened.get(path, old.get(path)):
                found[path] = st
        for path in set(old) | set(opened):
            if path not in fresh and (now := stat_of(path)) != opened.get(path, old.get(path)):
                found[path] = now
        self._unapplied = set(found)
        return found

    def apply_scan(self, found: dict[Path, Stat | None]) -> tuple[list[Path], list[Path], list[Path]]:
        """Record a scan's results; returns (changed, deleted, created)."""
        changed: list[Path] = []
        deleted: list[Path] = []
        created: list[Path] = []
        for path, now in found.items():
            new = path not in self.snapshot and path not in self.open
            self.note(path, now)
            if now is None:
                if not new:
                    deleted.append(path)
            else:
                (created if new else changed).append(path)
        with self._lock:
            self._unapplied.difference_update(found)
        return changed, deleted, created

    def note_unchecked(self, path: Path, st: Stat | None) -> None:
        """`note` for a stat taken outside a walk or scan (whether the file is a link is unknown)."""
        if path not in self.snapshot:
            self._linked.add(path)
        self.note(path, st)

    def note(self, path: Path, st: Stat | None) -> None:
        if st is None:
            self.snapshot.pop(path, None)
        else:
            self.snapshot[path] = st

    def touch(self, path: Path) -> None:
        self.open.move_to_end(path)

    def to_close(self) -> list[Path]:
        """Documents beyond the bound, oldest first (the caller sends didClose)."""
        extra = len(self.open) - len(self.pinned) - self.max_open
        if extra <= 0:
            return []
        return [path for path in self.open if path not in self.pinned][:extra]
