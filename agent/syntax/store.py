"""The index's on-disk cache: one SQLite file, one row per source file (its outline as JSON)
and one row per (normalized name, file), so a lookup by name reads only the files that define it.

A row holds the stat key (size, mtime, inode) and a digest of the bytes, so a later session
re-parses exactly the files that changed. Rows written by other query files or grammar versions
are dropped (the fingerprint in `meta`). Any trouble with the file (read-only folder, corrupt
database, another process holding a lock too long) degrades to an in-memory store: the index
still works, it just does not persist.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..treestamps import Stamp
from .extract import FileRecord, decode_entries
from .symbols import Entry

SCHEMA_VERSION = "3"
_NAMES_BY_NORM = "CREATE INDEX IF NOT EXISTS names_by_norm ON names (norm)"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, inode INTEGER, digest TEXT,
    checked_ns INTEGER, language TEXT, errors INTEGER, skipped TEXT, entries TEXT
);
CREATE TABLE IF NOT EXISTS names (norm TEXT NOT NULL, path TEXT NOT NULL);
{_NAMES_BY_NORM};
CREATE INDEX IF NOT EXISTS names_by_path ON names (path);
-- the stat keys alone (a scan of the rows, as `codeagent index`'s fast path makes, skips the outlines)
CREATE INDEX IF NOT EXISTS files_stat ON files (path, size, mtime_ns, inode, checked_ns, skipped);
DROP TABLE IF EXISTS walk; -- (schema 2's snapshot, one row per entry)
CREATE TABLE IF NOT EXISTS walk_snapshot (id INTEGER PRIMARY KEY CHECK (id = 0), data TEXT NOT NULL);
"""
# The `walk_snapshot` row and meta 'walk_key'/'walk_ns': what the last complete walk of the tree
# depended on (sources.WalkLog, stamped by agent/treestamps.py) and the stat keys of the rows it
# left, as one JSON text ({"walk": [[path, [ctime_ns, mtime_ns, size, inode]]],
# "files": [[path, size, mtime_ns, inode, checked_ns]]}), read by agent/commands/index_fast.py:
# one value to decode instead of a row per entry. The file list is read from the files table in
# the transaction that writes the snapshot, and any later change to that table deletes
# 'walk_key' in its own transaction, so a snapshot never outlives the rows it describes. (A
# snapshot of an older layout, {"folders", "ignore_files", "files"} with mtimes, is never read:
# its key holds the build id of the code that wrote it, and the next full command replaces it.)
WALK_KEY, WALK_NS = "walk_key", "walk_ns"


