"""Conflicts of a plan that gives a symbol a new name: found before anything is written.

    find_conflicts(plan, ws) -> list[Conflict]

For every site the plan changes (Python and TypeScript/JavaScript, read through the scope
analysis of `agent.syntax.scopes`):
- a binding site (the declaration, an import of it): the new name is already bound in the same
  scope (module, class, function, block: another def, class, import, assignment, parameter), and
  every existing use of the new name there that would now mean the renamed symbol (a builtin, an
  outer or imported name shadowed);
- a reference site: a binding of the new name between the reference and its declaration (a local
  that would capture it);
- a member (method, attribute, property) declared in a class or interface: a member of the new
  name in that class or any class of its hierarchy (bases and subclasses found by name in the
  workspace), which the renamed one would then hide, override or duplicate.
This is what an IDE's rename dialog lists as conflicts. Other languages get no check.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import tree_sitter as ts

from ..errors import CodeagentError
from ..syntax import language_for
from ..syntax.positions import LineMap
from ..syntax.scopes import Ident, Scope, ScopeAnalysis, analyze
from ..walk import iter_files
from ..workspace import Workspace
from .plan import EditPlan, Site

MAX_CONFLICTS = 50
MAX_HIERARCHY_FILES = 2000
MAX_HIERARCHY_DEPTH = 12
_PY_SUFFIXES = (".py", ".pyi")
_ECMA_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_PY_CLASSES = frozenset({"class_definition"})
_ECMA_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class", "interface_declaration"})
_ECMA_MEMBERS = frozenset({"method_definition", "public_field_definition", "property_signature",
                           "method_signature", "abstract_method_signature"})


@dataclass(frozen=True, slots=True, order=True)
class Conflict:
    """Why the plan cannot be written as it is, at a 1-based line and character column."""

    path: str
    line: int
    column: int
    why: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}  {self.why}"


@dataclass(slots=True)
class _File:
    rel: str
    language: str
    analysis: ScopeAnalysis
    lines: LineMap
    _named: dict[bytes, list[Ident]] | None = None

    def named(self, name: bytes) -> list[Ident]:
        """The identifiers spelled `name`, in file order."""
        if self._named is None:
            self._named = {}
            for ident in self.analysis.idents:
                self._named.setdefault(ident.text, []).append(ident)
        return self._named.get(name, [])

    def where(self, node: ts.Node) -> tuple[int, int]:
        row, col = node.start_point
        return row + 1, self.lines.char_column(row, col) + 1

    def ident_at(self, site: Site) -> Ident | None:
        row = site.line - 1
        byte = self.lines.offset(row, self.lines.byte_column(row, site.column - 1))
        ident = self.analysis.at(byte)
        return ident if ident is not None and ident.node.start_byte == byte else None


class _Files:
    """The workspace files the check parses, each once."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self._cache: dict[str, _File | None] = {}
        self._all: dict[tuple[str, ...], list[str]] = {}
        self._hits: dict[tuple[str, tuple[str, ...]], list[str]] = {}

    def get(self, rel: str) -> _File | None:
        if rel not in self._cache:
            self._cache[rel] = self._load(rel)
        return self._cache[rel]

    def _load(self, rel: str) -> _File | None:
        language = language_for(rel)
        if language is None:
            return None
        try:
            text = self.ws.read(rel).text
        except (OSError, CodeagentError):  # unreadable now (gone, binary, too big): the commit reports it
            return None
        analyzed = analyze(text, language)
        if analyzed is None:
            return None
        return _File(rel, language, *analyzed)

    def _bytes(self, rel: str) -> bytes:
        try:
            return (self.ws.root / rel).read_bytes()
        except OSError:
            return b""

    def containing(self, word: str, suffixes: tuple[str, ...]) -> Iterator[_File]:
        """Files of the language whose bytes contain `word` (bounded, gitignore-aware)."""
        rels = self._all.get(suffixes)
        if rels is None:
            rels = []
            for path in iter_files(self.ws.root):
                if path.suffix in suffixes:
                    rels.append(self.ws.rel(path))
                    if len(rels) >= MAX_HIERARCHY_FILES:
                        break
            self._all[suffixes] = rels
        hits = self._hits.get((word, suffixes))
        if hits is None:
            raw = word.encode("utf-8")
            hits = self._hits[(word, suffixes)] = [rel for rel in rels if raw in self._bytes(rel)]
        for rel in hits:
            found = self.get(rel)
            if found is not None:
                yield found


_Report = Callable[[_File, ts.Node, str], None]  # report(file, node, why)


