"""The review list: occurrences of the old name in code, and string literals spelling exactly
the old name, that no rule confirmed. They are reported so a person or model can look; the
engine never edits them."""

from __future__ import annotations

from pathlib import Path

from lsp_bridge.types import Position, Range

from ...syntax import code_occurrences, language_for, parse
from ..plan import ReviewItem, ReviewKind, location_of
from .collector import Collector
from .pysource import PySource
from .pystrings import in_docstring
from .sources import Sources


def review_items(sources: Sources, coll: Collector, name: str, language: str, *,
                 limit: int, only: Path | None = None,
                 embedded: list[tuple[Path, Position]] | None = None) -> tuple[list[ReviewItem], int]:
    """(the first `limit` items, how many there are in all); `only` limits the scan to one file;
    `embedded` are occurrences in code held in strings that no rule confirmed."""
    items: list[ReviewItem] = []
    total = 0
    in_strings: dict[Path, list[tuple[int, int, ReviewKind]]] = {}
    for path, pos in embedded or []:
        in_strings.setdefault(path, []).append((pos.line, pos.character, "embedded"))
    for path in [only] if only is not None else sources.files_containing(name):
        found = _python_sites(sources, path, name) if language == "python" else _other_sites(
            sources, path, name, language_for(path) or language)
        found = sorted(found + in_strings.get(path, []))
        for line, char, kind in found:
            if coll.covers(path, Position(line, char)):
                continue
            total += 1
            if len(items) < limit:
                line_text = sources.line(path, line)
                at = Position(line, char)
                items.append(ReviewItem(location_of(sources.rel(path), Range(at, at)), kind, line_text.strip()[:200]))
    return items, total


def _python_sites(sources: Sources, path: Path, name: str) -> list[tuple[int, int, ReviewKind]]:
    src: PySource | None = sources.parsed(path)
    if src is None:
        return []
    out: list[tuple[int, int, ReviewKind]] = []
    for ident in src.identifiers(name):
        pos = src.position(ident.start_point)
        out.append((pos.line, pos.character, "code"))
    for content in src.string_literals(name):
        if in_docstring(content):
            continue
        pos = src.position(content.start_point)
        out.append((pos.line, pos.character, "string"))
    out.sort()
    return out


def _other_sites(sources: Sources, path: Path, name: str, language: str) -> list[tuple[int, int, ReviewKind]]:
    text = sources.text(path)
    if text is None:
        return []
    out: list[tuple[int, int, ReviewKind]] = [(line, col, "code") for line, col in code_occurrences(text, language, name)]
    tree = parse(text, language)
    wanted = name.encode("utf-8", "surrogatepass")
    lines = text.split("\n")
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in ("string", "template_string"):
            inner = [c for c in node.named_children]
            if len(inner) == 1 and inner[0].type == "string_fragment" and inner[0].text == wanted:
                row, bcol = inner[0].start_point
                col = len(lines[row].encode("utf-8", "surrogatepass")[:bcol].decode("utf-8", "surrogatepass"))
                out.append((row, col, "string"))
            continue
        stack.extend(node.children)
    out.sort()
    return out
