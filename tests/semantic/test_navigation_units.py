"""Navigation helpers without a server: the token budget of grouped hits, hover cleaning, class
headers' bases, and the symbol-edit span rules."""

from __future__ import annotations

from pathlib import Path

from agent.bootstrap import open_context
from agent.config import Settings
from agent.semantic.class_tree import bases_of
from agent.semantic.hits import Hit, group_hits
from agent.semantic.outlines import Outlines
from agent.semantic.type_info import clean_hover, declared_type, kind_of
from agent.syntax.definition_span import blank_lines, defined_names, reindent


def test_hits_are_grouped_by_enclosing_symbol_and_the_cut_is_stated(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class A:\n    def m(self):\n        f()\n        f()\n\n\ndef g():\n    f()\n")
    (tmp_path / "b.py").write_text("".join(f"f({i})\n" for i in range(200)))
    ctx = open_context(tmp_path, settings=Settings())
    try:
        outlines = Outlines(ctx)
        hits = [Hit("a.py", 2, 8), Hit("a.py", 3, 8), Hit("a.py", 7, 4)] + [Hit("b.py", i, 0) for i in range(200)]
        full = group_hits(outlines, hits)
        assert [g["in"] for g in full.files[0]["groups"]] == ["A.m", "g"]
        assert full.files[0]["groups"][0]["hits"][0]["text"] == "f()"
        assert full.left_out == 0 and full.statement() == ""
        cut = group_hits(outlines, hits, budget=100)  # ~400 characters
        assert cut.shown + cut.left_out == 203 and cut.left_out > 0
        assert cut.left_out_files == {"b.py": 200 - (cut.shown - 3)}
        assert cut.statement() == (f"[left out to stay within ~3000 tokens: {cut.left_out} hit(s) in 1 file(s): "
                                   f"b.py ({cut.left_out})]")
    finally:
        ctx.close()


def test_hover_cleaning() -> None:
    sig, doc = clean_hover("```python\n(method) def get(self) -> T\n```\n---\nReturn the **item**.\n\nMore.")
    assert (sig, doc) == ("(method) def get(self) -> T", "Return the item.")
    assert kind_of(sig) == ("method", "def get(self) -> T")
    assert declared_type("first", "const first: Circle") == "Circle"
    assert declared_type("r", kind_of("(property) Circle.r: number")[1]) == "number"


def test_bases_from_class_headers() -> None:
    assert bases_of("class Square(Shape, metaclass=Meta)") == ("Shape",)
    assert bases_of("class Box(Generic[T], models.Model)") == ("Generic", "Model")
    assert bases_of("export abstract class Base<T> extends Root<T> implements Shape, Named") == (
        "Root", "Shape", "Named")


def test_symbol_edit_text_rules() -> None:
    assert reindent("\n  def f():\n      return 1\n\n", "    ") == ["    def f():", "        return 1"]
    assert defined_names("def volume(self):\n    return 0\n", "python", member=True) == (["volume"], 0)
    assert defined_names("area(): number { return 1; }", "typescript", member=True) == (["area"], 0)
    assert blank_lines("def a():\n    pass\n\n\ndef b():\n    pass\n", "python", 0) == 2
    assert blank_lines("class A:\n    def a(self):\n        pass\n    def b(self):\n        pass\n", "python", 1) == 0
