"""Method (and attribute) families: the base classes that declare the member and every subclass
that overrides it, found with the server's go-to-definition on each class's base list. A
same-named member of an unrelated class is never part of the family."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter as ts

from lsp_bridge.errors import BridgeError
from lsp_bridge.types import FileLocation

from .pysource import PySource, class_bases, class_body_members, classes, text_of
from .server import SemanticServer
from .sources import Sources

MAX_DEPTH = 30
MAX_OUTSIDE_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ClassRef:
    """A class, identified by its file and the position of its name."""

    path: Path
    line: int
    character: int


@dataclass(slots=True)
class Member:
    """One class's declaration of the member: the class and the identifier that declares it."""

    src: PySource
    cls: ts.Node
    ident: ts.Node


@dataclass(slots=True)
class Family:
    members: list[Member] = field(default_factory=list)
    external_bases: list[str] = field(default_factory=list)  # "path:line Class" declaring it outside


def class_ref(src: PySource, cls: ts.Node) -> ClassRef:
    name = cls.child_by_field_name("name")
    assert name is not None
    pos = src.position(name.start_point)
    return ClassRef(src.path, pos.line, pos.character)


class Hierarchy:
    """Resolves base classes through the server; results memoised per class."""

    def __init__(self, server: SemanticServer, sources: Sources, *, max_requests: int = 400):
        self.server = server
        self.sources = sources
        self.max_requests = max_requests
        self.requests = 0
        self._bases: dict[ClassRef, list[tuple[PySource, ts.Node]]] = {}
        self._external: dict[ClassRef, list[FileLocation]] = {}
        self._outside: dict[Path, PySource | None] = {}  # library files, read only to look

    def class_at(self, loc: FileLocation) -> tuple[PySource, ts.Node] | None:
        src = self.sources.parsed(loc.path)
        if src is None:
            return None
        ident = src.identifier_at(loc.range.start)
        if ident is None or ident.parent is None or ident.parent.type != "class_definition":
            return None
        return src, ident.parent

    def _definition(self, src: PySource, ident: ts.Node) -> list[FileLocation]:
        if self.requests >= self.max_requests:
            return []
        self.requests += 1
        try:
            return self.server.definition(src.path, src.position(ident.start_point))
        except BridgeError:
            return []

    def bases(self, src: PySource, cls: ts.Node) -> list[tuple[PySource, ts.Node]]:
        """The workspace classes `cls` derives from directly (stub classes mapped to their source)."""
        ref = class_ref(src, cls)
        if ref in self._bases:
            return self._bases[ref]
        found: list[tuple[PySource, ts.Node]] = []
        external: list[FileLocation] = []
        for base in class_bases(cls):
            locs = self._definition(src, base)
            resolved = [hit for loc in locs if (hit := self.class_at(loc)) is not None]
            impl = [hit for hit in resolved if hit[0].path.suffix != ".pyi"]
            if not impl:
                for stub_src, stub_cls in resolved:  # a stub class: ask where its source is
                    name = stub_cls.child_by_field_name("name")
                    if name is not None:
                        impl.extend(hit for loc in self._definition(stub_src, name)
                                    if loc.path.suffix != ".pyi" and (hit := self.class_at(loc)) is not None)
            if impl:
                found.append(impl[0])
            else:
                external.extend(loc for loc in locs if not self.sources.in_workspace(loc.path))
        self._bases[ref] = found
        self._external[ref] = external
        return found

    def family(self, src: PySource, cls: ts.Node, name: str) -> Family:
        """Every class in the member's family that declares `name`, the given class first."""
        family = Family()
        top: dict[ClassRef, tuple[PySource, ts.Node]] = {class_ref(src, cls): (src, cls)}
        # Up: every ancestor declaring the member belongs (its overrides too, found below).
        queue = [(src, cls, 0)]
        seen = {class_ref(src, cls)}
        while queue:
            cur_src, cur_cls, depth = queue.pop()
            if depth > MAX_DEPTH:
                continue
            for base_src, base_cls in self.bases(cur_src, cur_cls):
                ref = class_ref(base_src, base_cls)
                if ref in seen:
                    continue
                seen.add(ref)
                if class_body_members(base_cls, name):
                    top[ref] = (base_src, base_cls)
                queue.append((base_src, base_cls, depth + 1))
            for loc in self._external.get(class_ref(cur_src, cur_cls), []):
                declared = self._external_member(loc, name)
                if declared is not None:
                    family.external_bases.append(declared)
        # Down: candidate classes declaring the member, kept when they derive from the family.
        members: dict[ClassRef, Member] = {}
        for ref, (s, c) in top.items():
            members[ref] = Member(s, c, class_body_members(c, name)[0] if class_body_members(c, name) else c)
        related = self._related_names({class_name(c) for _s, c in top.values()})
        for path in self.sources.files_declaring(name):
            cand_src = self.sources.parsed(path)
            if cand_src is None:
                continue
            for cand in classes(cand_src.tree.root_node):
                ref = class_ref(cand_src, cand)
                if ref in members or not any(text_of(b) in related for b in class_bases(cand)):
                    continue  # no base could be in the family: not worth asking the server
                decls = class_body_members(cand, name)
                if decls and self.derives(cand_src, cand, set(top)):
                    members[ref] = Member(cand_src, cand, decls[0])
        first = class_ref(src, cls)
        family.members = [members[first], *(m for r, m in members.items() if r != first)]
        return family

    def _related_names(self, names: set[str]) -> set[str]:
        """Names of every class that may derive from one named in `names` (by name only, so a
        superset: import aliases and subclasses of subclasses included); the server decides later."""
        known = set(names)
        queue = list(names)
        scanned: set[tuple[str, Path]] = set()
        while queue:
            base = queue.pop()
            for path in self.sources.files_containing(base):
                if (base, path) in scanned:
                    continue
                scanned.add((base, path))
                src = self.sources.parsed(path)
                if src is None:
                    continue
                for new in _names_deriving(src, base):
                    if new not in known:
                        known.add(new)
                        queue.append(new)
        return known

    def _external_member(self, loc: FileLocation, name: str) -> str | None:
        """"path:line Class.name" when the outside class at `loc` declares the member itself."""
        src = self._outside.get(loc.path)
        if loc.path not in self._outside:
            src = None
            try:
                if loc.path.stat().st_size <= MAX_OUTSIDE_BYTES:
                    src = PySource(loc.path, loc.path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                src = None
            self._outside[loc.path] = src
        if src is None:
            return None
        ident = src.identifier_at(loc.range.start)
        cls = ident.parent if ident is not None else None
        if cls is None or cls.type != "class_definition" or not class_body_members(cls, name):
            return None
        return f"{loc.path}:{loc.range.start.line + 1} {text_of(ident)}.{name}"

    def derives(self, src: PySource, cls: ts.Node, targets: set[ClassRef]) -> bool:
        """Does `cls` derive (directly or not) from one of `targets`?"""
        return self._derives(src, cls, targets, 0, set())

    def _derives(self, src: PySource, cls: ts.Node, targets: set[ClassRef], depth: int,
                 seen: set[ClassRef]) -> bool:
        ref = class_ref(src, cls)
        if ref in seen or depth > MAX_DEPTH:
            return False
        seen.add(ref)
        for base_src, base_cls in self.bases(src, cls):
            if class_ref(base_src, base_cls) in targets or self._derives(base_src, base_cls, targets, depth + 1, seen):
                return True
        return False


def _names_deriving(src: PySource, base: str) -> set[str]:
    """Class names in `src` with a base spelled `base`, and import aliases of `base`."""
    found: set[str] = set()
    for ident in src.identifiers(base):
        parent = ident.parent
        if parent is not None and parent.type == "aliased_import":
            found.add(text_of(parent.child_by_field_name("alias")))
            continue
        holder = parent.parent if parent is not None and parent.type == "dotted_name" else None
        if holder is not None and holder.type == "aliased_import":
            found.add(text_of(holder.child_by_field_name("alias")))
    for cls in classes(src.tree.root_node):
        if any(text_of(b) == base for b in class_bases(cls)):
            found.add(class_name(cls))
    return found


def class_name(cls: ts.Node) -> str:
    return text_of(cls.child_by_field_name("name"))
