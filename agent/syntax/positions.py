"""Converting tree-sitter points (row, UTF-8 byte column) to and from character columns.

Everything this package hands out counts columns in characters (Python str indices): 0-based
in the library API (`code_occurrences`, `local_occurrences`), 1-based where the contract says so
(`Symbol`, `SymbolMatch`, tool output). Only this module knows about bytes.
"""

from __future__ import annotations


class LineMap:
    """Byte ↔ character columns for one source (UTF-8 bytes, as given to the parser)."""

    __slots__ = ("_source", "_ascii", "_lines", "_starts")

    def __init__(self, source: bytes):
        self._source = source
        self._ascii = source.isascii()
        self._lines: list[bytes] | None = None
        self._starts: list[int] | None = None

    def offset(self, row: int, byte_column: int) -> int:
        """The byte offset in the source of a (row, byte column) point."""
        if self._starts is None:
            starts = [0]
            pos = self._source.find(b"\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = self._source.find(b"\n", pos + 1)
            self._starts = starts
        if row >= len(self._starts):
            return len(self._source)
        return min(self._starts[row] + byte_column, len(self._source))

    def _line(self, row: int) -> bytes:
        if self._lines is None:
            self._lines = self._source.split(b"\n")
        if 0 <= row < len(self._lines):
            return self._lines[row]
        return b""

    def char_column(self, row: int, byte_column: int) -> int:
        """The character column of a byte column on `row` (both 0-based)."""
        if self._ascii or byte_column == 0:
            return byte_column
        line = self._line(row)
        head = line[:byte_column]
        if head.isascii():
            return byte_column
        return len(head.decode("utf-8", "surrogatepass"))

    def byte_column(self, row: int, char_column: int) -> int:
        """The byte column of a character column on `row` (both 0-based); clamped to the line."""
        if self._ascii:
            return min(char_column, len(self._line(row)))
        text = self._line(row).decode("utf-8", "surrogatepass")
        return len(text[:char_column].encode("utf-8", "surrogatepass"))

    def line_count(self) -> int:
        return self._source.count(b"\n") + 1

    def line_text(self, row: int) -> str:
        return self._line(row).decode("utf-8", "replace")
