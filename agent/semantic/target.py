"""Where a semantic query points: a workspace file and a position in it, given either as a 1-based
line and column (characters as a person sees them) or as a symbol name path looked up in the syntax
index. This is the one place that turns tool positions into bridge positions and back."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from lsp_bridge.types import FileLocation, Position, Range

from ..errors import ToolFailure
from ..languages import server_language, syntax_language
from ..result import Location
from ..toolcontext import ToolContext
from ..workspace import TextDoc
from .filecache import file_cache
from .parsed import tree_for
from .position_kind import describe_char, non_symbol_at
from .target_docs import target_doc

_IDENT_CHAR = re.compile(r"[\w$]")
_IDENT_AT = re.compile(r"[\w$]+")
MAX_CANDIDATES_SHOWN = 10


@dataclass(frozen=True, slots=True)
class Target:
    """A resolved query position: the file as read now, the 0-based position and the name there."""

    doc: TextDoc
    real: Path
    pos: Position
    name: str
    name_start: int  # 0-based column where the identifier begins
    language: str  # syntax language ("python", "typescript", "tsx", "javascript")
    server: str | None  # bridge session language, None when no server serves this file

    @property
    def path(self) -> str:
        return self.doc.path

    @property
    def location(self) -> Location:
        return Location(self.path, self.pos.line + 1, self.name_start + 1, self.pos.line + 1,
                        self.name_start + len(self.name) + 1)

    def line_text(self) -> str:
        return self.doc.text.split("\n")[self.pos.line]


def to_position(doc: TextDoc, line: int, column: int, lines: list[str] | None = None) -> Position:
    """1-based line/column (characters) → bridge Position, checked against the file's text
    (`lines`: that text split, when the caller has it)."""
    lines = doc.text.split("\n") if lines is None else lines
    if line < 1 or line > len(lines):
        raise ToolFailure(f"{doc.path}: line {line} is outside the file (1-{len(lines)})")
    text = lines[line - 1]
    if column < 1 or column > len(text) + 1:
        raise ToolFailure(f"{doc.path}:{line}: column {column} is outside the line (1-{len(text) + 1}): {text.strip()!r}")
    return Position(line - 1, column - 1)


def identifier_at(text_line: str, character: int) -> tuple[int, str] | None:
    """The identifier covering (or ending right at) `character`: (start column, name)."""
    at = character
    if not (at < len(text_line) and _IDENT_CHAR.match(text_line[at])):
        if at > 0 and _IDENT_CHAR.match(text_line[at - 1]):
            at -= 1
        else:
            return None
    start = at
    while start > 0 and _IDENT_CHAR.match(text_line[start - 1]):
        start -= 1
    match = _IDENT_AT.match(text_line, start)
    assert match is not None
    name = match.group(0)
    if name[0].isdigit():
        return None
    return start, name


def resolve_target(
    ctx: ToolContext,
    file_path: str | None,
    line: int | None,
    column: int | None,
    symbol: str | None,
) -> Target:
    """Resolve a tool's position arguments (file + line + column, or a symbol name path)."""
    ws = ctx.workspace
    if symbol:
        file_path, line, column = _find_symbol(ctx, symbol, file_path)
    if file_path is None or line is None or column is None:
        raise ToolFailure("give file_path, line and column (1-based), or symbol (a name path like Class.method)")
    real = ws.resolve(file_path)
    doc = target_doc(ctx, real)
    language = syntax_language(real)
    if language is None:
        raise ToolFailure(f"{doc.path}: no semantic support for this kind of file (Python, TypeScript, JavaScript)")
    # The split the answers' line texts keep for this very text (the target's file is nearly always
    # in its own answer), else only the lines up to the target (and the rest in one piece):
    # to_position needs the target's line, and the line count only when the file is shorter (then
    # this split is whole). Line 8,000 of a 300 KB file: ~1.5 ms to split on every query.
    lines = file_cache(ctx).held_lines(doc.path, doc.text)
    if lines is None:
        lines = doc.text.split("\n", line) if line >= 1 else doc.text.split("\n")
    pos = to_position(doc, line, column, lines)
    text_line = lines[pos.line]
    found = identifier_at(text_line, pos.character)
    if found is None:
        raise ToolFailure(
            f"{doc.path}:{line}:{column} is {describe_char(text_line, pos.character)}, not on an identifier: "
            f"{text_line.strip()!r}; point at the first character of a name (columns count characters, from 1)"
        )
    start, name = found
    held_by = non_symbol_at(tree_for(ctx, doc.path, doc.text, language), text_line, language, pos.line, start, name)
    if held_by is not None:
        raise ToolFailure(f"{doc.path}:{line}:{column} is {held_by}, not a symbol: {text_line.strip()!r}; "
                          "point at a name in code")
    return Target(doc, real, Position(pos.line, start), name, start, language, server_language(real))


