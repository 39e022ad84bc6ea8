"""Python source as the rename engine reads it: a tree-sitter tree plus the questions the
completion passes ask of it (what is declared at a position, which class owns it, its bases,
`__all__`/`__slots__` entries, attribute names spelled as strings).

Columns handed out are 0-based code points (the bridge's convention); tree-sitter's byte
columns are converted here and nowhere else in this package.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import tree_sitter as ts

from lsp_bridge.types import Position, Range

from ...syntax import parse

DeclKind = Literal[
    "function", "method", "class", "param", "attribute", "class_attr", "module_var", "alias", "import",
    "local", "other",
]

FUNCTION_TYPES = frozenset({"function_definition", "lambda"})
PARAM_WRAPPERS = frozenset(
    {"typed_parameter", "default_parameter", "typed_default_parameter", "list_splat_pattern",
     "dictionary_splat_pattern"}
)
NAME_LIST_DUNDERS = frozenset({"__slots__", "__match_args__"})


@dataclass(frozen=True, slots=True)
class Declared:
    """What the identifier at a declaration is, with the nodes the passes need."""

    kind: DeclKind
    name: str
    node: ts.Node  # the identifier
    class_node: ts.Node | None = None  # owning class (member kinds, and params of methods)
    func_node: ts.Node | None = None  # the function (function/method kinds, and params)


class PySource:
    """One Python file's text and tree, with position conversion."""

    def __init__(self, path: Path, text: str):
        self.path = path
        self.text = text
        self.lines = text.split("\n")
        self.tree = parse(text, "python")
        self._encoded: dict[int, bytes] = {}

    # ------------------------------------------------------------------ positions
    def _line_bytes(self, line: int) -> bytes:
        data = self._encoded.get(line)
        if data is None:
            text = self.lines[line] if 0 <= line < len(self.lines) else ""
            data = self._encoded[line] = text.encode("utf-8", "surrogatepass")
        return data

    def char_col(self, line: int, byte_col: int) -> int:
        data = self._line_bytes(line)
        if data.isascii():
            return byte_col
        return len(data[:byte_col].decode("utf-8", "surrogatepass"))

    def byte_col(self, line: int, char_col: int) -> int:
        text = self.lines[line] if 0 <= line < len(self.lines) else ""
        return len(text[:char_col].encode("utf-8", "surrogatepass"))

    def position(self, point: ts.Point | tuple[int, int]) -> Position:
        row, col = point
        return Position(row, self.char_col(row, col))

    def range(self, node: ts.Node) -> Range:
        return Range(self.position(node.start_point), self.position(node.end_point))

    def line_text(self, line: int) -> str:
        return self.lines[line] if 0 <= line < len(self.lines) else ""

    # ------------------------------------------------------------------ lookup
    def identifier_at(self, pos: Position) -> ts.Node | None:
        """The identifier token covering `pos` (its first character or inside it)."""
        col = self.byte_col(pos.line, pos.character)
        node = self.tree.root_node.named_descendant_for_point_range((pos.line, col), (pos.line, col))
        if node is not None and node.type == "identifier":
            return node
        return None

    def identifiers(self, name: str) -> list[ts.Node]:
        """Every identifier token spelled `name`, in order (code only: strings and comments hold none)."""
        if not name.isidentifier():
            return []
        return _captured(self.tree, f'((identifier) @n (#eq? @n "{name}"))')

    def strings(self) -> list[ts.Node]:
        """Every string literal node, in order."""
        return _captured(self.tree, "(string) @n")

    def string_literals(self, value: str) -> Iterator[ts.Node]:
        """`string_content` nodes of plain (non-interpolated) string literals equal to `value`."""
        if not value.isidentifier():
            return
        for node in _captured(self.tree, f'((string_content) @n (#eq? @n "{value}"))'):
            if node.parent is not None and plain_string_content(node.parent) == node:
                yield node


@functools.lru_cache(maxsize=128)
def _query(language: ts.Language, source: str) -> ts.Query:
    return ts.Query(language, source)


def _captured(tree: ts.Tree, source: str) -> list[ts.Node]:
    """The nodes a one-capture query finds, in document order (tree-sitter runs it in C)."""
    found = ts.QueryCursor(_query(tree.language, source)).captures(tree.root_node).get("n", [])
    return sorted(found, key=lambda n: n.start_byte)


# ---------------------------------------------------------------------- node helpers
def plain_string_content(node: ts.Node) -> ts.Node | None:
    """The single `string_content` child of a string without interpolation or escapes."""
    if node.type != "string":
        return None
    parts = [c for c in node.children if c.type not in ("string_start", "string_end")]
    if len(parts) != 1 or parts[0].type != "string_content":
        return None
    start = node.children[0].text or b""
    if b"f" in start.lower() or b"b" in start.lower():
        return None
    return parts[0]


