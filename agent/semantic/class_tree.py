"""Classes and interfaces of the workspace from the syntax index, with the bases their headers
name: the completion of `find_implementations` where a server answers nothing, structural
(Protocol) implementers, and `type_hierarchy` for servers without a type hierarchy.

Bases are read from the one-line header (`class Square(Shape)`, `class A extends B implements C`)
and matched by their last name segment: syntactic, so two classes of one name in different files
are both taken (the answer says it is syntactic)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..services import get_index
from ..syntax.symbols import Entry
from ..toolcontext import ToolContext

CLASS_KINDS = frozenset({"class", "interface"})
MAX_CLASSES = 100_000
_TS_CLAUSE = re.compile(r"\b(extends|implements)\s+(.*?)(?=\b(?:extends|implements)\b|\{|$)")
PROTOCOL_BASES = frozenset({"Protocol"})


@dataclass(frozen=True, slots=True)
class ClassInfo:
    path: str
    name: str
    name_path: str
    kind: str
    line0: int  # the name token, 0-based
    col0: int
    bases: tuple[str, ...]
    members: dict[str, tuple[int, int]]  # member name -> its name token (0-based)

    @property
    def key(self) -> tuple[str, str]:
        return self.path, self.name_path

    @property
    def is_protocol(self) -> bool:
        return bool(PROTOCOL_BASES.intersection(self.bases))


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def _base_name(expr: str) -> str | None:
    expr = re.split(r"[\[<(]", expr, maxsplit=1)[0].strip()
    if not expr or "=" in expr:
        return None
    return expr.rsplit(".", 1)[-1]


def bases_of(signature: str) -> tuple[str, ...]:
    """The base names a class header names (generic arguments and keywords dropped)."""
    if signature.lstrip().startswith("class ") and "(" in signature and not re.search(r"\b(extends|implements)\b",
                                                                                      signature):
        inner = signature[signature.index("(") + 1:signature.rindex(")") if ")" in signature else None]
        found = [_base_name(p) for p in _split_top(inner)]
    else:
        found = [_base_name(p) for _, clause in _TS_CLAUSE.findall(signature) for p in _split_top(clause)]
    return tuple(b for b in found if b)


class ClassTree:
    """Every class and interface of the indexed workspace (read once per tool call)."""

    def __init__(self, ctx: ToolContext):
        index = get_index(ctx)
        index.refresh()
        self.classes: list[ClassInfo] = []
        for rel in index.files():
            entries = index.file_entries(rel)
            for i, entry in enumerate(entries):
                if entry.kind in CLASS_KINDS and len(self.classes) < MAX_CLASSES:
                    self.classes.append(ClassInfo(rel, entry.name, entry.name_path, entry.kind, entry.name_line - 1,
                                                  entry.name_column - 1, bases_of(entry.signature),
                                                  _members(entry, entries[i + 1:])))
        self.by_name: dict[str, list[ClassInfo]] = {}
        for info in self.classes:
            self.by_name.setdefault(info.name, []).append(info)

    def at(self, path: str, name_path: str) -> ClassInfo | None:
        return next((c for c in self.classes if c.path == path and c.name_path == name_path), None)

    def subclasses(self, cls: ClassInfo) -> list[tuple[ClassInfo, int]]:
        """Every class naming `cls` as a base, transitively: (class, distance)."""
        out: list[tuple[ClassInfo, int]] = []
        seen = {cls.key}
        frontier = [cls]
        level = 0
        while frontier:
            level += 1
            names = {c.name for c in frontier}
            frontier = [c for c in self.classes if c.key not in seen and names.intersection(c.bases)]
            for c in frontier:
                seen.add(c.key)
                out.append((c, level))
        return out

    def structural(self, proto: ClassInfo) -> list[ClassInfo]:
        """Classes that define every member the protocol declares (by name; signatures are not
        compared), other than the protocol itself and other protocols."""
        wanted = {m for m in proto.members if not (m.startswith("__") and m.endswith("__"))}
        if not wanted:
            return []
        return [c for c in self.classes if c.key != proto.key and not c.is_protocol and wanted <= c.members.keys()]

    def supertypes(self, cls: ClassInfo) -> list[ClassInfo]:
        """The workspace classes `cls` names as bases (one level)."""
        return [c for b in cls.bases for c in self.by_name.get(b, []) if c.key != cls.key]


def _members(cls: Entry, after: list[Entry]) -> dict[str, tuple[int, int]]:
    names: dict[str, tuple[int, int]] = {}
    for entry in after:
        if entry.depth <= cls.depth:
            break
        if entry.depth == cls.depth + 1:
            names.setdefault(entry.name, (entry.name_line - 1, entry.name_column - 1))
    return names
