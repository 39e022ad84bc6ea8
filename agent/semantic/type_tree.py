"""type_hierarchy: the class tree above (supertypes) or below (subtypes) a class or interface.
The server's type hierarchy where it has one; otherwise (basedpyright and tsc have none today)
the class headers of the syntax index, matched by name (labelled syntactic)."""

from __future__ import annotations

from typing import Any, Literal

from lsp_bridge import navigation
from lsp_bridge.errors import NotReady
from lsp_bridge.navigation import HierarchyItem

from ..errors import ToolFailure
from ..result import ToolResult
from ..toolcontext import ToolContext
from .class_tree import ClassInfo, ClassTree
from .outlines import Outlines
from .sessions import UNAVAILABLE, session_for
from .target import Target, display_path, inside_workspace

MAX_DEPTH = 10
MAX_NODES = 300
Direction = Literal["supertypes", "subtypes"]


def type_hierarchy(ctx: ToolContext, target: Target, direction: Direction) -> ToolResult:
    if target.server is None:
        raise ToolFailure(f"{target.path}: no language server handles this kind of file")
    outlines = Outlines(ctx)
    where = (target.path, target.pos.line, target.name_start)
    try:
        session = session_for(ctx, target.server)
        if navigation.supports(session, "types"):
            items = navigation.prepare_hierarchy(session, target.real, target.pos, "types")
            if items:
                return _from_server(ctx, session, outlines, items[0], direction)
        for d in session.definition(target.real, target.pos)[:1]:
            if inside_workspace(ctx, d.path):
                where = (display_path(ctx, d.path), d.range.start.line, d.range.start.character)
    except NotReady as exc:
        raise ToolFailure(f"{exc}; try again when it has finished indexing") from exc
    except UNAVAILABLE:
        pass  # the syntax index answers alone
    sym = outlines.named_at(*where)
    tree = ClassTree(ctx)
    cls = tree.at(where[0], sym.name_path) if sym is not None else None
    if cls is None:
        raise ToolFailure(f"{target.name!r} at {target.location} is not a class or interface defined in the "
                          "workspace; point at a class name")
    count = [0]
    nodes = _syntactic(tree, cls, direction, {cls.key}, 1, count)
    root = _info_node(cls)
    out = [f"{direction} of {cls.path}::{cls.name_path} [syntactic: class headers, matched by name]"]
    _render(nodes, out, 0)
    if not nodes:
        out.append(f"(no {direction} in the workspace)")
    if count[0] >= MAX_NODES:
        out.append(f"[stopped at {MAX_NODES} classes]")
    return ToolResult.ok("\n".join(out), symbol=cls.name_path, root=root, direction=direction, types=nodes,
                         source="syntactic")


def _info_node(c: ClassInfo) -> dict[str, Any]:
    return {"name": c.name, "qualified_name": f"{c.path}::{c.name_path}", "kind": c.kind, "path": c.path,
            "line": c.line0 + 1, "column": c.col0 + 1}


def _syntactic(tree: ClassTree, cls: ClassInfo, direction: Direction, seen: set[tuple[str, str]], level: int,
               count: list[int]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if direction == "supertypes":
        known = tree.supertypes(cls)
        related = known
        for base in cls.bases:  # bases outside the workspace (Protocol, Generic, a library class)
            if not any(k.name == base for k in known):
                out.append({"name": base, "qualified_name": base, "external": True})
    else:
        related = [c for c in tree.classes if cls.name in c.bases and c.key != cls.key]
    for c in related:
        if count[0] >= MAX_NODES:
            break
        count[0] += 1
        node = _info_node(c)
        if c.key in seen:
            node["cycle"] = True
        elif level < MAX_DEPTH:
            node["children"] = _syntactic(tree, c, direction, seen | {c.key}, level + 1, count)
        out.append(node)
    return out


def _render(nodes: list[dict[str, Any]], out: list[str], indent: int) -> None:
    for n in nodes:
        where = f"  {n['path']}:{n['line']}:{n['column']}" if "path" in n else "  (outside the workspace)"
        out.append(f"{'  ' * indent}- {n['qualified_name']}{where}" + ("  [cycle]" if n.get("cycle") else ""))
        _render(n.get("children", []), out, indent + 1)


def _from_server(ctx: ToolContext, session: Any, outlines: Outlines, item: HierarchyItem,
                 direction: Direction) -> ToolResult:
    count = [0]

    def node(i: HierarchyItem) -> dict[str, Any]:
        rel = display_path(ctx, i.path)
        start = i.selection.start
        return {"name": i.name, "qualified_name": outlines.qualified(rel, start.line, start.character, i.name)
                if inside_workspace(ctx, i.path) else f"{rel}::{i.name}", "kind": i.kind, "path": rel,
                "line": start.line + 1, "column": start.character + 1}

    def expand(i: HierarchyItem, level: int, seen: frozenset[tuple[str, int]]) -> list[dict[str, Any]]:
        found = []
        for child in navigation.related_types(session, i, direction):
            if count[0] >= MAX_NODES:
                break
            count[0] += 1
            n = node(child)
            key = (str(child.path), child.selection.start.line)
            if key in seen:
                n["cycle"] = True
            elif level < MAX_DEPTH:
                n["children"] = expand(child, level + 1, seen | {key})
            found.append(n)
        return found

    root = node(item)
    nodes = expand(item, 1, frozenset({(str(item.path), item.selection.start.line)}))
    out = [f"{direction} of {root['qualified_name']} ({root['path']}:{root['line']}:{root['column']})"]
    _render(nodes, out, 0)
    if not nodes:
        out.append(f"(no {direction})")
    return ToolResult.ok("\n".join(out), symbol=item.name, root=root, direction=direction, types=nodes, source="lsp")
