"""A long-lived session in this process (an agent run, the MCP server) watches the workspace's
folders as the daemon does (agent/daemon/cached.py), so search_in_files reuses its walk under
the watch (walkcache.py) instead of a stat of every listed folder and file (walkstamps.py).

`watch_session` puts the watch in place (the source listing: one walk of the folders and an
inotify watch on each) and installs a look that runs before every tool call (ToolContext.
before_call). The look drains the watch: servers hear of created or deleted source files, the
file cache drops what an event named, and any event (or lost events) retires every kept walk.
A kept walk is trusted only while the watch is healthy and nothing is queued undrained, so a
write by a tool, a command or an editor after the look is seen by the next use. Without inotify
(or past the kernel's watch limit) nothing is installed and walkstamps.py keeps the walks.
"""

from __future__ import annotations

import os
import threading

from ..toolcontext import ToolContext
from .name_occurrences import SourceListing, source_listing
from .sessions import notify_changed
from .walkcache import walk_cache


class SessionWatch:
    """The WalkGuard of a watched in-process session (see the module's docstring)."""

    def __init__(self, ctx: ToolContext, listing: SourceListing):
        self.ctx = ctx
        self.listing = listing
        self._epoch = 0  # bumped by every look that found an event (or lost events)
        self._lock = threading.Lock()  # read-only calls of the agent loop run on several threads

    def look(self) -> None:
        """Drain what the watch saw since the last look (before each tool call)."""
        with self._lock:
            watcher = self.listing.watcher
            if not watcher.pending() and watcher.events is not None:
                return
            changed = self.listing.poll()
            if changed:
                notify_changed(self.ctx, changed)
            if watcher.events is None or watcher.events:
                self._epoch += 1

    def token(self) -> object | None:
        watcher = self.listing.watcher
        if not watcher.healthy or watcher.events is None or watcher.pending():
            return None
        return (self._epoch, watcher.generation)

    def watches(self, folder: str) -> bool:
        return self.listing.watcher.covers(os.path.join(folder, "-"))


def watch_session(ctx: ToolContext) -> SessionWatch | None:
    """Make `ctx` a watched session (once); None when the folders cannot be watched."""

    def make() -> SessionWatch | None:
        listing = source_listing(ctx)
        listing.poll()  # the first look: from here on the watch's events are known
        if not listing.watcher.healthy:
            listing.watcher.close()
            return None
        watch = SessionWatch(ctx, listing)
        walk_cache(ctx).guard = watch
        ctx.before_call.append(watch.look)
        return watch

    return ctx.service(_SERVICE, make, close=lambda watch: watch.listing.watcher.close() if watch else None)


_SERVICE = "semantic.session_watch"
