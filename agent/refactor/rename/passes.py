"""Completion passes that need no declaration seeds: name-like strings (`__all__`, `__slots__`,
attribute names in getattr-style calls and `__dict__` filters), keyword-argument labels, and
attribute accesses whose receiver the server types as the owning class."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import tree_sitter as ts

from lsp_bridge.errors import BridgeError
from lsp_bridge.types import FileLocation, Position

from .collector import Collector
from .pysource import (
    NAME_LIST_DUNDERS,
    PySource,
    enclosing_method,
    first_param_name,
    keyword_argument_name,
    module_level_binding,
    text_of,
)
from .pystrings import attribute_name_strings, name_list_entries, name_list_of
from .server import TypeDefinitionServer
from .sources import Sources


def all_entries(sources: Sources, coll: Collector, name: str) -> int:
    """`__all__` entries naming `name` in modules whose own module-level binding of it is renamed."""
    added = 0
    for path in sources.files_containing("__all__"):
        text = sources.text(path) or ""
        if f'"{name}"' not in text and f"'{name}'" not in text:
            continue
        src = sources.parsed(path)
        if src is None:
            continue
        entries = list(name_list_entries(src.tree.root_node, frozenset({"__all__"}), name))
        if not entries:
            continue
        renamed = any(module_level_binding(ident) and coll.covers(path, src.position(ident.start_point))
                      for ident in src.identifiers(name))
        if renamed:
            added += sum(coll.add_node(src, entry, "__all__") for entry in entries)
    return added


def class_strings(owners: Iterable[tuple[PySource, ts.Node]], coll: Collector, name: str) -> int:
    """`__slots__`/`__match_args__` entries and attribute-name strings of the owning classes."""
    added = 0
    for src, cls in owners:
        body = cls.child_by_field_name("body")
        for entry in name_list_entries(body, NAME_LIST_DUNDERS, name):
            added += coll.add_node(src, entry, "__slots__")
        for entry in attribute_name_strings(cls, name):
            added += coll.add_node(src, entry, "attr-string")
    return added


def label_name_lists(sources: Sources, coll: Collector) -> None:
    """String sites inside `__all__` / `__slots__` lists say so, whoever found them."""
    for (path, rng), edit in list(coll.edits.items()):
        if edit.reason not in ("lsp", "stub", "hierarchy"):
            continue
        line = sources.line(path, rng.start.line)
        if not 0 < rng.start.character <= len(line) or line[rng.start.character - 1] not in "'\"":
            continue  # not inside quotes: no need to parse the file
        src = sources.parsed(path)
        if src is None:
            continue
        node = src.tree.root_node.named_descendant_for_point_range(
            (rng.start.line, src.byte_col(rng.start.line, rng.start.character)),
            (rng.start.line, src.byte_col(rng.start.line, rng.start.character)))
        if node is None or node.type != "string_content":
            continue
        dunder = name_list_of(node)
        if dunder is not None:
            coll.relabel(path, rng.start, "__all__" if dunder == "__all__" else "__slots__")


def label_keyword_arguments(sources: Sources, coll: Collector) -> None:
    """Sites that are `name=` labels at call sites say so (reason `kwarg`)."""
    for (path, rng), edit in list(coll.edits.items()):
        after = sources.line(path, rng.end.line)[rng.end.character:].lstrip()
        if not after.startswith("=") or after.startswith("=="):
            continue  # not followed by `=`: no need to parse the file
        src = sources.parsed(path)
        if src is None:
            continue
        ident = src.identifier_at(rng.start)
        if ident is not None and keyword_argument_name(ident) and edit.reason in ("lsp", "stub", "hierarchy"):
            coll.relabel(path, rng.start, "kwarg")


def receiver_types(server: TypeDefinitionServer, sources: Sources, coll: Collector, name: str,
                   is_owner: Callable[[FileLocation], bool], *, untyped_ok: bool, limit: int) -> tuple[int, int]:
    """`x.name` accesses the server did not link, where the server types `x` as an owning class
    (e.g. through a stub that does not declare the member): reason `receiver-type`. With
    `untyped_ok` (no other class declares the member and it is no everyday built-in member name),
    also those whose receiver has no type at all: reason `untyped-receiver`. Returns (added, checked)."""
    added = checked = 0
    for path in sources.files_containing(name):
        src = sources.parsed(path)
        if src is None:
            continue
        for ident in src.identifiers(name):
            attr = ident.parent
            if attr is None or attr.type != "attribute" or attr.child_by_field_name("attribute") != ident:
                continue
            if coll.covers(path, src.position(ident.start_point)):
                continue
            receiver = _receiver_token(attr.child_by_field_name("object"))
            if receiver is None:
                continue
            own = _own_class(src, receiver)
            if own is not None:  # self/cls: the enclosing class, no need to ask
                if is_owner(own):
                    added += coll.add_node(src, ident, "receiver-type")
                continue
            if checked >= limit:
                return added, checked
            checked += 1
            try:
                locs = server.type_definition(path, src.position(receiver.start_point))
            except BridgeError:
                continue
            verdict = _receiver_kind(sources, locs, is_owner)
            if verdict == "owner":
                added += coll.add_node(src, ident, "receiver-type")
            elif verdict == "untyped" and untyped_ok:
                added += coll.add_node(src, ident, "untyped-receiver")
    return added, checked


COPY_WITH_CHANGES = frozenset({"replace", "evolve", "assoc"})  # dataclasses/copy.replace, attrs.evolve


def copy_with_changes(server: TypeDefinitionServer, sources: Sources, coll: Collector, name: str,
                      is_owner: Callable[[FileLocation], bool], *, limit: int) -> int:
    """`replace(obj, name=...)`, `evolve(obj, name=...)`, `obj._replace(name=...)`: keyword arguments
    naming the renamed field of the object's class (typed through the server): reason `kwarg`."""
    added = checked = 0
    keyword = re.compile(rf"\b{re.escape(name)}\s*=(?!=)")
    for path in sources.files_containing(name):
        if not keyword.search(sources.text(path) or ""):
            continue
        src = sources.parsed(path)
        if src is None:
            continue
        for ident in src.identifiers(name):
            if not keyword_argument_name(ident) or coll.covers(path, src.position(ident.start_point)):
                continue
            call = ident.parent.parent.parent if ident.parent and ident.parent.parent else None
            if call is None or call.type != "call":
                continue
            func = call.child_by_field_name("function")
            args = call.child_by_field_name("arguments")
            fname = text_of(func.child_by_field_name("attribute") if func is not None and func.type == "attribute" else func)
            if fname == "_replace" and func is not None and func.type == "attribute":
                receiver = _receiver_token(func.child_by_field_name("object"))
            elif fname in COPY_WITH_CHANGES and args is not None and args.named_children \
                    and args.named_children[0].type != "keyword_argument":
                receiver = _receiver_token(args.named_children[0])
            else:
                continue
            if receiver is None or checked >= limit:
                continue
            checked += 1
            try:
                locs = server.type_definition(path, src.position(receiver.start_point))
            except BridgeError:
                continue
            if any(is_owner(loc) for loc in locs):
                added += coll.add_node(src, ident, "kwarg")
    return added


