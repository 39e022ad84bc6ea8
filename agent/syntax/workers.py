"""Parsing files for the index in several processes, and how progress is reported meanwhile."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from .extract import FileRecord, Job, extract_many

CHUNKS_PER_WORKER = 8  # enough for the processes to finish together, few enough to keep traffic low
POOL_ERRORS = (OSError, cf.BrokenExecutor, RuntimeError)  # the pool failed, not a file


def deal(jobs: list[Job], workers: int) -> list[list[Job]]:
    """Split the jobs into chunks of about equal bytes: dealt out largest file first."""
    ordered = sorted(jobs, key=lambda job: job[2].st_size, reverse=True)
    count = min(len(jobs), workers * CHUNKS_PER_WORKER)
    return [ordered[i::count] for i in range(count)]


def parse_in_processes(chunks: list[list[Job]], max_bytes: int, checked_ns: int,
                       workers: int) -> Iterator[tuple[list[Job], list[FileRecord]]]:
    """Each chunk and its records, as the `workers` processes finish them. Forked when this
    process has a single thread (fast, nothing to re-import); spawned otherwise, since forking a
    threaded process is unsafe. Raises one of `POOL_ERRORS` if the pool breaks: the chunks
    yielded so far are done, the others are not."""
    fork = threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else "spawn")
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(extract_many, chunk, max_bytes, checked_ns): chunk for chunk in chunks}
        try:
            for future in cf.as_completed(futures):
                yield futures[future], future.result()
        finally:  # left early (an error, the caller gone): do not parse what nobody will read
            pool.shutdown(cancel_futures=True)


ShowProgress = Callable[[int, bool | None], AbstractContextManager[Callable[[int], None]]]
"""How a refresh reports progress: called with the count of files to parse and the caller's wish
(True, False, None for "decide"), it gives an `advance(count)` for the time of the parse. The
syntax layer draws nothing itself; the entry point passes one (agent/progressbar.py)."""


@contextmanager
def no_progress(_total: int, _wanted: bool | None) -> Iterator[Callable[[int], None]]:
    yield lambda _count: None
