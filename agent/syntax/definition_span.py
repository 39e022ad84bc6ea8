"""Where a definition sits as whole lines (decorators through its last line), the indentation it
has, which names a snippet defines, and the blank lines a file puts between definitions: what the
symbol edits (replace_symbol, insert_before/after_symbol) need. Pure text functions."""

from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import dataclass

from .languages import count_errors
from .symbols import Symbol, outline

_WRAPPER = "class __codeagent_wrapper__ {\n"  # makes a TS member snippet a valid program


@dataclass(frozen=True, slots=True)
class Span:
    start: int  # 0-based first line (its first decorator)
    end: int  # 0-based last line, inclusive
    indent: str
    depth: int  # 0: top level


def span_of(lines: list[str], sym: Symbol, depth: int) -> Span:
    """The whole lines of `sym`; ValueError when it shares a line with other code."""
    start, end = sym.line - 1, sym.end_line - 1
    head = lines[start][: sym.column - 1]
    if head.strip():
        raise ValueError(f"{sym.name_path} starts after other code on line {start + 1}")
    tail = lines[end][sym.end_column - 1:].strip()
    if tail and not tail.startswith(("#", "//", ";", ",")):
        raise ValueError(f"{sym.name_path} ends before other code on line {end + 1}: {tail!r}")
    # TypeScript decorators are not part of the declaration node: take the `@` lines above it.
    while start > 0 and lines[start - 1].strip().startswith("@"):
        start -= 1
    return Span(start, end, head, depth)


def reindent(snippet: str, indent: str) -> list[str]:
    """The snippet's lines, common indentation removed, blank edges dropped, then `indent` added."""
    body = textwrap.dedent(snippet.expandtabs(4) if "\t" in snippet and " " in indent else snippet)
    rows = body.split("\n")
    while rows and not rows[0].strip():
        rows.pop(0)
    while rows and not rows[-1].strip():
        rows.pop()
    return [indent + r if r.strip() else "" for r in rows]


def defined_names(snippet: str, language: str, member: bool) -> tuple[list[str], int]:
    """(names of the top-level definitions in the snippet, its syntax errors). A class member's
    snippet is parsed inside a class in TypeScript/JavaScript (alone it is no valid program)."""
    body = "\n".join(reindent(snippet, ""))
    if member and language in ("typescript", "tsx", "javascript"):
        wrapped = _WRAPPER + body + "\n}\n"
        names = [s.name for top in outline(wrapped, language) for s in top.children]
        return names, count_errors(wrapped, language)
    return [s.name for s in outline(body, language)], count_errors(body, language)


def blank_lines(text: str, language: str, depth: int) -> int:
    """The blank lines the file most often leaves between definitions at this nesting depth
    (PEP 8's 2 / 1 for Python, 1 for the others when the file has no example)."""
    lines = text.split("\n")
    syms = outline(text, language)
    levels: list[list[Symbol]] = [syms]
    for _ in range(depth):
        levels = [s.children for level in levels for s in level]
    gaps: Counter[int] = Counter()
    for level in levels:
        for a, b in zip(level, level[1:], strict=False):
            between = lines[a.end_line: b.line - 1]
            if all(not ln.strip() for ln in between):
                gaps[len(between)] += 1
    if gaps:
        return gaps.most_common(1)[0][0]
    return (2 if depth == 0 else 1) if language == "python" else 1


def find_nested(symbols: list[Symbol], line: int, column: int) -> tuple[Symbol, int] | None:
    """The definition whose name token is at the 1-based position, and its nesting depth."""
    stack = [(s, 0) for s in symbols]
    while stack:
        sym, depth = stack.pop()
        if (sym.name_line, sym.name_column) == (line, column):
            return sym, depth
        stack.extend((c, depth + 1) for c in sym.children)
    return None
