"""The shared state of one Python move while it is planned: the files read (each parsed once),
their module names, the edits per file, the files to create, and the import edges the move adds."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from ...workspace import Workspace
from ..plan import ReviewItem
from .edits import FileChanges, SourceFile
from .pymodules import module_name, parse, python_files


@dataclass
class MoveState:
    ws: Workspace
    name: str
    source: str  # workspace-relative path of the source file
    dest: str
    source_module: str = ""
    dest_module: str = ""
    dest_is_pkg: bool = False
    files: dict[str, SourceFile | None] = field(default_factory=dict)
    changes: dict[str, FileChanges] = field(default_factory=dict)
    creates: dict[str, str] = field(default_factory=dict)
    added_edges: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    review: list[ReviewItem] = field(default_factory=list)
    dest_has_all: bool = False  # DEST will have an `__all__` (existing, or created from the source's)
    _all_files: list[str] | None = None

    def file(self, rel: str) -> SourceFile | None:
        if rel not in self.files:
            self.files[rel] = parse(self.ws, rel) if self.ws.exists(rel) else None
        return self.files[rel]

    def edits(self, rel: str) -> FileChanges:
        src = self.file(rel)
        assert src is not None
        return self.changes.setdefault(rel, FileChanges(src))

    def module(self, rel: str) -> tuple[str, bool]:
        return module_name(self.ws, rel)

    def all_files(self) -> list[str]:
        if self._all_files is None:
            self._all_files = list(python_files(self.ws))
        return self._all_files

    def word_in_other_files(self, word: str, skip: set[str]) -> bool:
        pattern = re.compile(rf"\b{re.escape(word)}\b")
        for rel in self.all_files():
            if rel in skip:
                continue
            src = self.file(rel)
            if src is not None and pattern.search(src.text):
                return True
        return False


def header_offset(src: SourceFile) -> int:
    """Where new imports go: after the last top-level import of the file's leading imports (after
    the docstring, or at the very top, when it has none)."""
    at = 0
    for index, stmt in enumerate(src.tree.body):
        if index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            at = src.line_start((stmt.end_lineno or stmt.lineno) + 1)
            continue
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            at = src.line_start((stmt.end_lineno or stmt.lineno) + 1)
            continue
        if isinstance(stmt, ast.If | ast.Try):
            continue
        break
    return at


def import_line(module_ref: str, names: list[str]) -> str:
    if module_ref.startswith("import "):
        return module_ref
    return f"from {module_ref} import {', '.join(names)}"