def _find_symbol(ctx: ToolContext, symbol: str, file_path: str | None) -> tuple[str, int, int]:
    from ..services import get_index

    index = get_index(ctx)
    wanted = symbol.strip()
    rel = ctx.workspace.rel(file_path) if file_path else None
    matches = index.find(wanted)
    exact = [m for m in matches if m.name_path == wanted or m.name_path.endswith("." + wanted)]
    if rel is not None:
        exact = [m for m in exact if _rel(m.path) == rel]
    # One symbol may be both declared and re-declared (overloads, a stub beside its module):
    # a single definition site per (path, line) is enough to ask the server.
    unique = {(_rel(m.path), m.line, m.column): m for m in exact}
    if len(unique) == 1:
        (path, ln, col), = unique
        return path, ln, col
    if not unique:
        near = ", ".join(f"{m.name_path} ({_rel(m.path)}:{m.line})" for m in matches[:5])
        where = f" in {rel}" if rel else ""
        hint = f"; closest: {near}" if near else ""
        raise ToolFailure(f"no symbol {wanted!r}{where}{hint}")
    shown = sorted(unique)[:MAX_CANDIDATES_SHOWN]
    listing = "; ".join(f"{p}:{ln}:{c} {unique[(p, ln, c)].name_path}" for p, ln, c in shown)
    more = f" (and {len(unique) - len(shown)} more)" if len(unique) > len(shown) else ""
    raise ToolFailure(
        f"symbol {wanted!r} is ambiguous: {listing}{more}. Give file_path, or line and column, or a longer name path"
    )


def _rel(path: str | Path) -> str:
    return Path(path).as_posix()


def location_of(ctx: ToolContext, loc: FileLocation) -> Location:
    """A bridge location (absolute path, 0-based) as a 1-based Location; paths outside the
    workspace (library code, stubs bundled with the server) stay absolute."""
    return Location(display_path(ctx, loc.path), loc.range.start.line + 1, loc.range.start.character + 1,
                    loc.range.end.line + 1, loc.range.end.character + 1)


def display_path(ctx: ToolContext, path: Path) -> str:
    """Workspace-relative when inside the root (servers answer with real paths), else absolute.
    Only for showing: reads and writes still go through Workspace.resolve."""
    root = ctx.workspace.root
    lexical = _lexical_rel(path if isinstance(path, Path) else Path(path), root)
    if lexical is not None:
        return lexical
    try:  # a path through a symlink, or with "..": compare real paths
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


@functools.lru_cache(maxsize=16384)  # answers name the same few thousand files query after query
def _lexical_rel(path: Path, root: Path) -> str | None:
    """`path` relative to `root` by their names alone (no file system), or None."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


def inside_workspace(ctx: ToolContext, path: Path) -> bool:
    return not Path(display_path(ctx, path)).is_absolute()


def range_of(loc: Location) -> Range:
    end_line = loc.end_line if loc.end_line is not None else loc.line
    end_col = loc.end_column if loc.end_column is not None else loc.column
    return Range(Position(loc.line - 1, loc.column - 1), Position(end_line - 1, end_col - 1))
