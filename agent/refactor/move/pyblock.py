"""What a Python move takes out of the source: the definition's block (decorators, overloads and
the comment lines attached above it), the names it uses, and the module-level bindings of the
source those names come from (imports to copy, private helpers to take along, the rest to import)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from .edits import SourceFile

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class MoveRefused(Exception):
    """The move cannot be planned; the message says why (nothing was written)."""


def bound_names(stmt: ast.stmt) -> list[str]:
    """The names a top-level statement binds (definitions and simple assignments)."""
    if isinstance(stmt, DEFS):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


@dataclass
class Binding:
    """A module-level binding of a name in the source: an import (with the `if` around it when it
    sits under `if TYPE_CHECKING:` / another `if`) or a definition."""

    name: str
    node: ast.stmt
    alias: ast.alias | None = None
    guard: ast.If | None = None


def module_bindings(tree: ast.Module) -> dict[str, Binding]:
    out: dict[str, Binding] = {}

    def visit(body: list[ast.stmt], guard: ast.If | None) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                for alias in stmt.names:
                    if alias.name == "*":
                        continue
                    name = alias.asname or alias.name.split(".")[0]
                    out.setdefault(name, Binding(name, stmt, alias, guard))
            elif isinstance(stmt, ast.If):
                visit(stmt.body, stmt)
                visit(stmt.orelse, guard)
            elif isinstance(stmt, ast.Try):
                visit(stmt.body, guard)
            else:
                for name in bound_names(stmt):
                    out.setdefault(name, Binding(name, stmt))

    visit(tree.body, None)
    return out


def names_used(nodes: list[ast.stmt]) -> set[str]:
    """Every name the statements read, including names in string (forward-reference) annotations."""
    used: set[str] = set()
    for top in nodes:
        for node in ast.walk(top):
            if isinstance(node, ast.Name):
                used.add(node.id)
            for note in _annotations(node):
                used.update(_string_annotation_names(note))
    return used


def _annotations(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.arg | ast.AnnAssign):
        return [node.annotation] if node.annotation is not None else []
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [node.returns] if node.returns is not None else []
    return []


def _string_annotation_names(note: ast.expr) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(note):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 300:
            try:
                expr = ast.parse(node.value.strip(), mode="eval")
            except SyntaxError:
                continue
            out.update(n.id for n in ast.walk(expr) if isinstance(n, ast.Name))
    return out


@dataclass
class Block:
    """The statements defining one name and their text span in the file (whole lines)."""

    name: str
    stmts: list[ast.stmt]
    start: int
    end: int
    text: str = ""


def definition_of(src: SourceFile, name: str, line: int | None) -> Block:
    """The top-level statements defining `name` (a function with its overloads, a class, one
    assignment); `line` (1-based), when given, must fall inside one of them."""
    stmts = [s for s in src.tree.body if name in bound_names(s)]
    if not stmts:
        raise MoveRefused(f"{src.rel}: {name!r} is not a top-level function, class or module-level variable")
    if line is not None and not any(_first_line(s) <= line <= (s.end_lineno or s.lineno) for s in stmts):
        raise MoveRefused(f"{src.rel}:{line}: {name!r} is not defined at the top level there")
    if len(stmts) > 1 and not all(isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) for s in stmts):
        raise MoveRefused(f"{src.rel}: {name!r} is bound more than once at the top level; move refused")
    if any(isinstance(s, ast.Assign) and len(s.targets) > 1 or len(bound_names(s)) > 1 for s in stmts):
        raise MoveRefused(f"{src.rel}: {name!r} is assigned together with other names; move refused")
    return block_of(src, name, stmts)


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", [])
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def block_of(src: SourceFile, name: str, stmts: list[ast.stmt]) -> Block:
    lines = src.text.split("\n")
    first = min(_first_line(s) for s in stmts)
    while first > 1 and lines[first - 2].lstrip().startswith("#") and not lines[first - 2].startswith(" "):
        first -= 1  # comment lines attached right above the definition move with it
    last = max(s.end_lineno or s.lineno for s in stmts)
    start, end = src.line_start(first), src.line_start(last + 1)
    body = src.text[start:end]
    if not body.endswith("\n"):
        body += "\n"
    return Block(name, stmts, start, end, body)


def removal_span(src: SourceFile, block: Block) -> tuple[int, int]:
    """The block plus the blank lines after it (before it, when it is the file's last code)."""
    text, start, end = src.text, block.start, block.end
    while end < len(text):
        nl = text.find("\n", end)
        line = text[end:] if nl < 0 else text[end:nl]
        if line.strip():
            break
        end = len(text) if nl < 0 else nl + 1
    if end >= len(text):
        while start > 0:
            prev = text.rfind("\n", 0, start - 1)
            if text[prev + 1:start].strip():
                break
            start = prev + 1
    return start, end


@dataclass
class Needs:
    """What the moved blocks need from the source module."""

    imports: list[Binding] = field(default_factory=list)  # import bindings to copy into DEST
    from_source: list[str] = field(default_factory=list)  # definitions DEST imports from the source
    helpers: list[Block] = field(default_factory=list)  # private helpers that move along


def needs_of(src: SourceFile, blocks: list[Block], used_elsewhere: Callable[[str], bool]) -> Needs:
    """Sort the names the blocks use into imports, helpers that move along (private, used by nothing
    that stays, never imported elsewhere: `used_elsewhere`) and definitions that stay."""
    bindings = module_bindings(src.tree)
    moving = {b.name for b in blocks}
    needs = Needs()
    pending = list(blocks)
    seen: set[str] = set(moving)
    while pending:
        block = pending.pop(0)
        for name in sorted(names_used(block.stmts)):
            if name in seen or name not in bindings:
                continue
            seen.add(name)
            binding = bindings[name]
            if binding.alias is not None:
                needs.imports.append(binding)
            elif _private(name) and not used_elsewhere(name) and not _used_outside(src, name, moving | {name}):
                helper = definition_of(src, name, None)
                needs.helpers.append(helper)
                moving.add(name)
                pending.append(helper)
            else:
                needs.from_source.append(name)
    # a helper taken along is no longer imported from the source
    needs.from_source = [n for n in needs.from_source if n not in moving]
    return needs


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _used_outside(src: SourceFile, name: str, moving: set[str]) -> bool:
    """Does anything in the source other than the moving definitions read `name`?"""
    rest = [s for s in src.tree.body if not (set(bound_names(s)) & moving)]
    if name in names_used(rest):
        return True
    return any(isinstance(s, ast.Assign) and _all_lists(s, name) for s in src.tree.body)


def _all_lists(stmt: ast.Assign, name: str) -> bool:
    targets = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    return "__all__" in targets and isinstance(stmt.value, ast.List | ast.Tuple) and any(
        isinstance(e, ast.Constant) and e.value == name for e in stmt.value.elts)


def uses_outside(src: SourceFile, moving: set[str]) -> set[str]:
    """The moving names that code staying in the source still reads."""
    rest = [s for s in src.tree.body if not (set(bound_names(s)) & moving)
            and not (isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                      for t in s.targets))]
    return names_used(rest) & moving
