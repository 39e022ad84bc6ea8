"""Move a top-level Python function, class or module-level variable to another module.

The definition's block (with its decorators, overloads and attached comments) leaves the source;
DEST gets it with the imports it needs (copied from the source's), private helpers only it uses
come along, and the code that stays imports what it still uses from DEST. `__all__` entries and
the `.pyi` stub beside the source follow; every import and qualified use in the workspace is
rewritten (pyimports.py). A move that would close an import cycle is refused, naming it.
"""

from __future__ import annotations

import ast
from pathlib import PurePosixPath

from lsp_bridge.types import FileEdits, Position, Range, TextChange

from ...workspace import Workspace
from ..plan import EditPlan
from .edits import SourceFile
from .pyall import add_entry, all_list, exports, quote_of, remove_entry
from .pyblock import (
    Binding,
    Block,
    MoveRefused,
    definition_of,
    module_bindings,
    needs_of,
    removal_span,
    uses_outside,
)
from .pyimports import review_mentions, rewrite_workspace
from .pymodules import edges_of, module_ref, new_cycle, resolve_from
from .state import MoveState, header_offset, import_line


def plan_python_move(ws: Workspace, source: str, line: int, name: str, dest: str, *,
                     keep_alias: bool = False) -> EditPlan:
    """The EditPlan moving `name` (defined at top level in `source`, around 1-based `line`) to
    `dest` (workspace-relative, created when missing). Raises MoveRefused."""
    state = MoveState(ws, name, source, dest)
    src = state.file(source)
    if src is None:
        raise MoveRefused(f"{source} does not parse as Python; move refused")
    if PurePosixPath(dest).suffix != ".py":
        raise MoveRefused(f"DEST {dest!r} must be a .py file")
    if dest == source:
        raise MoveRefused(f"{name} is already in {dest}")
    if not ws.exists(str(PurePosixPath(dest).parent) or "."):
        raise MoveRefused(f"the folder of DEST {dest!r} does not exist")
    state.source_module = state.module(source)[0]
    state.dest_module, state.dest_is_pkg = state.module(dest)
    dest_file = state.file(dest)
    if ws.exists(dest) and dest_file is None:
        raise MoveRefused(f"{dest} does not parse as Python; move refused")

    block = definition_of(src, name, line)
    needs = needs_of(src, [block], lambda word: state.word_in_other_files(word, {source, _stub(source)}))
    blocks = sorted([block, *needs.helpers], key=lambda b: b.start)
    moving = {b.name for b in blocks}
    _refuse_taken(state, dest_file, moving)
    if needs.helpers:
        state.notes.append("private helpers used only by it move along: " + ", ".join(b.name for b in needs.helpers))

    source_exports = all_list(src) is not None and exports(src, name)
    state.dest_has_all = all_list(dest_file) is not None if dest_file else source_exports
    _edit_source(state, src, blocks, keep_alias)
    _fill_dest(state, src, dest_file, blocks, needs.imports, needs.from_source, source_exports)
    _move_stub(state, src, keep_alias)
    rewrite_workspace(state, moving={name})
    _check_cycles(state)
    review_mentions(state)
    return _plan(state, block)


def _stub(rel: str) -> str:
    return rel[:-3] + ".pyi" if rel.endswith(".py") else rel


def _refuse_taken(state: MoveState, dest_file: SourceFile | None, moving: set[str]) -> None:
    if dest_file is None:
        return
    bindings = module_bindings(dest_file.tree)
    for name in sorted(moving):
        binding = bindings.get(name)
        if binding is None:
            continue
        if isinstance(binding.node, ast.ImportFrom):
            dest_mod, dest_pkg = state.module(dest_file.rel)
            if resolve_from(dest_mod, dest_pkg, binding.node) == state.source_module:
                continue  # DEST imports it from the source today: that import goes
        raise MoveRefused(f"{dest_file.rel} already defines {name!r} (line {binding.node.lineno}); move refused")


def _relative_style(src: SourceFile | None) -> bool:
    return src is not None and any(isinstance(s, ast.ImportFrom) and s.level for s in ast.walk(src.tree))


