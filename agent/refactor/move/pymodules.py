"""The workspace's Python modules for a move: each file's module name (from its package chain),
relative-import resolution, import statements rendered in a file's own style, and the module-level
import graph that refuses a move creating an import cycle."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath

from ...walk import iter_files
from ...workspace import Workspace
from .edits import SourceFile

MAX_FILES = 20000
SUFFIXES = (".py", ".pyi")


def module_name(ws: Workspace, rel: str) -> tuple[str, bool]:
    """(dotted module name, is a package __init__) of a workspace file: its folders up to the first
    one without an `__init__.py(i)` are the package chain."""
    path = PurePosixPath(rel)
    stem = path.name.rsplit(".", 1)[0]
    is_pkg = stem == "__init__"
    parts = [] if is_pkg else [stem]
    folder = path.parent
    while str(folder) not in ("", ".") and (ws.exists(str(folder / "__init__.py"))
                                          or ws.exists(str(folder / "__init__.pyi"))):
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), is_pkg


def resolve_from(module: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    """The absolute module a `from ... import` names, seen from `module`."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if module else []
    if not is_pkg:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)] if node.level - 1 <= len(base) else []
    return ".".join([*base, *([node.module] if node.module else [])])


def module_ref(from_module: str, from_is_pkg: bool, target: str, relative: bool) -> str:
    """How a file (module `from_module`) names `target` in a `from X import`: relative when the
    file's own import was relative and they share a top-level package, else absolute."""
    if not relative:
        return target
    base = from_module.split(".") if from_module else []
    if not from_is_pkg:
        base = base[:-1]
    dest = target.split(".")
    common = 0
    while common < min(len(base), len(dest)) and base[common] == dest[common]:
        common += 1
    if common == 0:
        return target
    return "." * (len(base) - common + 1) + ".".join(dest[common:])


def python_files(ws: Workspace) -> Iterator[str]:
    for path in iter_files(ws.root, max_files=MAX_FILES):
        if path.name.endswith(SUFFIXES):
            yield ws.rel(path)


def parse(ws: Workspace, rel: str) -> SourceFile | None:
    doc = ws.read(rel)
    try:
        tree = ast.parse(doc.text, filename=rel)
    except (SyntaxError, ValueError):
        return None
    return SourceFile(rel, doc.text, tree, doc.hash)


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_time_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported: top level, inside if/try (not under
    `if TYPE_CHECKING:`), never inside functions or classes."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not _type_checking(node.test):
                stack.extend(reversed(node.body))
            stack.extend(reversed(node.orelse))
        elif isinstance(node, ast.Try):
            for part in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                stack.extend(reversed(part))


def edges_of(tree: ast.Module, module: str, is_pkg: bool, known: set[str]) -> set[str]:
    """Modules of the workspace that `module` imports at import time (a package's submodules named
    in `from pkg import sub` count as that submodule)."""
    out: set[str] = set()
    for node in import_time_imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    out.add(alias.name)
            continue
        base = resolve_from(module, is_pkg, node)
        for alias in node.names:
            sub = f"{base}.{alias.name}" if base else alias.name
            if sub in known:
                out.add(sub)
            elif base in known:
                out.add(base)
    out.discard(module)
    return out


def find_cycle(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """A path start -> ... -> goal in the graph (breadth first), or None."""
    prev: dict[str, str | None] = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        if node == goal:
            path = [node]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])  # type: ignore[arg-type]
            return list(reversed(path))
        for nxt in sorted(graph.get(node, ())):
            if nxt not in prev:
                prev[nxt] = node
                queue.append(nxt)
    return None


def new_cycle(graph: dict[str, set[str]], added: Iterable[tuple[str, str]]) -> list[str] | None:
    """The first import cycle that one of the `added` edges (a, b) closes: b -> ... -> a."""
    full = {k: set(v) for k, v in graph.items()}
    for a, b in added:
        full.setdefault(a, set()).add(b)
    for a, b in added:
        if a == b:
            continue
        back = find_cycle(full, b, a)
        if back is not None:
            return [a, *back]
    return None
