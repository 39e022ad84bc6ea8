"""Plain data at the bridge boundary. Positions are 0-based lines and 0-based columns counted in
Unicode code points (Python `str` indices) of the file's text as the bridge reads it: UTF-8 decoded,
BOM dropped, every line ending turned into "\\n" (the same text the agent's workspace sees)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

EditKind = Literal["edit", "create", "delete", "rename"]


@dataclass(frozen=True, slots=True, order=True)
class Position:
    line: int
    character: int

    def __str__(self) -> str:  # 0-based, for debugging; messages use shown()
        return f"{self.line}:{self.character}"

    def shown(self) -> str:
        """`line:column`, 1-based, as a person counts (every message a user reads uses this)."""
        return f"{self.line + 1}:{self.character + 1}"


@dataclass(frozen=True, slots=True, order=True)
class Range:
    start: Position
    end: Position

    def __str__(self) -> str:  # 0-based, for debugging; messages use shown()
        return f"{self.start}-{self.end}"

    def shown(self) -> str:
        return f"{self.start.shown()}-{self.end.shown()}"


@dataclass(frozen=True, slots=True)
class FileLocation:
    path: Path
    range: Range

    def __str__(self) -> str:
        return f"{self.path}:{self.range.start}"


@dataclass(frozen=True, slots=True)
class TextChange:
    range: Range
    new_text: str


@dataclass(frozen=True, slots=True)
class FileEdits:
    """What one file needs. kind "edit": apply `changes` to its text; "create": a new (empty unless
    `changes` add text) file; "delete": remove it; "rename": move it to `new_path` (then `changes`,
    if any, apply to the moved file). `seen_hash` is the sha256 of the file bytes the server's answer
    was computed against (None for files that did not exist)."""

    path: Path
    changes: list[TextChange] = field(default_factory=list)
    kind: EditKind = "edit"
    new_path: Path | None = None
    seen_hash: str | None = None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    path: Path
    range: Range
    severity: Literal["error", "warning", "information", "hint"]
    message: str
    source: str | None = None
    code: str | None = None
