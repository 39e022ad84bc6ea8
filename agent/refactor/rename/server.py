"""What the rename engine asks of a language server, and what it does with every answer: references
as edits, and the refusal to rename library code.

`SemanticServer` is the part of `lsp_bridge.LspSession` the engine uses (tests and other callers
may pass anything with these methods). `type_definition` is optional: when the session has it,
attribute accesses on receivers typed as the owning class are confirmed through it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from lsp_bridge.types import FileEdits, FileLocation, Position, TextChange

from ...errors import ToolFailure
from .sources import Sources


class SemanticServer(Protocol):
    def sync(self, path: Path) -> None: ...

    def definition(self, path: Path, pos: Position) -> list[FileLocation]: ...

    def references(self, path: Path, pos: Position, include_declaration: bool = True) -> list[FileLocation]: ...

    def rename(self, path: Path, pos: Position, new_name: str) -> list[FileEdits]: ...


@runtime_checkable
class TypeDefinitionServer(Protocol):
    def type_definition(self, path: Path, pos: Position) -> list[FileLocation]: ...


def references_as_edits(server: SemanticServer, path: Path, pos: Position, name: str) -> list[FileEdits]:
    by_file: dict[Path, list[TextChange]] = {}
    for loc in server.references(path, pos, True):
        by_file.setdefault(loc.path, []).append(TextChange(loc.range, name))
    return [FileEdits(path=p, changes=changes) for p, changes in by_file.items()]


def refuse_outside(sources: Sources, answer: list[FileEdits], old: str) -> None:
    """A server answer touching files outside the workspace means the symbol is library code."""
    outside = sorted({str(fe.path) for fe in answer if not sources.in_workspace(fe.path)})
    if outside:
        raise ToolFailure(
            f"renaming {old!r} would edit files outside the workspace ({', '.join(outside[:5])}); it is defined "
            "in library code. Nothing was written.")
