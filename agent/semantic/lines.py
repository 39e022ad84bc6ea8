"""Line texts of workspace files for the hits a semantic answer lists (texts come from the
session's file cache, split once per file while it is unchanged)."""

from __future__ import annotations

from collections.abc import Callable

from ..toolcontext import ToolContext
from .filecache import FileCache, file_cache

MAX_LINE_CHARS = 200


class LineCache:
    """Lines of workspace files, split once per tool call (texts come from the session's cache)."""

    def __init__(self, ctx: ToolContext):
        self.files: FileCache = file_cache(ctx)
        self._lines: dict[str, list[str] | None] = {}

    def in_file(self, rel: str) -> Callable[[int], str]:
        """`line` bound to one file (its lines looked up once)."""
        if rel not in self._lines:
            self._lines[rel] = self.files.lines(rel)
        lines = self._lines[rel]
        if lines is None:
            return _no_line
        count = len(lines)

        def line(line0: int) -> str:
            return _shown(lines[line0]) if line0 < count else ""
        return line

    def line(self, rel: str, line0: int) -> str:
        if rel not in self._lines:
            self._lines[rel] = self.files.lines(rel)
        lines = self._lines[rel]
        if lines is None or line0 >= len(lines):
            return ""
        return _shown(lines[line0])


def _shown(line: str) -> str:
    """A hit's line as listed: stripped, cut at MAX_LINE_CHARS."""
    text = line.strip()
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + "…"


def _no_line(line0: int) -> str:
    return ""
