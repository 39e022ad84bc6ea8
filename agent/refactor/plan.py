"""The one plan type of a multi-file edit: what a refactoring (rename today) will change, before
anything is written. The CLI, the agent's tools and the compare view render it; `commit.py` turns
it into the workspace's FileEdits, checking every range first.

Positions are `agent.result.Location`s: workspace-relative paths, 1-based lines, 1-based columns
counted in characters. `range_of` / `location_of` convert to and from the bridge's 0-based ranges.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from lsp_bridge.types import FileEdits, Position, Range

from ..result import Location

ReviewKind = Literal["code", "string", "embedded", "comment", "docstring"]


def location_of(path: str, rng: Range) -> Location:
    """The Location of a bridge range (0-based) in the file `path` (workspace-relative)."""
    return Location(path, rng.start.line + 1, rng.start.character + 1, rng.end.line + 1, rng.end.character + 1)


def range_of(loc: Location) -> Range:
    """The bridge range (0-based) of a Location; a Location without an end is empty."""
    start = Position(loc.line - 1, loc.column - 1)
    if loc.end_line is None or loc.end_column is None:
        return Range(start, start)
    return Range(start, Position(loc.end_line - 1, loc.end_column - 1))


@dataclass(frozen=True, slots=True)
class Site:
    """Replace the text at `location` by `new_text`, because of `reason`. `old_text` is what the
    range must hold when the plan is committed (None: not checked, e.g. a pass that does not say)."""

    location: Location
    new_text: str
    reason: str
    old_text: str | None = None

    @property
    def path(self) -> str:
        return self.location.path

    @property
    def line(self) -> int:
        return self.location.line

    @property
    def column(self) -> int:
        return self.location.column

    @property
    def range(self) -> Range:
        return range_of(self.location)

    def to_dict(self, *, new_text: bool = False) -> dict[str, Any]:
        loc = self.location
        out: dict[str, Any] = {"path": loc.path, "line": loc.line, "column": loc.column, "end_line": loc.end_line,
                               "end_column": loc.end_column}
        if new_text:
            out["new_text"] = self.new_text
        out["reason"] = self.reason
        return out


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """An occurrence of the old name that no rule confirmed: shown for review, never edited."""

    location: Location
    kind: ReviewKind
    line_text: str = ""

    def to_dict(self) -> dict[str, Any]:
        loc = self.location
        return {"path": loc.path, "line": loc.line, "column": loc.column, "kind": self.kind, "text": self.line_text}


@dataclass
class EditPlan:
    """Everything one refactoring changes: the sites (each with its reason), file operations the
    server asked for (create / move / delete), the review list, notes, and the conflicts that
    refuse it (a plan with conflicts is never committed). `hashes` holds the sha256 of each file's
    bytes as the sites were computed on it: a file that changed since is refused when committed."""

    operation: str  # what produced it: "rename"
    old_name: str
    new_name: str
    language: str = ""
    method: str = "lsp"  # how the sites were found: "lsp" (a language server) or "syntactic"
    complete: bool = True  # False: the method cannot see every use (review the diff)
    target: Location | None = None
    sites: list[Site] = field(default_factory=list)
    file_ops: list[FileEdits] = field(default_factory=list)  # the bridge's, absolute paths
    review: list[ReviewItem] = field(default_factory=list)
    review_total: int = 0  # how many review items there are in all (`review` may be cut)
    textual: list[ReviewItem] = field(default_factory=list)  # the name in strings / comments / docstrings, not edited
    textual_unscanned: int = 0  # files holding the name not scanned for textual occurrences
    notes: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)
    _index: set[tuple[str, Range]] = field(default_factory=set, repr=False, compare=False)
    _indexed: tuple[int, int] = field(default=(0, 0), repr=False, compare=False)

    def add(self, path: str, rng: Range, new_text: str, reason: str, old_text: str | None = None) -> bool:
        """Add a replacement unless the same range is already planned. True if added. `old_text` is
        what the range must hold when committed; by default the old name (nothing for an insertion)."""
        if self._indexed != (id(self.sites), len(self.sites)):  # `sites` was set or changed directly
            self._index = {(s.path, s.range) for s in self.sites}
        if (path, rng) in self._index:
            return False
        self._index.add((path, rng))
        expected = old_text if old_text is not None else ("" if rng.start == rng.end else self.old_name)
        self.sites.append(Site(location_of(path, rng), new_text, reason, expected))
        self._indexed = (id(self.sites), len(self.sites))
        return True

    def by_file(self) -> dict[str, list[Site]]:
        """Sites grouped by file, files and sites in position order."""
        out: dict[str, list[Site]] = {}
        for site in sorted(self.sites, key=lambda s: (s.path, s.line, s.column)):
            out.setdefault(site.path, []).append(site)
        return out

    def files(self) -> list[str]:
        return sorted({s.path for s in self.sites})

    def reason_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for site in self.sites:
            counts[site.reason] = counts.get(site.reason, 0) + 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (every site with its new text)."""
        return {
            "old_name": self.old_name,
            "new_name": self.new_name,
            "language": self.language,
            "edits": [s.to_dict(new_text=True) for sites in self.by_file().values() for s in sites],
            "reasons": self.reason_counts(),
            "file_operations": [{"kind": op.kind, "path": str(op.path),
                                 "new_path": str(op.new_path) if op.new_path else None} for op in self.file_ops],
            "review": [r.to_dict() for r in self.review],
            "review_total": self.review_total,
            "textual": [r.to_dict() for r in self.textual],
            "notes": list(self.notes),
            "conflicts": list(self.conflicts),
        }
