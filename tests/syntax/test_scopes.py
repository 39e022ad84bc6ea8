"""Identifier occurrences without a language server: `code_occurrences` (tokens in code only)
and `local_occurrences` (scope-aware: shadowing by parameters and locals, global/nonlocal,
class bodies, block scopes, var hoisting, type parameters), with character columns."""

from __future__ import annotations

import re

import pytest

from agent.syntax import Occurrences, code_occurrences, local_occurrences


def positions(text: str, name: str) -> list[tuple[int, int]]:
    """0-based (line, column) of every whole-word `name` in `text` (strings and comments included)."""
    out = []
    for row, line in enumerate(text.split("\n")):
        for m in re.finditer(rf"(?<![\w#]){re.escape(name)}(?!\w)", line):
            out.append((row, m.start()))
    return out


def at(text: str, name: str, nth: int) -> tuple[int, int]:
    return positions(text, name)[nth]


def occ(text: str, language: str, name: str, nth: int) -> Occurrences:
    line, col = at(text, name, nth)
    found = local_occurrences(text, language, line, col)
    assert found is not None
    assert found.name == name and found.source == "syntactic"
    return found


def where(found: Occurrences) -> list[tuple[int, int]]:
    return [(o.line, o.column) for o in found.occurrences]


def defs(found: Occurrences) -> list[tuple[int, int]]:
    return [(o.line, o.column) for o in found.occurrences if o.is_definition]


PY = '''import os
total = 0  # total in a comment
label = "total 😀"; total = total + 1


def add(total, step=1):
    """the total"""
    result = total + step

    def inner():
        nonlocal result
        result = result * 2
        return total

    return inner() + result


def bump():
    global total
    total += 1


class Counter:
    total = 10

    def read(self):
        return total + self.total


print(total, f"{total}")
'''


def test_code_occurrences_skip_strings_and_comments() -> None:
    found = code_occurrences(PY, "python", "total")
    all_words = positions(PY, "total")
    skipped = {at(PY, "total", 1), at(PY, "total", 2), at(PY, "total", 6)}  # comment, string, docstring
    assert found == sorted(set(all_words) - skipped)
    assert at(PY, "total", -1) in found  # inside an f-string's braces: code


def test_code_occurrences_count_characters_after_emoji() -> None:
    text = 'label = "😀😀"; name = 1\nname\n'
    assert code_occurrences(text, "python", "name") == [(0, 14), (1, 0)]
    assert code_occurrences(text, "python", "missing") == []
    assert code_occurrences(text, "python", "") == []


def test_code_occurrences_other_languages() -> None:
    ts_text = 'const s = "value"; // value\nlet value: Value = s as Value;\nobj.value = 1;\n'
    assert code_occurrences(ts_text, "typescript", "value") == [(1, 4), (2, 4)]
    assert code_occurrences(ts_text, "typescript", "Value") == [(1, 11), (1, 24)]
    go_text = 'package m\n// Run runs\nfunc Run() { s := "Run"; Run() }\n'
    assert code_occurrences(go_text, "go", "Run") == [(2, 5), (2, 25)]


def test_python_module_variable() -> None:
    found = occ(PY, "python", "total", 0)
    assert found.scope == "module" and found.defined
    # every module-level `total`: assignments, the one rebound via `global`, reads in functions
    # and the method (class bodies do not hide module names from methods), the f-string
    expected = [at(PY, "total", i) for i in (0, 3, 4, 9, 10, 12, 14, 15)]
    assert where(found) == expected
    assert defs(found) == [at(PY, "total", 0), at(PY, "total", 3), at(PY, "total", 10)]


def test_python_parameter_shadows_module_variable() -> None:
    found = occ(PY, "python", "total", 5)  # add's parameter
    assert found.scope == "local"
    assert where(found) == [at(PY, "total", 5), at(PY, "total", 7), at(PY, "total", 8)]  # inner() sees it too
    assert defs(found) == [at(PY, "total", 5)]
    assert found.scope_range[0] == at(PY, "def add", 0)[0]


