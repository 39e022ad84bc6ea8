"""The candidate files a references query parses after the server's answer, on two threads.

tree-sitter releases the GIL while it parses, and once the server has answered its core is free: a
query's budget of parses (name_occurrences.MAX_CHECKED_CHARS, up to 2 M characters of
@aws-sdk/client-ec2's bundles, ~0.3-0.7 s of one core) then takes about half the wall time. Which
files are parsed is decided before this runs, so the answer is the same as one thread's; the file
cache (filecache.py) makes sure no file is parsed by two threads at once."""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
HELPERS = 1 if (os.cpu_count() or 1) > 1 else 0  # beside the request's own thread
# Not worth a hand-over below this: the thread wake-up costs more than a small file's parse.
MIN_CHARS = 200_000
_helpers = concurrent.futures.ThreadPoolExecutor(max_workers=max(HELPERS, 1), thread_name_prefix="codeagent-parse")


def side_by_side(jobs: Sequence[tuple[str, int]], work: Callable[[str], T]) -> dict[str, T]:
    """`work(rel)` for each (rel, characters) job, on this thread and HELPERS others, biggest
    first (each thread takes the next job when it is done with one); results by rel."""
    order = sorted(jobs, key=lambda job: -job[1])
    results: dict[str, T] = {}
    if not HELPERS or len(order) < 2 or sum(size for _rel, size in order) < MIN_CHARS:
        for rel, _size in order:
            results[rel] = work(rel)
        return results
    lock = threading.Lock()
    todo = iter(order)

    def drain() -> None:
        while True:
            with lock:
                job = next(todo, None)
            if job is None:
                return
            results[job[0]] = work(job[0])  # (a dict item set is atomic)

    helpers = [_helpers.submit(drain) for _ in range(HELPERS)]
    try:
        drain()
    finally:
        for helper in helpers:  # one that never started (the pool busy with another query's) is not waited for
            if not helper.cancel():
                helper.result()  # its exception, if any, is this call's
    return results
