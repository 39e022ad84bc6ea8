"""A compact, readable rendering of a syntax tree for `get_ast`: named nodes with their field
names and 1-based ranges (end exclusive), short source text for leaves, ERROR/MISSING nodes
marked; bounded in depth and lines, saying what it cut."""

from __future__ import annotations

import json
from dataclasses import dataclass

import tree_sitter as ts

from ..errors import ToolFailure
from .languages import encode, error_nodes, parse_bytes
from .positions import LineMap

LEAF_CHARS = 40


@dataclass(slots=True)
class AstView:
    text: str
    truncated: bool
    errors: int
    node_type: str | None = None  # the node at the position, if one was given


class _Writer:
    def __init__(self, lines: LineMap, max_lines: int):
        self.lines = lines
        self.max_lines = max_lines
        self.out: list[str] = []
        self.cut = 0  # nodes not shown because the line budget ran out

    def span(self, node: ts.Node) -> str:
        (r, c), (er, ec) = node.start_point, node.end_point
        return f"{r + 1}:{self.lines.char_column(r, c) + 1}-{er + 1}:{self.lines.char_column(er, ec) + 1}"

    def label(self, node: ts.Node, field: str | None) -> str:
        prefix = f"{field}: " if field else ""
        if node.is_missing:
            return f"{prefix}MISSING {node.type!r} {self.span(node)}"
        kind = "ERROR" if node.is_error else node.type
        text = f"{prefix}{kind} {self.span(node)}"
        if _shown_children(node) == [] or node.is_error:
            raw = (node.text or b"").decode("utf-8", "replace")
            short = raw if len(raw) <= LEAF_CHARS else raw[:LEAF_CHARS] + "…"
            text += " " + json.dumps(short, ensure_ascii=False)
        return text

    def emit(self, line: str) -> bool:
        if len(self.out) >= self.max_lines:
            self.cut += 1
            return False
        self.out.append(line)
        return True

    def tree(self, node: ts.Node, field: str | None, depth: int, indent: int) -> None:
        if not self.emit("  " * indent + self.label(node, field)):
            return
        children = _shown_children(node)
        if not children:
            return
        if depth <= 0:
            self.out[-1] += f"  … {len(children)} named children"
            return
        for child, child_field in children:
            self.tree(child, child_field, depth - 1, indent + 1)


def _shown_children(node: ts.Node) -> list[tuple[ts.Node, str | None]]:
    out = []
    for i, child in enumerate(node.children):
        if child.is_named or child.is_missing:
            out.append((child, node.field_name_for_child(i)))
    return out


def _field_of(node: ts.Node) -> str | None:
    parent = node.parent
    if parent is None:
        return None
    for i, child in enumerate(parent.children):
        if child == node:
            return parent.field_name_for_child(i)
    return None


def render_ast(text: str, language: str, *, line: int | None = None, column: int | None = None,
               depth: int = 3, max_lines: int = 300) -> AstView:
    """The tree of `text`, or with `line` (and `column`, 1-based characters) the smallest named
    node there, its ancestors, and its subtree to `depth` levels."""
    source = encode(text)
    tree = parse_bytes(source, language)
    lines = LineMap(source)
    writer = _Writer(lines, max_lines)
    errors = len(error_nodes(tree))
    node_type = None
    if line is None:
        if column is not None:
            raise ToolFailure("column needs a line")
        writer.emit(f"{language} syntax tree, {lines.line_count()} lines, {errors} syntax errors")
        writer.tree(tree.root_node, None, depth, 0)
    else:
        total = lines.line_count()
        if not 1 <= line <= total:
            raise ToolFailure(f"line {line} is outside the file (1-{total})")
        row_text = text.split("\n")[line - 1]
        if column is None:
            column = len(row_text) - len(row_text.lstrip()) + 1
        if not 1 <= column <= len(row_text) + 1:
            raise ToolFailure(f"column {column} is outside line {line} (1-{len(row_text) + 1})")
        point = (line - 1, lines.byte_column(line - 1, column - 1))
        node = tree.root_node.named_descendant_for_point_range(point, point) or tree.root_node
        node_type = node.type
        ancestors = []
        up = node.parent
        while up is not None:
            ancestors.append(up)
            up = up.parent
        writer.emit(f"{language} syntax tree at {line}:{column} ({errors} syntax errors in the file)")
        writer.emit("(ancestors first; the node there is marked >)")
        for i, anc in enumerate(reversed(ancestors)):
            writer.emit("  " * i + writer.label(anc, _field_of(anc)))
        first = len(writer.out)
        writer.tree(node, _field_of(node), depth, len(ancestors))
        if len(writer.out) > first:
            writer.out[first] = ">" + writer.out[first][1:] if writer.out[first].startswith(" ") else "> " + writer.out[first]
    truncated = writer.cut > 0
    if truncated:
        writer.out.append(f"[... cut after {max_lines} lines ({writer.cut} more nodes at least); "
                          "give line/column to zoom in, or a smaller depth ...]")
    return AstView("\n".join(writer.out), truncated, errors, node_type)