def test_python_nonlocal_reaches_the_enclosing_function() -> None:
    found = occ(PY, "python", "result", 2)  # `result = result * 2` inside inner()
    assert where(found) == positions(PY, "result")
    assert found.scope == "local"


def test_python_class_attribute_is_a_member() -> None:
    found = occ(PY, "python", "total", 11)  # `total = 10` in the class body
    assert found.scope == "member"
    assert where(found) == [at(PY, "total", 11), at(PY, "total", 13)]  # and `self.total`
    assert defs(found) == [at(PY, "total", 11)]


def test_python_attribute_and_keyword_names_are_not_variables() -> None:
    text = "def f(x):\n    return g(x=x, y=x.x)\n"
    found = local_occurrences(text, "python", 0, 6)
    assert found is not None
    assert where(found) == [(0, 6), (1, 15), (1, 20)]  # not the keyword `x=` nor the attribute `.x`


def test_python_comprehension_and_lambda_scopes() -> None:
    text = "i = 5\nsquares = [i * i for i in range(3)]\nf = lambda i: i + 1\nprint(i)\n"
    outer = local_occurrences(text, "python", 0, 0)
    assert outer is not None and where(outer) == [(0, 0), (3, 6)]
    comp = local_occurrences(text, "python", 1, 11)
    assert comp is not None and where(comp) == [(1, 11), (1, 15), (1, 21)]
    lam = local_occurrences(text, "python", 2, 11)
    assert lam is not None and where(lam) == [(2, 11), (2, 14)]


def test_python_imports_and_unresolved_names() -> None:
    text = "import os.path\nfrom a import b as c, d\nos.getcwd(); c(); d; print(1)\nprint(2)\n"
    assert where(local_occurrences(text, "python", 0, 7)) == [(0, 7), (2, 0)]  # type: ignore[arg-type]
    assert where(local_occurrences(text, "python", 1, 19)) == [(1, 19), (2, 13)]  # type: ignore[arg-type]
    assert where(local_occurrences(text, "python", 1, 22)) == [(1, 22), (2, 18)]  # type: ignore[arg-type]
    builtin = local_occurrences(text, "python", 3, 0)
    assert builtin is not None and not builtin.defined and builtin.scope == "module"
    assert where(builtin) == [(2, 21), (3, 0)]


def test_position_at_end_of_identifier_and_no_identifier() -> None:
    text = "value = 1\nprint(value)\n"
    found = local_occurrences(text, "python", 1, 11)  # just after `value`
    assert found is not None and found.name == "value"
    assert local_occurrences(text, "python", 0, 6) is None  # on `=`
    assert local_occurrences(text, "python", 9, 0) is None
    assert local_occurrences(text, "go", 0, 0) is None  # no scope query for Go


def test_emoji_columns_in_local_occurrences() -> None:
    text = 's = "😀😀"; name = 1\nprint(name, "name")\n'
    found = local_occurrences(text, "python", 0, 12)  # `name` is characters 10-13 (bytes 16-19)
    assert found is not None
    assert [(o.line, o.column, o.end_column) for o in found.occurrences] == [(0, 10, 14), (1, 6, 10)]


JS = '''import { a, b as c } from "m";
var v = 1;
function f(a, { k: v2, v }) {
  if (a) { let a = 2; var hoisted = a; }
  const g = (v) => v + a + hoisted;
  for (const i of [1]) { i; }
  try { c(); } catch (a) { a; }
  return obj.a + c + v;
}
class K { a = 1; m() { return this.a + a; } }
'''


def test_javascript_shadowing() -> None:
    imported = occ(JS, "javascript", "a", 0)
    assert imported.scope == "module"
    assert where(imported) == [at(JS, "a", 0), at(JS, "a", 11)]  # the import and the read in K.m
    param = occ(JS, "javascript", "a", 1)
    assert where(param) == [at(JS, "a", 1), at(JS, "a", 2), at(JS, "a", 5)]  # the arrow function sees it
    block = occ(JS, "javascript", "a", 3)  # `let a` in the if-block shadows the parameter
    assert where(block) == [at(JS, "a", 3), at(JS, "a", 4)]
    caught = occ(JS, "javascript", "a", 6)
    assert where(caught) == [at(JS, "a", 6), at(JS, "a", 7)]