def find_conflicts(plan: EditPlan, ws: Workspace) -> list[Conflict]:
    """Every conflict of giving the plan's sites the name `plan.new_name` (see the module), sorted,
    at most MAX_CONFLICTS. Sites that do not hold an identifier (strings, insertions) are skipped."""
    new = plan.new_name
    if not new or new == plan.old_name:
        return []
    files = _Files(ws)
    found: dict[tuple[str, int, int], Conflict] = {}

    def report(file: _File, node: ts.Node, why: str) -> None:
        line, column = file.where(node)
        found.setdefault((file.rel, line, column), Conflict(file.rel, line, column, why))

    planned = {(s.path, s.line, s.column) for s in plan.sites}
    classes_checked: set[tuple[str, int]] = set()
    for rel, sites in plan.by_file().items():
        file = files.get(rel)
        if file is None:
            continue
        for site in sites:
            ident = file.ident_at(site)
            if ident is None or ident.text.decode("utf-8", "surrogatepass") != plan.old_name:
                continue
            if ident.role.startswith("member"):
                owner = _member_owner(file, ident)
            else:
                scope = file.analysis.resolve(ident)
                _check_binding(file, ident, scope, new, planned, report)
                owner = scope.node if scope.kind == "class" and file.language == "python" else None
            if owner is not None and (rel, owner.start_byte) not in classes_checked:
                classes_checked.add((rel, owner.start_byte))
                _check_hierarchy(files, file, owner, new, report)
            if len(found) >= MAX_CONFLICTS:
                break
    return sorted(found.values())[:MAX_CONFLICTS]


def _check_binding(file: _File, ident: Ident, scope: Scope, new: str, planned: set[tuple[str, int, int]],
                   report: _Report) -> None:
    analysis = file.analysis
    name = new.encode("utf-8")
    for other in scope.defs.get(name, ()):  # the new name is bound in the same scope already
        report(file, other.node, f"{new!r} is already {_bound_as(other)} in {_scope_name(file, scope)}; "
               "the renamed symbol would clash with it")
    if not ident.binds:  # a reference: a binding of the new name on its way out would capture it
        capture = _resolve(analysis, ident.scope or analysis.root, name)
        if capture is not scope and name in capture.defs and _encloses(scope, capture):
            other = capture.defs[name][0]
            line, column = file.where(other.node)
            report(file, ident.node, f"this use would mean the {new!r} {_bound_as(other)} at {line}:{column} "
                   "(a local of the new name captures it), not the renamed symbol")
        return
    for use in file.named(name):  # the new binding shadows what uses of the new name mean today
        if use.binds or use.role.startswith("member"):
            continue
        if not scope.start <= use.node.start_byte < scope.end:
            continue
        row, col = use.node.start_point
        if (file.rel, row + 1, file.lines.char_column(row, col) + 1) in planned:
            continue
        today = analysis.resolve(use)
        if (today is scope and name in scope.defs) or _resolve(analysis, use.scope or analysis.root, name, extra=scope) is not scope:
            continue
        if today is analysis.root and name not in today.defs:
            meant = f"the builtin {new!r}" if file.language == "python" and hasattr(builtins, new) else \
                f"the global {new!r}"
        else:
            other = today.defs[name][0]
            line, column = file.where(other.node)
            meant = f"the {new!r} {_bound_as(other)} at {line}:{column}"
        report(file, use.node, f"this use means {meant}; the renamed symbol would shadow it here")


def _resolve(analysis: ScopeAnalysis, start: Scope, name: bytes, extra: Scope | None = None) -> Scope:
    """Where `name` used in `start` resolves (as ScopeAnalysis.resolve), `extra` counted as binding it."""
    scope: Scope | None = start
    while scope is not None and scope is not analysis.root:
        if name in scope.globals:
            return analysis.root
        if name in scope.nonlocals:
            scope = scope.parent
            while scope is not None and scope.kind == "class":
                scope = scope.parent
            continue
        if (name in scope.defs or scope is extra) and (scope is start or scope.kind != "class"):
            return scope
        scope = scope.parent
    return analysis.root


def _encloses(outer: Scope, inner: Scope) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def _bound_as(ident: Ident) -> str:
    parent = ident.node.parent
    kind = parent.type if parent is not None else ""
    if "import" in kind or (parent is not None and parent.parent is not None and "import" in parent.parent.type):
        return "imported"
    if kind in ("function_definition", "function_declaration", "method_definition"):
        return "a function"
    if "class" in kind:
        return "a class"
    if "interface" in kind or "type_alias" in kind:
        return "a type"
    if "parameter" in kind or kind in ("parameters", "lambda_parameters"):
        return "a parameter"
    return "defined"


def _scope_name(file: _File, scope: Scope) -> str:
    if scope is file.analysis.root:
        return "this module"
    node = scope.node
    if node is not None:
        named = node.child_by_field_name("name")
        if named is not None and scope.kind in ("class", "function"):
            what = "class" if scope.kind == "class" else "function"
            return f"{what} {named.text.decode('utf-8', 'replace') if named.text else '?'}"
    return "the same block"