def text_of(node: ts.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "surrogatepass")


def ancestors(node: ts.Node) -> Iterator[ts.Node]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def scope_of(node: ts.Node) -> ts.Node:
    """The nearest enclosing module, class_definition or function (whose body holds `node`)."""
    for anc in ancestors(node):
        if anc.type in ("module", "class_definition") or anc.type in FUNCTION_TYPES:
            return anc
    return node


def owner_class(func: ts.Node) -> ts.Node | None:
    """The class whose body defines `func` directly (decorators allowed), or None."""
    parent = func.parent
    if parent is not None and parent.type == "decorated_definition":
        parent = parent.parent
    if parent is not None and parent.type == "block" and parent.parent is not None \
            and parent.parent.type == "class_definition":
        return parent.parent
    return None


def first_param_name(func: ts.Node) -> str | None:
    params = func.child_by_field_name("parameters")
    if params is None:
        return None
    for child in params.named_children:
        if child.type == "identifier":
            return text_of(child)
        if child.type in ("typed_parameter", "default_parameter", "typed_default_parameter"):
            ident = child.child_by_field_name("name") or next(
                (c for c in child.named_children if c.type == "identifier"), None)
            return text_of(ident)
        return None
    return None


def enclosing_method(node: ts.Node) -> tuple[ts.Node, ts.Node] | None:
    """(function, class) when `node` is inside a method (nested functions see the method's self)."""
    for anc in ancestors(node):
        if anc.type == "function_definition":
            cls = owner_class(anc)
            if cls is not None:
                return anc, cls
        elif anc.type == "class_definition":
            return None
    return None


def is_self_attribute(ident: ts.Node) -> ts.Node | None:
    """The class when `ident` is the attribute of `self.<ident>` (first parameter of a method)."""
    attr = ident.parent
    if attr is None or attr.type != "attribute" or attr.child_by_field_name("attribute") != ident:
        return None
    obj = attr.child_by_field_name("object")
    if obj is None or obj.type != "identifier":
        return None
    found = enclosing_method(ident)
    if found is None:
        return None
    func, cls = found
    return cls if first_param_name(func) == text_of(obj) else None


def assignment_target_scope(ident: ts.Node) -> ts.Node | None:
    """The scope node when `ident` is (part of) the left side of an assignment."""
    node = ident
    parent = node.parent
    while parent is not None and parent.type in ("pattern_list", "tuple_pattern", "list_pattern"):
        node, parent = parent, parent.parent
    if parent is not None and parent.type in ("assignment", "augmented_assignment") \
            and parent.child_by_field_name("left") == node:
        return scope_of(parent)
    return None


def classify(ident: ts.Node) -> Declared:
    """What the identifier at a declaration declares."""
    name = text_of(ident)
    parent = ident.parent
    if parent is None:
        return Declared("other", name, ident)
    if parent.type == "function_definition" and parent.child_by_field_name("name") == ident:
        cls = owner_class(parent)
        return Declared("method" if cls is not None else "function", name, ident, cls, parent)
    if parent.type == "class_definition" and parent.child_by_field_name("name") == ident:
        return Declared("class", name, ident, parent)
    holder = parent if parent.type in PARAM_WRAPPERS else ident
    if holder.parent is not None and holder.parent.type in ("parameters", "lambda_parameters"):
        func = holder.parent.parent
        if func is not None and (parent.type not in PARAM_WRAPPERS or _param_name(parent) == ident):
            cls = owner_class(func) if func.type == "function_definition" else None
            return Declared("param", name, ident, cls, func)
    if parent.type == "aliased_import" and parent.child_by_field_name("alias") == ident:
        imported = parent.child_by_field_name("name")
        last = imported.named_children[-1] if imported is not None and imported.named_children else None
        in_from = parent.parent is not None and parent.parent.type == "import_from_statement"
        if in_from and text_of(last) == name:
            return Declared("import", name, ident)  # `from m import x as x`: a re-export
        return Declared("alias", name, ident)
    if parent.type == "dotted_name" and parent.parent is not None and parent.parent.type in (
            "import_from_statement", "aliased_import", "import_statement"):
        return Declared("import", name, ident)
    cls = is_self_attribute(ident)
    if cls is not None:
        return Declared("attribute", name, ident, cls)
    scope = assignment_target_scope(ident)
    if scope is None and parent.type == "assignment" and parent.child_by_field_name("left") == ident:
        scope = scope_of(parent)
    if scope is not None:
        if scope.type == "class_definition":
            return Declared("class_attr", name, ident, scope)
        if scope.type == "module":
            return Declared("module_var", name, ident)
        return Declared("local", name, ident)
    if scope_of(ident).type in FUNCTION_TYPES:
        return Declared("local", name, ident)
    return Declared("other", name, ident)


