"""Parsing and outlines on the fixtures in fixtures/syntax/: kinds, name paths, 1-based character
positions (non-ASCII and emoji before a symbol), signatures, nesting, and broken files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.syntax import Symbol, count_errors, flatten, language_for, outline, parse, supported_languages
from agent.syntax.languages import UnsupportedLanguageError, fingerprint, get_query

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "syntax"


def symbols_of(name: str) -> dict[str, list[Symbol]]:
    path = FIXTURES / name
    language = language_for(path)
    assert language is not None
    out: dict[str, list[Symbol]] = {}
    for sym in flatten(outline(path.read_text(encoding="utf-8"), language)):
        out.setdefault(sym.name_path, []).append(sym)
    return out


def one(symbols: dict[str, list[Symbol]], name_path: str) -> Symbol:
    found = symbols[name_path]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(("path", "language"), [
    ("a.py", "python"), ("a.pyi", "python"), ("x/b.JS", "javascript"), ("c.jsx", "javascript"),
    ("c.mjs", "javascript"), ("d.ts", "typescript"), ("d.mts", "typescript"), ("e.tsx", "tsx"),
    ("f.go", "go"), ("g.rs", "rust"), ("H.java", "java"), ("README.md", None), ("Makefile", None),
])
def test_language_for(path: str, language: str | None) -> None:
    assert language_for(path) == language


def test_every_language_has_compiling_queries() -> None:
    for language in supported_languages():
        assert get_query(language, "outline") is not None
        assert get_query(language, "identifiers") is not None
    for language in ("python", "javascript", "typescript", "tsx"):
        assert get_query(language, "locals") is not None
    assert get_query("go", "locals") is None  # Go/Rust/Java: outline and AST only
    assert len(fingerprint()) == 16


def test_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(UnsupportedLanguageError, match="no grammar for language 'cobol'"):
        parse("x", "cobol")


def test_count_errors() -> None:
    assert count_errors("def f():\n    return 1\n", "python") == 0
    assert count_errors("def f(:\n    return 1\n", "python") >= 1
    assert count_errors("const x = ;", "javascript") >= 1
    assert count_errors("let x: number = 1;", "typescript") == 0
    assert count_errors("let x: number = 1;", "javascript") >= 1  # a type annotation is not JavaScript
    assert count_errors("", "python") == 0


def test_python_kinds_and_nesting() -> None:
    syms = symbols_of("tricky.py")
    assert one(syms, "MAX_RETRIES").kind == "constant"
    assert one(syms, "_private_default").kind == "variable"
    assert one(syms, "plain").kind == "function"
    assert one(syms, "Outer").kind == "class"
    assert one(syms, "Outer.limit").kind == "field"
    assert one(syms, "Outer.Inner.Deepest").kind == "class"
    assert one(syms, "Outer.Inner.Deepest.deep").kind == "method"
    assert one(syms, "Outer.Inner.Deepest.deep.local_helper").kind == "function"
    assert one(syms, "Outer.run").signature == "async def run(self)"
    assert one(syms, "fetch").signature == "async def fetch(url: str) -> bytes"
    # names inside strings and comments are not symbols
    assert "f" not in syms and "counter" not in syms


def test_python_decorators_are_in_the_range_but_not_the_name_position() -> None:
    dec = one(symbols_of("tricky.py"), "decorated")
    assert (dec.line, dec.column) == (17, 1)  # the first decorator
    assert (dec.name_line, dec.name_column) == (19, 5)
    assert (dec.end_line, dec.end_column) == (20, 13)
    assert dec.signature == "def decorated(x)"


def test_python_overloads_are_all_listed() -> None:
    gets = symbols_of("tricky.py")["Outer.get"]
    assert [g.signature for g in gets] == [
        "def get(self, key: int) -> int", "def get(self, key: str) -> str", "def get(self, key)"]
    assert [g.name_line for g in gets] == [42, 44, 45]
    assert all(g.kind == "method" for g in gets)


def test_columns_count_characters_after_emoji_and_non_ascii() -> None:
    syms = symbols_of("tricky.py")
    pi = one(syms, "π")
    # line 9: `greeting = "héllo 😀"; π = 3.14159`: π is the 23rd character (UTF-8 byte 28)
    assert (pi.line, pi.column, pi.name_column, pi.end_column) == (9, 23, 23, 34)
    greet = one(syms, "grüße")
    assert (greet.name_line, greet.name_column) == (59, 5)
    assert greet.signature == "def grüße(名前: str) -> str"
    after = one(symbols_of("widgets.ts"), "AFTER_EMOJI")
    assert (after.name_line, after.name_column) == (5, 39)


def test_python_end_positions_are_exclusive() -> None:
    text = "x = 1\nclass A:\n    def m(self):\n        pass\n"
    [x, cls] = outline(text, "python")
    assert (x.line, x.column, x.end_line, x.end_column) == (1, 1, 1, 6)
    assert (cls.line, cls.column, cls.end_line, cls.end_column) == (2, 1, 4, 13)
    [method] = cls.children
    assert method.name_path == "A.m" and (method.name_line, method.name_column) == (3, 9)


def test_broken_file_still_has_an_outline() -> None:
    syms = symbols_of("broken.py")
    assert {"fine", "AfterError", "AfterError.method"} <= set(syms)
    assert count_errors((FIXTURES / "broken.py").read_text(), "python") >= 1


def test_typescript_outline() -> None:
    syms = symbols_of("widgets.ts")
    kinds = {path: [s.kind for s in found] for path, found in syms.items()}
    assert kinds["DEFAULT_SIZE"] == ["constant"]
    assert kinds["mutableCount"] == ["variable"]
    assert kinds["Widget"] == ["interface"]
    assert kinds["Widget.id"] == ["field"]
    assert kinds["Widget.render"] == ["method"]
    assert kinds["WidgetId"] == ["type"]
    assert kinds["Color"] == ["enum"]
    assert kinds["Color.Red"] == kinds["Color.Green"] == ["enum_member"]
    assert kinds["Registry"] == ["namespace"]
    assert kinds["Registry.register"] == ["function"]
    assert kinds["parse"] == ["function", "function", "function"]  # two overload signatures + implementation
    assert kinds["Shape"] == ["class"]
    assert kinds["Shape.area"] == ["method"]
    assert kinds["Circle.constructor"] == ["method"]
    assert kinds["Circle.diameter"] == ["method"]
    assert kinds["makeCircle"] == ["function"]
    assert one(syms, "Widget").signature == "interface Widget<T> extends Base"
    assert one(syms, "makeCircle").signature == "const makeCircle = async (r: number): Promise<Circle> =>"
    assert one(syms, "WidgetId").signature == "type WidgetId = string | number"


def test_tsx_components() -> None:
    syms = symbols_of("App.tsx")
    assert one(syms, "Button").kind == "function"
    app = one(syms, "App")
    assert (app.kind, app.signature) == ("function", "function App(): JSX.Element")
    assert (app.line, app.column, app.end_line, app.end_column) == (9, 8, 17, 2)
    assert one(syms, "App.increment").kind == "function"
    assert one(syms, "Legacy").kind == "class"
    assert one(syms, "Legacy.render").kind == "method"
    assert one(syms, "ButtonProps").kind == "type"
    assert "label" not in syms and "ButtonProps.label" not in syms  # props of an inline type are not symbols


def test_javascript_outline() -> None:
    syms = symbols_of("util.js")
    assert one(syms, "VERSION").kind == "constant"
    assert one(syms, "legacyCounter").kind == "variable"
    assert one(syms, "ids").signature == "function* ids()"
    assert one(syms, "Cache.#store").kind == "field"
    assert one(syms, "Cache.get").kind == "method"
    assert one(syms, "Cache.shared").kind == "method"
    assert one(syms, "debounce").kind == "function"
    assert "timer" not in syms and "id" not in syms  # locals are not in the outline


def test_go_outline() -> None:
    syms = symbols_of("server.go")
    assert one(syms, "MaxConns").kind == "constant"
    assert one(syms, "defaultAddr").kind == "variable"
    assert one(syms, "Server").kind == "struct"
    assert one(syms, "Server.Addr").kind == "field"
    assert one(syms, "Handler").kind == "interface"
    assert one(syms, "Handler.Serve").kind == "method"
    assert one(syms, "ID").kind == "type"
    assert one(syms, "New").kind == "function"
    start = one(syms, "Server.Start")  # a method is qualified by its receiver type
    assert (start.kind, start.signature) == ("method", "func (s *Server) Start() error")


def test_rust_outline() -> None:
    syms = symbols_of("shapes.rs")
    kinds = {path: [s.kind for s in found] for path, found in syms.items()}
    assert kinds["MAX_SIDES"] == ["constant"]
    assert kinds["Point"] == ["struct", "impl"]  # the struct, and `impl fmt::Display for Point`
    assert kinds["Point.x"] == ["field"]
    assert kinds["Shape"] == ["enum", "impl"]
    assert kinds["Shape.Square"] == ["enum_member"]
    assert kinds["Area"] == ["trait"]
    assert kinds["Area.area"] == ["method"]
    assert kinds["Shape.area"] == ["method"]  # in `impl Area for Shape`
    assert kinds["Point.fmt"] == ["method"]
    assert kinds["helpers"] == ["module"]
    assert kinds["helpers.double"] == ["function"]
    assert syms["Shape"][1].signature == "impl Area for Shape"


def test_java_outline() -> None:
    syms = symbols_of("Main.java")
    assert one(syms, "Main").kind == "class"
    assert one(syms, "Main.LIMIT").kind == "field"
    assert one(syms, "Main.Main").kind == "constructor"
    assert one(syms, "Main.toString").signature == "@Override public String toString()"
    assert one(syms, "Main.Inner.run").kind == "method"
    assert one(syms, "Main.Callback").kind == "interface"
    assert one(syms, "Main.Level.HIGH").kind == "enum_member"
    assert one(syms, "Main.main").kind == "method"


def test_symbols_serialise() -> None:
    [cls] = outline("class A:\n    def m(self): pass\n", "python")
    data = cls.to_dict()
    assert data["name_path"] == "A" and data["children"][0]["name_path"] == "A.m"


def test_crlf_and_empty_input() -> None:
    assert outline("", "python") == []
    [fn] = outline("def f():\r\n    pass\r\n", "python")
    assert (fn.name, fn.line, fn.end_line) == ("f", 1, 2)
