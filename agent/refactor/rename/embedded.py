"""Python source held in string literals: scripts a test feeds to a subprocess, code given to
`exec`. Such code runs, so a renamed module-level name it uses through an import of its module
(`import click` ... `click.echo(...)`, `from click import echo`) must change with the rest
(reason `embedded-code`). Other occurrences of the name in such code are listed for review.

A string counts as code when it spans several lines and parses as Python without errors, with at
least one import, def or class statement. Offsets are those of the source text of the literal.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import tree_sitter as ts

from lsp_bridge.types import Position, Range

from ...syntax import count_errors, parse
from .collector import Collector
from .pysource import PySource, class_bases, is_self_attribute, module_level_binding, owner_class, text_of
from .sources import Sources

CODE_STATEMENTS = frozenset({"import_statement", "import_from_statement", "function_definition",
                             "class_definition", "decorated_definition"})
MAX_EMBEDDED_CHARS = 100_000


def _code_strings(src: PySource, name: str) -> Iterator[tuple[ts.Node, str, ts.Tree]]:
    """(string_content node, its source text, its parse) for strings that hold Python code."""
    wanted = name.encode("utf-8", "surrogatepass")
    for node in src.strings():
        raw = node.text or b""
        if wanted not in raw or b"\n" not in raw or len(raw) > MAX_EMBEDDED_CHARS:
            continue
        start = (node.children[0].text or b"").lower() if node.children else b""
        parts = [c for c in node.children if c.type not in ("string_start", "string_end")]
        if b"f" in start or len(parts) != 1 or parts[0].type != "string_content":
            continue
        content = parts[0]
        code = (content.text or b"").decode("utf-8", "surrogatepass")
        if count_errors(code, "python"):
            continue
        tree = parse(code, "python")
        if any(stmt.type in CODE_STATEMENTS for stmt in tree.root_node.named_children):
            yield content, code, tree


def _module_file(sources: Sources, dotted: str) -> Path | None:
    parts = dotted.split(".")
    for base in (sources.root, sources.root / "src", sources.root / "lib"):
        for candidate in (base.joinpath(*parts, "__init__.py"), base.joinpath(*parts[:-1], parts[-1] + ".py")):
            if candidate.is_file():
                return candidate
    return None


def _renamed_in_module(sources: Sources, coll: Collector, dotted: str, name: str) -> bool:
    """Is the module-level binding of `name` in module `dotted` (a workspace file) renamed?"""
    path = _module_file(sources, dotted)
    src = sources.parsed(path) if path is not None else None
    if src is None:
        return False
    return any(module_level_binding(ident) and coll.covers(src.path, src.position(ident.start_point))
               for ident in src.identifiers(name))


def _imports(tree: ts.Tree) -> tuple[dict[str, str], dict[str, str]]:
    """(local name -> module for `import m [as x]`, local name -> module for `from m import n`)."""
    modules: dict[str, str] = {}
    names: dict[str, str] = {}
    for stmt in tree.root_node.named_children:
        if stmt.type == "import_statement":
            for item in stmt.named_children:
                if item.type == "aliased_import":
                    modules[text_of(item.child_by_field_name("alias"))] = text_of(item.child_by_field_name("name"))
                elif item.type == "dotted_name":
                    modules[text_of(item.named_children[0])] = text_of(item.named_children[0])
        elif stmt.type == "import_from_statement":
            module = text_of(stmt.child_by_field_name("module_name"))
            for item in stmt.children_by_field_name("name"):
                if item.type == "dotted_name":
                    names[text_of(item)] = module
    return modules, names


def _in_family_class(ident: ts.Node, derives: Callable[[str], bool]) -> bool:
    """`def name` in a class (of the embedded code) whose base is in the member's family, or
    `self.name` inside such a class's methods."""
    parent = ident.parent
    cls: ts.Node | None = None
    if parent is not None and parent.type == "function_definition" and parent.child_by_field_name("name") == ident:
        cls = owner_class(parent)
    elif is_self_attribute(ident) is not None:
        cls = is_self_attribute(ident)
    return cls is not None and any(derives(text_of(base)) for base in class_bases(cls))


def embedded_sites(sources: Sources, coll: Collector, name: str,
                   derives: Callable[[PySource, str], bool] | None = None) -> list[tuple[Path, Position]]:
    """Rename the confirmed occurrences of `name` in code held in strings; return the others.
    `derives(src, base)`: does the class that `base` names in `src`'s module scope belong to the
    renamed member's family (code in a string uses the enclosing module's names)?"""
    unconfirmed: list[tuple[Path, Position]] = []
    for path in sources.files_containing(name):
        src = sources.parsed(path)
        if src is None:
            continue
        for content, code, tree in _code_strings(src, name):
            base = src.position(content.start_point)
            modules, names = _imports(tree)
            from_renamed = name in names and _renamed_in_module(sources, coll, names[name], name)
            lines = code.split("\n")
            for ident in PySource(path, code).identifiers(name):
                row, bcol = ident.start_point
                col = len(lines[row].encode("utf-8", "surrogatepass")[:bcol].decode("utf-8", "surrogatepass"))
                pos = Position(base.line + row, (base.character if row == 0 else 0) + col)
                parent = ident.parent
                confirmed = from_renamed and not (
                    parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == ident)
                if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == ident:
                    obj = parent.child_by_field_name("object")
                    module = modules.get(text_of(obj)) if obj is not None and obj.type == "identifier" else None
                    confirmed = module is not None and _renamed_in_module(sources, coll, module, name)
                if not confirmed and derives is not None:
                    confirmed = _in_family_class(ident, functools.partial(derives, src))
                if confirmed:
                    coll.add(path, Range(pos, Position(pos.line, pos.character + len(name))), "embedded-code")
                elif not coll.covers(path, pos):
                    unconfirmed.append((path, pos))
    return unconfirmed
