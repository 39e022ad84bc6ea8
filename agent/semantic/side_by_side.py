"""The candidate files a references query parses after the server's answer, on two threads.

py-tree-sitter holds the GIL while it parses, so two threads of one process take turns: the
parallelism comes from the session's parse worker (syntax/parse_worker.py), a second process that
takes a big file whenever it is free, while the thread that handed it over waits on a pipe (the GIL
let go) and the other thread parses the next file here. Once the server has answered its core is
free: a query's budget of parses (name_occurrences.MAX_CHECKED_CHARS, up to 2 M characters of
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
# A helper takes files a batch at a time (one hand-over to the parse worker, a few hundred KB):
# many small `.d.ts` files are worth handing over together, not one by one.
BATCH_CHARS = 256_000
_helpers = concurrent.futures.ThreadPoolExecutor(max_workers=max(HELPERS, 1), thread_name_prefix="codeagent-parse")


def side_by_side(jobs: Sequence[tuple[str, int]], work: Callable[[list[str]], dict[str, T]]) -> dict[str, T]:
    """`work(rels)` over the (rel, characters) jobs, biggest first: this thread takes one file at a
    time, HELPERS other threads a batch of up to BATCH_CHARS (each thread takes the next when it
    is done); the results by rel."""
    order = sorted(jobs, key=lambda job: -job[1])
    results: dict[str, T] = {}
    if not HELPERS or len(order) < 2 or sum(size for _rel, size in order) < MIN_CHARS:
        return work([rel for rel, _size in order]) if order else results
    lock = threading.Lock()
    todo = list(reversed(order))  # (popped from the end: biggest first)

    def take(limit: int) -> list[str]:
        batch: list[str] = []
        chars = 0
        with lock:
            while todo and (not batch or chars + todo[-1][1] <= limit):
                rel, size = todo.pop()
                batch.append(rel)
                chars += size
        return batch

    def drain(limit: int) -> None:
        while batch := take(limit):
            results.update(work(batch))  # (dict updates of distinct keys: atomic enough under the GIL)

    helpers = [_helpers.submit(drain, BATCH_CHARS) for _ in range(HELPERS)]
    try:
        drain(0)
    finally:
        for helper in helpers:  # one that never started (the pool busy with another query's) is not waited for
            if not helper.cancel():
                helper.result()  # its exception, if any, is this call's
    return results