class IndexStore:
    """Rows of `FileRecord`s. `path` None (or an unusable file) keeps them in memory only."""

    def __init__(self, path: Path | None, fingerprint: str, *, timeout: float = 10.0):
        self.path = path
        self.problem: str | None = None
        self.timeout = timeout  # seconds to wait for another process's write lock
        self._db = self._open(path, fingerprint)

    def _open(self, path: Path | None, fingerprint: str) -> sqlite3.Connection:
        if path is not None:
            try:
                return self._connect(str(path), fingerprint)
            except (sqlite3.Error, OSError) as exc:
                self.problem = f"index cache {path} unusable ({exc}); keeping the index in memory"
                if isinstance(exc, sqlite3.DatabaseError) and path.exists():
                    try:  # a corrupt file: start over once
                        path.unlink()
                        db = self._connect(str(path), fingerprint)
                        self.problem = None
                        return db
                    except (sqlite3.Error, OSError):
                        pass
        self.path = None
        return self._connect(":memory:", fingerprint)

    def _connect(self, where: str, fingerprint: str) -> sqlite3.Connection:
        if where != ":memory:":
            Path(where).parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(where, timeout=self.timeout, check_same_thread=False, isolation_level=None)
        try:
            if where != ":memory:":
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
            stamp = f"{SCHEMA_VERSION}:{fingerprint}"
            row = db.execute("SELECT value FROM meta WHERE key='fingerprint'").fetchone()
            if row is None or row[0] != stamp:
                db.execute("BEGIN IMMEDIATE")
                db.execute("DELETE FROM files")
                db.execute("DELETE FROM names")
                db.execute("DELETE FROM meta WHERE key = ?", (WALK_KEY,))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (stamp,))
                db.execute("COMMIT")
        except BaseException:
            db.close()
            raise
        return db

    def load_keys(self) -> Iterator[FileRecord]:
        """Every row without its symbols (what a refresh needs to compare stats)."""
        for row in self._db.execute(
            "SELECT path, size, mtime_ns, inode, digest, checked_ns, language, errors, skipped FROM files"
        ):
            yield FileRecord(*row)

    def load_entries(self, paths: Iterable[str] | None = None) -> Iterator[tuple[str, list[Entry]]]:
        rows: Iterable[tuple[str, str | None]]
        if paths is None:
            rows = self._db.execute("SELECT path, entries FROM files")
        else:
            wanted = list(paths)
            rows = (r for chunk in _chunks(wanted, 500) for r in self._db.execute(
                f"SELECT path, entries FROM files WHERE path IN ({','.join('?' * len(chunk))})", chunk))
        for path, raw in rows:
            yield path, decode_entries(raw)

    def paths_defining(self, norms: Iterable[str]) -> dict[str, list[str]]:
        """For each normalized name, the files that define a symbol with it."""
        out: dict[str, list[str]] = {}
        for chunk in _chunks(list(norms), 500):
            rows = self._db.execute(
                f"SELECT norm, path FROM names WHERE norm IN ({','.join('?' * len(chunk))})", chunk)
            for norm, path in rows:
                out.setdefault(norm, []).append(path)
        return out

    def all_names(self) -> list[str]:
        return [row[0] for row in self._db.execute("SELECT DISTINCT norm FROM names")]

    def save(self, records: list[FileRecord], removed: Iterable[str]) -> bool:
        """Write changed rows and delete removed ones in one transaction; False if it failed."""
        gone = [(p,) for p in removed]
        if not records and not gone:
            return True
        rows = [(r.path, r.size, r.mtime_ns, r.inode, r.digest, r.checked_ns, r.language, r.errors, r.skipped,
                 r.payload) for r in records]
        names = [(norm, r.path) for r in records for norm in r.names]
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("DELETE FROM names WHERE path = ?", [(r.path,) for r in records] + gone)
            self._db.executemany("INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            self._db.executemany("INSERT INTO names VALUES (?, ?)", names)
            self._db.executemany("DELETE FROM files WHERE path = ?", gone)
            self._db.execute("DELETE FROM meta WHERE key = ?", (WALK_KEY,))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self.problem = f"could not write the index cache ({exc}); it will be rebuilt as needed"
            return False
        return True

    def defer_name_lookup(self) -> bool:
        """Before a whole tree is written into an empty store: drop the index of `names` by name,
        to be built once at the end (`restore_name_lookup`). Inserting 40,000 names in random order
        into that b-tree costs a third of the writes. A lookup meanwhile scans the table (the same
        answers); a process that stops before the end leaves it to the next `_connect`, whose
        schema creates it again. False (nothing dropped) if the store holds any row."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            if self._db.execute("SELECT 1 FROM files LIMIT 1").fetchone() is not None:
                self._db.execute("ROLLBACK")
                return False
            self._db.execute("DROP INDEX IF EXISTS names_by_norm")
            self._db.execute("COMMIT")
        except sqlite3.Error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            return False
        return True

    def restore_name_lookup(self) -> None:
        with contextlib.suppress(sqlite3.Error):  # (if this fails, the next `_connect` creates it)
            self._db.execute(_NAMES_BY_NORM)

    def touch(self, updates: list[tuple[int, str]]) -> None:
        """Record a new check time for rows whose content was verified unchanged."""
        if updates:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany("UPDATE files SET checked_ns = ? WHERE path = ?", updates)
                self._db.execute("COMMIT")
            except sqlite3.Error:  # only a timestamp: the next refresh re-checks the content
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")

    def save_walk(self, key: str, walk_ns: int, walk: list[tuple[str, Stamp]]) -> bool:
        """Record the snapshot of a complete walk whose results the files table now holds; False
        (nothing recorded) if a row is skipped (the full refresh re-tries it) or on any error."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            rows = self._db.execute(
                "SELECT path, size, mtime_ns, inode, checked_ns, skipped FROM files").fetchall()
            if any(row[5] for row in rows):
                self._db.execute("ROLLBACK")
                return False
            data = json.dumps({"walk": walk, "files": [row[:5] for row in rows]}, separators=(",", ":"))
            self._db.execute("INSERT OR REPLACE INTO walk_snapshot VALUES (0, ?)", (data,))
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (WALK_NS, str(walk_ns)))
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (WALK_KEY, key))
            self._db.execute("COMMIT")
        except sqlite3.Error:  # only a shortcut for later: the next command walks the tree
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            return False
        return True

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.close()


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
