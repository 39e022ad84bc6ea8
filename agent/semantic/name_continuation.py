"""Candidate files a references query left unchecked (its per-query parse bounds, see
name_occurrences.unconfirmed_hits), parsed afterwards in a long-lived session (the daemon):
between requests, a batch at a time, so the next query for the name finds their code
occurrences in the file cache instead of parsing up to 2 M characters after the server's answer.

Nothing here changes an answer: the parse results go into the file cache (filecache.py), whose
entries are keyed by each file's stat signature and dropped on every watch event naming it, so a
file edited, created or deleted meanwhile is parsed afresh when a query needs it. The worker is a
daemon thread (it never delays the daemon's exit) and waits at `between` (the daemon's "no request
is being answered") before each batch. A batch goes to the session's parse worker process when it
is free, so a request arriving meanwhile finds this process's GIL free; only a batch parsed here
(the worker busy or not started) competes with it for the interpreter.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterator

from ..languages import syntax_language
from ..toolcontext import ToolContext
from .filecache import FileCache, file_cache

MAX_PENDING = 8  # queries whose leftovers wait; past this the next query parses its own as before
_SERVICE = "semantic.name_continuations"


class Continuations:
    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self._queue: queue.Queue[tuple[str, list[str], Callable[[], object] | None]] = queue.Queue(MAX_PENDING)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._busy = 0  # submitted and not done
        self.parsed = 0  # files parsed here (for tests and profiles)

    def submit(self, name: str, rels: list[str], between: Callable[[], object] | None) -> bool:
        """Parse `rels` for `name` later; False when too much is waiting already."""
        with self._lock:
            try:
                self._queue.put_nowait((name, list(rels), between))
            except queue.Full:
                return False
            self._busy += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="codeagent-unconfirmed", daemon=True)
                self._thread.start()
        return True

    def settle(self, timeout: float) -> bool:
        """Wait until everything submitted is parsed; False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._busy == 0, timeout)

    def _run(self) -> None:
        cache = file_cache(self.ctx)
        while True:
            name, rels, between = self._queue.get()
            try:
                for batch in _batches(cache, rels, name):
                    if between is not None:
                        between()
                    with contextlib.suppress(Exception):  # an unreadable file: the next query says so
                        cache.occurrences_many(batch, name)
                        self.parsed += len(batch)
            finally:
                with self._idle:
                    self._busy -= 1
                    self._idle.notify_all()


def _batches(cache: FileCache, rels: list[str], name: str) -> Iterator[list[tuple[str, str]]]:
    """The files still to parse, a batch of up to BATCH_CHARS at a time while the session's parse
    worker is free (one hand-over: it parses them without this process's GIL), else one by one
    (FileCache.batch_chars)."""
    batch: list[tuple[str, str]] = []
    chars = 0
    for rel in rels:
        language = syntax_language(rel)
        if language is None or cache.cached_occurrences(rel, name) is not None:
            continue
        batch.append((rel, language))
        chars += len(cache.text(rel) or "")
        if chars >= cache.batch_chars():
            yield batch
            batch, chars = [], 0
    if batch:
        yield batch


def continuations(ctx: ToolContext) -> Continuations:
    return ctx.service(_SERVICE, lambda: Continuations(ctx))
