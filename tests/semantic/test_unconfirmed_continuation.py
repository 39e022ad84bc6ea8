"""A daemon's references query that left candidate files unchecked (its per-query parse bounds)
has them parsed between requests (agent/semantic/name_continuation.py): the next query reports
every candidate checked, with the same hits an unbounded query finds, and the work waits while a
request is being answered."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from agent.bootstrap import open_context
from agent.semantic.name_continuation import continuations
from agent.semantic.name_occurrences import NameSearch, source_listing, unconfirmed_hits
from agent.syntax.languages import parse
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


def _thread_cpu(thread: threading.Thread | None) -> float:
    assert thread is not None and thread.native_id is not None
    return int(Path(f"/proc/self/task/{thread.native_id}/schedstat").read_text().split()[0]) / 1e9


def test_a_request_stops_the_parse_of_a_big_candidate(tmp_path: Path) -> None:
    """A request that arrives while the continuation parses a big candidate stops that parse (it
    would keep a core busy beside the request's server), and the file is parsed again, whole,
    once the request is answered."""
    body = "".join(f"def f{i}(a, b):\n    return [a, b, {i}]\n" for i in range(60_000))
    text = "total = 1\n" + body
    (tmp_path / "big.py").write_text(text, encoding="utf-8")
    (tmp_path / "a.py").write_text("total = 2\n" + "x = 0\n" * 200, encoding="utf-8")  # fills the budget
    started = time.perf_counter()
    parse(text, "python")
    alone = time.perf_counter() - started
    assert alone > 0.2, f"big.py parses in {alone:.3f} s: too fast for the check below to tell"
    with open_context(tmp_path) as unbounded:
        everything, none_left = _query(unbounded, 10**9)
    assert none_left == 0 and [h[0] for h in everything] == ["a.py", "big.py"]

    idle = threading.Event()
    idle.set()
    with open_context(tmp_path) as ctx:
        listing = source_listing(ctx)
        listing.prefetch(between=idle.wait)
        listing.poll()
        idle.clear()
        _, left = _query(ctx, 1_000)  # big.py is past the budget: left to the continuation
        assert left == 1
        work = continuations(ctx)
        idle.set()  # between requests: big.py is being parsed
        time.sleep(alone / 4)
        idle.clear()  # a request arrives mid-parse
        time.sleep(0.05)
        cpu = _thread_cpu(work._thread)
        time.sleep(max(0.3, alone / 2))  # the request runs: the continuation must not
        assert _thread_cpu(work._thread) - cpu < 0.05, "the parse went on beside the request"
        assert work.halted >= 1 and work.parsed == 0  # stopped, nothing half-parsed kept
        idle.set()
        assert work.settle(120) and work.parsed == 1
        assert _query(ctx, 1_000) == (everything, 0)  # parsed whole afterwards: the same hits
