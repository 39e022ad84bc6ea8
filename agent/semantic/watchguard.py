"""The one rule for trusting a kept search walk (walkcache.py) under a folder watch
(watch.py), for both sessions that keep walks so: the daemon (agent/daemon/cached.py, whose
epoch is its query cache's) and a watched in-process session, an agent run or the MCP server
(session_watch.py, whose epoch is bumped by each look that found a change).

A kept walk is valid while the watch is healthy (every folder watched, no event lost), the last
drain knew what changed (events is not None), nothing is queued that no drain has seen yet, and
neither the owner's epoch nor the watch's generation moved. The kernel queues an event inside
the system call that made the change, so a change made before a call began is seen by that
call's check of `pending`; the owner bumps its epoch when a drain finds one.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .watch import NewFileWatcher


class WatchGuard:
    """A walkcache.WalkGuard: `epoch()` is the owner's count of what it drained (or dropped)."""

    def __init__(self, watcher: NewFileWatcher, epoch: Callable[[], int]):
        self.watcher = watcher
        self.epoch = epoch

    def knows(self) -> bool:
        """The watch sees every change in its folders and its last drain knew what changed."""
        return self.watcher.healthy and self.watcher.events is not None

    def token(self) -> object | None:
        if not self.knows() or self.watcher.pending():
            return None
        return (self.epoch(), self.watcher.generation)

    def watches(self, folder: str) -> bool:
        return self.watcher.covers(os.path.join(folder, "-"))  # covers() looks at a file's folder

    def listings(self) -> dict[str, list[os.DirEntry[str]]] | None:
        return self.watcher.take_listings()
