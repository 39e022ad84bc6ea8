"""A daemon's references query that left candidate files unchecked (its per-query parse bounds)
has them parsed between requests (agent/semantic/name_continuation.py): the next query reports
every candidate checked, with the same hits an unbounded query finds, and the work waits while a
request is being answered."""

from __future__ import annotations

import threading
from pathlib import Path

from agent.bootstrap import open_context
from agent.semantic.name_continuation import continuations
from agent.semantic.name_occurrences import NameSearch, source_listing, unconfirmed_hits
from agent.toolcontext import ToolContext


def _tree(root: Path) -> None:
    for name in "abcde":  # 3,010 characters each: a 5,000-character budget parses two per query
        (root / f"{name}.py").write_text("total = 1\n" + "x = 0\n" * 500, encoding="utf-8")
    (root / "s.py").write_text("'total'  # total\n", encoding="utf-8")  # the word, but not in code


def _query(ctx: ToolContext, max_chars: int) -> tuple[list[tuple[str, int, int]], int]:
    source_listing(ctx).poll()
    found = unconfirmed_hits(ctx, NameSearch(ctx, "total", "python"), {}, max_chars=max_chars)
    return sorted((h.path, h.line, h.column) for h in found.hits), found.unchecked


def test_files_a_daemon_query_left_unchecked_are_parsed_before_the_next_one(tmp_path: Path) -> None:
    _tree(tmp_path)
    with open_context(tmp_path) as unbounded:
        everything, none_left = _query(unbounded, 10**9)
    assert none_left == 0 and [h[0] for h in everything] == ["a.py", "b.py", "c.py", "d.py", "e.py"]

    idle = threading.Event()  # the daemon's "no request is being answered"
    with open_context(tmp_path) as ctx:
        listing = source_listing(ctx)
        idle.set()
        listing.prefetch(between=idle.wait)
        listing.poll()
        idle.clear()  # a request is being answered
        first, left = _query(ctx, 5_000)
        assert [h[0] for h in first] == ["a.py", "b.py"] and left == 4  # the bound, as before
        work = continuations(ctx)
        assert not work.settle(0.5), "the leftovers wait while a request is being answered"
        assert work.parsed == 0
        idle.set()
        assert work.settle(60)
        assert work.parsed == 4
        assert _query(ctx, 5_000) == (everything, 0)  # nothing left unchecked, the same hits

        # an edit after the continuation: the file is parsed afresh (the cache's signature rule)
        (tmp_path / "c.py").write_text("x = 1\ntotal = 2\n", encoding="utf-8")
        (tmp_path / "f.py").write_text("y = total\n", encoding="utf-8")
        (tmp_path / "d.py").unlink()
        hits, left = _query(ctx, 10**9)
        assert left == 0
        assert hits == [("a.py", 0, 0), ("b.py", 0, 0), ("c.py", 1, 0), ("e.py", 0, 0), ("f.py", 0, 4)]


def test_a_one_shot_session_hands_nothing_on(tmp_path: Path) -> None:
    """Without the daemon's listing the next query goes on where this one stopped, as before:
    nothing keeps running after a one-shot command's answer."""
    _tree(tmp_path)
    with open_context(tmp_path) as ctx:
        assert _query(ctx, 5_000)[1] == 4
        assert not ctx.has_service("semantic.name_continuations")
        assert _query(ctx, 5_000)[1] == 2
