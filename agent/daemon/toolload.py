"""The daemon's tools, loaded in two steps: what the first request needs, then the rest.

A daemon started by a cold `codeagent refs|def|rename|diagnostics` answers a semantic tool first
(agent.tools.code). Importing every other tool module too costs ~0.5 s of CPU that would compete
with the language server's cold analysis on a small machine (and, for a TypeScript server that
loads its project inside the first request, add straight to the answer's time). So the daemon
imports the first request's module, answers, and imports the rest after that answer
(`complete_later`). A request naming a tool that is not registered yet waits for the full set
(`complete`) before anything looks the name up: it is answered exactly as by a fully loaded
daemon — the same tool, the same read-only refusal, the same "unknown tool" error.
"""

from __future__ import annotations

import logging
import threading

from ..bootstrap import load_all_tools, load_tools
from ..registry import Registry

log = logging.getLogger("codeagent.daemon")

FIRST_MODULE = "code"  # find_definition, find_references, rename_symbol, get_diagnostics


class ToolLoader:
    """`first` (a module of agent.tools.TOOL_MODULES) is imported now; None imports everything now."""

    def __init__(self, first: str | None = FIRST_MODULE) -> None:
        self._lock = threading.Lock()  # one importer at a time: the registry is filled by imports
        self._complete = first is None
        self._thread: threading.Thread | None = None
        self.registry: Registry = load_all_tools() if first is None else load_tools(first)

    @property
    def completed(self) -> bool:
        return self._complete

    def has(self, name: str) -> bool:
        """Whether `name` is registered; the caller must `complete()` before trusting a False."""
        with self._lock:
            return name in self.registry.names()

    def ensure(self, name: str) -> Registry:
        """The registry, with `name`'s tool in it if any module registers it."""
        if not self._complete and not self.has(name):
            self.complete()
        return self.registry

    def complete(self) -> None:
        """Import every tool module (a no-op once done)."""
        with self._lock:
            if not self._complete:
                load_all_tools()
                self._complete = True

    def complete_later(self) -> None:
        """Import the remaining tool modules on a background thread (once)."""
        if self._complete or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._complete_logged, name="tool-load", daemon=True)
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _complete_logged(self) -> None:
        try:
            self.complete()
        except Exception:  # a broken tool module: the request that needs it reports the error
            log.exception("loading the remaining tools failed")
