"""A file's outline: its definitions (classes, functions, methods, module-level names, and per
language interfaces, types, enums, ...), nested, with 1-based character ranges and one-line
signatures. Which nodes are definitions is said by `queries/<language>-outline.scm`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import tree_sitter as ts

from .languages import encode, get_query, parse_bytes
from .positions import LineMap

# A function defined directly inside one of these is a method.
MEMBER_CONTAINERS = frozenset({"class", "interface", "struct", "trait", "impl", "enum"})
MAX_SIGNATURE_CHARS = 160
# Per compiled query (queries are cached for the process's life): pattern -> (capture, kind).
_KINDS: dict[int, dict[int, tuple[str, str]]] = {}


@dataclass(slots=True)
class Symbol:
    """One definition. Lines and columns are 1-based and count characters; the end is exclusive
    (the column just past the last character), so 1-based = 0-based + 1 on both ends.
    `name_line`/`name_column` locate the name token itself."""

    name: str
    kind: str
    name_path: str
    line: int
    column: int
    end_line: int
    end_column: int
    name_line: int
    name_column: int
    signature: str
    children: list[Symbol] = field(default_factory=list)

    def walk(self) -> Iterator[Symbol]:
        yield self
        for child in self.children:
            yield from child.walk()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def flatten(symbols: Iterable[Symbol]) -> Iterator[Symbol]:
    """Every symbol of a tree, parents before their children."""
    for sym in symbols:
        yield from sym.walk()


class Entry(NamedTuple):
    """A `Symbol` flattened (what the index stores): `depth` is its nesting level (0: top)."""

    name: str
    name_path: str
    kind: str
    line: int
    column: int
    end_line: int
    end_column: int
    name_line: int
    name_column: int
    signature: str
    depth: int


@dataclass(slots=True)
class _Found:
    pattern: int
    kind: str
    name: ts.Node
    node: ts.Node
    range: ts.Node
    body: ts.Node | None
    scope: ts.Node | None
    start: int
    end: int


def _collect(tree: ts.Tree, query: ts.Query) -> list[_Found]:
    best: dict[int, _Found] = {}
    kinds = _KINDS.setdefault(id(query), {})  # pattern index -> (capture name, kind)
    for pattern, caps in ts.QueryCursor(query).matches(tree.root_node):
        names = caps.get("name")
        if not names:
            continue
        known_kind = kinds.get(pattern)
        if known_kind is None:
            cap = next((c for c in caps if c.startswith("definition.")), None)
            if cap is None:
                continue
            known_kind = kinds[pattern] = (cap, cap[len("definition."):])
        nodes = caps.get(known_kind[0])
        if not nodes:
            continue
        name = names[0]
        key = name.start_byte
        known = best.get(key)
        if known is not None and known.pattern <= pattern:
            continue
        node = nodes[0]
        ranges = caps.get("range")
        span = ranges[0] if ranges else node
        bodies, scopes = caps.get("body"), caps.get("scope")
        best[key] = _Found(pattern, known_kind[1], name, node, span, bodies[0] if bodies else None,
                           scopes[0] if scopes else None, span.start_byte, span.end_byte)
    found = list(best.values())
    found.sort(key=lambda f: (f.start, -f.end, f.name.start_byte))
    return found


def _signature(source: bytes, found: _Found) -> str:
    start = found.node.start_byte
    end = found.node.end_byte
    body = found.body
    if body is not None and start < body.start_byte <= end:
        end = body.start_byte
        header = source[start:end]
        if b"#" in header or b"/" in header:  # maybe a comment between the header and the body
            before = body.prev_sibling
            while before is not None and before.is_extra:
                before = before.prev_sibling
            if before is not None and start < before.end_byte <= end:
                end = before.end_byte
    raw = source[start:min(end, start + MAX_SIGNATURE_CHARS * 4)]
    text = " ".join(raw.decode("utf-8", "replace").split())
    if text.endswith(";") or (text.endswith(":") and body is not None):
        text = text[:-1].rstrip()
    if len(text) > MAX_SIGNATURE_CHARS or end - start > len(raw):
        text = text[:MAX_SIGNATURE_CHARS].rstrip() + " …"
    return text


def outline_entries(tree: ts.Tree, source: bytes, language: str) -> list[Entry]:
    """The outline of an already parsed source (UTF-8 bytes), flattened: parents first."""
    query = get_query(language, "outline")
    if query is None:
        return []
    lines = LineMap(source)
    char_column = lines.char_column
    out: list[Entry] = []
    stack: list[tuple[int, int, Entry]] = []  # (start_byte, end_byte, entry) of the open containers
    for found in _collect(tree, query):
        start, end = found.start, found.end
        while stack and not (stack[-1][0] <= start and end <= stack[-1][1] and (stack[-1][0], stack[-1][1]) != (start, end)):
            stack.pop()
        parent = stack[-1][2] if stack else None
        name_node = found.name
        name = source[name_node.start_byte:name_node.end_byte].decode("utf-8", "replace")
        kind = found.kind
        if kind == "function" and parent is not None and parent.kind in MEMBER_CONTAINERS:
            kind = "method"
        if parent is not None:
            name_path = f"{parent.name_path}.{name}"
        elif found.scope is not None:
            scope = found.scope
            name_path = f"{source[scope.start_byte:scope.end_byte].decode('utf-8', 'replace')}.{name}"
        else:
            name_path = name
        (srow, scol), (erow, ecol) = found.range.start_point, found.range.end_point
        nrow, ncol = name_node.start_point
        entry = Entry(name, name_path, kind, srow + 1, char_column(srow, scol) + 1, erow + 1,
                      char_column(erow, ecol) + 1, nrow + 1, char_column(nrow, ncol) + 1,
                      _signature(source, found), len(stack))
        out.append(entry)
        stack.append((start, end, entry))
    return out


def symbols_from_entries(entries: Iterable[Entry]) -> list[Symbol]:
    """Nest flattened entries (parents first, with depths) back into a `Symbol` tree."""
    roots: list[Symbol] = []
    open_: list[Symbol] = []
    for e in entries:
        sym = Symbol(e.name, e.kind, e.name_path, e.line, e.column, e.end_line, e.end_column, e.name_line,
                     e.name_column, e.signature)
        del open_[e.depth:]
        (open_[-1].children if open_ else roots).append(sym)
        open_.append(sym)
    return roots


def outline_tree(tree: ts.Tree, source: bytes, language: str) -> list[Symbol]:
    """The outline of an already parsed source (UTF-8 bytes)."""
    return symbols_from_entries(outline_entries(tree, source, language))


def outline_bytes(source: bytes, language: str) -> list[Symbol]:
    return outline_tree(parse_bytes(source, language), source, language)


def outline(text: str, language: str) -> list[Symbol]:
    """The nested definitions of `text` in `language` (see `Symbol`)."""
    return outline_bytes(encode(text), language)
