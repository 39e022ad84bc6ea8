"""While the server computes a references answer, the name search reads every candidate file and
finds the name's word positions in it, also in the files past the per-query parse bounds: the
scan after the answer (which checks every candidate's words against the confirmed ones) then
reads and searches no file again, and finds what an unprepared scan finds."""

from __future__ import annotations

from pathlib import Path

from agent.bootstrap import open_context
from agent.semantic import name_occurrences
from agent.semantic.filecache import file_cache
from agent.semantic.name_occurrences import MAX_CHECKED_CHARS, NameSearch, unconfirmed_hits, word_positions


def test_every_candidate_is_read_while_the_server_answers_even_past_the_parse_bounds(tmp_path: Path) -> None:
    filler = "x = 0\n" * (MAX_CHECKED_CHARS // 6 // 2 + 10)  # two of these exhaust the parse bound
    (tmp_path / "a.py").write_text("total = 1\n" + filler, encoding="utf-8")
    (tmp_path / "b.py").write_text(filler + "print(total)\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("# total\ny = total + 1\n", encoding="utf-8")  # past the bound
    with open_context(tmp_path) as ctx:
        search = NameSearch(ctx, "total", "python").start()
        assert search.files() == ["a.py", "b.py", "c.py"]
        name_occurrences._prepare_pool.submit(lambda: None).result(timeout=120)  # the prepare is done
        assert sorted(search.known) == ["a.py", "b.py"]  # parsed: the bound stopped there
        texts = file_cache(ctx)
        assert sorted(search.words) == ["a.py", "b.py", "c.py"]  # but every one was read
        for rel, (text, words) in search.words.items():
            assert text is texts.text(rel)  # the session's copy: the scan's lookups find it
            assert words == word_positions(text, "total")
        found = unconfirmed_hits(ctx, search, {"a.py": {(0, 0)}})
        prepared = sorted((h.path, h.line, h.column) for h in found.hits)
    with open_context(tmp_path) as fresh:  # nothing prepared: the same hits
        unprepared = unconfirmed_hits(fresh, NameSearch(fresh, "total", "python"), {"a.py": {(0, 0)}})
        assert prepared == sorted((h.path, h.line, h.column) for h in unprepared.hits)
    assert ("c.py", 1, 4) in prepared and ("c.py", 0, 2) not in prepared
