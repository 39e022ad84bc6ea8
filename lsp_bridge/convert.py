"""Server answers (lsprotocol types, server encoding) -> bridge dataclasses (code-point columns)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from lsprotocol import types as lsp

from lsp_bridge.errors import InvalidEdit
from lsp_bridge.positions import Encoding, TextLines
from lsp_bridge.types import Diagnostic, FileLocation, Position, Range
from lsp_bridge.uris import uri_to_path

LinesOf = Callable[[Path], "TextLines | None"]

_SEVERITY = {
    lsp.DiagnosticSeverity.Error: "error",
    lsp.DiagnosticSeverity.Warning: "warning",
    lsp.DiagnosticSeverity.Information: "information",
    lsp.DiagnosticSeverity.Hint: "hint",
}


def convert_range(lines: TextLines | None, rng: lsp.Range, encoding: Encoding) -> Range:
    if lines is None:  # unreadable file: the server's columns are the best we have
        return Range(Position(rng.start.line, rng.start.character), Position(rng.end.line, rng.end.character))
    return lines.range_from_server(rng, encoding)


def locations(result: object, lines_of: LinesOf, encoding: Encoding) -> list[FileLocation]:
    """Location | Location[] | LocationLink[] | None -> sorted, de-duplicated FileLocations.
    (Answers on a big repository list thousands of locations in a few hundred files: each file's
    URI is parsed and its text looked up once.)"""
    if result is None:
        return []
    items: Sequence[object] = result if isinstance(result, Sequence) else [result]
    files: dict[str, tuple[Path, str, TextLines | None] | None] = {}  # uri -> (path, str(path), lines)
    found: dict[tuple[str, int, int, int, int], FileLocation] = {}
    for item in items:
        if isinstance(item, lsp.Location):
            uri, rng = item.uri, item.range
        elif isinstance(item, lsp.LocationLink):
            uri, rng = item.target_uri, item.target_selection_range
        else:
            continue
        if uri not in files:
            try:
                path = uri_to_path(uri)
            except InvalidEdit:  # e.g. an "untitled:" or virtual document: nothing a tool can open
                files[uri] = None
            else:
                files[uri] = (path, str(path), lines_of(path))
        known = files[uri]
        if known is None:
            continue
        path, shown, lines = known
        converted = convert_range(lines, rng, encoding)
        key = (shown, converted.start.line, converted.start.character, converted.end.line, converted.end.character)
        if key not in found:
            found[key] = FileLocation(path, converted)
    return [found[key] for key in sorted(found)]


def diagnostics(path: Path, items: Sequence[lsp.Diagnostic], lines: TextLines | None,
                encoding: Encoding) -> list[Diagnostic]:
    out = []
    for item in items:
        code = item.code
        out.append(Diagnostic(
            path=path,
            range=convert_range(lines, item.range, encoding),
            severity=_SEVERITY.get(item.severity or lsp.DiagnosticSeverity.Error, "error"),  # type: ignore[arg-type]
            message=item.message,
            source=item.source,
            code=None if code is None else str(code),
        ))
    return sorted(out, key=lambda d: (d.range, d.message))


def word_range(lines: TextLines, pos: Position) -> Range | None:
    """The identifier under `pos` (for servers answering prepareRename with 'default behavior')."""
    text = lines.line(pos.line)
    start = end = min(pos.character, len(text))
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_$"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] in "_$"):
        end += 1
    return Range(Position(pos.line, start), Position(pos.line, end)) if end > start else None
