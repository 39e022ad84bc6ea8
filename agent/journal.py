"""The edit journal: the bytes each mutating operation replaced, so `undo` can restore them.

One JSON file per operation under `.codeagent/journal/`, named so that names sort by time.
A multi-file operation (a patch, a rename) is one entry and is undone as one.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import JournalError

MAX_ENTRIES = 500  # oldest entries beyond this are pruned


@dataclass(slots=True)
class JournalFile:
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
    id: str
    operation: str
    run_id: str | None
    created: float
    files: list[JournalFile] = field(default_factory=list)

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
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> JournalEntry:
        return cls(
            raw["id"], raw["operation"], raw.get("run_id"), raw.get("created", 0.0),
            [JournalFile.from_json(f) for f in raw.get("files", [])],
        )


class Journal:
    """Entries on disk, newest last."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _ensure(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        ignore = self.folder.parent / ".gitignore"
        if not ignore.exists():
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
        if "/" in entry_id or not path.is_file():
            raise JournalError(f"no journal entry {entry_id!r}")
        return JournalEntry.from_json(json.loads(path.read_text(encoding="utf-8")))

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
        for old in ids[: max(0, len(ids) - MAX_ENTRIES)]:
            self.drop(old)
