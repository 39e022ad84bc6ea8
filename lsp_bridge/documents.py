"""What the server has been told about files: open documents (version, hash, text) and a stat
snapshot of the workspace's source files, so changes on disk are noticed before the next request."""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from lsp_bridge.positions import TextLines, normalize_text

# Folders no language server should index for us (pyright's and tsserver's defaults agree).
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
                       ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".codeagent",
                       "dist", "build", ".next", ".eggs"})

Stat = tuple[int, int]  # (mtime_ns, size)


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


def read_file(path: Path) -> DiskFile | None:
    """Read `path` (None if it is not a readable file)."""
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            data = handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None
    return DiskFile(file_hash(data), TextLines(normalize_text(data)), (st.st_mtime_ns, st.st_size))


def stat_of(path: Path) -> Stat | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def walk_sources(root: Path, suffixes: Mapping[str, str], limit: int) -> Iterator[Path]:
    """Source files under `root` with one of `suffixes`, skipping hidden, vendored and build folders."""
    count = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if os.path.splitext(name)[1].lower() in suffixes:
                yield Path(folder) / name
                count += 1
                if count >= limit:
                    return


class DocumentStore:
    """Open documents (bounded, least recently used closed first) and the disk snapshot."""

    def __init__(self, *, max_open: int = 200) -> None:
        self.open: OrderedDict[Path, OpenDoc] = OrderedDict()
        self.pinned: set[Path] = set()  # kept open for good (files the server would otherwise skip)
        self.snapshot: dict[Path, Stat] = {}
        self.max_open = max_open

    def take_snapshot(self, root: Path, suffixes: Mapping[str, str], limit: int) -> None:
        self.snapshot = {}
        for path in walk_sources(root, suffixes, limit):
            st = stat_of(path)
            if st is not None:
                self.snapshot[path] = st

    def scan(self) -> dict[Path, Stat | None]:
        """Stat every known file (safe to run in a worker thread): {path: new stat or None if gone}
        for those that differ from what the server was last told. Apply with `apply_scan`."""
        known = list(self.snapshot.items()) + [(p, d.stat) for p, d in list(self.open.items())]
        return {path: now for path, before in known if (now := stat_of(path)) != before}

    def apply_scan(self, found: dict[Path, Stat | None]) -> tuple[list[Path], list[Path]]:
        """Record a scan's results; returns (changed, deleted)."""
        changed: list[Path] = []
        deleted: list[Path] = []
        for path, now in found.items():
            self.note(path, now)
            (deleted if now is None else changed).append(path)
        return changed, deleted

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
