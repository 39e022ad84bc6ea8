"""Change signature by text: the definition's parameter list replaced by NEW_PARAMS, then every
`NAME(` / `.NAME(` in the language's files (comments and strings included: a regex cannot tell)
rewritten by splitting its arguments on top-level commas and matching them to the old parameters
by position or keyword. A call whose arguments cannot be matched (`*a`, `**kw`, a spread) is left
as it is."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .blocks import is_python

Files = dict[str, str]
_OPEN, _CLOSE = "([{", ")]}"


@dataclass(frozen=True, slots=True)
class TextParam:
    name: str
    kind: str  # "normal", "kwonly", "varargs", "varkw"
    text: str


def matching_paren(text: str, open_at: int) -> int | None:
    """The offset of the bracket closing the one at `open_at` (strings skipped), or None."""
    depth, quote, i = 0, "", open_at
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def split_top(text: str) -> list[str]:
    """`text` split on the commas outside brackets and strings (empty parts dropped)."""
    parts, depth, quote, cur = [], 0, "", []
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\" and i + 1 < len(text):
                cur.append(c)
                i += 1
                c = text[i]
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    parts.append("".join(cur).strip())
    return [p for p in parts if p]


def parse_params(inner: str) -> list[TextParam]:
    out: list[TextParam] = []
    kwonly = False
    for part in split_top(inner):
        if part in ("*", "/"):
            kwonly = kwonly or part == "*"
            continue
        m = re.match(r"(\*{0,2})\s*(?:\.\.\.)?\s*([\w$]+)", part)
        if m is None:
            continue
        stars = m[1] or ("*" if part.startswith("...") else "")
        kind = {"*": "varargs", "**": "varkw"}.get(stars, "kwonly" if kwonly else "normal")
        kwonly = kwonly or kind == "varargs"
        out.append(TextParam(m[2], kind, part))
    return out


def rewrite_args(args: list[str], old: list[TextParam], new: list[TextParam], values: dict[str, str],
                 python: bool) -> list[str] | None:
    """The call's new arguments, or None when they cannot be matched to the parameters."""
    positional = [p.name for p in old if p.kind == "normal"]
    given: dict[str, str] = {}
    for i, arg in enumerate(args):
        kw = re.match(r"([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$", arg, re.S) if python else None
        if arg.startswith(("*", "...")):
            return None
        if kw is not None:
            given[kw[1]] = kw[2]
        elif i < len(positional):
            given[positional[i]] = arg
        else:
            return None
    old_names = {p.name for p in old}
    out: list[str] = []
    keyword = False
    pending: list[str] = []
    for p in new:
        if p.kind in ("varargs", "varkw"):
            continue
        value = given.get(p.name) if p.name in old_names else values.get(p.name)
        if value is None:
            keyword = True
            pending.append(p.name)
            continue
        if python and (keyword or p.kind == "kwonly" or (p.name in given and _was_keyword(args, p.name))):
            out.append(f"{p.name}={value}")
            keyword = True
        else:
            out.extend("undefined" for _ in pending if not python)
            out.append(value)
        pending = []
    return out


def _was_keyword(args: list[str], name: str) -> bool:
    return any(re.match(rf"{re.escape(name)}\s*=(?!=)", a) for a in args)


def _definition_paren(text: str, line: int, name: str) -> int | None:
    lines = text.split("\n")
    if line >= len(lines):
        return None
    m = re.search(rf"(?<![\w$]){re.escape(name)}\s*(?:<[^>]*>)?\s*\(", lines[line])
    if m is None:
        return None
    return sum(len(x) + 1 for x in lines[:line]) + m.end() - 1


def text_signature(files: Files, path: str, line: int, name: str, new_params: str,
                   values: dict[str, str]) -> Files:
    """`line` is the 0-based line of the definition's name."""
    python = is_python(path)
    text = files[path]
    open_at = _definition_paren(text, line, name)
    close_at = matching_paren(text, open_at) if open_at is not None else None
    if open_at is None or close_at is None:
        return {}
    old = parse_params(text[open_at + 1:close_at])
    new_inner = new_params.strip()
    new_inner = new_inner[1:-1] if new_inner.startswith("(") and new_inner.endswith(")") else new_inner
    new = parse_params(new_inner)
    call = re.compile(rf"(?<![\w$])(\.)?{re.escape(name)}\s*\(")
    skip_def = re.compile(r"(?:def|function)\s*$")
    out: Files = {}
    for rel, content in files.items():
        if rel == path:
            content = content[:open_at + 1] + new_inner + content[close_at:]
        edits: list[tuple[int, int, str]] = []
        for m in call.finditer(content):
            start = m.end() - 1
            if skip_def.search(content[max(0, m.start() - 12):m.start()]) or (rel == path and start == open_at):
                continue
            end = matching_paren(content, start)
            if end is None:
                continue
            params = old[1:] if m[1] and old and old[0].name in ("self", "cls") else old
            targets = new[1:] if m[1] and new and new[0].name in ("self", "cls") else new
            args = split_top(content[start + 1:end])
            rewritten = rewrite_args(args, params, targets, values, python)
            if rewritten is not None and rewritten != args:
                edits.append((start + 1, end, ", ".join(rewritten)))
        for s, e, new_text in reversed(edits):
            content = content[:s] + new_text + content[e:]
        if content != files[rel]:
            out[rel] = content
    return out
