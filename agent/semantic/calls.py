"""call_hierarchy: callers (incoming) or callees (outgoing) of a function or method as a tree, from
the server's call hierarchy. Each node carries its qualified name, `path:line:col` and the text of
each call line; a node already on the path from the root is marked `cycle` (not expanded again),
one at the depth limit `cut` (its own calls not asked). Bounded in nodes and tokens; what was cut
is said."""

from __future__ import annotations

from typing import Any, Literal

from lsp_bridge import LspSession, navigation
from lsp_bridge.errors import NotReady
from lsp_bridge.navigation import Call, HierarchyItem

from ..errors import ToolFailure
from ..result import ToolResult
from ..toolcontext import ToolContext
from .hits import CHARS_PER_TOKEN, TOKEN_BUDGET
from .outlines import Outlines
from .sessions import UNAVAILABLE, server_unavailable, session_for
from .target import Target, display_path, inside_workspace

MAX_NODES = 2000  # every caller stays in data; the text is cut by the token budget (and says so)
Direction = Literal["incoming", "outgoing"]


class _Walk:
    def __init__(self, ctx: ToolContext, session: LspSession, direction: Direction, depth: int):
        self.ctx, self.session, self.direction, self.depth = ctx, session, direction, depth
        self.outlines = Outlines(ctx)
        self.nodes = 0
        self.not_expanded = 0  # nodes left out once MAX_NODES was reached

    def key(self, item: HierarchyItem) -> tuple[str, int, int]:
        return str(item.path), item.selection.start.line, item.selection.start.character

    def describe(self, item: HierarchyItem) -> dict[str, Any]:
        rel = display_path(self.ctx, item.path)
        inside = inside_workspace(self.ctx, item.path)
        start = item.selection.start
        qualified = (self.outlines.qualified(rel, start.line, start.character, item.name) if inside
                     else f"{rel}::{item.name}")
        node: dict[str, Any] = {"name": item.name, "qualified_name": qualified, "kind": item.kind,
                                "path": rel, "line": start.line + 1, "column": start.character + 1}
        if not inside:
            node["external"] = True
        return node

    def expand(self, item: HierarchyItem, level: int, ancestors: frozenset[tuple[str, int, int]]) -> list[dict[str, Any]]:
        found: list[Call] = navigation.calls(self.session, item, self.direction)
        found.sort(key=lambda c: (str(c.item.path), c.item.selection.start))
        children = []
        for call in found:
            if self.nodes >= MAX_NODES:
                self.not_expanded += 1
                continue
            self.nodes += 1
            node = self.describe(call.item)
            site_path = call.item.path if self.direction == "incoming" else item.path
            rel = display_path(self.ctx, site_path)
            inside = inside_workspace(self.ctx, site_path)
            starts = sorted({(r.start.line, r.start.character) for r in call.sites})
            node["calls_at"] = [{"path": rel, "line": ln + 1, "column": col + 1,
                                 "text": self.outlines.lines.line(rel, ln) if inside else ""} for ln, col in starts]
            key = self.key(call.item)
            if key in ancestors:
                node["cycle"] = True
            elif node.get("external"):
                pass  # library code: its own calls are not the workspace's business
            elif level < self.depth:
                node["children"] = self.expand(call.item, level + 1, ancestors | {key})
            else:
                node["cut"] = True
            children.append(node)
        return children


def render(nodes: list[dict[str, Any]], direction: Direction, out: list[str], budget: list[int],
           indent: int = 0) -> int:
    """Append the tree's lines while the character budget lasts; return how many nodes did not fit."""
    left_out = 0
    pad = "  " * indent
    for node in nodes:
        marks = [m for m in ("cycle", "cut", "external") if node.get(m)]
        head = (f"{pad}- {node['qualified_name']}  {node['path']}:{node['line']}:{node['column']}"
                + (f"  [{', '.join(marks)}]" if marks else ""))
        rows = [head] + [f"{pad}    {c['line']}:{c['column']}  {c['text']}"
                         + (f"  ({c['path']})" if direction == "outgoing" and c["path"] != node["path"] and indent
                            else "") for c in node["calls_at"]]
        cost = sum(len(r) + 1 for r in rows)
        if cost > budget[0]:
            left_out += 1 + _count(node.get("children", []))
            continue
        budget[0] -= cost
        out.extend(rows)
        left_out += render(node.get("children", []), direction, out, budget, indent + 1)
    return left_out


def _count(nodes: list[dict[str, Any]]) -> int:
    return sum(1 + _count(n.get("children", [])) for n in nodes)


def call_hierarchy(ctx: ToolContext, target: Target, direction: Direction, depth: int) -> ToolResult:
    if target.server is None:
        raise ToolFailure(f"{target.path}: no language server handles this kind of file")
    try:
        session = session_for(ctx, target.server)
        if not navigation.supports(session, "calls"):
            raise ToolFailure(f"{session.spec.name} has no call hierarchy; use find_references")
        items = navigation.prepare_hierarchy(session, target.real, target.pos, "calls")
        if not items:
            raise ToolFailure(f"no function or method at {target.location} ({target.name!r}); point at a "
                              "function's name, in its definition or a call")
        walk = _Walk(ctx, session, direction, depth)
        root = walk.describe(items[0])
        tree = walk.expand(items[0], 1, frozenset({walk.key(items[0])}))
    except NotReady as exc:
        raise ToolFailure(f"{exc}; try again when it has finished indexing") from exc
    except UNAVAILABLE as exc:
        raise ToolFailure(f"{server_unavailable(exc)}; without it, find_references lists the "
                          "name's uses") from exc
    word = "callers" if direction == "incoming" else "callees"
    out = [f"{word} of {root['qualified_name']} ({root['path']}:{root['line']}:{root['column']}), "
           f"depth {depth}: {_count(tree)} node(s)"]
    if not tree:
        out.append(f"(the server found no {word})")
    budget = [TOKEN_BUDGET * CHARS_PER_TOKEN]
    left_out = render(tree, direction, out, budget)
    if left_out:
        out.append(f"[left out to stay within ~{TOKEN_BUDGET} tokens: {left_out} node(s); they are in data.calls]")
    if walk.not_expanded:
        out.append(f"[stopped at {MAX_NODES} nodes: {walk.not_expanded} more {word} not listed]")
    if any(n.get("cut") for n in _walk_nodes(tree)):
        out.append(f"[cut: depth limit {depth} reached; raise depth (max 5) to see their {word}]")
    return ToolResult.ok("\n".join(out), symbol=target.name, root=root, direction=direction, depth=depth,
                         calls=tree, count=_count(tree), left_out=left_out, not_listed=walk.not_expanded)


def _walk_nodes(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for n in nodes:
        found.append(n)
        found.extend(_walk_nodes(n.get("children", [])))
    return found