def test_javascript_var_hoists_to_the_function() -> None:
    found = occ(JS, "javascript", "hoisted", 0)
    assert where(found) == positions(JS, "hoisted")
    assert found.scope == "local" and found.scope_range[0] == 2


def test_javascript_destructuring_arrow_params_and_aliases() -> None:
    destructured = occ(JS, "javascript", "v", 1)  # `{ k: v2, v }`
    assert where(destructured) == [at(JS, "v", 1), at(JS, "v", 4)]
    arrow = occ(JS, "javascript", "v", 2)
    assert where(arrow) == [at(JS, "v", 2), at(JS, "v", 3)]
    alias = occ(JS, "javascript", "c", 0)
    assert where(alias) == positions(JS, "c")
    assert local_occurrences(JS, "javascript", *at(JS, "b", 0)).scope == "member"  # type: ignore[union-attr]


def test_javascript_members() -> None:
    found = occ(JS, "javascript", "a", 9)  # the class field `a = 1`
    assert found.scope == "member"
    assert where(found) == [at(JS, "a", 8), at(JS, "a", 9), at(JS, "a", 10)]  # obj.a, the field, this.a
    assert defs(found) == [at(JS, "a", 9)]


TSX = '''import React from "react";
type Props<T> = { item: T };
interface Box<T> { value: T }
export function List<T>(props: Props<T>): JSX.Element {
  const [items, setItems] = React.useState<T[]>([]);
  return <ul>{items.map((item) => <Item key={1} item={item} />)}</ul>;
}
const Item = ({ item }: { item: unknown }) => <li>{String(item)}</li>;
'''


def test_typescript_type_parameters_are_scoped() -> None:
    props_t = occ(TSX, "tsx", "T", 0)
    assert where(props_t) == [at(TSX, "T", 0), at(TSX, "T", 1)]
    box_t = occ(TSX, "tsx", "T", 2)
    assert where(box_t) == [at(TSX, "T", 2), at(TSX, "T", 3)]
    list_t = occ(TSX, "tsx", "T", 4)
    assert where(list_t) == [at(TSX, "T", 4), at(TSX, "T", 5), at(TSX, "T", 6)]


def test_tsx_component_and_locals() -> None:
    item = occ(TSX, "tsx", "Item", 1)  # the definition, after its use in List
    assert item.scope == "module"
    assert where(item) == [at(TSX, "Item", 0), at(TSX, "Item", 1)]
    assert defs(item) == [at(TSX, "Item", 1)]
    items = occ(TSX, "tsx", "items", 0)
    assert where(items) == positions(TSX, "items") and items.scope == "local"
    props = occ(TSX, "tsx", "Props", 0)
    assert where(props) == positions(TSX, "Props")


def test_typescript_parameter_properties_and_enums() -> None:
    text = ("enum Mode { A }\nclass C {\n  constructor(private mode: Mode) {}\n"
            "  run(mode: Mode) { return mode === Mode.A; }\n}\n")
    enum = local_occurrences(text, "typescript", 0, 5)
    assert enum is not None and where(enum) == [(0, 5), (2, 28), (3, 12), (3, 36)]
    param = local_occurrences(text, "typescript", 3, 6)
    assert param is not None and where(param) == [(3, 6), (3, 27)]


@pytest.mark.parametrize("language", ["python", "javascript", "typescript", "tsx"])
def test_broken_code_does_not_crash(language: str) -> None:
    text = "def f(:\n  x = (\n" if language == "python" else "function f( {\n  let x = \n"
    found = local_occurrences(text, language, 1, 2)
    assert found is None or found.name == "x"