def _receiver_kind(sources: Sources, locs: list[FileLocation], is_owner: Callable[[FileLocation], bool]) -> str:
    """"owner" (typed as an owning class or a subclass), "untyped" (the server only knows the
    variable's own declarations: no type), or "other"."""
    if any(is_owner(loc) for loc in locs):
        return "owner"
    for loc in locs:
        if not sources.in_workspace(loc.path):
            return "other"  # a library or builtin type
        src = sources.parsed(loc.path)
        if src is None or loc.range.start == Position(0, 0) and loc.range.end == Position(0, 0):
            return "other"  # a module
        ident = src.identifier_at(loc.range.start)
        if ident is None or (ident.parent is not None and ident.parent.type == "class_definition"):
            return "other"
    return "untyped"


def _own_class(src: PySource, receiver: ts.Node) -> FileLocation | None:
    """The class (name location) when `receiver` is the first parameter of its method."""
    if receiver.type != "identifier":
        return None
    found = enclosing_method(receiver)
    if found is None or first_param_name(found[0]) != text_of(receiver):
        return None
    name = found[1].child_by_field_name("name")
    return FileLocation(src.path, src.range(name)) if name is not None else None


def _receiver_token(obj: ts.Node | None) -> ts.Node | None:
    """The token whose type is the receiver's: a name, or the last name of `a.b`."""
    if obj is None:
        return None
    if obj.type == "identifier":
        return obj
    if obj.type == "attribute":
        return obj.child_by_field_name("attribute")
    return None
