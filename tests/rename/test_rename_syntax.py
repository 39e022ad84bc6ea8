"""The engine's syntactic parts, without a server: what a declaration is, name lists, attribute
names as strings, the checker-config scope, TS shorthand properties, the review scan."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.refactor.rename.collector import Collector
from agent.refactor.rename.pysource import PySource, classes, classify, module_level_binding
from agent.refactor.rename.pystrings import attribute_name_strings, name_list_entries
from agent.refactor.rename.review import review_items
from agent.refactor.rename.shorthands import fix_shorthands
from agent.refactor.rename.sources import Sources
from agent.workspace import Workspace
from lsp_bridge import Position, Range

SOURCE = '''\
import typing as t
from m import x as x, y as why
__all__ = ["Thing", "helper"]
__all__ += ["extra"]


class Thing(Base, metaclass=Meta):
    __slots__ = ("_v", "w")
    kind: str = "a"

    def go(self, a, b: int = 1, *rest, key=None, **kw):
        self._v = a
        local = 1
        getattr(self, "_v")
        object.__setattr__(self, "_v", 2)
        _obj_setattr(self, "_v", 3)
        getattr(other, "_v")
        keep = {k: v for k, v in self.__dict__.items() if k != "_v"}
        return "_v"


def helper(): pass
'''


@pytest.fixture
def src(tmp_path: Path) -> PySource:
    return PySource(tmp_path / "m.py", SOURCE)


def at(src: PySource, needle: str, offset: int = 0, nth: int = 0) -> Position:
    seen = 0
    for line, text in enumerate(SOURCE.split("\n")):
        col = text.find(needle)
        while col >= 0:
            if seen == nth:
                return Position(line, col + offset)
            seen += 1
            col = text.find(needle, col + 1)
    raise AssertionError(needle)


def kind(src: PySource, needle: str, offset: int = 0, nth: int = 0) -> str:
    ident = src.identifier_at(at(src, needle, offset, nth))
    assert ident is not None
    return classify(ident).kind


def test_classify_declarations(src: PySource) -> None:
    assert kind(src, "as t", 3) == "alias"
    assert kind(src, "x as x", 5) == "import"  # `from m import x as x` re-exports
    assert kind(src, "as why", 3) == "alias"
    assert kind(src, "class Thing", 6) == "class"
    assert kind(src, "kind: str") == "class_attr"
    assert kind(src, "def go", 4) == "method"
    assert kind(src, "b: int") == "param"
    assert kind(src, "key=None") == "param"
    assert kind(src, "**kw", 2) == "param"
    assert kind(src, "self._v = a", 5) == "attribute"
    assert kind(src, "local = 1") == "local"
    assert kind(src, "def helper", 4) == "function"


def test_name_lists_and_module_bindings(src: PySource) -> None:
    root = src.tree.root_node
    assert [src.position(n.start_point) for n in name_list_entries(root, frozenset({"__all__"}), "helper")] == [
        at(src, '"helper"', 1)]
    assert len(list(name_list_entries(root, frozenset({"__all__"}), "extra"))) == 1  # __all__ += [...]
    cls = next(classes(root))
    assert [src.position(n.start_point) for n in name_list_entries(
        cls.child_by_field_name("body"), frozenset({"__slots__"}), "_v")] == [at(src, '"_v"', 1)]
    helper = src.identifier_at(at(src, "def helper", 4))
    local = src.identifier_at(at(src, "local = 1"))
    assert helper is not None and module_level_binding(helper)
    assert local is not None and not module_level_binding(local)


def test_attribute_name_strings_only_on_the_own_class(src: PySource) -> None:
    cls = next(classes(src.tree.root_node))
    found = sorted(src.position(n.start_point) for n in attribute_name_strings(cls, "_v"))
    assert found == [
        at(src, 'getattr(self, "_v")', 15),
        at(src, 'object.__setattr__(self, "_v"', 26),
        at(src, '_obj_setattr(self, "_v"', 20),
        at(src, 'k != "_v"', 6),  # a statement filtering self.__dict__ by the name
    ]  # not getattr(other, "_v"), not the returned "_v"


def test_shorthand_property_keeps_the_other_half(tmp_path: Path) -> None:
    (tmp_path / "scope.ts").write_text(
        "interface S { parent_: number }\n"
        "function make(parent_: number): S {\n"
        "  return { parent_ }\n"
        "}\n")
    ws = Workspace(tmp_path)
    sources = Sources(ws, suffixes=(".ts",))
    path = ws.root / "scope.ts"

    def run(target: Position) -> str:
        coll = Collector("parentScope")
        coll.add(path, Range(Position(2, 11), Position(2, 18)), "lsp")
        assert fix_shorthands(sources, coll, path, target, "parent_", "parentScope") == 1
        (edit,) = coll.edits.values()
        assert edit.reason == "shorthand"
        return edit.new_text

    assert run(Position(1, 14)) == "parent_: parentScope"  # renaming the parameter
    assert run(Position(0, 14)) == "parentScope: parent_"  # renaming the interface property


def test_review_lists_code_and_exact_strings_not_docstrings(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        '"""Mentions spam in a docstring."""\n'
        "def spam(): pass\n"
        "x = spam()\n"
        "name = 'spam'\n"
        "other = 'spam and eggs'\n"
        "# spam in a comment\n")
    ws = Workspace(tmp_path)
    sources = Sources(ws, suffixes=(".py",))
    coll = Collector("ham")
    coll.add(ws.root / "a.py", Range(Position(1, 4), Position(1, 8)), "lsp")
    items, total = review_items(sources, coll, "spam", "python", limit=10)
    assert total == 2
    assert [(i.location.line - 1, i.location.column - 1, i.kind) for i in items] == [(2, 4, "code"), (3, 8, "string")]
    items, total = review_items(sources, coll, "spam", "python", limit=1)
    assert total == 2 and len(items) == 1


def test_sources_never_include_virtualenvs(tmp_path: Path) -> None:
    venv = tmp_path / "env"
    (venv / "lib").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    (venv / "lib" / "mod.py").write_text("spam = 1\n")
    (tmp_path / "site-packages").mkdir()
    (tmp_path / "site-packages" / "lib.py").write_text("spam = 1\n")
    (tmp_path / "a.py").write_text("spam = 1\n")
    sources = Sources(Workspace(tmp_path), suffixes=(".py",))
    assert sources.files_containing("spam") == [sources.root / "a.py"]
    assert not sources.in_workspace(sources.root / "site-packages" / "lib.py")
    assert not sources.in_workspace(tmp_path.parent / "elsewhere.py")


def test_everyday_member_names_are_generated_for_this_python() -> None:
    import sys

    from agent.refactor.rename.builtin_members import builtin_member_names, generate

    names = builtin_member_names()
    assert {"close", "get", "done", "seek", "visit", "_replace", "assertEqual"} <= names
    assert not {"evolve", "_validator", "build_class"} & names
    if sys.version_info[:2] == (3, 11):  # the version everyday_names.txt was generated with
        assert names == generate(), "run `python -m agent.refactor.rename.builtin_members` to refresh everyday_names.txt"
