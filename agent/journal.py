"""The edit journal: the bytes each mutating operation replaced, so `undo` can restore them.

One JSON file per operation under `.codeagent/journal/`, named so that names sort by time.
A multi-file operation (a patch, a rename) is one entry and is undone as one.
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import JournalError

_ID = re.compile(r"[0-9]{20}-[0-9a-f]{6}")
MAX_ENTRIES = 500  # oldest entries beyond this are pruned
MAX_TOTAL_BYTES = 512 * 1024 * 1024  # and beyond this much on disk


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
        old = raw.get("old")
        return cls(raw["path"], None if old is None else base64.b64decode(old), raw.get("new_hash"), raw.get("mode"))


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
            list(raw.get("created_dirs", [])),
        )


class Journal:
    """Entries on disk, newest last."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _ensure(self) -> None:
        # a checked-out repo could make .codeagent a symlink to anywhere: never write through one
        for folder in (self.folder.parent, self.folder):
            if folder.is_symlink():
                raise JournalError(f"{folder} is a symlink; refusing to write the edit journal through it")
        self.folder.mkdir(parents=True, exist_ok=True)
        ignore = self.folder.parent / ".gitignore"
        if not ignore.exists() and not ignore.is_symlink():
            ignore.write_text("# codeagent's own state; never commit it\n*\n", encoding="utf-8")

    def record(self, entry: JournalEntry) -> None:
        self._ensure()
        path = self.folder / f"{entry.id}.json"
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(entry.to_json(), fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        self._prune()

    def ids(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json"))

    def get(self, entry_id: str) -> JournalEntry:
        path = self.folder / f"{entry_id}.json"
        if not _ID.fullmatch(entry_id) or not path.is_file():
            raise JournalError(f"no journal entry {entry_id!r}")
        try:
            return JournalEntry.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise JournalError(f"journal entry {entry_id!r} is unreadable: {exc}") from exc

    def last(self) -> JournalEntry:
        ids = self.ids()
        if not ids:
            raise JournalError("nothing to undo: the edit journal is empty")
        return self.get(ids[-1])

    def entries(self) -> list[JournalEntry]:
        return [self.get(i) for i in self.ids()]

    def for_run(self, run_id: str) -> list[JournalEntry]:
        """A run's entries, newest first (the order to undo them in)."""
        return [e for e in reversed(self.entries()) if e.run_id == run_id]

    def drop(self, entry_id: str) -> None:
        path = self.folder / f"{entry_id}.json"
        if path.exists():
            path.unlink()

    def _prune(self) -> None:
        ids = self.ids()
        sizes = {i: (self.folder / f"{i}.json").stat().st_size for i in ids}
        total = sum(sizes.values())
        for i, old in enumerate(ids[:-1]):  # the newest entry always stays
            if len(ids) - i <= MAX_ENTRIES and total <= MAX_TOTAL_BYTES:
                break
            total -= sizes[old]
            self.drop(old)
