"""The bridge's event loop: asyncio in a daemon thread, so synchronous callers (any thread) can
submit coroutines. Servers are spawned from this thread, and PR_SET_PDEATHSIG is tied to the thread
that spawned a process: the loop thread lives as long as the process (or until `close`, which thus
also takes every server started on it down)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """An asyncio event loop in a daemon thread; synchronous callers submit coroutines to it."""

    def __init__(self, name: str = "lsp-bridge-loop") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` on the loop and wait for its result (TimeoutError after `timeout` seconds)."""
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("LoopThread.run called from its own loop (would deadlock)")
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def close(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self.loop.close()


_shared: tuple[int, LoopThread] | None = None
_shared_lock = threading.Lock()


def shared_loop() -> LoopThread:
    """The process-wide bridge loop (recreated in a forked child, where the thread does not exist)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared[0] != os.getpid() or not _shared[1].alive:
            _shared = (os.getpid(), LoopThread())
        return _shared[1]
