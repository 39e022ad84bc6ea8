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
from .querywalk import QueryWalk, query_walk, walk_matches

# A function defined directly inside one of these is a method.
MEMBER_CONTAINERS = frozenset({"class", "interface", "struct", "trait", "impl", "enum"})
MAX_SIGNATURE_CHARS = 160
_new_entry = tuple.__new__  # an Entry without NamedTuple's argument handling (the hot path)
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


# One definition found by the query: (start, -end, name start) sort it, the rest says what it is:
# (start, -end, name_start, pattern, kind, name, node, range, body, scope), byte offsets and nodes.
_Found = tuple[int, int, int, int, str, ts.Node, ts.Node, ts.Node, ts.Node | None, ts.Node | None]


def _collect(tree: ts.Tree, query: ts.Query, walk: QueryWalk | None) -> list[_Found]:
    best: dict[int, _Found] = {}  # by the name's start byte: the first pattern naming it wins
    kinds = _KINDS.setdefault(id(query), {})  # pattern index -> (capture name, kind)
    kind_of, best_of = kinds.get, best.get  # (bound once: this runs for every definition)
    for pattern, caps in walk_matches(tree, query, walk):
        names = caps.get("name")
        if not names:
            continue
        known_kind = kind_of(pattern)
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
        known = best_of(key)
        if known is not None and known[3] <= pattern:
            continue
        node = nodes[0]
        ranges = caps.get("range")
        span = ranges[0] if ranges else node
        bodies, scopes = caps.get("body"), caps.get("scope")
        best[key] = (span.start_byte, -span.end_byte, key, pattern, known_kind[1], name, node, span,
                     bodies[0] if bodies else None, scopes[0] if scopes else None)
    found = list(best.values())
    found.sort()  # by (start, -end, name start); name starts are unique, so no tie goes further
    return found


def _signature(source: bytes, node: ts.Node, body: ts.Node | None, start: int, end: int) -> str:
    """The one-line header of a definition `node` (bytes `start`..`end`), up to its body."""
    if body is not None:
        body_start = body.start_byte
        if start < body_start <= end:
            end = body_start
            if source.find(b"#", start, end) != -1 or source.find(b"/", start, end) != -1:
                before = body.prev_sibling  # maybe a comment between the header and the body
                while before is not None and before.is_extra:
                    before = before.prev_sibling
                if before is not None and start < before.end_byte <= end:
                    end = before.end_byte
    raw = source[start:min(end, start + MAX_SIGNATURE_CHARS * 4)]
    text = " ".join(raw.decode("utf-8", "replace").split())
    if text.endswith(";") or (body is not None and text.endswith(":")):
        text = text[:-1].rstrip()
    if len(text) > MAX_SIGNATURE_CHARS or end - start > len(raw):
        text = text[:MAX_SIGNATURE_CHARS].rstrip() + " …"
    return text


def outline_entries(tree: ts.Tree, source: bytes, language: str) -> list[Entry]:
    """The outline of an already parsed source (UTF-8 bytes), flattened: parents first."""
    query = get_query(language, "outline")
    if query is None:
        return []
    char_column = None if source.isascii() else LineMap(source).char_column  # ASCII: bytes are chars
    out: list[Entry] = []
    stack: list[tuple[int, int, Entry]] = []  # (start_byte, end_byte, entry) of the open containers
    add, push = out.append, stack.append
    for start, neg_end, name_start, _pattern, kind, name_node, node, span, body, scope in _collect(
            tree, query, query_walk(language, "outline")):
        end = -neg_end
        while stack:
            top_start, top_end, parent = stack[-1]
            if top_start <= start and end <= top_end and (top_start != start or top_end != end):
                break
            stack.pop()
        else:
            parent = None
        name = source[name_start:name_node.end_byte].decode("utf-8", "replace")
        if parent is not None:
            if kind == "function" and parent.kind in MEMBER_CONTAINERS:
                kind = "method"
            name_path = f"{parent.name_path}.{name}"
        elif scope is not None:
            name_path = f"{source[scope.start_byte:scope.end_byte].decode('utf-8', 'replace')}.{name}"
        else:
            name_path = name
        (srow, scol), (erow, ecol), (nrow, ncol) = span.start_point, span.end_point, name_node.start_point
        if char_column is not None:
            scol, ecol, ncol = char_column(srow, scol), char_column(erow, ecol), char_column(nrow, ncol)
        # (the span is the node itself unless the pattern captured a wider @range)
        header = (_signature(source, node, body, start, end) if node is span
                  else _signature(source, node, body, node.start_byte, node.end_byte))
        entry = _new_entry(Entry, (name, name_path, kind, srow + 1, scol + 1, erow + 1, ecol + 1, nrow + 1,
                                   ncol + 1, header, len(stack)))
        add(entry)
        push((start, end, entry))
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
