"""Changing a TypeScript `constructor(...)`: its call sites are `new C(...)` for the class and for
every subclass that inherits the constructor (declares none), found through the server's
references of each class name (a subclass appears in an `extends C` clause), plus `super(...)`
in the constructors of direct subclasses that declare their own (those change with it as
overrides: typescript.py). A class name used as a value (`const make = C`, `register(C)`) creates
instances the change cannot follow: a conflict naming the site. Imports/exports, `instanceof`,
`C.staticMember` and types are left alone (types are `type_identifier`s the planner never sees
as references of the value)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import tree_sitter as ts

from lsp_bridge.types import FileLocation, Position

from ..rename.pysource import ancestors, text_of
from .class_walk import walk_class_references


class TsSource(Protocol):
    """What this module needs of typescript.py's TsSource (which imports this module)."""

    path: Path

    def position(self, point: ts.Point | tuple[int, int]) -> Position: ...
    def name_at(self, pos: Position) -> ts.Node | None: ...

CLASSES = ("class_declaration", "abstract_class_declaration", "class")


@dataclass(slots=True)
class NewUse:
    src: TsSource
    node: ts.Node
    cls: str
    args: ts.Node | None  # the arguments of `new C(...)` or `super(...)`; None: a value use (a conflict)


def own_constructor(cls: ts.Node) -> ts.Node | None:
    body = cls.child_by_field_name("body")
    for m in body.named_children if body is not None else []:
        if m.type == "method_definition" and text_of(m.child_by_field_name("name")) == "constructor":
            return m
    return None


def super_calls(ctor: ts.Node) -> list[ts.Node]:
    """The argument lists of `super(...)` calls in a constructor's body (not in nested classes)."""
    out: list[ts.Node] = []
    body = ctor.child_by_field_name("body")
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type in CLASSES:
            continue
        if node.type == "call_expression":
            func = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            if func is not None and func.type == "super" and args is not None:
                out.append(args)
        stack.extend(node.named_children)
    return out


def class_uses(classes: Sequence[tuple[TsSource, ts.Node]], parsed: Callable[[Path], TsSource | None],
               in_workspace: Callable[[Path], bool],
               references: Callable[[Path, Position], list[FileLocation]]) -> tuple[list[NewUse], list[str]]:
    """`new C(...)`, `super(...)` of direct subclasses with their own constructor, and value uses, for
    the classes and (transitively) their subclasses without a constructor."""
    uses: list[NewUse] = []

    def name_at(loc: FileLocation) -> tuple[TsSource, ts.Node] | None:
        src = parsed(loc.path) if in_workspace(loc.path) else None
        node = src.name_at(loc.range.start) if src is not None else None
        return (src, node) if src is not None and node is not None else None

    def visit(src: TsSource, node: ts.Node, cls: str) -> list[tuple[TsSource, ts.Node]]:
        kind, found = _kind(node)
        if kind == "new":
            uses.append(NewUse(src, node, cls, found))
        elif kind == "value":
            uses.append(NewUse(src, node, cls, None))
        elif kind == "extends" and found is not None:
            ctor = own_constructor(found)
            if ctor is None:
                return [(src, found)]  # inherits the constructor: its `new` calls too
            uses.extend(NewUse(src, args, cls, args) for args in super_calls(ctor))
        return []

    notes = walk_class_references(classes, references, name_at, visit)
    return uses, notes


def _kind(node: ts.Node) -> tuple[str, ts.Node | None]:
    parent = node.parent
    if parent is None:
        return "other", None
    if parent.type == "new_expression" and parent.child_by_field_name("constructor") == node:
        args = parent.child_by_field_name("arguments")
        return "new", args
    if parent.type == "member_expression" and parent.child_by_field_name("property") == node:
        outer = parent.parent  # `new ns.C(...)`
        if outer is not None and outer.type == "new_expression" and outer.child_by_field_name("constructor") == parent:
            return "new", outer.child_by_field_name("arguments")
        return "value", None
    if parent.type == "member_expression":
        return "other", None  # `C.staticMember`
    if parent.type == "extends_clause":
        return "extends", next((a for a in ancestors(parent) if a.type in CLASSES), None)
    if parent.type == "binary_expression" and any(c.type == "instanceof" for c in parent.children):
        return "other", None
    if parent.type == "export_statement" or any(
            a.type in ("import_statement", "export_clause", "import_clause", "type_annotation", "type_query")
            for a in ancestors(node)):
        return "other", None
    if parent.type in CLASSES and parent.child_by_field_name("name") == node:
        return "other", None
    return "value", None
