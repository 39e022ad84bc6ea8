"""Parsing files for the index in several processes, and the progress bar shown meanwhile."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import threading
from collections.abc import Iterator
from typing import Any

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


class Progress:
    """A rich progress bar on stderr, or nothing. It starts at the first `advance`, so that
    worker processes are forked before its drawing thread exists."""

    def __init__(self, total: int, show: bool):
        self.total = total
        self._show = show
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        return self

    def advance(self, count: int) -> None:
        if not self._show:
            return
        if self._bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("indexing symbols"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("index", total=self.total)
        self._bar.advance(self._task, count)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
