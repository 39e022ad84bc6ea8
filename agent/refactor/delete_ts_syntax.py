"""The syntax side of TypeScript/JavaScript safe delete, read with tree-sitter: the span of a
top-level declaration with the comments attached above it, removing one specifier from an
`import {..}` / `export {..}` list (or the whole statement when it was the only one), the imports
only the deleted code used, and the references the TypeScript server cannot see: files outside
its project (a `tests/` folder a tsconfig does not include) that import the name from the
module or from a barrel re-exporting it (`export *`, `export {name} from`)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter as ts

from ..languages import suffixes_of
from ..walk import iter_files
from ..workspace import Workspace
from .move.typescript import TsFile, _read

SUFFIXES = suffixes_of(server="typescript")
NAMES = ("identifier", "type_identifier", "shorthand_property_identifier", "property_identifier")
USES = ("identifier", "type_identifier", "shorthand_property_identifier")
SPECIFIERS = ("import_specifier", "export_specifier")
MAX_FILES = 20_000


@dataclass(frozen=True, slots=True)
class Cut:
    start: int  # character offsets in the file's text
    end: int
    reason: str


def walk(node: ts.Node) -> Iterator[ts.Node]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(cur.children))


def ancestors(node: ts.Node) -> Iterator[ts.Node]:
    cur = node.parent
    while cur is not None:
        yield cur
        cur = cur.parent


def inside(node: ts.Node, outer: ts.Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def node_at(file: TsFile, line: int, character: int) -> ts.Node | None:
    """The name node at a 0-based (line, character) position, or None."""
    offset = file.src.line_start(line + 1) + character
    byte = offset if file.src.text.isascii() else len(file.src.text[:offset].encode("utf-8"))
    node = file.tree.root_node.named_descendant_for_byte_range(byte, byte)
    return node if node is not None and node.type in NAMES else None


def text(file: TsFile, node: ts.Node | None) -> str:
    return file.text(node) if node is not None else ""


def module_spec(file: TsFile, stmt: ts.Node) -> str | None:
    """The module an import / `export .. from` statement names, without its quotes."""
    node = stmt.child_by_field_name("source") or next((c for c in stmt.children if c.type == "string"), None)
    return file.text(node)[1:-1] if node is not None else None


def resolve(ws: Workspace, importer: str, spec: str) -> str | None:
    """The workspace file a relative module specifier names (`./m`, `./m.js`, `./dir` → index)."""
    if not spec.startswith("."):
        return None
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    stem = re.sub(r"\.(m|c)?jsx?$", "", base)
    for cand in (base, *(stem + s for s in SUFFIXES), *(stem + "/index" + s for s in SUFFIXES)):
        if cand.endswith(SUFFIXES) and ws.exists(cand):
            return cand
    return None


def _line_start(file: TsFile, row: int) -> int:
    return file.src.line_start(row + 1)


def _alone(file: TsFile, first: ts.Node, last: ts.Node) -> bool:
    lines = file.src.text.split("\n")
    s, e = file.span(first)[0], file.span(last)[1]
    before = file.src.text[_line_start(file, first.start_point[0]):s]
    after_line = lines[last.end_point[0]] if last.end_point[0] < len(lines) else ""
    after = file.src.text[e:_line_start(file, last.end_point[0]) + len(after_line)]
    return not before.strip() and (not after.strip() or after.strip().startswith("//"))


def attached_comments(stmt: ts.Node) -> ts.Node:
    """The first of the comments (JSDoc included) directly above `stmt`, or `stmt` itself."""
    first, prev = stmt, stmt.prev_sibling
    while prev is not None and prev.type == "comment" and prev.end_point[0] >= first.start_point[0] - 1:
        first, prev = prev, prev.prev_sibling
    return first


def lines_cut(file: TsFile, first: ts.Node, last: ts.Node, reason: str) -> Cut:
    """The whole lines from `first` to `last`, and the blank lines after them when a blank line (or
    the file's start) is before them; when only blank lines follow, the blank lines before them
    instead: so no gap grows. Code sharing the lines: the exact span."""
    if not _alone(file, first, last):
        s, e = file.span(first)[0], file.span(last)[1]
        return Cut(s, e, reason)
    text_ = file.src.text
    start, end = _line_start(file, first.start_point[0]), _line_start(file, last.end_point[0] + 1)
    if end == len(text_) and not text_.endswith("\n"):
        end = len(text_)
    follows = end
    while follows < len(text_) and text_[follows] == "\n":
        follows += 1
    if follows >= len(text_):
        end = len(text_)
        while start > 0 and text_[start - 1] == "\n" and (start == 1 or text_[start - 2] == "\n"):
            start -= 1
    elif start == 0 or text_[start - 2:start] == "\n\n":
        end = follows
    return Cut(start, end, reason)


def specifiers(stmt: ts.Node) -> list[ts.Node]:
    return [n for n in walk(stmt) if n.type in SPECIFIERS]


def specifier_name(file: TsFile, spec: ts.Node) -> str:
    return text(file, spec.child_by_field_name("name"))


def bound_name(file: TsFile, spec: ts.Node) -> str:
    return text(file, spec.child_by_field_name("alias") or spec.child_by_field_name("name"))


def drop_specifiers(file: TsFile, stmt: ts.Node, drop: list[ts.Node], reason: str) -> list[Cut]:
    """`drop` out of the statement's `{..}` list, each with its comma; the whole statement (its
    lines) when nothing else would remain in it."""
    specs = specifiers(stmt)
    others = [c for c in (stmt.child_by_field_name("declaration"),) if c is not None]
    clause = next((c for c in stmt.named_children if c.type == "import_clause"), None)
    if clause is not None:
        others += [c for c in clause.named_children if c.type in ("identifier", "namespace_import")]
    keys = {(n.start_byte, n.end_byte) for n in drop}
    if not others and all((s.start_byte, s.end_byte) in keys for s in specs):
        return [lines_cut(file, stmt, stmt, reason)]
    out: list[Cut] = []
    for i, sp in enumerate(specs):
        if (sp.start_byte, sp.end_byte) not in keys:
            continue
        s, e = file.span(sp)
        if i + 1 < len(specs):
            e = file.span(specs[i + 1])[0]
        elif i > 0:
            s = file.span(specs[i - 1])[1]
        out.append(Cut(s, e, reason))
    return merge(out)


def merge(cuts: list[Cut]) -> list[Cut]:
    """Overlapping cuts joined: neighbouring specifiers (a, b out of {a, b, c}) share a comma, and
    neighbouring statements the blank line between them."""
    out: list[Cut] = []
    for cut in sorted(cuts, key=lambda c: c.start):
        if out and cut.start < out[-1].end:
            out[-1] = Cut(out[-1].start, max(out[-1].end, cut.end), out[-1].reason)
        else:
            out.append(cut)
    return out


def import_bindings(file: TsFile, stmt: ts.Node) -> list[tuple[ts.Node, str]]:
    """(node, bound name) of each name an import statement binds: default, `* as ns`, `{a as b}`."""
    clause = next((c for c in stmt.named_children if c.type == "import_clause"), None)
    out: list[tuple[ts.Node, str]] = []
    for part in clause.named_children if clause else []:
        if part.type == "identifier":
            out.append((part, file.text(part)))
        elif part.type == "namespace_import":
            out.append((part, file.text(part.named_children[-1])))
        elif part.type == "named_imports":
            out.extend((sp, bound_name(file, sp)) for sp in part.named_children if sp.type == "import_specifier")
    return out


def unused_imports(file: TsFile, deleted: list[ts.Node]) -> tuple[list[Cut], list[str]]:
    """Cuts for the imports whose names only the `deleted` statements used, and notes for the ones
    that cannot be taken out alone (a default or namespace binding beside names still used)."""
    uses: dict[str, list[ts.Node]] = {}
    imports = [s for s in file.tree.root_node.named_children if s.type == "import_statement"]
    for stmt in file.tree.root_node.named_children:
        if stmt.type == "import_statement":
            continue
        for node in walk(stmt):
            if node.type in USES:
                uses.setdefault(file.text(node), []).append(node)
    cuts: list[Cut] = []
    notes: list[str] = []
    for stmt in imports:
        unused = [(node, name) for node, name in import_bindings(file, stmt)
                  if uses.get(name) and all(any(inside(u, d) for d in deleted) for u in uses[name])]
        if not unused:
            continue
        named = [n for n, _ in unused if n.type == "import_specifier"]
        if len(unused) == len(import_bindings(file, stmt)):
            cuts.append(lines_cut(file, stmt, stmt, "unused import"))
        elif len(named) == len(unused):
            cuts.extend(drop_specifiers(file, stmt, named, "unused import"))
        else:
            notes.append(f"{file.src.rel}:{stmt.start_point[0] + 1}: the import of "
                         f"{', '.join(n for _, n in unused)} is unused now; left in place (it binds other names too)")
    return cuts, notes


class Importers:
    """The workspace's TS/JS files as one syntactic index for one name: which modules export it
    (the source, and barrels re-exporting it, transitively) and where files import it from them."""

    def __init__(self, ws: Workspace, source: str, name: str, *, default: bool = False):
        self.ws, self.source, self.name, self.default = ws, source, name, default
        self.files: dict[str, TsFile] = {}
        word = re.compile(rf"\b{re.escape(name)}\b|export\s*\*" + (r"|\bimport\b" if default else ""))
        for path in iter_files(ws.root, max_files=MAX_FILES):
            rel = ws.rel(path)
            if not rel.endswith(SUFFIXES) or rel.endswith(".d.ts") and rel != source:
                continue
            try:
                raw = ws.read(rel).text
            except Exception:  # unreadable or binary: no import of ours there
                continue
            if rel == source or word.search(raw):
                self.files[rel] = _read(ws, rel)
        self.exporters = self._exporters()

    def _from(self, rel: str, stmt: ts.Node) -> str | None:
        spec = module_spec(self.files[rel], stmt)
        return resolve(self.ws, rel, spec) if spec else None

    def _exporters(self) -> set[str]:
        found, changed = {self.source}, True
        while changed:
            changed = False
            for rel, file in self.files.items():
                if rel in found:
                    continue
                for stmt in file.tree.root_node.named_children:
                    if stmt.type != "export_statement" or self._from(rel, stmt) not in found:
                        continue
                    star = any(c.type == "*" for c in stmt.children)
                    if star or any(specifier_name(file, sp) == self.name for sp in specifiers(stmt)):
                        found.add(rel)
                        changed = True
                        break
        return found

    def _default_uses(self, file: TsFile, stmt: ts.Node) -> list[tuple[str, int, int]]:
        """A default export's importers bind it under any name: `import x from`, `export {default} from`."""
        rel = file.src.rel
        binding = _default_binding(stmt) if stmt.type == "import_statement" else None
        out = [(rel, *_point(file, sp)) for sp in specifiers(stmt) if specifier_name(file, sp) == "default"]
        if binding is not None:
            out.append((rel, *_point(file, binding)))
            out.extend((rel, *_point(file, u)) for u in _uses(file, file.text(binding)))
        return out

    def references(self) -> list[tuple[str, int, int]]:
        """(rel path, 0-based line, character) of every import / re-export of the name from a module
        exporting it, and of every `ns.name` through a namespace import of one."""
        out: list[tuple[str, int, int]] = []
        for rel, file in self.files.items():
            namespaces: set[str] = set()
            for stmt in file.tree.root_node.named_children:
                if stmt.type not in ("import_statement", "export_statement") or self._from(rel, stmt) \
                        not in self.exporters:
                    continue
                for sp in specifiers(stmt):
                    name = sp.child_by_field_name("name")
                    if name is not None and file.text(name) == self.name:
                        out.append((rel, *_point(file, name)))
                        if sp.type == "import_specifier":
                            out.extend((rel, *_point(file, u)) for u in _uses(file, bound_name(file, sp)))
                namespaces.update(n for node, n in import_bindings(file, stmt) if node.type == "namespace_import")
                if self.default and self._from(rel, stmt) == self.source:
                    out.extend(self._default_uses(file, stmt))
            if namespaces:
                for node in walk(file.tree.root_node):
                    obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
                    if node.type == "member_expression" and obj is not None and prop is not None \
                            and file.text(obj) in namespaces and file.text(prop) == self.name:
                        out.append((rel, *_point(file, prop)))
        return out


def _default_binding(stmt: ts.Node) -> ts.Node | None:
    clause = next((c for c in stmt.named_children if c.type == "import_clause"), None)
    return next((c for c in clause.named_children if c.type == "identifier"), None) if clause else None


def _uses(file: TsFile, name: str) -> Iterator[ts.Node]:
    """The identifiers `name` outside import statements (what a server would report as uses)."""
    for stmt in file.tree.root_node.named_children:
        if stmt.type != "import_statement":
            yield from (n for n in walk(stmt) if n.type in USES and file.text(n) == name)


def _point(file: TsFile, node: ts.Node) -> tuple[int, int]:
    pos = file.src.position(file.char(node.start_byte))
    return pos.line, pos.character
