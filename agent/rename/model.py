"""What a rename plan holds: every site to change with the reason it is changed, and the
occurrences of the old name that no rule confirmed (for review, never edited).

Positions are the bridge's: absolute paths, 0-based lines, 0-based columns in code points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lsp_bridge.types import FileEdits, Position, Range, TextChange

# Why a site is renamed. `lsp`: the language server's own rename answer for the target.
REASONS: dict[str, str] = {
    "lsp": "the language server's rename of the target",
    "stub": "the stub (.pyi) / implementation counterpart, and what is typed through it",
    "hierarchy": "the same method (or attribute) in a base class or an override in a subclass",
    "alias": "an import alias is a local name: its uses in the same file",
    "kwarg": "a keyword argument naming the renamed parameter",
    "__all__": "an entry of the module's __all__ naming the renamed module-level name",
    "__slots__": "a __slots__ / __match_args__ entry of the class that owns the renamed attribute",
    "attr-string": "an attribute name as a string on the owning class (getattr/setattr/hasattr/"
    "delattr, object.__setattr__, __dict__ keys)",
    "embedded-code": "a module-level name used through an import of its module in Python code held in a "
    "string (a script run in a subprocess, code given to exec)",
    "shorthand": "a shorthand property `{ name }`: only the renamed half changes (`{ old: new }`)",
    "receiver-type": "an attribute access whose receiver the server types as the owning class",
    "untyped-receiver": "an attribute access on a receiver the server cannot type, for a member no other "
    "class declares and no built-in type has",
}

Reason = str
ReviewKind = Literal["code", "string", "embedded"]


@dataclass(frozen=True, slots=True)
class SiteEdit:
    """Replace `range` in `path` by `new_text`, because of `reason` (a key of REASONS)."""

    path: Path
    range: Range
    new_text: str
    reason: Reason

    @property
    def start(self) -> Position:
        return self.range.start


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """An occurrence of the old name that nothing confirmed: shown, never edited."""

    path: Path
    line: int
    character: int
    kind: ReviewKind
    line_text: str


@dataclass(slots=True)
class RenamePlan:
    """The complete answer for one rename: edits (with reasons), file operations the server asked
    for (moves), the review list and notes on what the engine did or could not do."""

    root: Path
    path: Path
    position: Position
    old_name: str
    new_name: str
    language: str
    edits: list[SiteEdit] = field(default_factory=list)
    file_ops: list[FileEdits] = field(default_factory=list)
    review: list[ReviewItem] = field(default_factory=list)
    review_total: int = 0
    notes: list[str] = field(default_factory=list)
    seen_hashes: dict[Path, str] = field(default_factory=dict)

    def by_file(self) -> dict[Path, list[SiteEdit]]:
        out: dict[Path, list[SiteEdit]] = {}
        for edit in sorted(self.edits, key=lambda e: (str(e.path), e.range.start)):
            out.setdefault(edit.path, []).append(edit)
        return out

    def reason_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for edit in self.edits:
            counts[edit.reason] = counts.get(edit.reason, 0) + 1
        return counts

    def file_edits(self) -> list[FileEdits]:
        """The plan as the bridge's per-file edits (what the workspace applies), moves last."""
        out = [
            FileEdits(path=path, changes=[TextChange(e.range, e.new_text) for e in edits],
                      seen_hash=self.seen_hashes.get(path))
            for path, edits in self.by_file().items()
        ]
        out.extend(self.file_ops)
        return out

    def to_dict(self, rel: Any = str) -> dict[str, Any]:
        """JSON-ready form; `rel` turns an absolute path into what the caller shows."""
        return {
            "old_name": self.old_name,
            "new_name": self.new_name,
            "language": self.language,
            "edits": [
                {"path": rel(e.path), "line": e.range.start.line + 1, "column": e.range.start.character + 1,
                 "end_line": e.range.end.line + 1, "end_column": e.range.end.character + 1,
                 "new_text": e.new_text, "reason": e.reason}
                for edits in self.by_file().values() for e in edits
            ],
            "reasons": self.reason_counts(),
            "file_operations": [
                {"kind": op.kind, "path": rel(op.path), "new_path": rel(op.new_path) if op.new_path else None}
                for op in self.file_ops
            ],
            "review": [
                {"path": rel(r.path), "line": r.line + 1, "column": r.character + 1, "kind": r.kind,
                 "text": r.line_text}
                for r in self.review
            ],
            "review_total": self.review_total,
            "notes": list(self.notes),
        }