# ----------------------------------------------------------------------------------- class members
def _member_owner(file: _File, ident: Ident) -> ts.Node | None:
    """The class or interface that declares the member at `ident` (a method, field, property, or
    Python's `self.name = ...` in a method); None when it is a use or no class declares it."""
    node = ident.node
    parent = node.parent
    if parent is None:
        return None
    if file.language == "python":
        obj = parent.child_by_field_name("object") if parent.type == "attribute" else None
        assigned = parent.parent is not None and parent.parent.type in ("assignment", "augmented_assignment") \
            and parent.parent.child_by_field_name("left") == parent
        if obj is None or obj.text != b"self" or not assigned:
            return None
        return _enclosing(parent, _PY_CLASSES)
    if parent.type not in _ECMA_MEMBERS or parent.child_by_field_name("name") != node:
        return None
    return _enclosing(parent, _ECMA_CLASSES)


def _enclosing(node: ts.Node, kinds: frozenset[str]) -> ts.Node | None:
    current = node.parent
    while current is not None and current.type not in kinds:
        current = current.parent
    return current


def _class_name(node: ts.Node) -> str:
    named = node.child_by_field_name("name")
    return named.text.decode("utf-8", "replace") if named is not None and named.text else ""


def _bases(node: ts.Node, language: str) -> list[str]:
    """The names a class or interface declares as its bases (the last part of `a.B`)."""
    out: list[str] = []
    if language == "python":
        args = node.child_by_field_name("superclasses")
        for arg in args.named_children if args is not None else ():
            if arg.type in ("identifier", "attribute"):
                last = arg if arg.type == "identifier" else arg.child_by_field_name("attribute")
                if last is not None and last.text:
                    out.append(last.text.decode("utf-8", "replace"))
        return out
    stack = [c for c in node.children if c.type in ("class_heritage", "extends_type_clause")]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "type_identifier") and current.text:
            out.append(current.text.decode("utf-8", "replace"))
        elif current.type not in ("type_arguments", "arguments"):
            stack.extend(current.named_children)
    return out


def _members(file: _File, node: ts.Node) -> Iterator[ts.Node]:
    """The name nodes of the members a class or interface declares."""
    body = node.child_by_field_name("body")
    if body is None:
        return
    if file.language != "python":
        for child in body.named_children:
            if child.type in _ECMA_MEMBERS and (named := child.child_by_field_name("name")) is not None:
                yield named
        return
    for ident in file.analysis.idents:  # defs bound in the class scope, and `self.x = ...` in its methods
        if not body.start_byte <= ident.node.start_byte < body.end_byte:
            continue
        if ident.binds and ident.scope is not None and ident.scope.node is not None:
            scope = file.analysis.resolve(ident)
            if scope.node is not None and scope.node.id == node.id:
                yield ident.node
        elif ident.role.startswith("member") and _member_owner(file, ident) == node:
            yield ident.node


def _check_hierarchy(files: _Files, file: _File, owner: ts.Node, new: str, report: _Report) -> None:
    """A member of the new name in the owner class, or in any base or subclass of it (by name)."""
    suffixes = _PY_SUFFIXES if file.language == "python" else _ECMA_SUFFIXES
    kinds = _PY_CLASSES if file.language == "python" else _ECMA_CLASSES
    start = _class_name(owner)
    seen: set[tuple[str, int]] = set()
    todo: list[tuple[_File, ts.Node, str, int]] = [(file, owner, "", 0)]
    while todo:
        current, node, relation, depth = todo.pop()
        key = (current.rel, node.start_byte)
        if key in seen:
            continue
        seen.add(key)
        name = _class_name(node)
        for member in _members(current, node):
            if member.text == new.encode("utf-8"):
                where = f"{name}" if not relation else f"{name}, {relation} of {start}"
                report(current, member, f"{new!r} is already a member of {where}; the renamed member would "
                       f"{'clash with' if not relation else 'hide or override'} it")
        if depth >= MAX_HIERARCHY_DEPTH:
            continue
        if relation in ("", "a base class"):
            for base in _bases(node, current.language):
                for other, cls in _classes_named(files, base, suffixes, kinds):
                    todo.append((other, cls, "a base class", depth + 1))
        if relation in ("", "a subclass") and name:
            for other in files.containing(name, suffixes):
                for cls in _class_nodes(other, kinds):
                    if name in _bases(cls, other.language):
                        todo.append((other, cls, "a subclass", depth + 1))


def _classes_named(files: _Files, name: str, suffixes: tuple[str, ...],
                   kinds: frozenset[str]) -> Iterator[tuple[_File, ts.Node]]:
    for other in files.containing(name, suffixes):
        for cls in _class_nodes(other, kinds):
            if _class_name(cls) == name:
                yield other, cls


def _class_nodes(file: _File, kinds: frozenset[str]) -> Iterator[ts.Node]:
    for ident in file.analysis.idents:
        parent = ident.node.parent
        if parent is not None and parent.type in kinds and parent.child_by_field_name("name") == ident.node:
            yield parent
