"""Column conversion between the bridge's code-point columns and the server's encoding.

The bridge speaks 0-based lines and columns counted in code points (Python `str` indices). LSP
servers count columns in UTF-16 code units unless UTF-8 (or UTF-32) was negotiated through
`general.positionEncodings`: an emoji is one code point, two UTF-16 units and four UTF-8 bytes.
This is the only module that converts.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # loaded by the methods that build protocol values: text-only users (edits applied
    from lsprotocol import types as lsp  # to a file, a syntactic refactoring) never pay for it

from lsp_bridge.errors import InvalidEdit
from lsp_bridge.types import Position, Range

Encoding = Literal["utf-8", "utf-16", "utf-32"]
# File bytes -> the "\n"-text that positions refer to. A caller that decodes files its own way (an
# encoding detected per file) passes its decoder to the session, so that the text the server is sent,
# the columns of its answers and the caller's text are one and the same. Default: normalize_text.
Decode = Callable[[bytes], str]


def normalize_text(data: bytes) -> str:
    """The text positions refer to: UTF-8 (undecodable bytes replaced), BOM dropped, "\\n" endings."""
    text = data.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _unit_len(ch: str, encoding: Encoding) -> int:
    cp = ord(ch)
    if encoding == "utf-16":
        return 2 if cp > 0xFFFF else 1
    if encoding == "utf-8":
        return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
    return 1


def to_units(line_text: str, column: int, encoding: Encoding) -> int:
    """Code-point column on `line_text` -> the server's units. Columns past the end are clamped."""
    column = max(0, min(column, len(line_text)))
    if encoding == "utf-32" or line_text.isascii():
        return column
    return sum(_unit_len(ch, encoding) for ch in line_text[:column])


def from_units(line_text: str, units: int, encoding: Encoding) -> int:
    """Server units on `line_text` -> code-point column. A unit count inside a character (half a
    surrogate pair) rounds down to that character's start; past the end is clamped (LSP rule)."""
    if units <= 0:
        return 0
    if encoding == "utf-32" or line_text.isascii():
        return min(units, len(line_text))
    seen = 0
    for index, ch in enumerate(line_text):
        seen += _unit_len(ch, encoding)
        if seen > units:
            return index
        if seen == units:
            return index + 1
    return len(line_text)


class TextLines:
    """A document's text split into lines, for converting positions and offsets."""

    __slots__ = ("lines", "starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.starts = [0, *accumulate(len(line) + 1 for line in self.lines[:-1])]

    def line(self, number: int) -> str:
        return self.lines[number] if 0 <= number < len(self.lines) else ""

    def to_server(self, pos: Position, encoding: Encoding) -> lsp.Position:
        from lsprotocol import types as lsp

        return lsp.Position(line=pos.line, character=to_units(self.line(pos.line), pos.character, encoding))

    def from_server(self, pos: lsp.Position, encoding: Encoding) -> Position:
        return Position(pos.line, from_units(self.line(pos.line), pos.character, encoding))

    def range_to_server(self, rng: Range, encoding: Encoding) -> lsp.Range:
        from lsprotocol import types as lsp

        return lsp.Range(start=self.to_server(rng.start, encoding), end=self.to_server(rng.end, encoding))

    def range_from_server(self, rng: lsp.Range, encoding: Encoding) -> Range:
        return Range(self.from_server(rng.start, encoding), self.from_server(rng.end, encoding))

    def offset(self, pos: Position) -> int:
        """Code-point offset of `pos` in the text. A column past the end of its line is clamped
        (the LSP rule); the position just after the last line (line == line count, column 0) is the
        end of the text; any other line outside the text raises InvalidEdit."""
        if pos.line < 0 or pos.character < 0:
            raise InvalidEdit(f"negative position {pos.line + 1}:{pos.character + 1} (1-based)")
        if pos.line >= len(self.lines):
            if pos.line == len(self.lines) and pos.character == 0:
                return len(self.text)
            raise InvalidEdit(f"position {pos.line + 1}:{pos.character + 1} is past the end of the text "
                              f"({len(self.lines)} lines)")
        return self.starts[pos.line] + min(pos.character, len(self.lines[pos.line]))
