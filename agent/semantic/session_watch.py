"""A long-lived session in this process (an agent run, the MCP server) watches the workspace's
folders as the daemon does (agent/daemon/cached.py), so search_in_files reuses its walk under
the watch (walkcache.py) instead of a stat of every listed folder and file (walkstamps.py).

`watch_later` (at the session's start) costs nothing: the watch is put in place on first need,
by the first search that would keep a walk (walkcache.kept_walks). Before that nothing is kept,
so nothing needs the watch; the walk that first search makes comes after the watch is in place,
so a change made after that is an event, and one made before is in the walk (which takes the
watch's own listings of the folders it watches, watch.py `take_listings`: one listing each).

`watch_session` puts the watch in place (the source listing: one walk of the folders and an
inotify watch on each) and installs a look that runs before every tool call (ToolContext.
before_call). The look drains the watch: servers hear of created or deleted source files, the
file cache drops what an event named, and any event (or lost events) retires every kept walk.
Whether a kept walk is trusted is watchguard.py's rule, the daemon's too, with the session's
own epoch; so a write by a tool, a command or an editor after the look is seen by the next use.
Without inotify (or past the kernel's watch limit) nothing is installed and walkstamps.py keeps
the walks.
"""

from __future__ import annotations

import threading

from ..toolcontext import ToolContext
from .name_occurrences import SourceListing, source_listing
from .sessions import notify_changed
from .walkcache import start_on_first_need, walk_cache
from .watchguard import WatchGuard


class SessionWatch(WatchGuard):
    """The walk guard of a watched in-process session and its look (see the module's docstring)."""

    def __init__(self, ctx: ToolContext, listing: SourceListing):
        super().__init__(listing.watcher, lambda: self._epoch)
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


def watch_later(ctx: ToolContext) -> None:
    """Make `ctx` a watched session from its first search that would keep a walk on."""
    start_on_first_need(ctx, lambda: watch_session(ctx))


def watch_session(ctx: ToolContext) -> SessionWatch | None:
    """Make `ctx` a watched session now (once); None when the folders cannot be watched."""

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
