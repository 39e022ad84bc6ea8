"""Occurrences of identifiers without a language server: every identifier token with a given
name (`code_occurrences`), and the scope-aware occurrences of one identifier within its file
(`local_occurrences`): its definitions and the references that resolve to them, honouring
shadowing by parameters and locals. What scopes and definitions are is said by
`queries/<language>-locals.scm`; results are labelled syntactic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import tree_sitter as ts

from .identifier_spans import identifier_spans
from .languages import encode, get_query, parse_bytes
from .positions import LineMap

ScopeKind = Literal["local", "module", "member"]
_ROLES = {f"local.{r}": r for r in
          ("definition", "definition.outer", "definition.var", "reference", "member", "member.definition",
           "global", "nonlocal")}
_SCOPE_KINDS = {"local.scope": "block", "local.scope.function": "function", "local.scope.class": "class"}


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One identifier token: 0-based line, 0-based character columns (end exclusive)."""

    line: int
    column: int
    end_column: int
    is_definition: bool


@dataclass(frozen=True, slots=True)
class Occurrences:
    """The occurrences of one name as one binding, found syntactically (no type information).

    `scope` says how far they reach: "local" (a function, block or class body: complete within
    the file), "module" (the file's top level: other files may use it too), or "member" (an
    attribute/property name: every same-named member access in the file, not scope-resolved).
    `scope_range` is the 0-based (line, column, end_line, end_column) of the binding scope."""

    name: str
    language: str
    scope: ScopeKind
    scope_range: tuple[int, int, int, int]
    defined: bool  # a definition was found in this file
    occurrences: list[Occurrence]
    source: str = "syntactic"


def code_occurrences(text: str, language: str, name: str, *,
                     parsed: Callable[[ts.Tree, bytes], object] | None = None) -> list[tuple[int, int]]:
    """0-based (line, character column) of every identifier token equal to `name` in code,
    never inside strings or comments (the file's identifier tokens, identifier_spans.py, which
    the daemon's file cache keeps for every name). `parsed` is given the tree and its UTF-8
    source when some were found (a caller that needs the file's outline too then parses it once)."""
    if not name or name not in text:
        return []
    source = encode(text)
    spans, tree = identifier_spans(source, language)
    found = spans.occurrences(source, name)
    if parsed is not None and tree is not None and found:
        parsed(tree, source)
    return found


@dataclass(eq=False, slots=True)
class _Scope:
    kind: str  # "block" | "function" | "class"
    start: int
    end: int
    node: ts.Node | None
    parent: _Scope | None = None
    defs: dict[bytes, list[_Ident]] = field(default_factory=dict)
    globals: set[bytes] = field(default_factory=set)
    nonlocals: set[bytes] = field(default_factory=set)


@dataclass(eq=False, slots=True)
class _Ident:
    node: ts.Node
    text: bytes
    role: str
    scope: _Scope | None = None  # innermost scope around it
    binds: bool = False  # assigns the name (a definition, or `x = ...` after `global x`)


class _Analysis:
    """The scopes and identifiers of one file, and name resolution over them."""

    def __init__(self, tree: ts.Tree, source: bytes, query: ts.Query):
        self.source = source
        root = tree.root_node
        self.root = _Scope("function", root.start_byte, root.end_byte, root)
        roles: dict[tuple[int, int], tuple[int, str, ts.Node]] = {}
        scopes: list[_Scope] = []
        for pattern, caps in ts.QueryCursor(query).matches(root):
            for cap, nodes in caps.items():
                if cap in _SCOPE_KINDS:
                    scopes.extend(_Scope(_SCOPE_KINDS[cap], n.start_byte, n.end_byte, n) for n in nodes)
                elif cap in _ROLES:
                    for n in nodes:
                        key = (n.start_byte, n.end_byte)
                        known = roles.get(key)
                        if known is None or pattern < known[0]:
                            roles[key] = (pattern, _ROLES[cap], n)
        unique: dict[tuple[int, int], _Scope] = {}
        for scope in scopes:  # one node may be captured by several scope patterns: keep the first
            unique.setdefault((scope.start, scope.end), scope)
        self.idents = [_Ident(n, source[n.start_byte:n.end_byte], role) for _, role, n in roles.values()]
        self._nest(list(unique.values()))
        self._bind()

    def _nest(self, scopes: list[_Scope]) -> None:
        items: list[tuple[int, int, int, _Scope | _Ident]] = [(s.start, -s.end, 0, s) for s in scopes]
        items.extend((i.node.start_byte, -i.node.end_byte, 1, i) for i in self.idents)
        items.sort(key=lambda t: (t[0], t[1], t[2]))
        stack = [self.root]
        for _start, neg_end, _, item in items:
            while len(stack) > 1 and -neg_end > stack[-1].end:  # sorted by start: only the end can leave
                stack.pop()
            if isinstance(item, _Scope):
                item.parent = stack[-1]
                stack.append(item)
            else:
                item.scope = stack[-1]
        self.idents.sort(key=lambda i: i.node.start_byte)

    def _binding_target(self, ident: _Ident) -> _Scope:
        scope = ident.scope or self.root
        if ident.role == "definition.outer":
            return scope.parent or self.root
        if ident.role == "definition.var":
            while scope.kind != "function" and scope.parent is not None:
                scope = scope.parent
        return scope

    def _bind(self) -> None:
        for ident in self.idents:
            scope = ident.scope or self.root
            if ident.role == "global":
                scope.globals.add(ident.text)
            elif ident.role == "nonlocal":
                scope.nonlocals.add(ident.text)
        for ident in self.idents:
            if ident.role.startswith("definition"):
                ident.binds = True
                target = self._binding_target(ident)
                if ident.text in target.globals or ident.text in target.nonlocals:
                    ident.role = "reference"  # `global x; x = 1` assigns the outer x
                    continue
                target.defs.setdefault(ident.text, []).append(ident)

    def resolve(self, ident: _Ident) -> _Scope:
        """The scope whose binding of `ident`'s name this identifier means."""
        if ident.role.startswith("definition"):
            return self._binding_target(ident)
        name = ident.text
        start = ident.scope or self.root
        scope: _Scope | None = start
        while scope is not None and scope is not self.root:
            if name in scope.globals:
                return self.root
            if name in scope.nonlocals:  # the nearest enclosing function's binding
                scope = scope.parent
                while scope is not None and scope.kind == "class":
                    scope = scope.parent
                continue
            if name in scope.defs and (scope is start or scope.kind != "class"):
                return scope
            scope = scope.parent
        return self.root

    def at(self, byte: int) -> _Ident | None:
        """The identifier at a byte offset (starting there, or ending there if none starts there)."""
        best = None
        for ident in self.idents:
            if ident.node.start_byte <= byte < ident.node.end_byte:
                return ident
            if ident.node.end_byte == byte:
                best = ident
            if ident.node.start_byte > byte:
                break
        return best


