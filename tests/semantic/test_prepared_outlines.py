"""A references query parses each candidate file once: the parse that finds the name's code
occurrences (while the server computes, or after its answer for a referenced file) also gives the
outline the answer groups the hits by (outlines.keep_outline), so the grouping after the answer
parses none of those files again. The kept outline is the one a fresh parse makes."""

from __future__ import annotations

from pathlib import Path

from agent.bootstrap import open_context
from agent.semantic import name_occurrences
from agent.semantic.filecache import file_cache
from agent.semantic.name_occurrences import NameSearch, unconfirmed_hits
from agent.semantic.outlines import Outlines
from agent.syntax import flatten, outline

OUTLINES = "navigation.outlines"  # the context service Outlines keeps parsed outlines in

FILES = {
    "a.py": "class Tools:\n    def helper(self) -> int:\n        return 1\n",
    "b.py": ("# é, ü: columns count characters\nfrom a import Tools\n\n\nclass Über:\n"
             "    def run(self) -> int:\n        return Tools().helper() + Tools().helper()\n"),
    "c.py": "'''helper is only named in strings here'''\nx = 'helper'  # helper\n",
    "d.py": "def other() -> None:\n    helper = 2\n    print(helper)\n",
}


def _tree(root: Path) -> None:
    for rel, text in FILES.items():
        (root / rel).write_text(text, encoding="utf-8")


def _kept(ctx: object) -> dict[str, tuple[str, object]]:
    return ctx.service(OUTLINES, dict)  # type: ignore[attr-defined, no-any-return]


def test_candidates_parsed_while_the_server_answers_keep_their_outline(tmp_path: Path) -> None:
    _tree(tmp_path)
    with open_context(tmp_path) as ctx:
        search = NameSearch(ctx, "helper", "python").start()  # what find_references does on_sent
        assert search.files() == ["a.py", "b.py", "c.py", "d.py"]
        name_occurrences._prepare_pool.submit(lambda: None).result(timeout=60)  # the prepare is done
        kept = _kept(ctx)
        texts = file_cache(ctx)
        # every file with the name in code kept its outline, of the very text the answer reads
        assert sorted(kept) == ["a.py", "b.py", "d.py"]  # c.py names it only in strings and comments
        for rel in kept:
            assert kept[rel][0] is texts.text(rel)
        # the grouping finds it (no parse) and it is what a parse of the file gives
        outlines = Outlines(ctx)
        assert outlines.where("b.py", 6, 23) == ("Über.run", "method")
        for rel, text in FILES.items():
            if rel in kept:
                assert outlines.symbols(rel) == list(flatten(outline(text, "python")))
        search.stop_preparing()


def test_a_referenced_file_parsed_after_the_answer_keeps_its_outline(tmp_path: Path) -> None:
    """Not prepared in time (a fast answer): the scan after it parses a file the answer lists
    (it has an unconfirmed occurrence too) once, for both; an unlisted file's outline is not made."""
    _tree(tmp_path)
    with open_context(tmp_path) as ctx:
        search = NameSearch(ctx, "helper", "python")  # never started: nothing prepared
        found = unconfirmed_hits(ctx, search, {"a.py": {(1, 8)}, "b.py": {(6, 23)}})
        assert sorted((h.path, h.line, h.column) for h in found.hits) == [
            ("b.py", 6, 42), ("d.py", 1, 4), ("d.py", 2, 10)]
        kept = _kept(ctx)
        assert sorted(kept) == ["b.py"]  # a.py: every occurrence confirmed, never parsed; d.py: no hits listed
        assert Outlines(ctx).symbols("b.py") == list(flatten(outline(FILES["b.py"], "python")))
