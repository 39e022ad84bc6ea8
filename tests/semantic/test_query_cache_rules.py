"""The query cache's storage rules (agent/daemon/cached.py, agent/semantic/querycache.py): the
daemon's call path run in this process on a real workspace, its real folder watch and the real
basedpyright, with the `computed` seam standing for a write that lands while a query runs; and
the store's bounds (entries, bytes, least recently used first out)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings
from agent.daemon.cached import CachedCalls
from agent.semantic.name_occurrences import SourceListing, source_listing
from agent.semantic.querycache import QueryCache, stamps_of
from agent.toolcontext import ToolContext

APP = "def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"
USER = "from app import greet\n\ngreet('y')\n"
REFS = {"file_path": "app.py", "line": 1, "column": 5}
OLD = 1_600_000_000


@pytest.fixture
def session(root: Path) -> Iterator[tuple[ToolContext, SourceListing]]:
    for rel, text in (("app.py", APP), ("user.py", USER)):
        (root / rel).write_text(text, encoding="utf-8")
        os.utime(root / rel, (OLD, OLD))
    ctx = open_context(root, settings=Settings())
    try:
        yield ctx, source_listing(ctx)
    finally:
        ctx.close()


def _ask(calls: CachedCalls, listing: SourceListing, args: dict[str, Any] = REFS) -> dict[str, Any]:
    """As the daemon does: drain the watch, then answer."""
    listing.poll()
    answer = calls.call("find_references", args, listing)
    result = json.loads(answer) if isinstance(answer, bytes) else answer  # a kept answer is its JSON
    assert result["success"], result
    data: dict[str, Any] = result["data"]
    return data


def test_a_write_during_the_query_is_not_kept(session: tuple[ToolContext, SourceListing], root: Path) -> None:
    ctx, listing = session
    during: list[str] = []

    def computed() -> None:  # the answer is computed; a file is created before it could be stored
        if during:
            (root / during.pop()).write_text("from app import greet\n\ngreet('z')\n", encoding="utf-8")

    calls = CachedCalls(ctx, load_all_tools(), "test", computed=computed)
    assert _ask(calls, listing)["count"] == 4
    assert _ask(calls, listing)["cached"] is True and len(calls.cache) == 1
    during.append("more.py")
    other = {**REFS, "include_declaration": False}
    assert _ask(calls, listing, other)["count"] == 3
    assert len(calls.cache) == 1  # computed across a write: not kept
    fresh = _ask(calls, listing, other)
    assert fresh["count"] == 5 and not fresh.get("cached")
    assert not _ask(calls, listing).get("cached")  # the write's event emptied the cache


def test_an_edit_by_a_tool_of_the_session_empties_the_cache_before_any_watch_reports_it(
        session: tuple[ToolContext, SourceListing]) -> None:
    ctx, listing = session
    registry = load_all_tools()
    calls = CachedCalls(ctx, registry, "test")
    _ask(calls, listing)
    assert _ask(calls, listing)["cached"] is True and len(calls.cache) == 1
    edit = registry.call(ctx, "replace_in_file", {"file_path": "user.py", "old_text": "greet('y')",
                                                  "new_text": "greet('y')\ngreet('w')"})
    assert edit.success, edit.error
    assert len(calls.cache) == 0  # the watch has not been drained since


def test_the_store_is_bounded_by_entries_and_bytes_least_recently_used_first() -> None:
    cache = QueryCache(max_entries=3, max_bytes=400)
    small = {"success": True, "output": "x" * 50, "error": None, "data": {}}
    for key in "abc":
        assert cache.put(key, small, (), cache.epoch)
    assert cache.get("a") is not None  # a is now the most recently used
    assert cache.put("d", small, (), cache.epoch)
    assert len(cache) == 3 and cache.get("b") is None and cache.get("a") is not None
    big = {"success": True, "output": "y" * 300, "error": None, "data": {}}
    assert cache.put("e", big, (), cache.epoch)
    assert cache.size_bytes <= 400 and cache.get("e") is not None and len(cache) < 3
    assert not cache.put("f", {"output": "z" * 500}, (), cache.epoch)  # bigger than the whole cache
    stale_epoch = cache.epoch
    cache.invalidate()
    assert len(cache) == 0 and not cache.put("g", small, (), stale_epoch)  # computed across an invalidation


def test_an_entry_whose_files_changed_is_not_served(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("x = 1\n", encoding="utf-8")
    os.utime(path, (OLD, OLD))
    stamps = stamps_of([str(path)], started_ns=OLD * 10**9 + 10 * 10**9)
    assert stamps is not None
    cache = QueryCache()
    cache.put("k", {"data": {}}, stamps, cache.epoch)
    assert cache.get("k") is not None
    path.write_text("x = 22\n", encoding="utf-8")  # no watch involved: its signature changed
    assert cache.get("k") is None
    assert stamps_of([str(path)], started_ns=OLD * 10**9) is None  # modified within 2 s of the query: not kept


def test_query_cache_off_answers_every_query_from_the_server(root: Path) -> None:
    """`lsp.query_cache = false` (or CODEAGENT_QUERY_CACHE=false): nothing is kept or served."""
    from agent.config import LspSettings

    for rel, text in (("app.py", APP), ("user.py", USER)):
        (root / rel).write_text(text, encoding="utf-8")
        os.utime(root / rel, (OLD, OLD))
    with open_context(root, settings=Settings(lsp=LspSettings(query_cache=False))) as ctx:
        listing = source_listing(ctx)
        calls = CachedCalls(ctx, load_all_tools(), "test")
        assert _ask(calls, listing)["count"] == 4
        again = _ask(calls, listing)
        assert again["count"] == 4 and not again.get("cached") and len(calls.cache) == 0
