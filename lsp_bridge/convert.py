"""Server answers (lsprotocol types, server encoding) -> bridge dataclasses (code-point columns).

A references answer is taken as plain JSON (`plain_locations`, checked here as strictly as the
protocol types would): structuring 1,500 Locations into lsprotocol objects first cost more than
everything else we do with them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from lsp_bridge.errors import InvalidEdit, RequestFailed
from lsp_bridge.positions import Encoding, TextLines, from_units
from lsp_bridge.types import Diagnostic, FileLocation, Position, Range
from lsp_bridge.uris import uri_to_path

LinesOf = Callable[[Path], "TextLines | None"]
Site = tuple[str, int, int, int, int]  # uri, then the range's 0-based lines and server columns
UINTEGER_MAX = 2**31 - 1  # the protocol's uinteger

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
    sites: list[Site] = []
    for item in items:
        if isinstance(item, lsp.Location):
            uri, rng = item.uri, item.range
        elif isinstance(item, lsp.LocationLink):
            uri, rng = item.target_uri, item.target_selection_range
        else:
            continue
        sites.append((uri, rng.start.line, rng.start.character, rng.end.line, rng.end.character))
    return _located(sites, lines_of, encoding)


def plain_locations(result: object, lines_of: LinesOf, encoding: Encoding) -> list[FileLocation]:
    """A `Location[] | null` answer as parsed JSON -> what `locations` gives for it once typed.
    A malformed answer (not a list, a location without a string uri, a range without
    non-negative integer lines and columns) raises RequestFailed, as an untypeable answer does."""
    if result is None:
        return []
    if not isinstance(result, list):
        raise RequestFailed(f"undecodable answer: expected a list of locations, got {type(result).__name__}")
    sites: list[Site] = []
    top = UINTEGER_MAX
    try:
        for item in result:
            uri, rng = item["uri"], item["range"]
            start, end = rng["start"], rng["end"]
            site = (uri, sl, sc, el, ec) = (uri, start["line"], start["character"], end["line"], end["character"])
            # Spelled out (not all() over a generator): this runs for each of thousands of locations.
            if (type(uri) is not str or type(sl) is not int or type(sc) is not int or type(el) is not int
                    or type(ec) is not int or not (0 <= sl <= top and 0 <= sc <= top and 0 <= el <= top
                                                   and 0 <= ec <= top)):
                raise TypeError(site)
            sites.append(site)
    except (KeyError, TypeError, IndexError) as exc:
        raise RequestFailed(f"undecodable answer: not a location: {str(exc)[:200]}") from None
    return _located(sites, lines_of, encoding)


def _located(sites: Iterable[Site], lines_of: LinesOf, encoding: Encoding) -> list[FileLocation]:
    files: dict[str, tuple[Path, str, list[str] | None] | None] = {}  # uri -> (path, str(path), lines)
    found: dict[tuple[str, int, int, int, int], FileLocation] = {}
    code_points = encoding == "utf-32"
    for uri, sl, sc, el, ec in sites:
        known = files.get(uri, _UNSEEN)
        if known is _UNSEEN:
            try:
                path = uri_to_path(uri)
            except InvalidEdit:  # e.g. an "untitled:" or virtual document: nothing a tool can open
                known = None
            else:
                lines = lines_of(path)
                known = (path, str(path), None if lines is None else lines.lines)
            files[uri] = known
        if known is None:
            continue
        path, shown, text = known
        if text is not None:  # else (unreadable file) the server's columns are the best we have
            # from_units, its common case inline (an ASCII line, or code points: a clamp).
            line = text[sl] if 0 <= sl < len(text) else ""
            if sc > 0 and (code_points or line.isascii()):
                sc = min(sc, len(line))
            else:
                sc = from_units(line, sc, encoding)
            if el != sl:
                line = text[el] if 0 <= el < len(text) else ""
            if ec > 0 and (code_points or line.isascii()):
                ec = min(ec, len(line))
            else:
                ec = from_units(line, ec, encoding)
        key = (shown, sl, sc, el, ec)
        if key not in found:
            found[key] = _location(path, sl, sc, el, ec)
    return [found[key] for key in sorted(found)]


_UNSEEN: Any = object()  # (files.get's default: None is a URI no tool can open)
_new = object.__new__
_line, _character = vars(Position)["line"].__set__, vars(Position)["character"].__set__  # slot descriptors
_start, _end = vars(Range)["start"].__set__, vars(Range)["end"].__set__
_path, _range = vars(FileLocation)["path"].__set__, vars(FileLocation)["range"].__set__
if [[f.name for f in fields(c)] for c in (FileLocation, Range, Position)] != [
        ["path", "range"], ["start", "end"], ["line", "character"]]:
    raise TypeError("lsp_bridge.types changed its fields: update convert._location")


def _location(path: Path, sl: int, sc: int, el: int, ec: int) -> FileLocation:
    """`FileLocation(path, Range(Position(sl, sc), Position(el, ec)))`, built in half the time: a
    frozen dataclass's __init__ goes through object.__setattr__ per field, and an answer builds
    thousands of these (the slots are set through their descriptors, which is what it does)."""
    start, end, rng, loc = _new(Position), _new(Position), _new(Range), _new(FileLocation)
    _line(start, sl)
    _character(start, sc)
    _line(end, el)
    _character(end, ec)
    _start(rng, start)
    _end(rng, end)
    _path(loc, path)
    _range(loc, rng)
    return loc


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