def _param_name(wrapper: ts.Node) -> ts.Node | None:
    named = wrapper.child_by_field_name("name")
    if named is not None:
        return named
    return next((c for c in wrapper.named_children if c.type == "identifier"), None)


def function_params(func: ts.Node) -> dict[str, ts.Node]:
    """Parameter name → its identifier node."""
    params = func.child_by_field_name("parameters")
    out: dict[str, ts.Node] = {}
    if params is None:
        return out
    for child in params.named_children:
        ident = child if child.type == "identifier" else _param_name(child) if child.type in PARAM_WRAPPERS else None
        if ident is not None:
            out.setdefault(text_of(ident), ident)
    return out


def class_body_members(cls: ts.Node, name: str) -> list[ts.Node]:
    """Identifier nodes declaring member `name` of `cls`: `def name`, `name = ...` / `name: T` in
    the body, and `self.name = ...` assignments in its methods."""
    body = cls.child_by_field_name("body")
    found: list[ts.Node] = []
    if body is None:
        return found
    for stmt in body.named_children:
        inner = stmt.child_by_field_name("definition") if stmt.type == "decorated_definition" else stmt
        if inner is None:
            continue
        if inner.type == "function_definition":
            ident = inner.child_by_field_name("name")
            if text_of(ident) == name and ident is not None:
                found.append(ident)
        elif inner.type == "expression_statement":
            for expr in inner.named_children:
                if expr.type == "assignment":
                    left = expr.child_by_field_name("left")
                    if left is not None and left.type == "identifier" and text_of(left) == name:
                        found.append(left)
    if not found:
        for ident in _self_assignments(cls, name):
            found.append(ident)
            break
    return found


def _self_assignments(cls: ts.Node, name: str) -> Iterator[ts.Node]:
    wanted = name.encode()
    stack = [cls.child_by_field_name("body")]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.type == "class_definition":
            continue  # a nested class has its own members
        if node.type == "identifier" and node.text == wanted and is_self_attribute(node) == cls:
            if assignment_target_scope(node) is not None or (
                    node.parent is not None and assignment_target_scope(node.parent) is not None):
                yield node
            continue
        stack.extend(reversed(node.children))


def class_bases(cls: ts.Node) -> list[ts.Node]:
    """The identifier naming each base class (the last name of `a.b.Base`; keywords skipped)."""
    supers = cls.child_by_field_name("superclasses")
    out: list[ts.Node] = []
    if supers is None:
        return out
    for arg in supers.named_children:
        node = arg
        while node.type == "subscript":  # Generic[T] / Base[int]
            value = node.child_by_field_name("value")
            if value is None:
                break
            node = value
        if node.type == "attribute":
            attr = node.child_by_field_name("attribute")
            if attr is not None:
                out.append(attr)
        elif node.type == "identifier":
            out.append(node)
    return out


def classes(tree_root: ts.Node) -> Iterator[ts.Node]:
    stack = [tree_root]
    while stack:
        node = stack.pop()
        if node.type == "class_definition":
            yield node
        stack.extend(reversed(node.named_children))


def module_level_binding(ident: ts.Node) -> bool:
    """Does `ident` bind a module-level name (def/class, import, assignment at module level)?"""
    parent = ident.parent
    if parent is None:
        return False
    if parent.type in ("function_definition", "class_definition"):
        return parent.child_by_field_name("name") == ident and scope_of(parent).type == "module"
    if parent.type == "aliased_import" and parent.child_by_field_name("alias") == ident:
        return scope_of(parent).type == "module"
    if parent.type == "dotted_name" and parent.parent is not None:
        stmt = parent.parent if parent.parent.type != "aliased_import" else None
        if stmt is not None and stmt.type == "import_from_statement" and stmt.child_by_field_name("module_name") != parent:
            return scope_of(stmt).type == "module"
        if stmt is not None and stmt.type == "import_statement" and parent.named_children[0] == ident:
            return scope_of(stmt).type == "module"
    scope = assignment_target_scope(ident)
    return scope is not None and scope.type == "module"


def keyword_argument_name(ident: ts.Node) -> bool:
    parent = ident.parent
    return parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("name") == ident
