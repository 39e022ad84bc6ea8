"""Pairing stubs (.pyi) with their implementation (.py).

References bind to the stub when one exists, so a rename must start from both sides. A stub
declaration is paired with an implementation declaration only when the server's go-to-definition
from the stub lands on it (pyright maps stub declarations to their source), so a same-named
declaration of something else is never paired.
"""

from __future__ import annotations

from pathlib import Path

import tree_sitter as ts

from lsp_bridge.errors import BridgeError
from lsp_bridge.types import FileLocation

from .pysource import Declared, PySource, classify, function_params, text_of
from .server import SemanticServer
from .sources import Sources

MEMBER_KINDS = frozenset({"method", "class_attr", "attribute"})
MODULE_KINDS = frozenset({"function", "class", "module_var"})


def _same_shape(cand: Declared, want: Declared) -> bool:
    """Could stub declaration `cand` declare the same thing as `want` (before asking the server)?"""
    if want.kind in MEMBER_KINDS:
        if cand.kind not in MEMBER_KINDS or cand.class_node is None or want.class_node is None:
            return False
        return text_of(cand.class_node.child_by_field_name("name")) == text_of(
            want.class_node.child_by_field_name("name"))
    if want.kind in MODULE_KINDS:
        return cand.kind in MODULE_KINDS
    return False


class StubPairs:
    def __init__(self, server: SemanticServer, sources: Sources, *, max_requests: int = 200):
        self.server = server
        self.sources = sources
        self.max_requests = max_requests
        self.requests = 0

    def _definition(self, path: Path, ident: ts.Node, src: PySource) -> list[FileLocation]:
        if self.requests >= self.max_requests:
            return []
        self.requests += 1
        try:
            return self.server.definition(path, src.position(ident.start_point))
        except BridgeError:
            return []

    def counterparts(self, src: PySource, decl: Declared) -> list[tuple[PySource, ts.Node]]:
        """Declarations on the other side of the stub/implementation divide (identifier nodes)."""
        if decl.kind not in MEMBER_KINDS and decl.kind not in MODULE_KINDS:
            return []
        if src.path.suffix == ".pyi":
            return self._implementations(src, decl.node)
        return self._stubs_for(src, decl)

    def _implementations(self, src: PySource, ident: ts.Node) -> list[tuple[PySource, ts.Node]]:
        out: list[tuple[PySource, ts.Node]] = []
        for loc in self._definition(src.path, ident, src):
            if loc.path.suffix == ".pyi" or not self.sources.in_workspace(loc.path):
                continue
            impl = self.sources.parsed(loc.path)
            node = impl.identifier_at(loc.range.start) if impl is not None else None
            if impl is not None and node is not None and text_of(node) == text_of(ident):
                out.append((impl, node))
        return out

    def _stubs_for(self, src: PySource, decl: Declared) -> list[tuple[PySource, ts.Node]]:
        want = src.position(decl.node.start_point)
        out: list[tuple[PySource, ts.Node]] = []
        for path in self.sources.files_containing(decl.name):
            if path.suffix != ".pyi":
                continue
            stub = self.sources.parsed(path)
            if stub is None:
                continue
            for ident in stub.identifiers(decl.name):
                cand = classify(ident)
                if not _same_shape(cand, decl):
                    continue
                locs = self._definition(path, ident, stub)
                same = any(loc.path == src.path and loc.range.start == want for loc in locs)
                # an attribute's stub declaration may map to any of its assignments in the class
                if same or (decl.kind == "attribute" and any(
                        loc.path == src.path and _member_of(src, loc, decl.class_node) for loc in locs)):
                    out.append((stub, ident))
        return out

    def function_counterparts(self, src: PySource, func: ts.Node) -> list[tuple[PySource, ts.Node]]:
        """Stub/implementation counterparts of a function (all its overloads), as function nodes."""
        name = func.child_by_field_name("name")
        if name is None:
            return []
        found = self.counterparts(src, classify(name))
        return [(s, n.parent) for s, n in found if n.parent is not None and n.parent.type == "function_definition"]


def _member_of(src: PySource, loc: FileLocation, cls: ts.Node | None) -> bool:
    node = src.identifier_at(loc.range.start)
    if node is None or cls is None:
        return False
    return any(anc == cls for anc in _ancestors(node))


def _ancestors(node: ts.Node) -> list[ts.Node]:
    out = []
    cur = node.parent
    while cur is not None:
        out.append(cur)
        cur = cur.parent
    return out


def param_of(func: ts.Node, name: str) -> ts.Node | None:
    return function_params(func).get(name)

