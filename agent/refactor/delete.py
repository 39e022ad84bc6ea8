"""Safe delete: remove a Python definition (function, class, method, module-level variable) with
its decorators and docstring, its `__all__` entry, the package re-exports that only export it, a
`.pyi` declaration beside it, and the imports only it used; refused, listing every reference the
language server reports, when anything else still uses it. A reference that is only the
re-export in its own package's `__init__.py` does not count (it is removed too)."""

from __future__ import annotations

from pathlib import Path

import tree_sitter as ts

from lsp_bridge import FileLocation, LspSession
from lsp_bridge.errors import BridgeError, NotReady

from ..errors import ToolFailure
from ..result import ToolResult
from ..semantic.sessions import UNAVAILABLE, server_unavailable, session_for
from ..semantic.target import Target
from ..toolcontext import ToolContext
from .delete_edits import Removal, all_entries, drop_imported, import_names, statement_lines
from .delete_ts import plan_ts_delete
from .outcome import finish, refused
from .plan import EditPlan
from .rename.pysource import PySource, ancestors, text_of
from .rename.sources import Sources
from .stub_twin import twin

_DEFS = ("function_definition", "class_definition")
_IMPORTS = ("import_from_statement", "import_statement")


def _definition(src: PySource, ident: ts.Node) -> ts.Node | None:
    """The statement that defines `ident` (decorators included), or None."""
    parent = ident.parent
    if parent is not None and parent.type in _DEFS and parent.child_by_field_name("name") == ident:
        outer = parent.parent
        return outer if outer is not None and outer.type == "decorated_definition" else parent
    if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == ident:
        stmt = parent.parent
        if stmt is not None and stmt.type == "expression_statement" and stmt.parent is not None \
                and stmt.parent.type in ("module", "block"):
            return stmt
    return None


