"""Removal edits in Python source for safe delete: whole statements (with the blank lines that
separated them, so no gap grows), one element of a list / an import's name list (with its comma),
the `__all__` entry of a name, and the imports only the deleted code used."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter as ts

from lsp_bridge.types import Position, Range

from .rename.pysource import PySource, plain_string_content, text_of


@dataclass(frozen=True, slots=True)
class Removal:
    range: Range
    old_text: str
    reason: str


def _slice(src: PySource, rng: Range) -> str:
    lines = src.lines
    if rng.start.line == rng.end.line:
        return lines[rng.start.line][rng.start.character:rng.end.character]
    parts = [lines[rng.start.line][rng.start.character:]]
    parts.extend(lines[rng.start.line + 1:rng.end.line])
    parts.append(lines[rng.end.line][:rng.end.character] if rng.end.line < len(lines) else "")
    return "\n".join(parts)


def removal(src: PySource, rng: Range, reason: str) -> Removal:
    return Removal(rng, _slice(src, rng), reason)


def statement_lines(src: PySource, node: ts.Node, reason: str, *, tidy_blank: bool = True) -> Removal | None:
    """The whole lines of `node` (None when it shares a line with other code)."""
    first, last = node.start_point[0], node.end_point[0]
    lines = src.lines
    before = lines[first][:src.char_col(first, node.start_point[1])]
    after = lines[last][src.char_col(last, node.end_point[1]):]
    if before.strip() or (after.strip() and not after.strip().startswith("#")):
        return None
    end = last + 1
    if tidy_blank:
        blank_before = first == 0 or not lines[first - 1].strip()
        follows = end
        while follows < len(lines) and not lines[follows].strip():
            follows += 1
        if follows >= len(lines) or (follows == len(lines) - 1 and lines[follows] == ""):
            while first > 0 and not lines[first - 1].strip():  # last in the file: drop the gap before it
                first -= 1
            end = len(lines) - 1 if lines[-1] == "" else len(lines)
        elif blank_before:
            end = follows
    if end >= len(lines):
        if first > 0:  # no newline at the end: take the one before instead
            return removal(src, Range(Position(first - 1, len(lines[first - 1])),
                                      Position(len(lines) - 1, len(lines[-1]))), reason)
        return removal(src, Range(Position(0, 0), Position(len(lines) - 1, len(lines[-1]))), reason)
    return removal(src, Range(Position(first, 0), Position(end, 0)), reason)


def element(src: PySource, container: ts.Node, item: ts.Node, reason: str) -> Removal:
    """`item` with its comma, out of a comma-separated `container` (list, tuple, import names)."""
    kids = container.children
    i = next(k for k, c in enumerate(kids) if c == item or (c.start_byte == item.start_byte and c.end_byte == item.end_byte))
    nxt = kids[i + 1] if i + 1 < len(kids) else None
    if nxt is not None and nxt.type == ",":
        after = kids[i + 2] if i + 2 < len(kids) else None
        end = after.start_point if after is not None and after.type not in (")", "]") else nxt.end_point
        if after is not None and after.type in (")", "]"):
            prev = kids[i - 1] if i > 0 else None
            if prev is not None and prev.type == ",":  # last element: keep the list's own trailing comma
                end = nxt.start_point
                start = prev.start_point
                return removal(src, Range(src.position(start), src.position(end)), reason)
        return removal(src, Range(src.position(item.start_point), src.position(end)), reason)
    prev = kids[i - 1] if i > 0 else None
    start = prev.start_point if prev is not None and prev.type == "," else item.start_point
    return removal(src, Range(src.position(start), src.position(item.end_point)), reason)


def all_lists(src: PySource) -> Iterator[ts.Node]:
    """The list / tuple nodes assigned (or added) to `__all__` at module level."""
    for stmt in src.tree.root_node.named_children:
        if stmt.type != "expression_statement" or not stmt.named_children:
            continue
        expr = stmt.named_children[0]
        if expr.type not in ("assignment", "augmented_assignment"):
            continue
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if left is not None and text_of(left) == "__all__" and right is not None and right.type in ("list", "tuple"):
            yield right


def all_entries(src: PySource, name: str, reason: str = "__all__") -> list[Removal]:
    out: list[Removal] = []
    for lst in all_lists(src):
        for item in lst.named_children:
            content = plain_string_content(item)
            if content is not None and text_of(content) == name:
                out.append(element(src, lst, item, reason))
    return out


def import_names(stmt: ts.Node) -> list[tuple[ts.Node, str, str]]:
    """(node, imported name, bound name) of each name an import statement binds."""
    out: list[tuple[ts.Node, str, str]] = []
    module = stmt.child_by_field_name("module_name")
    for child in stmt.named_children:
        if child == module:
            continue
        if child.type == "dotted_name":
            full = text_of(child)
            out.append((child, full, full.split(".")[0]))
        elif child.type == "aliased_import":
            name, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
            out.append((child, text_of(name), text_of(alias)))
    return out


def name_list_container(stmt: ts.Node, node: ts.Node) -> ts.Node:
    """The node whose children hold the commas around an imported name (the statement, or its
    parenthesized list)."""
    return node.parent if node.parent is not None else stmt


def drop_imported(src: PySource, stmt: ts.Node, names: list[ts.Node], reason: str) -> list[Removal]:
    """Remove `names` from the import `stmt` (the whole statement when it binds nothing else)."""
    bound = import_names(stmt)
    if len(names) >= len(bound):
        whole = statement_lines(src, stmt, reason, tidy_blank=False)
        return [whole] if whole is not None else []
    return [element(src, name_list_container(stmt, n), n, reason) for n in names]
