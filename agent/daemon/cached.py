"""The daemon's tool calls, with repeated read-only semantic queries answered from a cache
(agent/semantic/querycache.py) while their inputs cannot have changed.

Key: the tool, its validated arguments (defaults filled in, the path normalised), the daemon's
settings fingerprint and the identity of the running servers (name and pid: a restarted server
may answer differently).

Validity. An entry is served only while the folder watch of the daemon's source listing
(agent/semantic/watch.py, inotify on every folder) is healthy and has delivered no event since
the answer was computed: the daemon drains the watch before each request, and any event, a
lost event (queue overflow), a folder that stopped being watched or no watch at all empties the
cache (after an overflow the listing puts a new watch in place, and answers are kept again from
the next request on: agent/semantic/watch.py). The kernel queues an event inside the system call that made the change, so a change made
before a request began is always seen by that request's drain — there is no window in which a
written file's event "has not arrived yet"; checking it costs a select on the watch's fd. On top:
- an answer is stored only if no event is queued once it is computed (a write during the query)
  and no invalidation came in between (a write by a tool of this daemon: ServerSync calls
  forget_queries, before any watch reports it);
- a hit is refused while events are queued that no drain has seen yet;
- each entry re-checks the stat signatures of the files it names (what no watch sees: folders
  that are not watched, mmap writes), and an answer naming a file modified in the last 2 s is
  not stored (the same mtime tick could hide a second change);
- a tool that changes files or runs commands empties the cache before and after it runs.
Settings are part of the key; a changed user or project config restarts the daemon anyway.
search_in_files' kept walks follow the same rule: agent/semantic/watchguard.py, the one an agent
run and the MCP server use too, given this cache's epoch (bumped by every invalidation above).
"""

from __future__ import annotations

import json
import posixpath
import time
from collections.abc import Callable
from typing import Any

from ..errors import ToolUsageError
from ..registry import Registry
from ..semantic.name_occurrences import SourceListing
from ..semantic.querycache import CACHED_TOOLS, QueryCache, named_paths, query_cache, stamps_of
from ..semantic.sessions import running_sessions
from ..semantic.walkcache import walk_cache
from ..semantic.watchguard import WatchGuard
from ..toolcontext import ToolContext
from .protocol import EncodedResult
from .wire import result_head


class CachedCalls:
    """`call` runs one tool call of the daemon. `computed` (a seam for tests) is called after an
    uncached answer is computed and before it may be stored."""

    def __init__(self, ctx: ToolContext, registry: Registry, settings_id: str, *,
                 computed: Callable[[], object] | None = None):
        self.ctx = ctx
        self.registry = registry
        self.settings_id = settings_id
        self.cache: QueryCache = query_cache(ctx)
        self.computed = computed
        self._generation: int | None = None  # of the watch, when entries were last valid
        self.walks = walk_cache(ctx)  # search_in_files' selections, valid under the same rule
        self._guard: WatchGuard | None = None  # the walks' guard: the watch's rule, with the cache's epoch

    def call(self, name: str, args: dict[str, Any], listing: SourceListing | None) -> dict[str, Any] | EncodedResult:
        """The result of one call: a dict, or a kept answer as its JSON (data `cached` is true);
        `listing` was polled just before (None: no watch yet)."""
        if listing is not None and (self._guard is None or self._guard.watcher is not listing.watcher):
            self._guard = WatchGuard(listing.watcher, lambda: self.cache.epoch)
        guard = self._guard if listing is not None else None
        watcher = guard.watcher if guard is not None and guard.knows() else None  # None: nothing can be known
        if watcher is None or watcher.events or watcher.generation != self._generation:
            self.cache.invalidate()  # something changed, or nothing can be known
            self._generation = watcher.generation if watcher is not None else None
        self.walks.guard = guard if watcher is not None else None
        try:
            tool, params = self.registry.validate(name, args)
        except ToolUsageError:
            return self.registry.call(self.ctx, name, args).to_dict()  # the registry words the error
        if not tool.read_only:
            self.cache.invalidate()
            try:
                return self.registry.execute(self.ctx, tool, params).to_dict()
            finally:
                self.cache.invalidate()
        if name not in CACHED_TOOLS or watcher is None or not self.ctx.settings.lsp.query_cache:
            return self.registry.execute(self.ctx, tool, params).to_dict()
        call = params.model_dump(mode="json")
        if isinstance(call.get("file_path"), str):
            call["file_path"] = self._same_file(call["file_path"])
        if not watcher.pending():
            hit = self.cache.get(self._key(name, call))
            if hit is not None:
                kept = EncodedResult(hit.encoded)
                kept.head = hit.head  # (sent before it, as any result's head: the CLI reads it alone)
                return kept
        epoch, generation, started = self.cache.epoch, watcher.generation, time.time_ns()
        result = self.registry.execute(self.ctx, tool, params).to_dict()
        if self.computed is not None:
            self.computed()
        data = result.get("data") or {}
        if (result.get("success") and data.get("source", "lsp") == "lsp" and data.get("complete") is not False
                and watcher.healthy and watcher.generation == generation and not watcher.pending()):
            also = [call["file_path"]] if isinstance(call.get("file_path"), str) else []
            paths = named_paths(self.ctx.workspace.root, data, also)
            stamps = stamps_of(paths, started) if paths is not None else None
            if stamps is not None and not watcher.pending():
                stored = {**result, "data": {**data, "cached": True}}
                self.cache.put(self._key(name, call), stored, stamps, epoch, head=result_head(stored))
        return result

    def _same_file(self, path: str) -> str:
        """One form for the ways a call can name the same file: relative to the root (the CLI sends
        an absolute path when run from a folder inside the root; tools read a relative path
        against the root), `.` and doubled slashes dropped. A path with `..` (after a symlinked
        folder it is not the lexical parent) or a trailing slash keeps its form: another form is
        only a miss, never another file's answer."""
        if path.endswith("/") or ".." in path.split("/"):
            return path
        path = posixpath.normpath(path)
        root = str(self.ctx.workspace.root)
        if path.startswith(root.rstrip("/") + "/"):
            return path[len(root.rstrip("/")) + 1:]
        return path

    def _key(self, name: str, call: dict[str, Any]) -> str:
        servers = sorted((s.spec.name, s.pid or 0) for s in running_sessions(self.ctx))
        return json.dumps([name, call, self.settings_id, servers], sort_keys=True, separators=(",", ":"))

