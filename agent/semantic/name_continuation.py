"""Candidate files a references query left unchecked (its per-query parse bounds, see
name_occurrences.unconfirmed_hits), parsed afterwards in a long-lived session (the daemon):
between requests, one file at a time, so the next query for the name finds their code
occurrences in the file cache instead of parsing up to 2 M characters after the server's answer.

Nothing here changes an answer: the parse results go into the file cache (filecache.py), whose
entries are keyed by each file's stat signature and dropped on every watch event naming it, so a
file edited, created or deleted meanwhile is parsed afresh when a query needs it. The worker is a
daemon thread (it never delays the daemon's exit) and waits at `between` (the daemon's "no request
is being answered", an Event's `wait`) before each file. Its parses give way (syntax.giving_way):
a request that arrives mid-file stops that parse at once, and the file is parsed afresh once the
request is answered, so a big file's parse never competes with a request for the machine's cores."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from ..languages import syntax_language
from ..syntax.languages import ParseHalted, giving_way
from ..toolcontext import ToolContext
from .filecache import FileCache, file_cache

Between = Callable[..., object]  # the daemon's idle Event's `wait`: blocks with no timeout, `(0)` polls

MAX_PENDING = 8  # queries whose leftovers wait; past this the next query parses its own as before
_SERVICE = "semantic.name_continuations"


class Continuations:
    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self._queue: queue.Queue[tuple[str, list[str], Between | None]] = queue.Queue(MAX_PENDING)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._busy = 0  # submitted and not done
        self.parsed = 0  # files parsed here (for tests and profiles)
        self.halted = 0  # parses stopped for a request (and done again after it)

    def submit(self, name: str, rels: list[str], between: Between | None) -> bool:
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
                with giving_way(_busy(between)):
                    for rel in rels:
                        language = syntax_language(rel)
                        if language is not None:
                            self._parse(cache, rel, language, name, between)
            finally:
                with self._idle:
                    self._busy -= 1
                    self._idle.notify_all()


    def _parse(self, cache: FileCache, rel: str, language: str, name: str, between: Between | None) -> None:
        """Parse one file for `name` between requests; a parse a request halted starts again after it."""
        while True:
            if between is not None:
                between()
            if cache.cached_occurrences(rel, name) is not None:
                return
            try:
                cache.code_occurrences(rel, language, name)
            except ParseHalted:  # a request came: wait for it, then parse the file afresh
                self.halted += 1
                continue
            except Exception:  # an unreadable file: the next query says so
                return
            self.parsed += 1
            return


def _busy(between: Between | None) -> Callable[[], bool]:
    """Whether a request is being answered now (the idle Event's wait(0) does not wait)."""
    if between is None:
        return lambda: False
    return lambda: not between(0)


def continuations(ctx: ToolContext) -> Continuations:
    return ctx.service(_SERVICE, lambda: Continuations(ctx))
