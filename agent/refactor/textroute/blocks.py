"""A top-level definition's block as a text tool finds it: the line that starts it (`def NAME`,
`class NAME`, `NAME =`; TS `export function NAME`, `class`, `interface`, `type`, `enum`,
`const`/`let`), then the lines below by indentation (Python) or by counting brackets (TS/JS),
the decorators and comment lines directly above, and (TS) overloads right after each other.
Lines are 0-based; a block is [start, end)."""

from __future__ import annotations

import re

_PY_START = r"^(?:async\s+def|def|class)\s+{name}\b|^{name}\s*(?::[^=]*)?=(?!=)"
_TS_START = (r"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?"
             r"(?:function\s*\*?|class|interface|type|enum|const|let|var|namespace)\s+{name}\b")
_OPEN, _CLOSE = "([{", ")]}"
_CONTINUES = (".", "|", "&", "?", ":", ")", "]", "}", "+", "-", "*", "/", ",")


def is_python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def start_line(lines: list[str], name: str, python: bool) -> int | None:
    rx = re.compile((_PY_START if python else _TS_START).format(name=re.escape(name)))
    return next((i for i, line in enumerate(lines) if rx.search(line)), None)


def _depth_change(line: str) -> int:
    """Brackets opened minus closed on a line, outside strings and `//` comments (roughly)."""
    depth, quote, i = 0, "", 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in "#" or line.startswith("//", i):
            break
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        i += 1
    return depth


def _py_end(lines: list[str], start: int) -> int:
    depth = _depth_change(lines[start])
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if depth <= 0 and line.strip() and not line[0].isspace():
            break
        depth += _depth_change(line)
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _ts_end(lines: list[str], start: int) -> int:
    depth, end = 0, start
    while end < len(lines):
        depth += _depth_change(lines[end])
        end += 1
        stripped = lines[end - 1].rstrip()
        nxt = lines[end].lstrip() if end < len(lines) else ""
        if depth <= 0 and (stripped.endswith(("}", ";")) or not nxt or not nxt.startswith(_CONTINUES)):
            break
    return end


def _above(lines: list[str], start: int, python: bool) -> int:
    while start > 0:
        prev = lines[start - 1]
        mark = prev.strip()
        if python:
            attached = mark.startswith(("@", "#")) and not prev[:1].isspace()
        else:
            attached = mark.startswith(("//", "/*", "*", "@"))
        if not attached:
            break
        start -= 1
    return start


def block(text: str, name: str, python: bool) -> tuple[int, int] | None:
    """[first, end) lines of NAME's top-level block, decorators and comments above included."""
    lines = text.split("\n")
    first = start_line(lines, name, python)
    if first is None:
        return None
    end = _py_end(lines, first) if python else _ts_end(lines, first)
    if not python:  # overloads: the same name declared again right below
        rx = re.compile(_TS_START.format(name=re.escape(name)))
        while end < len(lines) and rx.search(lines[end]):
            end = _ts_end(lines, end)
    return _above(lines, first, python), end


def without_lines(text: str, start: int, end: int) -> str:
    """The text without lines [start, end) and the blank gap they leave (the gap after them when a
    blank line is before them; before them at the end of the file)."""
    lines = text.split("\n")
    follows = end
    while follows < len(lines) and not lines[follows].strip():
        follows += 1
    if follows >= len(lines):
        while start > 0 and not lines[start - 1].strip():
            start -= 1
        return "\n".join(lines[:start]) + ("\n" if start and text.endswith("\n") else "")
    if start == 0 or not lines[start - 1].strip():
        end = follows
    return "\n".join(lines[:start] + lines[end:])


def identifiers(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_$][\w$]*", text))