def _edit_source(state: MoveState, src: SourceFile, blocks: list[Block], keep_alias: bool) -> None:
    edits = state.edits(src.rel)
    for block in blocks:
        start, end = removal_span(src, block)
        edits.replace(start, end, "", f"moved to {state.dest}" if block.name == state.name else "helper moved along")
    still_used = uses_outside(src, {state.name})
    if still_used or keep_alias:
        ref = module_ref(state.source_module, state.module(src.rel)[1], state.dest_module, _relative_style(src))
        why = "re-export at the old place (--keep-alias)" if keep_alias else "the source still uses it"
        alias = f"{state.name} as {state.name}" if keep_alias else state.name
        _insert_import(state, src, import_line(ref, [alias]), why)
        state.added_edges.append((state.source_module, state.dest_module))
    if not keep_alias:
        remove_entry(edits, state.name)


def _insert_import(state: MoveState, src: SourceFile, line: str, reason: str) -> None:
    at = header_offset(src)
    prefix = "\n" if at == len(src.text) and src.text and not src.text.endswith("\n") else ""
    state.edits(src.rel).insert(at, f"{prefix}{line}\n", reason)


def _dest_imports(state: MoveState, src: SourceFile, imports: list[Binding], from_source: list[str],
                  taken: set[str]) -> list[str]:
    """The import lines DEST needs, in the source's order (`taken`: names DEST binds already)."""
    src_mod, src_pkg = state.module(src.rel)
    plain: list[str] = []
    grouped: dict[str, list[str]] = {}
    guarded: dict[str, list[str]] = {}
    for binding in sorted(imports, key=lambda b: (b.node.lineno, b.node.col_offset)):
        alias = binding.alias
        if alias is None or binding.name in taken:
            continue
        text = alias.name + (f" as {alias.asname}" if alias.asname else "")
        if isinstance(binding.node, ast.Import):
            line = f"import {text}"
        else:
            assert isinstance(binding.node, ast.ImportFrom)
            target = resolve_from(src_mod, src_pkg, binding.node)
            if target == state.dest_module:
                continue  # DEST defines it
            ref = module_ref(state.dest_module, state.dest_is_pkg, target, binding.node.level > 0)
            if binding.guard is None and ref != "__future__":
                grouped.setdefault(ref, []).append(text)
                continue
            line = import_line(ref, [text])
        if binding.guard is not None:
            test = ast.get_source_segment(src.text, binding.guard.test) or "TYPE_CHECKING"
            guarded.setdefault(test, []).append(line)
        elif line not in plain:
            plain.append(line)
    if from_source:
        ref = module_ref(state.dest_module, state.dest_is_pkg, state.source_module, _relative_style(src))
        grouped.setdefault(ref, []).extend(n for n in from_source if n not in taken)
    for ref, names in grouped.items():
        if names:
            plain.append(import_line(ref, names))
            state.added_edges.extend((state.dest_module, mod) for mod in _absolute(state, ref))
    for test, lines in guarded.items():
        plain.append(f"if {test}:\n" + "".join(f"    {line}\n" for line in lines).rstrip("\n"))
    return plain


def _absolute(state: MoveState, ref: str) -> list[str]:
    if not ref.startswith("."):
        return [ref]
    level = len(ref) - len(ref.lstrip("."))
    base = state.dest_module.split(".")[: None if state.dest_is_pkg else -1]
    base = base[: len(base) - (level - 1)]
    rest = ref[level:]
    return [".".join([*base, rest] if rest else base)]


def _fill_dest(state: MoveState, src: SourceFile, dest_file: SourceFile | None, blocks: list[Block],
               imports: list[Binding], from_source: list[str], source_exports: bool) -> None:
    body = "\n\n".join(b.text.rstrip("\n") + "\n" for b in blocks)
    future = any(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in src.tree.body)
    if dest_file is None:
        lines = _dest_imports(state, src, imports, from_source, set())
        future_lines = ["from __future__ import annotations"] if future else []
        other = [x for x in lines if not x.startswith("from __future__")]
        head = "\n".join(future_lines) + ("\n\n" if future_lines and other else "") + "\n".join(other)
        if source_exports:
            quote = quote_of(src)
            head += ("\n\n" if head else "") + f"__all__ = [{quote}{state.name}{quote}]"
        state.creates[state.dest] = (head + "\n\n\n" if head else "") + body
        state.added_edges.append((state.dest_module, state.dest_module))  # registers the new module
        return
    taken = set(module_bindings(dest_file.tree)) - {b.name for b in blocks}
    lines = _dest_imports(state, src, imports, from_source, taken)
    dest_future = any(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in dest_file.tree.body)
    if future and not dest_future:
        lines = ["from __future__ import annotations", *[x for x in lines if not x.startswith("from __future__")]]
    lines = [x for x in lines if not (x.startswith("from __future__") and dest_future)]
    edits = state.edits(dest_file.rel)
    if lines:
        at = 0 if any(x.startswith("from __future__") for x in lines) else header_offset(dest_file)
        if at == 0 and isinstance(dest_file.tree.body[:1] and dest_file.tree.body[0], ast.Expr):
            at = dest_file.line_start((dest_file.tree.body[0].end_lineno or 1) + 1)
        edits.insert(at, "\n".join(lines) + "\n", "what the moved code needs")
    at = _dest_position(dest_file, {b.name for b in blocks})
    text = dest_file.text
    if at == len(text):
        sep = "" if not text else "\n\n" if text.endswith("\n") else "\n\n\n"
        edits.insert(at, sep + body, f"moved from {state.source}")
    else:
        edits.insert(at, body + "\n\n", f"moved from {state.source}")
    if source_exports:
        add_entry(edits, state.name, quote_of(dest_file))


