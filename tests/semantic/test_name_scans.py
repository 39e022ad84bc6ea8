"""A long-lived session keeps each name's unconfirmed same-name scan (agent/semantic/name_scans.py)
while its folder watch reports no change: a repeated query reuses it, and an edit, a created or a
deleted file, a write during the request, other confirmed positions or a lost watch give the
fresh answer (never a stale one). After the kernel drops the watch's events (its queue overflowed:
a `git checkout` of thousands of files does it) the session watches again, and no text cached
before the new watch is trusted until it has been looked at again (FileCache.watch_began)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from agent.bootstrap import open_context
from agent.semantic.filecache import file_cache
from agent.semantic.name_occurrences import NameSearch, source_listing, unconfirmed_hits
from agent.semantic.name_scans import name_scans
from agent.toolcontext import ToolContext

Hits = list[tuple[str, int, int]]


def _tree(root: Path) -> None:
    (root / "a.py").write_text("total = 1\n", encoding="utf-8")
    (root / "b.py").write_text("import a\nprint(a.total)\n", encoding="utf-8")
    (root / "c.py").write_text("x = 0\n", encoding="utf-8")
    (root / "s.py").write_text("'total'  # total\n", encoding="utf-8")  # the word, not in code


def _query(ctx: ToolContext, confirmed: dict[str, set[tuple[int, int]]] | None = None) -> tuple[Hits, bool]:
    """One daemon-like query (poll, then the search started as a server request would): its hits,
    and whether the kept scan answered it."""
    source_listing(ctx).poll()
    before = name_scans(ctx).reused
    found = unconfirmed_hits(ctx, NameSearch(ctx, "total", "python").start(), confirmed or {})
    return sorted((h.path, h.line, h.column) for h in found.hits), name_scans(ctx).reused > before


def _fresh_then_kept(ctx: ToolContext, expected: Hits) -> None:
    """After a change: the next answer is computed afresh, and a later one (once the changed texts
    are cached: a scan that read a file is not kept) reuses the kept scan; every one is `expected`."""
    assert _query(ctx) == (expected, False)
    for _ in range(3):
        hits, reused = _query(ctx)
        assert hits == expected
        if reused:
            return
    raise AssertionError("the scan was never reused")


def _session(ctx: ToolContext) -> None:
    idle = threading.Event()
    idle.set()
    source_listing(ctx).prefetch(between=idle.wait)


def test_a_repeated_scan_is_reused_until_a_file_changes(tmp_path: Path) -> None:
    _tree(tmp_path)
    with open_context(tmp_path) as ctx:
        _session(ctx)
        first = [("a.py", 0, 0), ("b.py", 1, 8)]
        assert _query(ctx) == (first, False)
        assert _query(ctx) == (first, True)
        assert _query(ctx) == (first, True)

        (tmp_path / "b.py").write_text("import a\nprint(a.total)\na.total += 1\n", encoding="utf-8")
        edited = [("a.py", 0, 0), ("b.py", 1, 8), ("b.py", 2, 2)]
        _fresh_then_kept(ctx, edited)

        (tmp_path / "d.py").write_text("from a import total\n", encoding="utf-8")
        created = [*edited, ("d.py", 0, 14)]
        _fresh_then_kept(ctx, created)

        (tmp_path / "a.py").unlink()
        deleted = created[1:]
        _fresh_then_kept(ctx, deleted)

        # a file in a new folder, with no text of it cached yet
        (tmp_path / "pkg").mkdir()
        (tmp_path / "pkg" / "e.py").write_text("total = 3\n", encoding="utf-8")
        in_folder = sorted([*deleted, ("pkg/e.py", 0, 0)])
        _fresh_then_kept(ctx, in_folder)


def test_other_confirmed_positions_are_filtered_afresh(tmp_path: Path) -> None:
    _tree(tmp_path)
    with open_context(tmp_path) as ctx:
        _session(ctx)
        assert _query(ctx) == ([("a.py", 0, 0), ("b.py", 1, 8)], False)
        assert _query(ctx, {"b.py": {(1, 8)}}) == ([("a.py", 0, 0)], False)
        assert _query(ctx, {"b.py": {(1, 8)}}) == ([("a.py", 0, 0)], True)
        assert _query(ctx) == ([("a.py", 0, 0), ("b.py", 1, 8)], False)


def test_a_write_during_the_request_is_seen(tmp_path: Path) -> None:
    """A file changed after the search started (a tool of this session wrote it: forget_written)."""
    _tree(tmp_path)
    with open_context(tmp_path) as ctx:
        _session(ctx)
        assert _query(ctx)[1] is False
        assert _query(ctx)[1] is True
        source_listing(ctx).poll()
        search = NameSearch(ctx, "total", "python").start()  # the kept list is handed out here
        (tmp_path / "c.py").write_text("total = 2\n", encoding="utf-8")
        file_cache(ctx).forget(["c.py"])
        found = unconfirmed_hits(ctx, search, {})
        assert sorted((h.path, h.line) for h in found.hits) == [("a.py", 0), ("b.py", 1), ("c.py", 0)]
        assert search.files() == ["a.py", "b.py", "c.py", "s.py"]  # a later caller (rename's textual pass) too


def test_nothing_is_reused_without_a_watch(tmp_path: Path) -> None:
    _tree(tmp_path)
    with open_context(tmp_path) as ctx:
        _session(ctx)
        assert _query(ctx)[1] is False
        assert _query(ctx)[1] is True
        source_listing(ctx).watcher.close()  # the watch is gone (or its events were lost)
        (tmp_path / "c.py").write_text("total = 2\n", encoding="utf-8")
        hits, reused = _query(ctx)
        assert not reused and ("c.py", 0, 0) in hits
        assert _query(ctx)[1] is False


def test_a_one_shot_session_keeps_nothing(tmp_path: Path) -> None:
    _tree(tmp_path)
    with open_context(tmp_path) as ctx:
        for _ in range(2):
            found = unconfirmed_hits(ctx, NameSearch(ctx, "total", "python").start(), {})
            assert sorted(h.path for h in found.hits) == ["a.py", "b.py"]
        assert name_scans(ctx).reused == 0


def test_a_lost_watch_is_replaced_and_what_changed_meanwhile_is_seen(tmp_path: Path) -> None:
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 200_000:
        pytest.skip(f"inotify queues {limit} events: overflowing it would take too long here")
    _tree(tmp_path)
    (tmp_path / "junk").mkdir()
    with open_context(tmp_path) as ctx:
        _session(ctx)
        listing = source_listing(ctx)
        first = [("a.py", 0, 0), ("b.py", 1, 8)]
        _fresh_then_kept(ctx, first)
        generation = listing.watcher.generation
        for i in range(limit + 100):  # more events than the kernel queues (distinct names: no merging)
            os.close(os.open(tmp_path / "junk" / f"f{i}.txt", os.O_CREAT | os.O_WRONLY, 0o644))
        # Changed while the queue is full: no event of it reaches anyone. c.py's old text is cached.
        (tmp_path / "c.py").write_text("total = 2\n", encoding="utf-8")
        listing.poll()  # the lost events: a new watch; nothing reads c.py in this round
        assert listing.watcher.healthy and listing.watcher.generation > generation
        _fresh_then_kept(ctx, sorted([*first, ("c.py", 0, 0)]))  # c.py's cached text was not trusted
        (tmp_path / "b.py").write_text("import a\n", encoding="utf-8")  # seen through the new watch
        assert _query(ctx) == ([("a.py", 0, 0), ("c.py", 0, 0)], False)
