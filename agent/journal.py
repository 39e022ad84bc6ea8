"""The edit journal: the bytes each mutating operation replaced, so `undo` can restore them.

One file per operation under `.codeagent/journal/`, named so that names sort by time. A
multi-file operation (a patch, a rename) is one entry and is undone as one.

Every entry is signed (journal_auth): a file there without a valid MAC is listed as
unauthenticated and never replayed. While an operation writes, `<id>.progress` beside its entry
records each file as it is renamed into place (append-only, fsynced per file), so that after a
crash the next writer (recovery.py) knows exactly which files the operation wrote. One advisory
lock per workspace (`.lock`, flock) keeps two codeagent processes from interleaving.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .atomic import ensure_state_dir, fsync_dir
from .errors import JournalError, UnauthenticatedEntryError
from .journal_auth import JournalKey
from .journal_io import CLOEXEC, NOFOLLOW, acquire, open_for_append, read_regular

_ID = re.compile(r"[0-9]{20}-[0-9a-f]{6}")
_TMP = re.compile(r"[0-9]{20}-[0-9a-f]{6}\.[0-9a-f]{8}\.tmp")
MAX_ENTRIES = 500  # oldest entries beyond this are pruned
MAX_TOTAL_BYTES = 512 * 1024 * 1024  # and beyond this much on disk
LOCK_TIMEOUT = 60.0  # seconds to wait for another codeagent process's write to finish
FORMAT = 2
_HEAD, _MIDDLE = b'{"mac":"', b'","entry":'  # a signed entry file: {"mac":"<64 hex>","entry":<body>}
_MAC_END = len(_HEAD) + 64
_PROGRESS_MAGIC = "codeagent-progress 1"
_MAX_PEEK_BYTES = 64 * 1024 * 1024  # an unauthenticated file is parsed (for its run id only) up to this size


@dataclass(slots=True)
class JournalFile:
    """One file of an operation: its bytes before, and the hash of what the operation wrote."""

    path: str
    old: bytes | None  # None: the file did not exist before
    new_hash: str | None  # None: the operation deleted the file
    mode: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "old": None if self.old is None else base64.b64encode(self.old).decode("ascii"),
            "new_hash": self.new_hash,
            "mode": self.mode,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> JournalFile:
        old, mode, path = raw.get("old"), raw.get("mode"), raw["path"]
        if not isinstance(path, str) or not (mode is None or isinstance(mode, int)):
            raise TypeError("a file's path or mode has the wrong type")
        # undo never restores set-uid, set-gid or sticky bits, whatever an entry says
        return cls(path, None if old is None else base64.b64decode(old, validate=True), raw.get("new_hash"),
                   None if mode is None else mode & 0o777)


@dataclass(slots=True)
class JournalEntry:
    """One operation: every file it changed, and the folders it created (removed on undo)."""

    id: str
    operation: str
    run_id: str | None
    created: float
    files: list[JournalFile] = field(default_factory=list)
    created_dirs: list[str] = field(default_factory=list)

    @classmethod
    def new(cls, *, operation: str, run_id: str | None) -> JournalEntry:
        return cls(f"{time.time_ns():020d}-{secrets.token_hex(3)}", operation, run_id, time.time())

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "id": self.id,
            "operation": self.operation,
            "run_id": self.run_id,
            "created": self.created,
            "files": [f.to_json() for f in self.files],
            "created_dirs": self.created_dirs,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> JournalEntry:
        return cls(
            raw["id"], raw["operation"], raw.get("run_id"), raw.get("created", 0.0),
            [JournalFile.from_json(f) for f in raw.get("files", [])],
            [str(d) for d in raw.get("created_dirs", [])],
        )


@dataclass(frozen=True, slots=True)
class EntryStatus:
    """One entry file as listed: the entry when it verifies, else why it is refused."""

    id: str
    entry: JournalEntry | None
    problem: str | None = None
    claimed_run_id: str | None = None  # what an unauthenticated file says (never trusted for writes)

    @property
    def authenticated(self) -> bool:
        return self.entry is not None


@dataclass(frozen=True, slots=True)
class Progress:
    """What a progress file says: the paths written (renamed into place), restored by a rollback,
    and whether an undo of the entry had begun."""

    written: list[str]
    restored: set[str]
    undoing: bool


def unauthenticated_message(entry_id: str, folder: Path, why: str) -> str:
    return (f"journal entry {entry_id} is unauthenticated ({why}): it was written by a codeagent older than "
            "signed journals, or by something else that can write the workspace; undo never replays it. "
            f"Inspect {folder / (entry_id + '.json')} and restore by hand if you need to (git, or the base64 "
            "'old' fields), then delete it")


class Journal:
    """Entries on disk, newest last."""

    def __init__(self, folder: Path, *, root: Path, key: JournalKey | None = None):
        self.folder = folder
        self.root = root
        self.key = key or JournalKey()
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._lock_fd: int | None = None

    # ----------------------------------------------------------------- the lock
    @contextlib.contextmanager
    def locked(self, *, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
        """Hold the workspace's journal lock (re-entrant within this process)."""
        with self._thread_lock:
            if self._depth == 0:
                self._ensure()
                self._lock_fd = acquire(self.folder / ".lock", timeout)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._lock_fd is not None:
                    os.close(self._lock_fd)  # closing the descriptor releases the flock
                    self._lock_fd = None

    def _ensure(self) -> None:
        # a checked-out repo could make .codeagent a symlink to anywhere: never write through one
        for folder in (self.folder.parent, self.folder):
            if folder.is_symlink():
                raise JournalError(f"{folder} is a symlink; refusing to write the edit journal through it")
        ensure_state_dir(self.folder.parent)
        self.folder.mkdir(parents=True, exist_ok=True)

    # ----------------------------------------------------------------- writing
    def begin(self, entry: JournalEntry) -> None:
        """Record the intent of an operation before its first file: the progress file (so that a
        crash from here on is recognised), then the signed entry, both durable."""
        with self.locked():
            fd = open_for_append(self._progress_path(entry.id), exclusive=True)
            try:
                os.write(fd, f"{_PROGRESS_MAGIC} {entry.id}\n".encode("ascii"))
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                self.record(entry)
            except BaseException:  # no key, a full disk: the operation never started
                self.drop(entry.id)
                raise

    def mark(self, entry_id: str, what: str, path: str | None = None) -> None:
        """Append one line to an entry's progress file and make it durable: `w` a file renamed into
        place, `r` a file restored by a rollback, `u` an undo begun."""
        line = what if path is None else f"{what} {json.dumps(path)}"
        fd = open_for_append(self._progress_path(entry_id), exclusive=False)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))
            os.fdatasync(fd)  # the size change is data for fdatasync: the line reads back after a crash
        finally:
            os.close(fd)

    def finish(self, entry_id: str) -> None:
        """The operation wrote every file: the entry is complete without its progress file."""
        with contextlib.suppress(FileNotFoundError):
            self._progress_path(entry_id).unlink()

    def record(self, entry: JournalEntry) -> None:
        """Write (or replace) an entry, signed, atomically and durably; then prune old ones."""
        with self.locked():
            path = self._path(entry.id)
            tmp = self.folder / f"{entry.id}.{secrets.token_hex(4)}.tmp"
            body = json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
            mac = self.key.sign(self.root, entry.id, body)
            # O_EXCL | ONOFOLLOW: a name planted in the journal folder is never written through
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(_HEAD + mac.encode("ascii") + _MIDDLE + body + b"}")
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                raise
            fsync_dir(self.folder)
            self._prune()

    def drop(self, entry_id: str) -> None:
        """Remove an entry, then its progress file (a crash between leaves a progress file without
        an entry, which recovery removes)."""
        for path in (self._path(entry_id), self._progress_path(entry_id)):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    # ----------------------------------------------------------------- reading
    def exists(self, entry_id: str) -> bool:
        return bool(_ID.fullmatch(entry_id)) and self._path(entry_id).is_file()

    def ids(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        # a symlink planted there is no entry of ours: not listed, never followed
        return sorted(p.stem for p in self.folder.glob("*.json") if _ID.fullmatch(p.stem) and not p.is_symlink())

    def get(self, entry_id: str) -> JournalEntry:
        """The entry, verified; UnauthenticatedEntryError if its MAC is missing or wrong."""
        path = self._path(entry_id)
        if not _ID.fullmatch(entry_id) or not os.path.lexists(path):
            raise JournalError(f"no journal entry {entry_id!r}")
        try:
            raw = read_regular(path, MAX_TOTAL_BYTES)
        except OSError as exc:
            raise JournalError(f"journal entry {entry_id!r} is unreadable: {exc.strerror or exc}") from exc
        problem = self._verify(entry_id, raw)
        if problem:
            raise UnauthenticatedEntryError(unauthenticated_message(entry_id, self.folder, problem))
        try:
            entry = JournalEntry.from_json(json.loads(raw[_MAC_END + len(_MIDDLE):-1]))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:  # signed by us: only a bug gets here
            raise JournalError(f"journal entry {entry_id!r} is unreadable: {exc}") from exc
        if entry.id != entry_id:
            raise UnauthenticatedEntryError(unauthenticated_message(entry_id, self.folder, "its id is not its name"))
        return entry

    def _verify(self, entry_id: str, raw: bytes) -> str | None:
        if not (raw.startswith(_HEAD) and raw[_MAC_END:_MAC_END + len(_MIDDLE)] == _MIDDLE and raw.endswith(b"}")):
            return "no signature"
        mac = raw[len(_HEAD):_MAC_END].decode("ascii", "replace")
        if not self.key.verify(self.root, entry_id, raw[_MAC_END + len(_MIDDLE):-1], mac):
            return "the signature does not match"
        return None

    def status(self, entry_id: str) -> EntryStatus:
        try:
            return EntryStatus(entry_id, self.get(entry_id))
        except UnauthenticatedEntryError as exc:
            return EntryStatus(entry_id, None, str(exc), _peek_run_id(self._path(entry_id)))
        except JournalError as exc:
            return EntryStatus(entry_id, None, str(exc))

    def listing(self) -> list[EntryStatus]:
        """Every entry file, oldest first, each verified or saying why not."""
        return [self.status(i) for i in self.ids()]

    def last(self) -> JournalEntry:
        """The newest entry; refused (not skipped) when it does not verify."""
        ids = self.ids()
        if not ids:
            raise JournalError("nothing to undo: the edit journal is empty")
        return self.get(ids[-1])

    def entries(self) -> list[JournalEntry]:
        """The authenticated entries, oldest first."""
        return [s.entry for s in self.listing() if s.entry is not None]

    def for_run(self, run_id: str) -> list[JournalEntry]:
        """A run's authenticated entries, newest first (the order to undo them in)."""
        return [s.entry for s in reversed(self.listing()) if s.entry is not None and s.entry.run_id == run_id]

    def unauthenticated_for(self, run_id: str) -> list[EntryStatus]:
        """Files that claim to be entries of this run (or cannot be read well enough to say which
        run they claim) and do not verify: `undo --run` refuses while any is there."""
        return [s for s in self.listing() if s.entry is None and s.claimed_run_id in (run_id, None)]

    def progress(self, entry_id: str) -> Progress | None:
        """What an entry's progress file says (None: there is none, the operation was complete)."""
        try:
            raw = read_regular(self._progress_path(entry_id), MAX_TOTAL_BYTES)
        except FileNotFoundError:
            return None
        except OSError:  # not a regular file (planted): says nothing we could act on
            return Progress([], set(), False)
        lines = raw.decode("utf-8", "replace").splitlines()
        written: list[str] = []
        restored: set[str] = set()
        undoing = False
        for line in lines:
            what, _, arg = line.partition(" ")
            try:
                path = json.loads(arg) if arg else None
            except ValueError:  # a torn last line (the crash came mid-write): that file was not marked
                continue
            if what == "w" and isinstance(path, str):
                written.append(path)
            elif what == "r" and isinstance(path, str):
                restored.add(path)
            elif what == "u":
                undoing = True
        return Progress(written, restored, undoing)

    def interrupted(self) -> list[str]:
        """Ids with a progress file: operations (or undos) a crash interrupted, when no one holds the lock."""
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.progress") if _ID.fullmatch(p.stem))

    def leftover_temps(self) -> list[Path]:
        """Temp files of entries being written when a crash came."""
        return [p for p in self.folder.glob("*.tmp") if _TMP.fullmatch(p.name)] if self.folder.is_dir() else []

    # ----------------------------------------------------------------- internals
    def _path(self, entry_id: str) -> Path:
        return self.folder / f"{entry_id}.json"

    def _progress_path(self, entry_id: str) -> Path:
        return self.folder / f"{entry_id}.progress"

    def _prune(self) -> None:
        ids = self.ids()
        sizes = {i: os.lstat(self._path(i)).st_size for i in ids}
        total = sum(sizes.values())
        for i, old in enumerate(ids[:-1]):  # the newest entry always stays
            if len(ids) - i <= MAX_ENTRIES and total <= MAX_TOTAL_BYTES:
                break
            total -= sizes[old]
            self.drop(old)


def _peek_run_id(path: Path) -> str | None:
    """The run id an unauthenticated file claims, to decide whether it concerns `undo --run X`.
    Parsed defensively (size-capped, any error is None); never used to write anything."""
    try:
        raw = json.loads(read_regular(path, _MAX_PEEK_BYTES))
        if isinstance(raw, dict) and isinstance(raw.get("entry"), dict):
            raw = raw["entry"]
        run = raw.get("run_id") if isinstance(raw, dict) else None
        return run if isinstance(run, str) else ("" if isinstance(raw, dict) and "run_id" in raw else None)
    except (OSError, ValueError, RecursionError, MemoryError):
        return None