def _dest_position(dest_file: SourceFile, names: set[str]) -> int:
    """Before DEST's first top-level statement that reads a moved name at import time (a base
    class, a default, a module-level call), else at the end."""
    from .pyblock import names_used

    for stmt in dest_file.tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        runs_now = stmt if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) else None
        if runs_now is not None and names_used([runs_now]) & names:
            first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
            return dest_file.line_start(first)
    return len(dest_file.text)


def _move_stub(state: MoveState, src: SourceFile, keep_alias: bool) -> None:
    """The `.pyi` beside the source: its definition of the name goes to DEST's stub (created when
    DEST is new; when DEST exists without a stub the stub's definition stays, for review)."""
    stub_rel = _stub(src.rel)
    if stub_rel == src.rel or not state.ws.exists(stub_rel):
        return
    stub = state.file(stub_rel)
    if stub is None:
        state.notes.append(f"{stub_rel} does not parse; its definition of {state.name} was left alone")
        return
    try:
        block = definition_of(stub, state.name, None)
    except MoveRefused:
        return
    dest_stub_rel = _stub(state.dest)
    dest_stub = state.file(dest_stub_rel)
    if dest_stub is None and state.ws.exists(state.dest):
        state.notes.append(f"{stub_rel} defines {state.name} but {state.dest} has no stub: the stub was left alone")
        return
    sub = MoveState(state.ws, state.name, stub_rel, dest_stub_rel, state.source_module, state.dest_module,
                    state.dest_is_pkg, state.files, state.changes, state.creates)
    needs = needs_of(stub, [block], lambda word: True)
    stub_exports = all_list(stub) is not None and exports(stub, state.name)
    _edit_source(sub, stub, [block], keep_alias)
    _fill_dest(sub, stub, dest_stub, [block], needs.imports, needs.from_source, stub_exports)
    state.notes.extend(sub.notes)


def _check_cycles(state: MoveState) -> None:
    known: dict[str, SourceFile] = {}
    for rel in state.all_files():
        src = state.file(rel)
        if rel.endswith(".py") and src is not None:
            known[state.module(rel)[0]] = src
    names = set(known) | {state.dest_module}
    graph = {mod: edges_of(src.tree, mod, PurePosixPath(src.rel).name == "__init__.py", names)
             for mod, src in known.items()}
    added = [(a, b) for a, b in dict.fromkeys(state.added_edges) if a != b and b not in graph.get(a, set())]
    added = [(a, b) for a, b in added if a in names and b in names]
    cycle = new_cycle(graph, added)
    if cycle:
        raise MoveRefused(f"moving {state.name} to {state.dest} would create the import cycle "
                          + " -> ".join(cycle) + " (a module-level import would fail); move refused")


def _plan(state: MoveState, block: Block) -> EditPlan:
    plan = EditPlan("move", f"{state.source_module}.{state.name}", f"{state.dest_module}.{state.name}",
                    language="python", method="syntactic", complete=True)
    for rel in sorted(state.changes):
        changes = state.changes[rel]
        if changes.overlapping():
            raise MoveRefused(f"{rel}: the planned edits overlap (an import of {state.name} inside the moved "
                              "code?); move refused")
        changes.add_to(plan)
    for rel, text in sorted(state.creates.items()):
        plan.file_ops.append(FileEdits(state.ws.root / rel, [TextChange(Range(Position(0, 0), Position(0, 0)), text)],
                                       kind="create"))
    plan.notes.extend(state.notes)
    plan.review = state.review[:50]
    plan.review_total = len(state.review)
    return plan
