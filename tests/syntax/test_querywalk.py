"""The pruned query walk (`; walk:` lines in the query files) finds exactly the matches of a
query over every node: on every fixture, on definitions nested in every compound statement, and
on the modules of the standard library (a grammar update that adds a statement kind shows here)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
import tree_sitter as ts

from agent.syntax import flatten, language_for, outline
from agent.syntax.languages import get_language, get_query, parse_bytes, supported_languages
from agent.syntax.querywalk import Match, plan_walk, query_walk, walk_matches

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "syntax"


def normalized(matches: list[Match]) -> list[tuple[int, list[tuple[str, list[tuple[int, int]]]]]]:
    """Matches as comparable data: pattern and the byte ranges of every capture."""
    return sorted((pattern, sorted((name, [(n.start_byte, n.end_byte) for n in nodes]) for name, nodes in caps.items()))
                  for pattern, caps in matches)


def assert_walk_is_exact(source: bytes, language: str) -> int:
    query = get_query(language, "outline")
    assert query is not None
    tree = parse_bytes(source, language)
    walked = walk_matches(tree, query, query_walk(language, "outline"))
    everywhere = walk_matches(tree, query, None)
    assert normalized(walked) == normalized(everywhere)
    return len(everywhere)


def test_python_outline_has_a_walk_and_others_query_everything() -> None:
    walk = query_walk("python", "outline")
    assert walk is not None
    grammar = get_language("python")
    assert {grammar.node_kind_for_id(i) for i in walk.roots} == {
        "module", "class_definition", "function_definition", "decorated_definition"}
    assert {"block", "if_statement", "case_clause", "except_clause"} <= {grammar.node_kind_for_id(i) for i in walk.through}
    assert not {"expression_statement", "call", "string"} & {grammar.node_kind_for_id(i) for i in walk.through}
    for language in supported_languages():
        if language != "python":
            assert query_walk(language, "outline") is None  # definitions can sit inside expressions there


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir() if language_for(p)))
def test_walk_finds_the_same_matches_on_every_fixture(name: str) -> None:
    path = FIXTURES / name
    language = language_for(path)
    assert language is not None
    assert assert_walk_is_exact(path.read_bytes(), language) > 0


def test_definitions_nested_in_every_compound_statement_are_found() -> None:
    source = (FIXTURES / "nesting.py").read_text(encoding="utf-8")
    assert assert_walk_is_exact(source.encode(), "python") > 20
    paths = {s.name_path for s in flatten(outline(source, "python"))}
    for name in ("in_if", "in_elif", "InElse", "in_for", "in_for_else", "in_while", "in_while_else", "in_try",
                 "in_except", "in_except_star", "in_try_else", "in_finally", "in_with", "in_case",
                 "InCase.TYPE", "InCase.method.InMethod.deeper.innermost", "outer.in_async_for",
                 "outer.in_async_with", "Alias"):
        assert name in paths, name


def test_walk_is_exact_on_the_standard_library() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(stdlib.glob("*.py"))[:150] + sorted((stdlib / "asyncio").glob("*.py"))
    assert len(files) > 50
    assert sum(assert_walk_is_exact(path.read_bytes(), "python") for path in files) > 1000


def test_a_tree_with_errors_is_queried_whole() -> None:
    source = b"def ok():\n    pass\n\nx = foo(\ndef inside_error():\n    pass\n"
    tree = parse_bytes(source, "python")
    assert tree.root_node.has_error
    assert assert_walk_is_exact(source, "python") >= 1
    assert [s.name for s in outline(source.decode(), "python")][:1] == ["ok"]


def test_plan_walk_refuses_unknown_types_and_gives_up_on_odd_roots() -> None:
    grammar = get_language("python")

    def plan(source: str) -> object:
        return plan_walk(grammar, ts.Query(grammar, source), source)

    assert plan("(function_definition name: (identifier) @name) @definition.function") is None  # no `; walk:`
    assert plan("; walk: block\n(function_definition) @definition.function") is not None
    with pytest.raises(ValueError, match="blokc"):
        plan("; walk: blokc\n(function_definition) @definition.function")
    assert plan("; walk: block\n[(function_definition) (class_definition)] @definition.thing") is None
    assert plan("; walk: block\n(_ name: (identifier) @name) @definition.thing") is None
    assert plan("; walk: block\n((comment) @doc . (function_definition) @definition.function)") is None
