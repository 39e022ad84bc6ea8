"""Every import and qualified use of a moved Python name across the workspace, rewritten to DEST:
`from m import x` (absolute or relative, one name or in a list, at any depth), `import m; m.x`,
`import m as a; a.x`, `from pkg import m; m.x`, package re-exports, and `from m import *` (which
gets a `from DEST import ...` beside it). Mentions in comments and strings go to the review list."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from ...result import Location
from ..plan import ReviewItem
from .edits import FileChanges, SourceFile
from .pyall import exports
from .pymodules import import_time_imports, module_ref, resolve_from
from .state import MoveState

FROM_HEAD = re.compile(r"from\s+(\.*\s*[\w.]*?)\s*import\b")
MAX_REVIEW = 200


def rewrite_workspace(state: MoveState, *, moving: set[str]) -> None:
    leaf = state.source_module.rsplit(".", 1)[-1]
    words = [re.compile(rf"\b{re.escape(n)}\b") for n in moving]
    for rel in state.all_files():
        if rel in (state.source, state.source[:-3] + ".pyi"):
            continue
        src = state.file(rel)
        if src is None or not (any(w.search(src.text) for w in words) or ("*" in src.text and leaf in src.text)):
            continue
        _rewrite_file(state, src, moving)


def _parents(tree: ast.Module) -> dict[int, list[ast.stmt]]:
    """id(statement) -> the body list holding it."""
    out: dict[int, list[ast.stmt]] = {}
    for node in ast.walk(tree):
        for attr in ("body", "orelse", "finalbody"):
            body = getattr(node, attr, None)
            if isinstance(body, list):
                for stmt in body:
                    out[id(stmt)] = body
        for handler in getattr(node, "handlers", []):
            for stmt in handler.body:
                out[id(stmt)] = handler.body
    return out


def _rewrite_file(state: MoveState, src: SourceFile, moving: set[str]) -> None:
    mod, is_pkg = state.module(src.rel)
    in_dest = mod == state.dest_module
    now = {id(n) for n in import_time_imports(src.tree)}
    parents = _parents(src.tree)
    qualified: dict[str, ast.stmt] = {}  # dotted names bound to the source module -> binding statement
    for node in ast.walk(src.tree):
        if isinstance(node, ast.ImportFrom):
            base = resolve_from(mod, is_pkg, node)
            if base == state.source_module:
                for alias in node.names:
                    if alias.name in moving:
                        _rewrite_alias(state, src, node, alias, mod, is_pkg, in_dest, parents, id(node) in now)
                    elif alias.name == "*":
                        _star(state, src, node, mod, is_pkg, in_dest, id(node) in now)
            for alias in node.names:
                if f"{base}.{alias.name}" == state.source_module:
                    qualified[alias.asname or alias.name] = node
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == state.source_module:
                    qualified[alias.asname or alias.name] = node
    if qualified:
        _rewrite_qualified(state, src, qualified, moving, mod, is_pkg, in_dest, now)


def _alias_span(src: SourceFile, node: ast.ImportFrom | ast.Import, index: int) -> tuple[int, int]:
    aliases = node.names
    start, end = src.node_span(aliases[index])
    if index + 1 < len(aliases):
        return start, src.node_span(aliases[index + 1])[0]
    return src.node_span(aliases[index - 1])[1], end


def _remove_statement(changes: FileChanges, node: ast.stmt, parents: dict[int, list[ast.stmt]], reason: str) -> None:
    src = changes.file
    start, end = src.node_span(node)
    line_start = src.line_start(node.lineno)
    if len(parents.get(id(node), [])) == 1:  # the only statement of its block
        changes.replace(start, end, "pass", reason)
    elif not src.text[line_start:start].strip() and not src.text[end:src.line_start((node.end_lineno or 0) + 1)].strip(" \t\n;"):
        changes.replace(line_start, src.line_start((node.end_lineno or 0) + 1), "", reason)
    else:
        changes.replace(start, end, "pass", reason)


def _after(src: SourceFile, node: ast.stmt) -> tuple[int, str]:
    """Where a new statement goes right after `node`, and its indentation."""
    at = src.line_start((node.end_lineno or node.lineno) + 1)
    line_start = src.line_start(node.lineno)
    indent = src.text[line_start:src.node_span(node)[0]]
    prefix = "\n" if at == len(src.text) and not src.text.endswith("\n") else ""
    return at, prefix + (indent if not indent.strip() else "")


def _rewrite_alias(state: MoveState, src: SourceFile, node: ast.ImportFrom, alias: ast.alias, mod: str,
                   is_pkg: bool, in_dest: bool, parents: dict[int, list[ast.stmt]], at_import: bool) -> None:
    changes = state.edits(src.rel)
    index = node.names.index(alias)
    if in_dest:  # DEST defines the name now: its import of it goes
        if len(node.names) == 1:
            _remove_statement(changes, node, parents, "DEST defines it now")
        else:
            changes.replace(*_alias_span(src, node, index), "", "DEST defines it now")
        if alias.asname and alias.asname != alias.name:
            at, indent = _after(src, node)
            changes.insert(at, f"{indent}{alias.asname} = {alias.name}\n", "the alias DEST used")
        return
    ref = module_ref(mod, is_pkg, state.dest_module, node.level > 0)
    if at_import:
        state.added_edges.append((mod, state.dest_module))
    if len(node.names) == 1:
        start, _ = src.node_span(node)
        head = FROM_HEAD.match(src.text, start)
        if head:
            changes.replace(head.start(1), head.end(1), ref, "import follows the move")
            return
    changes.replace(*_alias_span(src, node, index), "", "import follows the move")
    at, indent = _after(src, node)
    text = alias.name + (f" as {alias.asname}" if alias.asname else "")
    changes.insert(at, f"{indent}from {ref} import {text}\n", "import follows the move")


def _star(state: MoveState, src: SourceFile, node: ast.ImportFrom, mod: str, is_pkg: bool, in_dest: bool,
          at_import: bool) -> None:
    source = state.file(state.source)
    if in_dest or source is None or not exports(source, state.name):
        return
    for other in ast.walk(src.tree):  # it imports it from DEST already
        if not isinstance(other, ast.ImportFrom) or resolve_from(mod, is_pkg, other) != state.dest_module:
            continue
        if any(a.name == state.name or (a.name == "*" and state.dest_has_all) for a in other.names):
            return
    ref = module_ref(mod, is_pkg, state.dest_module, node.level > 0)
    what = "*" if state.dest_has_all else state.name
    at, indent = _after(src, node)
    state.edits(src.rel).insert(at, f"{indent}from {ref} import {what}\n", "star import follows the move")
    if at_import:
        state.added_edges.append((mod, state.dest_module))


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _rewrite_qualified(state: MoveState, src: SourceFile, qualified: dict[str, ast.stmt], moving: set[str],
                       mod: str, is_pkg: bool, in_dest: bool, now: set[int]) -> None:
    uses: list[tuple[ast.Attribute, ast.stmt]] = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Attribute) and node.attr in moving:
            base = _dotted(node.value)
            if base in qualified:
                uses.append((node, qualified[base]))
    if not uses:
        return
    changes = state.edits(src.rel)
    names = {n.id for n in ast.walk(src.tree) if isinstance(n, ast.Name)} | {
        a.asname or a.name.split(".")[0] for n in ast.walk(src.tree) if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names}
    leaf = state.dest_module.rsplit(".", 1)[-1]
    added: set[str] = set()
    for attr, binding in uses:
        start, end = src.node_span(attr)
        if in_dest:
            changes.replace(start, end, attr.attr, "DEST defines it now")
            continue
        relative = isinstance(binding, ast.ImportFrom) and binding.level > 0
        if attr.attr not in names:
            changes.replace(start, end, attr.attr, "qualified use follows the move")
            line = f"from {module_ref(mod, is_pkg, state.dest_module, relative)} import {attr.attr}"
        elif leaf not in names and "." in state.dest_module:
            changes.replace(start, end, f"{leaf}.{attr.attr}", "qualified use follows the move")
            package = state.dest_module.rsplit(".", 1)[0]
            line = f"from {module_ref(mod, is_pkg, package, relative)} import {leaf}"
        else:
            changes.replace(start, end, f"{state.dest_module}.{attr.attr}", "qualified use follows the move")
            line = f"import {state.dest_module}"
        if line not in added:
            added.add(line)
            at, indent = _after(src, binding)
            changes.insert(at, f"{indent}{line}\n", "qualified use follows the move")
            if id(binding) in now:
                state.added_edges.append((mod, state.dest_module))


def review_mentions(state: MoveState) -> None:
    """Comments and strings naming the moved symbol (docstrings, docs in code) are never rewritten:
    they are listed for review."""
    word = re.compile(rf"\b{re.escape(state.name)}\b")
    for rel in state.all_files():
        src = state.file(rel)
        if src is None or not word.search(src.text):
            continue
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(src.text).readline))
        except (tokenize.TokenError, SyntaxError):
            continue
        lines = src.text.split("\n")
        for tok in tokens:
            if tok.type not in (tokenize.COMMENT, tokenize.STRING) or not word.search(tok.string):
                continue
            if re.match(r"[rRbB]*[fF]", tok.string):  # f-string: its code is read (and rewritten) as code
                continue
            if tok.string.strip("'\"") == state.name:  # an `__all__` entry: edited, not a mention
                continue
            for number, line in enumerate(tok.string.split("\n")):
                hit = word.search(line)
                if hit:
                    row = tok.start[0] + number
                    col = (tok.start[1] if number == 0 else 0) + hit.start() + 1
                    state.review.append(ReviewItem(Location(rel, row, col), "string", lines[row - 1].strip()[:200]))
                    if len(state.review) >= MAX_REVIEW:
                        return
