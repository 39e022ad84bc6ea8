"""Parsing files for the index in several processes, and how progress is reported meanwhile."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager

from .extract import FileRecord, Job, extract_many
from .languages import UnsupportedLanguageError
from .querywalk import query_walk

CHUNKS_PER_WORKER = 8  # enough for the processes to finish together, few enough to keep traffic low
POOL_ERRORS = (OSError, cf.BrokenExecutor, RuntimeError)  # the pool failed, not a file


def deal(jobs: list[Job], workers: int) -> list[list[Job]]:
    """Split the jobs into chunks of about equal bytes: dealt out largest file first."""
    ordered = sorted(jobs, key=lambda job: job[2].st_size, reverse=True)
    count = min(len(jobs), workers * CHUNKS_PER_WORKER)
    return [ordered[i::count] for i in range(count)]


class ParsePool:
    """The worker processes of one refresh. Chunks may be given while the walk goes on (the first
    files parse before it ends) and after it; `results` yields each chunk with its records as
    the processes finish them. Forked when this process has a single thread (fast, nothing to
    re-import); spawned otherwise, since forking a threaded process is unsafe. `submit` and
    `results` raise one of `POOL_ERRORS` if the pool breaks: `pending` then holds the chunks
    whose records were not yielded. `close` (always) stops the processes."""

    def __init__(self, workers: int, max_bytes: int, checked_ns: int, languages: Iterable[str] = ()):
        fork = threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if fork else "spawn")
        if fork:  # (the processes start at the first submit)
            compile_before_fork(languages)
        self.workers = workers
        self._args = (max_bytes, checked_ns)
        self._pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=context)
        self._futures: dict[cf.Future[list[FileRecord]], list[Job]] = {}
        self._left: dict[int, list[Job]] = {}  # by id: the chunks whose records were not yielded

    @property
    def pending(self) -> list[list[Job]]:
        return list(self._left.values())

    def submit(self, chunks: list[list[Job]]) -> None:
        for chunk in chunks:  # all pending first: a failed submit leaves none unaccounted for
            self._left[id(chunk)] = chunk
        for chunk in chunks:
            self._futures[self._pool.submit(extract_many, chunk, *self._args)] = chunk

    def results(self) -> Iterator[tuple[list[Job], list[FileRecord]]]:
        for future in cf.as_completed(self._futures):
            chunk = self._futures[future]
            records = future.result()
            del self._left[id(chunk)]
            yield chunk, records

    def close(self) -> None:  # (left early, an error: do not parse what nobody will read; twice: nothing)
        self._pool.shutdown(cancel_futures=True)


def compile_before_fork(languages: Iterable[str]) -> None:
    """Compile the outline queries of `languages` in this process, which forked workers inherit:
    each would otherwise compile its own (Python's and JavaScript's together cost ~0.15 G
    instructions, some 50 ms, per process). A language that fails to load is left to the
    workers, which say it as before."""
    for language in languages:
        with contextlib.suppress(UnsupportedLanguageError):
            query_walk(language, "outline")  # (compiles the query too; both are kept per process)


ShowProgress = Callable[[int, bool | None], AbstractContextManager[Callable[[int], None]]]
"""How a refresh reports progress: called with the count of files to parse and the caller's wish
(True, False, None for "decide"), it gives an `advance(count)` for the time of the parse. The
syntax layer draws nothing itself; the entry point passes one (agent/progressbar.py)."""


@contextmanager
def no_progress(_total: int, _wanted: bool | None) -> Iterator[Callable[[int], None]]:
    yield lambda _count: None
