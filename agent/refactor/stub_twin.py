"""The same declaration in the file beside it: `mod.pyi` for `mod.py` and back. A server resolves
uses through a stub to the stub's declaration, so a refactoring asks for the references of both."""

from __future__ import annotations

import tree_sitter as ts

from .rename.pysource import PySource, text_of
from .rename.sources import Sources

_DEFS = ("function_definition", "class_definition")


def qualified_name(ident: ts.Node) -> list[str]:
    """Class names from the module down, then the name itself (["Cls", "method"])."""
    names = [text_of(ident)]
    node = ident.parent.parent if ident.parent is not None else None
    while node is not None:
        if node.type == "class_definition":
            names.insert(0, text_of(node.child_by_field_name("name")))
        elif node.type == "function_definition":
            return []  # a local definition has no twin
        node = node.parent
    return names


def _declared(block: ts.Node, name: str) -> list[ts.Node]:
    out: list[ts.Node] = []
    for stmt in block.named_children:
        inner = stmt.child_by_field_name("definition") if stmt.type == "decorated_definition" else stmt
        if inner is None:
            continue
        if inner.type in _DEFS and text_of(inner.child_by_field_name("name")) == name:
            out.append(inner.child_by_field_name("name"))  # type: ignore[arg-type]
        elif inner.type == "expression_statement" and inner.named_children:
            expr = inner.named_children[0]
            left = expr.child_by_field_name("left") if expr.type == "assignment" else None
            if left is not None and left.type == "identifier" and text_of(left) == name:
                out.append(left)
    return out


def twin(sources: Sources, src: PySource, ident: ts.Node) -> tuple[PySource, ts.Node] | None:
    """The identifier declaring the same qualified name in the `.pyi` / `.py` beside `src`."""
    other = src.path.with_suffix(".py" if src.path.suffix == ".pyi" else ".pyi")
    names = qualified_name(ident)
    if not names or not other.is_file():
        return None
    found = sources.parsed(other)
    if found is None:
        return None
    block: ts.Node | None = found.tree.root_node
    for cls in names[:-1]:
        classes = _declared(block, cls) if block is not None else []
        parent = classes[0].parent if classes else None
        block = parent.child_by_field_name("body") if parent is not None else None
        if block is None:
            return None
    hits = _declared(block, names[-1]) if block is not None else []
    return (found, hits[0]) if hits else None
