"""Texts of workspace files and the code occurrences of names in them, kept for the session (a
ctx service) while each file's stat signature is unchanged: repeated queries in a long-lived
session (the daemon, an agent run) re-read and re-parse only the files that changed."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

from ..toolcontext import ToolContext

MAX_CACHED_CHARS = 64 * 1024 * 1024
MAX_OCCURRENCE_ENTRIES = 50_000
MAX_SPLIT_FILES = 2_000
_SERVICE = "semantic.files"

Signature = tuple[int, int, int]


class FileCache:
    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self._texts: OrderedDict[str, tuple[Signature, str | None]] = OrderedDict()
        self._chars = 0
        self._occurrences: OrderedDict[tuple[str, str], tuple[Signature, list[tuple[int, int]]]] = OrderedDict()
        self._lines: OrderedDict[str, tuple[str, list[str]]] = OrderedDict()  # keyed by the text object
        self._lock = threading.Lock()  # a search may run beside the request that waits for the server

    def _signature(self, rel: str) -> Signature | None:
        try:
            st = os.stat(self.ctx.workspace.root / rel)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def text(self, rel: str) -> str | None:
        """The file's "\\n" text, or None when it cannot be read as text."""
        sig = self._signature(rel)
        if sig is None:
            return None
        with self._lock:
            cached = self._texts.get(rel)
            if cached is not None and cached[0] == sig:
                self._texts.move_to_end(rel)
                return cached[1]
        try:
            text: str | None = self.ctx.workspace.read(rel).text
        except Exception:  # binary, too large, vanished, outside: nothing to show or scan
            text = None
        with self._lock:
            self._store(rel, sig, text)
        return text

    def _store(self, rel: str, sig: Signature, text: str | None) -> None:
        old = self._texts.pop(rel, None)
        if old is not None and old[1] is not None:
            self._chars -= len(old[1])
        self._texts[rel] = (sig, text)
        self._chars += len(text or "")
        while self._chars > MAX_CACHED_CHARS and len(self._texts) > 1:
            _, (_, dropped) = self._texts.popitem(last=False)
            self._chars -= len(dropped or "")

    def lines(self, rel: str) -> list[str] | None:
        """The file's lines (split once while the file is unchanged)."""
        text = self.text(rel)
        if text is None:
            return None
        with self._lock:
            cached = self._lines.get(rel)
            if cached is not None and cached[0] is text:
                self._lines.move_to_end(rel)
                return cached[1]
        split = text.split("\n")
        with self._lock:
            self._lines[rel] = (text, split)
            if len(self._lines) > MAX_SPLIT_FILES:
                self._lines.popitem(last=False)
        return split

    def code_occurrences(self, rel: str, language: str, name: str) -> list[tuple[int, int]]:
        """0-based (line, column) of identifier tokens `name` in code (syntax layer), cached."""
        from ..syntax import code_occurrences

        sig = self._signature(rel)
        key = (rel, name)
        with self._lock:
            cached = self._occurrences.get(key)
            if sig is not None and cached is not None and cached[0] == sig:
                self._occurrences.move_to_end(key)
                return cached[1]
        text = self.text(rel)
        found = code_occurrences(text, language, name) if text else []
        if sig is not None:
            with self._lock:
                self._occurrences[key] = (sig, found)
                if len(self._occurrences) > MAX_OCCURRENCE_ENTRIES:
                    self._occurrences.popitem(last=False)
        return found


def file_cache(ctx: ToolContext) -> FileCache:
    return ctx.service(_SERVICE, lambda: FileCache(ctx))