# The analysis itself, for callers that reason about scopes (refactor/conflicts.py).
Scope = _Scope
Ident = _Ident
ScopeAnalysis = _Analysis


def analyze(text: str, language: str) -> tuple[ScopeAnalysis, LineMap] | None:
    """The scopes and identifiers of `text`, with its line map; None without a scope query."""
    query = get_query(language, "locals")
    if query is None:
        return None
    source = encode(text)
    return _Analysis(parse_bytes(source, language), source, query), LineMap(source)


def _occurrence(lines: LineMap, node: ts.Node, is_definition: bool) -> Occurrence:
    row, col = node.start_point
    erow, ecol = node.end_point
    return Occurrence(row, lines.char_column(row, col), lines.char_column(erow, ecol), is_definition)


def _range(lines: LineMap, scope: _Scope) -> tuple[int, int, int, int]:
    node = scope.node
    assert node is not None
    (r, c), (er, ec) = node.start_point, node.end_point
    return (r, lines.char_column(r, c), er, lines.char_column(er, ec))


def local_occurrences(text: str, language: str, line0: int, col0: int) -> Occurrences | None:
    """The occurrences, within this file, of the identifier at 0-based (line, character column):
    its definitions and every reference resolving to the same binding. None when the language
    has no scope query or no identifier is there."""
    query = get_query(language, "locals")
    if query is None:
        return None
    source = encode(text)
    lines = LineMap(source)
    if line0 < 0 or col0 < 0 or line0 >= lines.line_count():
        return None
    tree = parse_bytes(source, language)
    analysis = _Analysis(tree, source, query)
    target = analysis.at(lines.offset(line0, lines.byte_column(line0, col0)))
    if target is None:
        return None
    if target.role.startswith("member"):
        return _members(analysis, lines, target, language)
    binding = analysis.resolve(target)
    if binding.kind == "class" and binding is not analysis.root:
        return _members(analysis, lines, target, language)
    found = [i for i in analysis.idents
             if i.text == target.text and not i.role.startswith("member") and analysis.resolve(i) is binding]
    occurrences = [_occurrence(lines, i.node, i.binds) for i in found]
    return Occurrences(
        name=target.text.decode("utf-8", "surrogatepass"), language=language,
        scope="module" if binding is analysis.root else "local", scope_range=_range(lines, binding),
        defined=any(o.is_definition for o in occurrences), occurrences=occurrences,
    )


def _members(analysis: _Analysis, lines: LineMap, target: _Ident, language: str) -> Occurrences:
    """Attribute/property names are not scope-resolved: every member token with the name, and
    the definitions of that name directly in class bodies."""
    found = []
    for ident in analysis.idents:
        if ident.text != target.text:
            continue
        if ident.role.startswith("member"):
            found.append(_occurrence(lines, ident.node, ident.role == "member.definition"))
        elif analysis.resolve(ident).kind == "class":
            found.append(_occurrence(lines, ident.node, ident.binds))
    return Occurrences(
        name=target.text.decode("utf-8", "surrogatepass"), language=language, scope="member",
        scope_range=_range(lines, analysis.root), defined=any(o.is_definition for o in found), occurrences=found,
    )
