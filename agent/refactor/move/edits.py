"""Per-file text edits by character offset, turned into the EditPlan's Sites (each range keeps the
text it must hold when committed). The move planners work on offsets; the plan speaks Locations."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from lsp_bridge.types import Position, Range

from ..plan import EditPlan


@dataclass
class SourceFile:
    """One Python file as read for the move: its text, its tree, and offset helpers (ast columns are
    UTF-8 byte offsets, our offsets count characters)."""

    rel: str
    text: str
    tree: ast.Module
    hash: str = ""
    _starts: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        starts, pos = [0], 0
        for line in self.text.split("\n")[:-1]:
            pos += len(line) + 1
            starts.append(pos)
        self._starts = starts

    def line_start(self, lineno: int) -> int:
        """Offset of the start of 1-based line `lineno` (the end of the text past the last line)."""
        if lineno - 1 < len(self._starts):
            return self._starts[lineno - 1]
        return len(self.text)

    def offset(self, lineno: int, col_byte: int) -> int:
        start = self.line_start(lineno)
        end = self.text.find("\n", start)
        line = self.text[start:] if end < 0 else self.text[start:end]
        return start + len(line.encode("utf-8")[:col_byte].decode("utf-8", "replace"))

    def node_span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.offset(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def position(self, offset: int) -> Position:
        lo, hi = 0, len(self._starts) - 1
        while lo < hi:  # the last line start <= offset
            mid = (lo + hi + 1) // 2
            if self._starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return Position(lo, offset - self._starts[lo])


@dataclass
class FileChanges:
    """Replacements in one file by offset: (start, end, new text, reason)."""

    file: SourceFile
    items: list[tuple[int, int, str, str]] = field(default_factory=list)

    def replace(self, start: int, end: int, text: str, reason: str) -> None:
        self.items.append((start, end, text, reason))

    def insert(self, at: int, text: str, reason: str) -> None:
        self.items.append((at, at, text, reason))

    def overlapping(self) -> bool:
        spans = sorted((s, e) for s, e, _, _ in self.items)
        return any(b[0] < a[1] for a, b in zip(spans, spans[1:], strict=False))

    def add_to(self, plan: EditPlan) -> None:
        """Add every replacement to the plan as a Site (merging insertions at the same offset)."""
        merged: dict[tuple[int, int], tuple[str, str]] = {}
        for start, end, text, reason in sorted(self.items, key=lambda i: (i[0], i[1])):
            key = (start, end)
            if key in merged and start == end:
                merged[key] = (merged[key][0] + text, merged[key][1])
            else:
                merged[key] = (text, reason)
        for (start, end), (text, reason) in merged.items():
            rng = Range(self.file.position(start), self.file.position(end))
            plan.add(self.file.rel, rng, text, reason, old_text=self.file.text[start:end])
        if self.file.hash:
            plan.hashes[self.file.rel] = self.file.hash
