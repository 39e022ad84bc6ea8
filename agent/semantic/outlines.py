"""Which definition encloses a position, and which one is named at it: the outlines of the files a
navigation or references answer mentions (hits are grouped by their enclosing symbol, hierarchy
items are given their qualified name)."""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable
from pathlib import PurePosixPath

from ..errors import CodeagentError
from ..languages import syntax_language
from ..syntax import Symbol, flatten, outline
from ..toolcontext import ToolContext
from .lines import LineCache

_SERVICE = "navigation.outlines"
MAX_CACHED_FILES = 2000
MODULE = "module"  # the `kind` of a hit's group when no definition encloses it
Parsed = tuple[list[Symbol], list[tuple[int, int]]]  # the outline, and each symbol's 0-based start


class Outlines:
    """Outlines (flattened, parents first, so in order of their start) and line texts of workspace
    files, read on first use. Parsed outlines are kept in the context with the text they were made
    of, and reused only for that very text (a big module takes ~0.1 s to parse: a warm daemon must
    not pay that on every question about it)."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self.lines = LineCache(ctx)
        self._symbols: dict[str, Parsed] = {}
        self._cache: dict[str, tuple[str, Parsed]] = ctx.service(_SERVICE, dict)

    def symbols(self, rel: str) -> list[Symbol]:
        return self._read(rel)[0]

    def _read(self, rel: str) -> Parsed:
        held = self._symbols.get(rel)
        if held is None:
            held = self._symbols[rel] = self._parse(rel)
        return held

    def _parse(self, rel: str) -> Parsed:
        language = syntax_language(rel)
        if language is None:
            return [], []
        text = self.lines.files.text(rel)  # the session's copy: the one the hits' line texts come from
        if text is None:
            return [], []
        cached = self._cache.get(rel)
        if cached is not None and (cached[0] is text or cached[0] == text):
            return cached[1]
        try:
            found = list(flatten(outline(text, language)))
        except (CodeagentError, ValueError):
            return [], []
        return _store(self._cache, rel, text, found)

    def enclosing(self, rel: str, line0: int, col0: int) -> Symbol | None:
        """The innermost definition containing the 0-based position (None at module level)."""
        return _innermost(*self._read(rel), line0, col0)

    def where(self, rel: str, line0: int, col0: int) -> tuple[str, str]:
        """(name, kind) of what encloses the position: `Registry.describe`, "method"; at module
        level the module itself (`shapes.registry`, "module")."""
        sym = self.enclosing(rel, line0, col0)
        return (sym.name_path, sym.kind) if sym is not None else (module_name(rel), MODULE)

    def in_file(self, rel: str) -> tuple[Callable[[int], str], Callable[[int, int], tuple[str, str]]]:
        """`lines.line` and `where` bound to one file, its lines and outline looked up once (a
        references page asks both for each of hundreds of references in a few dozen files)."""
        text_of = self.lines.in_file(rel)
        symbols, starts = self._read(rel)
        module = (module_name(rel), MODULE)

        def where(line0: int, col0: int) -> tuple[str, str]:
            sym = _innermost(symbols, starts, line0, col0)
            return (sym.name_path, sym.kind) if sym is not None else module
        return text_of, where

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


def _store(cache: dict[str, tuple[str, Parsed]], rel: str, text: str, found: list[Symbol]) -> Parsed:
    if len(cache) >= MAX_CACHED_FILES:
        cache.clear()
    parsed = cache[rel] = (text, (found, [(s.line - 1, s.column - 1) for s in found]))
    return parsed[1]


def keep_outline(ctx: ToolContext, rel: str, text: str, found: list[Symbol]) -> None:
    """Keep the flattened outline `found` of `text` (`rel`'s) for the answers that group hits in
    it: a references query, parsing candidate files while the server computes, hands each parse's
    outline here, and the answer's grouping then parses none of those files again."""
    cache: dict[str, tuple[str, Parsed]] = ctx.service(_SERVICE, dict)
    held = cache.get(rel)
    if held is not None and held[0] is text:
        return
    _store(cache, rel, text, found)


@functools.lru_cache(maxsize=8192)  # asked once per reference at module level: thousands per answer
def module_name(rel: str) -> str:
    """A file's module as its language names it: `shapes/registry.py` → `shapes.registry` (a
    package's `__init__.py` → the package); a TS/JS file keeps its path without the suffix."""
    path = PurePosixPath(rel)
    if path.suffix in (".py", ".pyi"):
        parts = list(path.with_suffix("").parts)
        if parts and parts[-1] == "__init__" and len(parts) > 1:
            parts.pop()
        return ".".join(parts)
    return path.with_suffix("").as_posix()


def _innermost(symbols: list[Symbol], starts: list[tuple[int, int]], line0: int, col0: int) -> Symbol | None:
    """The innermost definition containing the 0-based position: the last-starting of those that
    contain it, so walk back from there."""
    for i in range(bisect.bisect_right(starts, (line0, col0)) - 1, -1, -1):
        sym = symbols[i]
        if (line0, col0) < (sym.end_line - 1, sym.end_column - 1):
            return sym
    return None
