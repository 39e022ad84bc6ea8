"""Changing a Python constructor (`__init__`): its call sites are the calls of the class, `C(...)`,
and of every subclass that inherits that `__init__` (does not define its own). They are found
through the server's references of each class name; a subclass shows up among them in a base
list, `class D(C):`. The explicit `super().__init__(...)` / `C.__init__(self, ...)` calls are
references of `__init__` itself (the planner's ordinary route).

A class name used as a value — `factory=C`, `make(C)`, `registry[k] = C` — creates instances the
change cannot follow: a conflict naming the site, as for any reference that is not a call.
Imports, annotations, base lists, `isinstance`/`issubclass`, `except C`, and `C.attr` are not
instance creations and are left alone.

Overriding constructors follow the override rule downwards only: a subclass's `__init__` is in
the family, a base class's is not (a constructor does not override its base's in the sense of
a call through the base: `Base(...)` never runs `C.__init__`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import tree_sitter as ts

from lsp_bridge.types import FileLocation, Position

from ..rename.hierarchy import ClassRef, Hierarchy, Member, class_ref
from ..rename.pysource import PySource, ancestors, class_body_members, text_of
from ..rename.sources import Sources
from .class_walk import walk_class_references

TYPE_CHECKS = frozenset({"isinstance", "issubclass", "type", "cast", "TypeVar", "NewType"})


@dataclass(slots=True)
class ClassUse:
    """A reference to a class whose instances the changed `__init__` creates."""

    src: PySource
    ident: ts.Node
    cls: str  # the class's name
    args: ts.Node | None  # the argument list of `C(...)`; None: a use that is not a call (a conflict)


def derived_members(hierarchy: Hierarchy, src: PySource, cls: ts.Node, members: list[Member]) -> list[Member]:
    """The members of a method family that are `cls` itself or classes deriving from it."""
    target = class_ref(src, cls)
    memo: dict[ClassRef, bool] = {}

    def derives(s: PySource, c: ts.Node, depth: int) -> bool:
        ref = class_ref(s, c)
        if ref == target:
            return True
        if ref not in memo:
            memo[ref] = False  # a cycle in bad code ends here
            memo[ref] = depth < 30 and any(derives(bs, bc, depth + 1) for bs, bc in hierarchy.bases(s, c))
        return memo[ref]

    return [m for m in members if derives(m.src, m.cls, 0)]


def class_uses(sources: Sources, classes: list[tuple[PySource, ts.Node]],
               references: Callable[[Path, Position], list[FileLocation]]) -> tuple[list[ClassUse], list[str]]:
    """Every use of the classes (and of their subclasses that inherit `__init__`, transitively) in
    the workspace; the second list says what could not be searched (too many classes)."""
    uses: list[ClassUse] = []

    def name_at(loc: FileLocation) -> tuple[PySource, ts.Node] | None:
        src = sources.parsed(loc.path) if sources.in_workspace(loc.path) else None
        ident = src.identifier_at(loc.range.start) if src is not None else None
        return (src, ident) if src is not None and ident is not None else None

    def visit(src: PySource, ident: ts.Node, cls: str) -> list[tuple[PySource, ts.Node]]:
        kind, node = _kind(ident)
        if kind == "call":
            uses.append(ClassUse(src, ident, cls, node))
        elif kind == "value":
            uses.append(ClassUse(src, ident, cls, None))
        elif kind == "base" and node is not None and not class_body_members(node, "__init__"):
            return [(src, node)]  # a subclass inheriting the constructor: its calls too
        return []

    notes = walk_class_references(classes, references, name_at, visit)
    return uses, notes


def _kind(ident: ts.Node) -> tuple[str, ts.Node | None]:
    """What a reference to a class name does: "call" (with the argument list), "base" (with the
    deriving class), "value" (passed around), or "other" (import, annotation, type check...)."""
    node = ident
    parent = node.parent
    while parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
        node, parent = parent, parent.parent  # `pkg.mod.C` is used as a whole
    if parent is None:
        return "other", None
    if parent.type == "attribute":  # `C.attr`, `C.__init__(self, ...)`: the class is not instantiated
        return "other", None
    if parent.type == "call" and parent.child_by_field_name("function") == node:
        return "call", parent.child_by_field_name("arguments")
    if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "class_definition":
        return "base", parent.parent
    for anc in ancestors(node):
        if anc.type in ("import_statement", "import_from_statement", "future_import_statement", "type",
                        "except_clause"):
            return "other", None
        if anc.type == "call":
            func = anc.child_by_field_name("function")
            if func is not None and text_of(func).rsplit(".", 1)[-1] in TYPE_CHECKS:
                return "other", None
            break
        if anc.type in ("function_definition", "class_definition", "block", "module", "lambda"):
            break
    return "value", None
