"""Which definition encloses a position, and which one is named at it: the outlines of the files a
navigation answer mentions, parsed once per tool call (hits are grouped by their enclosing symbol,
hierarchy items are given their qualified name)."""

from __future__ import annotations

import os

from ..errors import CodeagentError
from ..languages import syntax_language
from ..syntax import Symbol, flatten, outline
from ..toolcontext import ToolContext
from .references import LineCache

_SERVICE = "navigation.outlines"
MAX_CACHED_FILES = 2000
StatKey = tuple[int, int, int]


class Outlines:
    """Outlines (flattened, parents first) and line texts of workspace files, read on first use.
    Parsed outlines are kept in the context by file stat (a big module takes ~0.1 s to parse: a
    warm daemon must not pay that on every question about it)."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self.lines = LineCache(ctx)
        self._symbols: dict[str, list[Symbol]] = {}
        self._cache: dict[str, tuple[StatKey, list[Symbol]]] = ctx.service(_SERVICE, dict)

    def symbols(self, rel: str) -> list[Symbol]:
        if rel not in self._symbols:
            self._symbols[rel] = self._read(rel)
        return self._symbols[rel]

    def _read(self, rel: str) -> list[Symbol]:
        language = syntax_language(rel)
        if language is None:
            return []
        try:
            st = os.stat(self.ctx.workspace.root / rel)
            key = (st.st_size, st.st_mtime_ns, st.st_ino)
            cached = self._cache.get(rel)
            if cached is not None and cached[0] == key:
                return cached[1]
            found = list(flatten(outline(self.ctx.workspace.read(rel).text, language)))
        except (CodeagentError, OSError, ValueError):
            return []
        if len(self._cache) >= MAX_CACHED_FILES:
            self._cache.clear()
        self._cache[rel] = (key, found)
        return found

    def enclosing(self, rel: str, line0: int, col0: int) -> Symbol | None:
        """The innermost definition containing the 0-based position (None at module level)."""
        best: Symbol | None = None
        for sym in self.symbols(rel):
            inside = (sym.line - 1, sym.column - 1) <= (line0, col0) < (sym.end_line - 1, sym.end_column - 1)
            if inside and (best is None or (sym.line, sym.column) >= (best.line, best.column)):
                best = sym
        return best

    def named_at(self, rel: str, line0: int, col0: int) -> Symbol | None:
        """The definition whose name token starts at the 0-based position."""
        for sym in self.symbols(rel):
            if (sym.name_line - 1, sym.name_column - 1) == (line0, col0):
                return sym
        return None

    def qualified(self, rel: str, line0: int, col0: int, fallback: str) -> str:
        """`path::Name.path` of the definition named at a position (a local: `path::function.name`)."""
        named = self.named_at(rel, line0, col0)
        if named is not None:
            return f"{rel}::{named.name_path}"
        around = self.enclosing(rel, line0, col0)  # a local name or a parameter: inside its function
        return f"{rel}::{around.name_path}.{fallback}" if around is not None else f"{rel}::{fallback}"
