"""Textual occurrences of a renamed name: the name as a whole word inside string literals, comments
and docstrings (`repr(x) == "Segment('foo')"`, `f"Segment({self.name!r})"`, `# see Segment`). No
server confirms these; a rename must still say they exist (a test asserting a repr fails after the
rename otherwise). They form their own review group, not edited unless the caller includes strings
or comments (JetBrains' "Search in comments and strings").

Code inside a string (an f-string's `{...}`, a template literal's `${...}`) is code, not text: the
server's answer covers it. Positions are 0-based (line, character column), like the bridge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from ..syntax import parse

TextKind = Literal["string", "comment", "docstring"]
COMMENTS = ("comment", "line_comment", "block_comment", "html_comment")
STRING_TEXT = ("string_content", "string_fragment")  # the literal parts, never an interpolation
MAX_FILES = 2000  # files parsed for one rename; the rest are counted, not scanned


@dataclass(frozen=True, slots=True)
class TextHit:
    path: str  # workspace-relative
    line: int  # 0-based
    column: int  # 0-based characters
    kind: TextKind
    line_text: str


@dataclass
class TextScan:
    hits: list[TextHit]
    unscanned: int = 0  # files holding the name that were not parsed (past MAX_FILES)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for hit in self.hits:
            out[hit.kind] = out.get(hit.kind, 0) + 1
        return out


def textual_occurrences(files: Iterable[tuple[str, str, str]], name: str,
                        skip: set[tuple[str, int, int]] | None = None) -> TextScan:
    """`files` are (rel path, text, syntax language); `skip` holds positions already planned or
    listed elsewhere (path, line, column)."""
    skip = skip or set()
    scan = TextScan([])
    parsed = 0
    for rel, text, language in files:
        if not _has_word(text, name):
            continue
        if parsed >= MAX_FILES:
            scan.unscanned += 1
            continue
        parsed += 1
        lines = text.split("\n")
        for line, column, kind in _in_file(text, language, name, lines):
            if (rel, line, column) not in skip:
                scan.hits.append(TextHit(rel, line, column, kind, lines[line].strip()[:200]))
    return scan


def _in_file(text: str, language: str, name: str, lines: list[str]) -> list[tuple[int, int, TextKind]]:
    out: list[tuple[int, int, TextKind]] = []
    stack: list[Node] = [parse(text, language).root_node]
    while stack:
        node = stack.pop()
        kind: TextKind | None = None
        if node.type in COMMENTS:
            kind = "comment"
        elif node.type in STRING_TEXT:
            kind = "docstring" if _in_docstring(node) else "string"
        if kind is None:
            stack.extend(node.children)
            continue
        raw = node.text.decode("utf-8", "surrogatepass") if node.text else ""
        if name not in raw:
            continue
        row, byte_col = node.start_point
        start_col = len(lines[row].encode("utf-8", "surrogatepass")[:byte_col].decode("utf-8", "surrogatepass"))
        for offset in _word_offsets(raw, name):
            before = raw[:offset]
            line = row + before.count("\n")
            column = (start_col + offset) if line == row else offset - (before.rfind("\n") + 1)
            out.append((line, column, kind))
    out.sort()
    return out


def _in_docstring(node: Node) -> bool:
    string = node.parent
    statement = string.parent if string is not None else None
    if string is None or statement is None or statement.type != "expression_statement":
        return False
    block = statement.parent
    return (block is not None and block.type in ("module", "block") and statement.named_child_count == 1
            and block.named_children[0] == statement)


def _word_char(c: str) -> bool:
    return c.isalnum() or c in "_$"


def _word_offsets(text: str, name: str) -> list[int]:
    out = []
    pos = text.find(name)
    while pos != -1:
        end = pos + len(name)
        if (pos == 0 or not _word_char(text[pos - 1])) and (end >= len(text) or not _word_char(text[end])):
            out.append(pos)
        pos = text.find(name, pos + 1)
    return out


def _has_word(text: str, name: str) -> bool:
    return bool(_word_offsets(text, name)) if name in text else False
