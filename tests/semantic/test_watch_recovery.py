"""After the kernel drops a long-lived session's folder events (its inotify queue overflowed: a
`git checkout` of thousands of files does it), the session watches again (agent/semantic/watch.py)
instead of stat'ing every file for the rest of its life, and no text cached before the new watch
is trusted until it has been looked at again (agent/semantic/filecache.py): a change made while
events were lost is seen, the kept scans come back, and a change after that is seen at once."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from agent.bootstrap import open_context
from agent.semantic.name_occurrences import NameSearch, source_listing, unconfirmed_hits
from agent.semantic.name_scans import name_scans
from agent.toolcontext import ToolContext

Hits = list[tuple[str, int, int]]


def _queue_limit() -> int:
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 200_000:
        pytest.skip(f"inotify queues {limit} events: overflowing it would take too long here")
    return limit


def _overflow(root: Path, limit: int) -> None:
    """More events than the kernel queues (distinct names: equal events in a row are merged)."""
    junk = root / "junk"
    for i in range(limit + 100):
        os.close(os.open(junk / f"f{i}.txt", os.O_CREAT | os.O_WRONLY, 0o644))


def _query(ctx: ToolContext) -> tuple[Hits, bool]:
    """One daemon-like query (poll, then the search): its hits, and whether a kept scan answered."""
    source_listing(ctx).poll()
    before = name_scans(ctx).reused
    found = unconfirmed_hits(ctx, NameSearch(ctx, "total", "python").start(), {})
    return sorted((h.path, h.line, h.column) for h in found.hits), name_scans(ctx).reused > before


def _until_kept(ctx: ToolContext, expected: Hits) -> None:
    for _ in range(4):
        hits, reused = _query(ctx)
        assert hits == expected
        if reused:
            return
    raise AssertionError("the scan was never kept again")


def test_a_lost_watch_is_replaced_and_what_changed_meanwhile_is_seen(tmp_path: Path) -> None:
    limit = _queue_limit()
    (tmp_path / "junk").mkdir()
    (tmp_path / "a.py").write_text("total = 1\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("import a\nprint(a.total)\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("x = 0\n", encoding="utf-8")
    with open_context(tmp_path) as ctx:
        idle = threading.Event()
        idle.set()
        listing = source_listing(ctx)
        listing.prefetch(between=idle.wait)
        first = [("a.py", 0, 0), ("b.py", 1, 8)]
        _until_kept(ctx, first)
        generation = listing.watcher.generation

        _overflow(tmp_path, limit)
        # Changed while the queue is full: no event of it reaches anyone. c.py's old text is cached.
        (tmp_path / "c.py").write_text("total = 2\n", encoding="utf-8")
        listing.poll()  # the lost events: a new watch; nothing reads c.py in this round
        assert listing.watcher.healthy and listing.watcher.generation > generation
        changed = sorted([*first, ("c.py", 0, 0)])
        hits, reused = _query(ctx)  # the first round under the new watch
        assert (hits, reused) == (changed, False)  # c.py's cached text was not trusted
        _until_kept(ctx, changed)  # the session keeps scans again

        (tmp_path / "b.py").write_text("import a\n", encoding="utf-8")  # seen through the new watch
        assert _query(ctx) == ([("a.py", 0, 0), ("c.py", 0, 0)], False)
