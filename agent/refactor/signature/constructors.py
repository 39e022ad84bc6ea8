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

MAX_CLASSES = 200  # classes whose references are asked for (the family and inheriting subclasses)
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
    queue = list(classes)
    done: set[tuple[Path, int]] = set()
    seen: set[tuple[Path, int]] = set()
    uses: list[ClassUse] = []
    notes: list[str] = []
    while queue:
        src, cls = queue.pop(0)
        if (src.path, cls.start_byte) in done:
            continue
        done.add((src.path, cls.start_byte))
        if len(done) > MAX_CLASSES:
            notes.append(f"more than {MAX_CLASSES} classes inherit this constructor; nothing was changed")
            break
        name = cls.child_by_field_name("name")
        assert name is not None
        for loc in references(src.path, src.position(name.start_point)):
            if not sources.in_workspace(loc.path):
                continue
            use_src = sources.parsed(loc.path)
            ident = use_src.identifier_at(loc.range.start) if use_src is not None else None
            if use_src is None or ident is None or (use_src.path, ident.start_byte) in seen:
                continue
            seen.add((use_src.path, ident.start_byte))
            kind, node = _kind(ident)
            if kind == "call":
                uses.append(ClassUse(use_src, ident, text_of(name), node))
            elif kind == "value":
                uses.append(ClassUse(use_src, ident, text_of(name), None))
            elif kind == "base" and node is not None and not class_body_members(node, "__init__"):
                queue.append((use_src, node))  # a subclass inheriting the constructor: its calls too
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
