"""What the engine needs of a server answer everywhere: bounds, references as edits, and the
refusal to rename library code."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lsp_bridge.types import FileEdits, Position, TextChange

from ..errors import ToolFailure
from .server import SemanticServer, Sources


@dataclass(frozen=True, slots=True)
class RenameLimits:
    """Bounds on the work one rename may do."""

    review_items: int = 100
    seed_requests: int = 60
    definition_requests: int = 400
    receiver_checks: int = 300
    opened_files: int = 150
    max_files: int = 50_000


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
