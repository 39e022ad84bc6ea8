"""The growing set of sites of one rename: one site per range, the first reason kept.

Passes find sites in the bridge's terms (absolute paths, 0-based ranges); the collector keeps them
indexed that way and holds each as the plan's `Site` (workspace-relative Location, new text, reason,
and the text the range must hold: the old name, or nothing for an insertion)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import tree_sitter as ts

from lsp_bridge.types import FileEdits, FileLocation, Position, Range

from ..plan import Site, location_of
from .pysource import PySource


class Collector:
    def __init__(self, new_name: str, *, old_name: str | None = None, rel: Callable[[Path], str] = Path.as_posix):
        self.new_name = new_name
        self.old_name = old_name
        self.rel = rel  # absolute path -> the plan's workspace-relative path
        self.edits: dict[tuple[Path, Range], Site] = {}
        self.starts: dict[Path, set[Position]] = {}
        self.by_path: dict[Path, dict[Range, Site]] = {}
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
            self.conflicts.append(f"{location_of(self.rel(path), rng)}: overlaps {other.reason} edit at {other.location}; "
                                  "skipped")
            return False
        edit = self.edits[key] = Site(location_of(self.rel(path), rng), self.new_name if new_text is None else new_text,
                                      reason, self._expected(rng))
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

    def _expected(self, rng: Range) -> str | None:
        """What the range must hold: the old name (nothing for an insertion); None when unknown."""
        if rng.start == rng.end:
            return ""
        return self.old_name

    def relabel(self, path: Path, start: Position, reason: str) -> None:
        for rng, edit in self.by_path.get(path, {}).items():
            if rng.start == start:
                self._replace(path, rng, replace(edit, reason=reason))
                return

    def _replace(self, path: Path, rng: Range, edit: Site) -> None:
        self.edits[(path, rng)] = edit
        self.by_path[path][rng] = edit

    def rewrite(self, path: Path, rng: Range, new_text: str, reason: str) -> None:
        """Replace the text (and reason) of the edit at exactly `rng`."""
        self._replace(path, rng, replace(self.edits[(path, rng)], new_text=new_text, reason=reason))

    def drop(self, keep: Callable[[Path], bool]) -> list[Path]:
        """Remove the sites in files for which `keep(path)` is false; returns those files."""
        dropped = [(path, rng) for path, rng in self.edits if not keep(path)]
        for path, rng in dropped:
            del self.edits[(path, rng)]
            del self.by_path[path][rng]
            self.starts.get(path, set()).discard(rng.start)
        return [path for path, _ in dropped]

    def sites(self) -> list[Site]:
        return list(self.edits.values())

    def _overlapping(self, path: Path, rng: Range) -> list[Site]:
        return [e for r, e in self.by_path.get(path, {}).items() if r.start < rng.end and rng.start < r.end]
