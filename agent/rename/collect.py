"""The growing set of sites of one rename: one edit per range, the first reason kept."""

from __future__ import annotations

from pathlib import Path

import tree_sitter as ts

from lsp_bridge.types import FileEdits, FileLocation, Position, Range

from .model import SiteEdit
from .pysource import PySource


class Collector:
    def __init__(self, new_name: str):
        self.new_name = new_name
        self.edits: dict[tuple[Path, Range], SiteEdit] = {}
        self.starts: dict[Path, set[Position]] = {}
        self.by_path: dict[Path, dict[Range, SiteEdit]] = {}
        self.seen_hashes: dict[Path, str] = {}
        self.file_ops: list[FileEdits] = []
        self.conflicts: list[str] = []

    def covers(self, path: Path, pos: Position) -> bool:
        return pos in self.starts.get(path, ())

    def add(self, path: Path, rng: Range, reason: str, new_text: str | None = None) -> bool:
        """Add one site; False when that range is already being changed."""
        key = (path, rng)
        if key in self.edits:
            return False
        if self.covers(path, rng.start):
            return False
        for other in self._overlapping(path, rng):
            self.conflicts.append(f"{path}:{rng.start}: overlaps {other.reason} edit at {other.range.start}; skipped")
            return False
        edit = self.edits[key] = SiteEdit(path, rng, self.new_name if new_text is None else new_text, reason)
        self.by_path.setdefault(path, {})[rng] = edit
        self.starts.setdefault(path, set()).add(rng.start)
        return True

    def add_node(self, src: PySource, node: ts.Node, reason: str) -> bool:
        return self.add(src.path, src.range(node), reason)

    def add_location(self, loc: FileLocation, reason: str) -> bool:
        return self.add(loc.path, loc.range, reason)

    def add_file_edits(self, answer: list[FileEdits], reason: str) -> int:
        """Take a server's rename answer (text edits; moves and creations kept as file operations)."""
        added = 0
        for fe in answer:
            if fe.kind != "edit":
                if not any(op.path == fe.path and op.kind == fe.kind for op in self.file_ops):
                    self.file_ops.append(fe)
                continue
            if fe.seen_hash is not None:
                self.seen_hashes.setdefault(fe.path, fe.seen_hash)
            for change in fe.changes:
                added += self.add(fe.path, change.range, reason, change.new_text)
        return added

    def relabel(self, path: Path, start: Position, reason: str) -> None:
        for rng, edit in self.by_path.get(path, {}).items():
            if rng.start == start:
                self._replace(SiteEdit(edit.path, rng, edit.new_text, reason))
                return

    def _replace(self, edit: SiteEdit) -> None:
        self.edits[(edit.path, edit.range)] = edit
        self.by_path[edit.path][edit.range] = edit

    def rewrite(self, path: Path, rng: Range, new_text: str, reason: str) -> None:
        """Replace the text (and reason) of the edit at exactly `rng`."""
        self._replace(SiteEdit(path, rng, new_text, reason))

    def drop(self, keep: object) -> list[SiteEdit]:
        """Remove edits for which `keep(edit)` is false; returns them."""
        dropped = [e for e in self.edits.values() if not keep(e)]  # type: ignore[operator]
        for e in dropped:
            del self.edits[(e.path, e.range)]
            del self.by_path[e.path][e.range]
            self.starts.get(e.path, set()).discard(e.range.start)
        return dropped

    def _overlapping(self, path: Path, rng: Range) -> list[SiteEdit]:
        return [e for e in self.by_path.get(path, {}).values() if e.range.start < rng.end and rng.start < e.range.end]