def _inside(node: ts.Node, outer: ts.Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _variable_docstring(stmt: ts.Node) -> ts.Node | None:
    nxt = stmt.next_named_sibling
    if stmt.type == "expression_statement" and nxt is not None and nxt.type == "expression_statement" \
            and nxt.start_point[0] == stmt.end_point[0] + 1 and len(nxt.named_children) == 1 \
            and nxt.named_children[0].type == "string":
        return nxt
    return None


class DeletePlanner:
    def __init__(self, ctx: ToolContext, session: LspSession, target: Target):
        self.ctx = ctx
        self.session = session
        self.target = target
        self.sources = Sources(ctx.workspace, suffixes=(".py", ".pyi"))
        self.plan = EditPlan("safe_delete", target.name, "", language="python")
        self.plan.target = target.location
        self.references: list[str] = []

    def run(self) -> EditPlan:
        src = self.sources.parsed(self.target.real)
        ident = src.identifier_at(self.target.pos) if src is not None else None
        node = _definition(src, ident) if src is not None and ident is not None else None
        if src is None or node is None:
            raise ToolFailure(f"{self.target.location}: not the name of a function, class, method or variable at "
                              "its definition")
        self.src, self.node = src, node
        other = twin(self.sources, src, ident)  # type: ignore[arg-type]
        try:
            refs = self.session.references(src.path, src.position(ident.start_point), False)  # type: ignore[union-attr]
            if other is not None:  # uses resolved through the stub are references to the stub's declaration
                refs = refs + self.session.references(other[0].path, other[0].position(other[1].start_point), False)
        except NotReady as exc:
            raise ToolFailure(f"{exc}; nothing was changed, try again when it has finished indexing") from exc
        except BridgeError as exc:
            raise ToolFailure(f"safe_delete: the server failed to list references ({exc})") from exc
        reexports: dict[Path, list[ts.Node]] = {}
        stubs: list[tuple[PySource, ts.Node]] = []
        if other is not None and other[0].path.suffix == ".pyi" and (stub := _definition(*other)) is not None:
            stubs.append((other[0], stub))
        for loc in refs:
            self._classify(loc, reexports, stubs)
        if self.references:
            self.plan.conflicts = self.references + [
                f"{self.sources.rel(path)}:{n.start_point[0] + 1}: re-exports {self.target.name}"
                for path, nodes in reexports.items() for n in nodes]
            return self.plan
        self._remove_definition(src, node)
        for stub_src, stub_node in stubs:
            self._remove_definition(stub_src, stub_node)
        for path, names in reexports.items():
            init = self.sources.parsed(path)
            assert init is not None
            by_stmt: dict[int, tuple[ts.Node, list[ts.Node]]] = {}
            for name in names:
                stmt = next(a for a in ancestors(name) if a.type in _IMPORTS)
                by_stmt.setdefault(stmt.id, (stmt, []))[1].append(name)
            for stmt, nodes in by_stmt.values():
                self._add(init, drop_imported(init, stmt, nodes, "re-export"))
            self._add(init, all_entries(init, self.target.name))
        return self.plan

    def _where(self, src: PySource, loc: FileLocation) -> str:
        line = src.line_text(loc.range.start.line).strip()
        return f"{self.sources.rel(src.path)}:{loc.range.start.line + 1}:{loc.range.start.character + 1}: {line[:120]}"

    def _classify(self, loc: FileLocation, reexports: dict[Path, list[ts.Node]],
                  stubs: list[tuple[PySource, ts.Node]]) -> None:
        if not self.sources.in_workspace(loc.path):
            return
        src = self.sources.parsed(loc.path)
        ident = src.identifier_at(loc.range.start) if src is not None else None
        if src is None or ident is None:
            return
        if src.path == self.src.path and _inside(ident, self.node):
            return  # the definition's own body (recursion) goes with it
        if src.path.suffix == ".pyi" and (stub := _definition(src, ident)) is not None:
            if all(known != stub for _s, known in stubs):
                stubs.append((src, stub))
            return
        stmt = next((a for a in ancestors(ident) if a.type in _IMPORTS), None)
        if stmt is not None and src.path.name in ("__init__.py", "__init__.pyi") \
                and self.src.path.is_relative_to(src.path.parent):
            named = next((n for n, _full, _bound in import_names(stmt) if _inside(ident, n)), None)
            if named is not None:
                reexports.setdefault(src.path, []).append(named)
                return
        self.references.append(f"{self._where(src, loc)} still references {self.target.name}")

    def _add(self, src: PySource, removals: list[Removal]) -> None:
        rel = self.sources.rel(src.path)
        entry = self.sources.read(src.path)
        if entry is not None:
            self.plan.hashes.setdefault(rel, entry[1])
        for r in removals:
            self.plan.add(rel, r.range, "", r.reason, old_text=r.old_text)

    def _remove_definition(self, src: PySource, node: ts.Node) -> None:
        doc = _variable_docstring(node)
        span = node
        whole = statement_lines(src, span, "definition")
        if whole is None:
            self.plan.conflicts.append(f"{self.sources.rel(src.path)}:{node.start_point[0] + 1}: the definition "
                                       "shares its line with other code; delete it by hand")
            return
        removals = [whole]
        if doc is not None:
            removals = [r for r in [statement_lines(src, doc, "docstring", tidy_blank=False)] if r is not None]
            first = statement_lines(src, node, "definition", tidy_blank=False)
            removals = ([first] if first is not None else []) + removals
        module_level = node.parent is not None and node.parent.type == "module"
        if module_level:
            removals.extend(all_entries(src, self.target.name))
            if src.path.name not in ("__init__.py", "__init__.pyi"):
                removals.extend(self._unused_imports(src, node))
        self._add(src, removals)

    def _unused_imports(self, src: PySource, node: ts.Node) -> list[Removal]:
        """Imports whose names only the deleted definition used."""
        out: list[Removal] = []
        for stmt in src.tree.root_node.named_children:
            if stmt.type not in _IMPORTS:
                continue
            if stmt.type == "import_from_statement" and text_of(stmt.child_by_field_name("module_name")) == "__future__":
                continue
            unused: list[ts.Node] = []
            for named, _full, bound in import_names(stmt):
                uses = [i for i in src.identifiers(bound) if not any(a.type in _IMPORTS for a in ancestors(i))]
                strings = any(True for _ in src.string_literals(bound))
                if uses and all(_inside(i, node) for i in uses) and not strings:
                    unused.append(named)
            if unused:
                out.extend(drop_imported(src, stmt, unused, "unused import"))
        return out


def plan_delete(ctx: ToolContext, target: Target) -> EditPlan:
    if target.server == "typescript":
        return plan_ts_delete(ctx, target)
    if target.language != "python":
        raise ToolFailure(f"{target.path}: safe_delete supports Python, TypeScript and JavaScript files")
    try:
        session = session_for(ctx, "python")
        return DeletePlanner(ctx, session, target).run()
    except UNAVAILABLE as exc:
        raise ToolFailure(f"safe_delete needs the Python language server: {server_unavailable(exc)}") from exc


def safe_delete(ctx: ToolContext, target: Target, *, dry_run: bool, check_diagnostics: bool = True) -> ToolResult:
    plan = plan_delete(ctx, target)
    if plan.conflicts:
        return refused(plan, f"deleting {target.name}")
    summary = (f"{'would delete' if dry_run else 'deleted'} {target.name} ({target.location}): "
               f"{len(plan.sites)} edit(s) in {len(plan.files())} file(s)")
    return finish(ctx, plan, summary=summary, operation=f"safe_delete {target.name}", dry_run=dry_run,
                  check_diagnostics=check_diagnostics)
