"""`__all__` lists in a move: take the moved name out of the source's, put it into DEST's, keeping
the list's own layout and quotes."""

from __future__ import annotations

import ast

from .edits import FileChanges, SourceFile


def all_list(src: SourceFile) -> ast.List | ast.Tuple | None:
    """The module's top-level `__all__ = [...]` / `(...)` of string constants, if any."""
    for stmt in src.tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
            stmt, ast.AnnAssign) else []
        value = getattr(stmt, "value", None)
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and isinstance(
                value, ast.List | ast.Tuple):
            return value
    return None


def exports(src: SourceFile, name: str) -> bool:
    """Does `from module import *` give `name`? (In `__all__`, or public when there is none.)"""
    listed = all_list(src)
    if listed is None:
        return not name.startswith("_")
    return any(isinstance(e, ast.Constant) and e.value == name for e in listed.elts)


def quote_of(src: SourceFile) -> str:
    listed = all_list(src)
    if listed is not None and listed.elts:
        first = src.text[src.node_span(listed.elts[0])[0]]
        if first in "'\"":
            return first
    return '"'


def remove_entry(changes: FileChanges, name: str) -> bool:
    """Take `name` out of the file's `__all__`; False when it is not listed."""
    src = changes.file
    listed = all_list(src)
    if listed is None:
        return False
    elts = listed.elts
    for index, elt in enumerate(elts):
        if isinstance(elt, ast.Constant) and elt.value == name:
            start, end = src.node_span(elt)
            if index + 1 < len(elts):
                end = src.node_span(elts[index + 1])[0]
            elif index > 0:
                start = src.node_span(elts[index - 1])[1]
            elif isinstance(listed, ast.Tuple):  # ("x",) -> ()
                end = src.text.find(")", end)
            changes.replace(start, end, "", "__all__ entry moved")
            return True
    return False


def add_entry(changes: FileChanges, name: str, quote: str) -> bool:
    """Add `name` at the end of the file's `__all__`; False when there is none."""
    src = changes.file
    listed = all_list(src)
    if listed is None:
        return False
    if any(isinstance(e, ast.Constant) and e.value == name for e in listed.elts):
        return True
    entry = f"{quote}{name}{quote}"
    if not listed.elts:
        start, end = src.node_span(listed)
        changes.insert(end - 1, entry + ("," if isinstance(listed, ast.Tuple) else ""), "__all__ entry moved")
        return True
    last = listed.elts[-1]
    last_start, last_end = src.node_span(last)
    if last.lineno > listed.lineno or (len(listed.elts) > 1 and last.lineno > listed.elts[0].lineno):
        line_start = src.line_start(last.lineno)
        indent = src.text[line_start:last_start]
        indent = indent if not indent.strip() else "    "
        changes.insert(last_end, f",\n{indent}{entry}", "__all__ entry moved")
    else:
        changes.insert(last_end, f", {entry}", "__all__ entry moved")
    return True
