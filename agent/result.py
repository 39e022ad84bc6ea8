"""The data that crosses module boundaries: tool results, locations, file edits, edit-check outcomes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ToolResult:
    """What every tool returns. `output` is what the model reads; `data` is structured extra.

    The agent loop knows no tool by name; of a successful result it reads `data["finished"]`
    (True: the run ends, `output` is its summary), `data["files"]` (workspace paths the call
    changed) and `viewed` (path, whole): a file whose text the output showed, and whether all of
    it. `viewed` is for the loop only: it is not part of `to_dict`."""

    success: bool
    output: str = ""
    error: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    viewed: tuple[str, bool] | None = None

    @classmethod
    def ok(cls, output: str, **data: Any) -> ToolResult:
        return cls(success=True, output=output, error=None, data=data)

    @classmethod
    def fail(cls, error: str, output: str = "", **data: Any) -> ToolResult:
        return cls(success=False, output=output, error=error, data=data)

    def to_dict(self) -> dict[str, Any]:
        return {"success": self.success, "output": self.output, "error": self.error, "data": self.data}


@dataclass(frozen=True, slots=True)
class Location:
    """A range in a workspace file: 1-based lines, 1-based columns counted in characters."""

    path: str
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


def bounded(text: str, limit: int, *, what: str = "characters") -> str:
    """Head and tail of `text`, saying how much was cut from the middle."""
    if len(text) <= limit:
        return text
    head = text[: limit * 2 // 3]
    tail = text[len(text) - limit // 3:]
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n[... {cut} {what} cut from the middle ...]\n{tail}"


def content_hash(data: bytes) -> str:
    """The hash used everywhere to say 'this file is still what we saw'."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class FileEdit:
    """Replace a whole file's text (None deletes it). `old_hash` guards against stale edits:
    the sha256 of the file's bytes when the edit was computed, or None for 'must not exist'.
    Set `check_old=False` to skip the guard (e.g. write_file overwriting whatever is there)."""

    path: str
    new_text: str | None
    old_hash: str | None = None
    check_old: bool = True


@dataclass(slots=True)
class CheckOutcome:
    """What an edit check says of an applied change: reject it (with why) and/or add notes."""

    reject: str | None = None
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
