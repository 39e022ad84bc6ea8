"""The file selections of search_in_files (the gitignore-aware walk and a stat per file), kept by
a long-lived session under a folder watch (the daemon, an agent run, the MCP server) while
nothing can have changed them. ripgrep always runs on the selection, so answers stay fresh: only
the walk is reused.

Validity is watchguard.py's rule: the owner installs a `WalkGuard` (the daemon before each
call, agent/daemon/cached.py; a watched session once, session_watch.py); its token is the
owner's epoch and the watch's generation, and None while the watch is unhealthy or holds events
no drain has seen. Every file event in a watched folder (the watch's mask includes writes, so a
size change or a .gitignore edit counts) bumps the epoch (the daemon's query cache is emptied),
which retires every selection. What the watch does not see - the walk visits hidden folders,
which the watch leaves out, and symlinked files point elsewhere - is covered by the stamps of
those folders, their selected files and .gitignore, and the links' targets, checked again on
each reuse (agent/treestamps.py, the stat check of a daemon-less session's kept walks too)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .. import treestamps
from ..toolcontext import ToolContext
from .querycache import MAX_STAMPS

MAX_ENTRIES = 16
MAX_FILES = 500_000  # over all kept selections (a Django-sized one holds ~7,000)
_SERVICE = "semantic.walks"
_START = "semantic.walks.start"


class WalkGuard(Protocol):
    def token(self) -> object | None:
        """What must not change while a selection is valid; None: nothing can be trusted now."""

    def watches(self, folder: str) -> bool:
        """Whether a change in `folder` (absolute) raises an event."""

    def listings(self) -> dict[str, list[os.DirEntry[str]]] | None:
        """Once, the watch's own first listing of each folder it watches, if each is still the
        folder as it is (watch.py `take_listings`): the first walk need not list them again."""


@dataclass(frozen=True, slots=True)
class Selection:
    files: tuple[tuple[str, str], ...]  # (absolute path, workspace-relative name), sorted by name
    too_big: tuple[str, ...]  # names over the read limit


@dataclass(frozen=True, slots=True)
class _Entry:
    token: object
    selection: Selection
    paths: tuple[str, ...]  # what the watch cannot see (see the module's docstring)
    stamps: tuple[treestamps.Stamp, ...]


class WalkCache:
    def __init__(self) -> None:
        self.guard: WalkGuard | None = None  # set by the owner (the daemon: before each call)
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def token(self) -> object | None:
        return self.guard.token() if self.guard is not None else None

    def listings(self) -> dict[str, list[os.DirEntry[str]]] | None:
        return self.guard.listings() if self.guard is not None else None

    def get(self, key: str) -> Selection | None:
        token = self.token()
        if token is None:
            return None
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or entry.token != token or not treestamps.hold(entry.paths, entry.stamps):
            return None
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
        return entry.selection

    def put(self, key: str, token: object | None, selection: Selection, folders: list[str],
            links: list[str], started_ns: int) -> bool:
        """Keep a selection walked from `token` on (the token before the walk began); False when
        something changed meanwhile or what the watch cannot see is too much or too recent."""
        guard = self.guard
        if guard is None or token is None or len(selection.files) > MAX_FILES:
            return False
        unwatched = {f for f in folders if not guard.watches(f)}
        paths = set(links)
        for folder in unwatched:
            paths.update((folder, os.path.join(folder, ".gitignore")))
        paths.update(a for a, _ in selection.files if os.path.dirname(a) in unwatched)
        if len(paths) > MAX_STAMPS:
            return False
        stamped = sorted(paths)
        stamps = treestamps.take(stamped, started_ns)
        if stamps is None or guard.token() != token:
            return False
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = _Entry(token, selection, tuple(stamped), tuple(stamps))
            while len(self._entries) > MAX_ENTRIES or sum(len(e.selection.files) for e in self._entries.values()) > MAX_FILES:
                self._entries.popitem(last=False)
        return True


def walk_cache(ctx: ToolContext) -> WalkCache:
    """The session's store (created by the daemon)."""
    return ctx.service(_SERVICE, WalkCache)


def start_on_first_need(ctx: ToolContext, start: Callable[[], object]) -> None:
    """`start()` makes this session keep selections (creating the store and its guard, or not):
    called by the first kept_walks, not now (session_watch.watch_later: a session that never
    searches never walks its folders for a watch). It must be idempotent (later calls are cheap
    no-ops: it is called again while no store exists)."""
    ctx.service(_START, lambda: start)


def kept_walks(ctx: ToolContext) -> WalkCache | None:
    """The store if this session keeps selections (the daemon, a watched session), else None."""
    if not ctx.has_service(_SERVICE) and ctx.has_service(_START):
        ctx.service(_START, lambda: lambda: None)()  # (the start is there: this factory is not called)
    return walk_cache(ctx) if ctx.has_service(_SERVICE) else None
