"""Safe delete for TypeScript and JavaScript: a top-level function (with its overloads), class,
interface, type alias, enum or const/let declaration goes with the comments (JSDoc) attached
above it and its `export` keyword, together with the `export {name}` lists of its own file, the
barrel re-exports that only exist to export it (`export {name} from`, or `import {name}` then
`export {name}`; only that specifier when the statement holds others), and the imports only the
deleted code used. Refused, listing every reference, when anything else uses it: the TypeScript
server's references, completed syntactically for the files its project does not include
(delete_ts_syntax.Importers). A barrel's `export * from` is not a use: it goes on exporting the rest."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter as ts

from lsp_bridge import LspSession
from lsp_bridge.errors import BridgeError, NotReady
from lsp_bridge.types import FileLocation, Position

from ..errors import ToolFailure
from ..semantic.sessions import UNAVAILABLE, server_unavailable, session_for
from ..semantic.target import Target
from ..syntax.languages import language_for, parse
from ..toolcontext import ToolContext
from .delete_ts_syntax import (
    SUFFIXES,
    Cut,
    Importers,
    ancestors,
    attached_comments,
    bound_name,
    drop_specifiers,
    inside,
    lines_cut,
    merge,
    module_spec,
    node_at,
    specifier_name,
    unused_imports,
)
from .move.edits import FileChanges
from .move.typescript import TsFile, _read, declared
from .plan import EditPlan
from .rename.sources import Sources

Where = tuple[str, int, int]  # (rel path, 0-based line, 0-based character)


@dataclass
class _FileRefs:
    """What one file holds of the name, sorted by what the delete does with it."""

    removable: list[tuple[ts.Node, ts.Node, str]] = field(default_factory=list)  # (statement, specifier, why)
    imports: list[tuple[ts.Node, ts.Node]] = field(default_factory=list)  # `import {name}`: a barrel's?
    exports: list[tuple[ts.Node, ts.Node]] = field(default_factory=list)  # `export {name}` (no `from`)
    uses: list[Where] = field(default_factory=list)


def _name_node(stmt: ts.Node) -> ts.Node | None:
    _, decl = declared(stmt)
    if decl.type in ("lexical_declaration", "variable_declaration"):
        declarator = next(c for c in decl.named_children if c.type == "variable_declarator")
        return declarator.child_by_field_name("name")
    return decl.child_by_field_name("name")


def _groups(top: list[ts.Node], stmts: list[ts.Node]) -> list[list[ts.Node]]:
    """Runs of the declarations with only comments between them (overloads), one cut each."""
    keys = {s.id for s in stmts}
    out: list[list[ts.Node]] = []
    gap = True
    for node in top:
        if node.id in keys:
            if gap:
                out.append([])
            out[-1].append(node)
            gap = False
        elif node.type != "comment":
            gap = True
    return out


class TsDeletePlanner:
    def __init__(self, ctx: ToolContext, session: LspSession, target: Target):
        self.ws, self.session, self.target = ctx.workspace, session, target
        self.name = target.name
        self.rel = ctx.workspace.rel(target.real)
        self.sources = Sources(ctx.workspace, suffixes=SUFFIXES)
        self.plan = EditPlan("safe_delete", target.name, "", language="typescript")
        self.plan.target = target.location
        self.files: dict[str, TsFile] = {}

    def file(self, rel: str) -> TsFile:
        if rel not in self.files:
            self.files[rel] = _read(self.ws, rel)
        return self.files[rel]

    def run(self) -> EditPlan:
        src = self.file(self.rel)
        top = src.tree.root_node.named_children
        line = self.target.pos.line
        stmts = [s for s in top if declared(s)[0] == self.name]
        if not any(s.start_point[0] <= line <= s.end_point[0] for s in stmts):
            raise ToolFailure(f"{self.target.location}: not the name of a top-level function, class, interface, "
                              "type, enum or const/let declaration (one name per declaration)")
        self.stmts = stmts
        default = any(s.type == "export_statement" and any(c.type == "default" for c in s.children) for s in stmts)
        importers = Importers(self.ws, self.rel, self.name, default=default)
        self.files.update(importers.files)
        seen: dict[Where, None] = {}
        for stmt in stmts:
            name = _name_node(stmt)
            if name is not None:
                pos = src.src.position(src.char(name.start_byte))
                for loc in self._references(pos):
                    if self.sources.in_workspace(Path(loc.path)):
                        seen.setdefault((self.sources.rel(Path(loc.path)), loc.range.start.line,
                                         loc.range.start.character), None)
        for where in importers.references():  # what the server's project does not include
            seen.setdefault(where, None)
        by_file: dict[str, _FileRefs] = {}
        for where in seen:
            self._classify(where, by_file.setdefault(where[0], _FileRefs()))
        references = [u for refs in by_file.values() for u in self._settle(refs)]
        if references:
            self.plan.conflicts = [f"{self._show(w)} still references {self.name}" for w in sorted(references)]
            return self.plan
        self._edits(src, by_file)
        return self.plan

    def _references(self, pos: Position) -> list[FileLocation]:
        try:
            return self.session.references(self.target.real, pos, False)
        except NotReady as exc:
            raise ToolFailure(f"{exc}; nothing was changed, try again when it has finished indexing") from exc
        except BridgeError as exc:
            raise ToolFailure(f"safe_delete: the server failed to list references ({exc})") from exc

    def _show(self, where: Where) -> str:
        rel, line, col = where
        text = self.file(rel).src.text.split("\n")[line].strip() if rel.endswith(SUFFIXES) else ""
        return f"{rel}:{line + 1}:{col + 1}: {text[:120]}"

    def _classify(self, where: Where, refs: _FileRefs) -> None:
        rel, line, col = where
        if not rel.endswith(SUFFIXES):
            refs.uses.append(where)
            return
        file = self.file(rel)
        node = node_at(file, line, col)
        if node is None:
            refs.uses.append(where)
            return
        if rel == self.rel and any(inside(node, s) for s in self.stmts):
            return  # the declaration itself (recursion, overloads) goes with it
        spec = next((a for a in ancestors(node) if a.type in ("import_specifier", "export_specifier")), None)
        stmt = next((a for a in ancestors(node) if a.type in ("import_statement", "export_statement")), None)
        if spec is None or stmt is None:
            refs.uses.append(where)
        elif stmt.type == "export_statement" and spec.child_by_field_name("alias") is not None:
            refs.uses.append(where)  # exported under another name: its importers are not followed here
        elif stmt.type == "export_statement" and module_spec(file, stmt) is not None:
            refs.removable.append((stmt, spec, "re-export"))
        elif stmt.type == "export_statement":
            refs.exports.append((stmt, spec))
        else:
            refs.imports.append((stmt, spec))

    def _settle(self, refs: _FileRefs) -> list[Where]:
        """The references that block the delete. A file whose only mentions are importing the name
        and exporting it again is a barrel: both go. In the source file an `export {name}` goes."""
        if not refs.imports and not refs.exports:
            return refs.uses
        exported = {specifier_name(self._of(stmt), sp) for stmt, sp in refs.exports}
        barrel = not refs.uses and all(bound_name(self._of(stmt), sp) in exported for stmt, sp in refs.imports)
        if barrel and (refs.imports or self._of(refs.exports[0][0]).src.rel == self.rel):
            refs.removable += [(s, sp, "re-export") for s, sp in refs.imports + refs.exports]
            return []
        return refs.uses + [self._where(stmt, sp) for stmt, sp in refs.imports + refs.exports]

    def _of(self, node: ts.Node) -> TsFile:
        return next(f for f in self.files.values() if f.tree.root_node == _root(node))

    def _where(self, stmt: ts.Node, spec: ts.Node) -> Where:
        file = self._of(stmt)
        pos = file.src.position(file.char(spec.start_byte))
        return (file.src.rel, pos.line, pos.character)

    def _edits(self, src: TsFile, by_file: dict[str, _FileRefs]) -> None:
        cuts: dict[str, list[Cut]] = {self.rel: []}
        top = src.tree.root_node.named_children
        for group in _groups(top, self.stmts):
            cuts[self.rel].append(lines_cut(src, attached_comments(group[0]), group[-1], "definition"))
        for rel, refs in by_file.items():
            file = self.file(rel)
            by_stmt: dict[int, tuple[ts.Node, list[ts.Node], str]] = {}
            for stmt, spec, why in refs.removable:
                by_stmt.setdefault(stmt.id, (stmt, [], why))[1].append(spec)
            for stmt, specs, why in by_stmt.values():
                cuts.setdefault(rel, []).extend(drop_specifiers(file, stmt, specs, why))
        unused, notes = unused_imports(src, self.stmts)
        cuts[self.rel].extend(unused)
        self.plan.notes.extend(notes)
        for rel, file_cuts in cuts.items():
            file = self.file(rel)
            changes = FileChanges(file.src)
            file_cuts = merge(file_cuts)
            for cut in file_cuts:
                changes.replace(cut.start, cut.end, "", cut.reason)
            if _stops_being_a_module(file, file_cuts):
                changes.insert(len(file.src.text), "export {};\n", "the file stays a module")
            changes.add_to(self.plan)


def _root(node: ts.Node) -> ts.Node:
    while node.parent is not None:
        node = node.parent
    return node


def _stops_being_a_module(file: TsFile, cuts: list[Cut]) -> bool:
    """An ES module whose every import/export goes would become a script (its names global)."""
    def module(text: str) -> bool:
        tree = parse(text, language_for(file.src.rel) or "typescript")
        return any(s.type in ("import_statement", "export_statement") for s in tree.root_node.named_children)

    text = file.src.text
    for cut in sorted(cuts, key=lambda c: c.start, reverse=True):
        text = text[:cut.start] + text[cut.end:]
    return module(file.src.text) and not module(text) and bool(text.strip())


def plan_ts_delete(ctx: ToolContext, target: Target) -> EditPlan:
    try:
        session = session_for(ctx, "typescript")
        return TsDeletePlanner(ctx, session, target).run()
    except UNAVAILABLE as exc:
        raise ToolFailure(f"safe_delete needs the TypeScript language server: {server_unavailable(exc)}") from exc
